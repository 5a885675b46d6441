package sqlfuncs

import (
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/query"
)

// TestBounded: a time phrase's period at now (the option, or the clock)
// intersects the options' after and before (docs/search.md Q41).
func TestBounded(t *testing.T) {
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 0, 0, 0, 0, time.UTC) }
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	lastWeek := query.TimePhrase{Text: "last week", Unit: query.UnitWeek, Offset: -1}
	wed := time.Date(2026, 12, 9, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name          string
		opts          SearchOptions
		clock         time.Time
		after, before int64
	}{
		{"now option", SearchOptions{Now: wed}, d(1, 1), ms(d(11, 30)) - 1, ms(d(12, 7))},
		{"the clock", SearchOptions{}, wed, ms(d(11, 30)) - 1, ms(d(12, 7))},
		{"now in Tokyo", SearchOptions{Now: time.Date(2026, 12, 7, 1, 0, 0, 0, time.FixedZone("JST", 9*3600))}, d(1, 1),
			ms(d(11, 30).Add(-9*time.Hour)) - 1, ms(d(12, 7).Add(-9 * time.Hour))},
		{"a later after", SearchOptions{Now: wed, After: d(12, 3)}, d(1, 1), ms(d(12, 3)), ms(d(12, 7))},
		{"an earlier after", SearchOptions{Now: wed, After: d(11, 1)}, d(1, 1), ms(d(11, 30)) - 1, ms(d(12, 7))},
		{"an earlier before", SearchOptions{Now: wed, Before: d(12, 2)}, d(1, 1), ms(d(11, 30)) - 1, ms(d(12, 2))},
		{"a later before", SearchOptions{Now: wed, Before: d(12, 31)}, d(1, 1), ms(d(11, 30)) - 1, ms(d(12, 7))},
		{"disjoint", SearchOptions{Now: wed, Before: d(11, 1)}, d(1, 1), ms(d(11, 30)) - 1, ms(d(11, 1))},
	} {
		o, r := c.opts.Bounded(lastWeek, c.clock)
		if r.Phrase != "last week" || r.After != c.after || r.Before != c.before || o.SQLAfter() != c.after || o.SQLBefore() != c.before {
			t.Errorf("%s: %+v (options %v..%v), want after %d, before %d", c.name, *r, o.SQLAfter(), o.SQLBefore(), c.after, c.before)
		}
	}
}

// TestNowKeepsItsOffset: an RFC 3339 now keeps its offset through the
// options' decoding, so a time phrase's period is that zone's (docs/
// search.md Q41); after and before are instants either way.
func TestNowKeepsItsOffset(t *testing.T) {
	o, err := ParseSearchOptions(`{"caller":"agent:main:main","now":"2026-11-21T10:00:00-10:00","after":"2026-11-01T00:00:00+09:00"}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, off := o.Now.Zone(); off != -10*3600 {
		t.Fatalf("now decoded with offset %d s, want -36000", off)
	}
	lastDay := query.TimePhrase{Text: "yesterday", Unit: query.UnitDay, Offset: -1}
	_, r := o.Bounded(lastDay, time.Time{})
	want := time.Date(2026, 11, 20, 0, 0, 0, 0, time.FixedZone("", -10*3600))
	if r.After != want.UnixMilli()-1 || r.Before != want.AddDate(0, 0, 1).UnixMilli() {
		t.Errorf("yesterday at -10:00: %d..%d, want %d..%d", r.After, r.Before, want.UnixMilli()-1, want.AddDate(0, 0, 1).UnixMilli())
	}
	if _, off := o.After.Zone(); off != 0 || o.After.UnixMilli() != time.Date(2026, 10, 31, 15, 0, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("after decoded as %v", o.After)
	}
}
