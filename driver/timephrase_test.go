package driver_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// docs/search.md Q40–Q42: with timePhrases, "what did we decide last week
// about the cache" searches last week for the rest of the question, on a
// real store; the answer says which bounds it applied; explicit after and
// before intersect with the phrase's period; the literal syntax and a
// search without timePhrases read the phrase as words.
func TestSearchTimePhrases(t *testing.T) {
	w := newWorld(t)
	// now is Wednesday 2026-12-09; last week is Monday 11-30 to Sunday 12-06.
	now := time.Date(2026, 12, 9, 15, 0, 0, 0, time.UTC)
	at := func(m time.Month, d int) int64 { return time.Date(2026, m, d, 10, 0, 0, 0, time.UTC).UnixMilli() }
	for _, s := range []struct {
		key, text string
		ts        int64
	}{
		{"agent:main:earlier", "we decided to drop the redis cache", at(11, 20)},
		{"agent:main:lastweek", "we decided to keep the redis cache behind a flag", at(12, 2)},
		{"agent:main:thisweek", "decided the cache size: 2 GB", at(12, 8)},
		{"agent:main:ru", "решили оставить кэш", at(12, 3)},
	} {
		if err := w.db.AddSession(w.ctx, driver.Session{Key: s.key}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.db.Append(w.ctx, s.key, message(s.key+"#0", "", "user", s.text, s.ts)); err != nil {
			t.Fatal(err)
		}
	}
	main := driver.Options{Caller: "agent:main:main"}
	lastWeek := &driver.TimeRange{Phrase: "last week",
		After:  time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMilli() - 1,
		Before: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).UnixMilli()}
	const question = "what did we decide last week about the cache"

	timed := answers(driver.SearchOptions{Options: main, TimePhrases: true, Now: now})
	res := w.search(question, timed)
	if got := keys(res); !slices.Equal(got, []string{"agent:main:lastweek"}) {
		t.Errorf("%q with timePhrases: %v, want only last week's session", question, got)
	}
	if res.Time == nil || *res.Time != *lastWeek {
		t.Errorf("%q: time %+v, want %+v", question, res.Time, lastWeek)
	}
	for _, r := range res.Results {
		if r.Timestamp <= lastWeek.After || r.Timestamp >= lastWeek.Before {
			t.Errorf("hit %s at %d is outside last week", r.MessageID, r.Timestamp)
		}
	}

	// In another language, the same rule.
	ru := w.search("что мы решили на прошлой неделе про кэш", timed)
	if got := keys(ru); !slices.Equal(got, []string{"agent:main:ru"}) || ru.Time == nil || ru.Time.Phrase != "на прошлой неделе" {
		t.Errorf("Russian question: %v, time %+v; want agent:main:ru, на прошлой неделе", got, ru.Time)
	}

	// Explicit bounds intersect: after Thursday 12-03 leaves nothing of
	// last week's session.
	narrowed := timed
	narrowed.After = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	res = w.search(question, narrowed)
	if len(res.Results) != 0 || res.Time == nil || res.Time.After != narrowed.After.UnixMilli() || res.Time.Before != lastWeek.Before {
		t.Errorf("after 12-03 and last week: %v, time %+v; want nothing, after 12-03, before 12-07", keys(res), res.Time)
	}

	// Without timePhrases, and in the literal syntax, "last week" is words.
	res = w.search(question, answers(driver.SearchOptions{Options: main, Now: now}))
	if got := keys(res); len(got) < 3 || res.Time != nil {
		t.Errorf("without timePhrases: %v, time %+v; want every cache session, no time", got, res.Time)
	}
	res = w.search("cache last week", driver.SearchOptions{Options: main, TimePhrases: true, Now: now})
	if len(res.Results) != 0 || res.Time != nil {
		t.Errorf("literal syntax: %v, time %+v; want nothing (no message says last week), no time", keys(res), res.Time)
	}
}
