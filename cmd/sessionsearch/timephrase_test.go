package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// docs/cli.md C29: `search --time-phrases` reads "yesterday" in the query
// as the day before --now, keeps only that day's messages, and says so
// above the results; without the flag "yesterday" is a word.
func TestSearchTimePhraseBounds(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	search := func(args ...string) driver.SearchResult {
		t.Helper()
		r := mustRun(t, append([]string{"search", "--db", dbFile, "--json", "--limit", "25"}, args...)...)
		var res driver.SearchResult
		decodeStrict(t, r.stdout, &res)
		return res
	}
	all := search("the")
	if len(all.Results) == 0 {
		t.Fatal(`no hits for "the" in the fixtures`)
	}
	// now is the day after the newest hit's, in UTC.
	newest := time.UnixMilli(all.Results[0].Timestamp).UTC()
	for _, h := range all.Results {
		if ts := time.UnixMilli(h.Timestamp).UTC(); ts.After(newest) {
			newest = ts
		}
	}
	day := time.Date(newest.Year(), newest.Month(), newest.Day(), 0, 0, 0, 0, time.UTC)
	now := day.Add(36 * time.Hour).Format(time.RFC3339)

	res := search("the", "yesterday", "--time-phrases", "--now", now)
	if res.Time == nil || res.Time.Phrase != "yesterday" || res.Time.After != day.UnixMilli()-1 || res.Time.Before != day.AddDate(0, 0, 1).UnixMilli() {
		t.Fatalf("the yesterday at %s: time %+v, want yesterday, %s to the next day", now, res.Time, day)
	}
	found := false
	for _, h := range res.Results {
		ts := time.UnixMilli(h.Timestamp)
		if ts.Before(day) || !ts.Before(day.AddDate(0, 0, 1)) {
			t.Errorf("a hit at %s, outside %s", ts, day)
		}
		found = found || h.Timestamp == newest.UnixMilli()
	}
	if !found {
		t.Errorf("the newest hit, at %s, is not among yesterday's: %+v", newest, res.Results)
	}
	if words := search("the", "yesterday", "--now", now); words.Time != nil {
		t.Errorf("without --time-phrases: time %+v", words.Time)
	}

	r := mustRun(t, "search", "--db", dbFile, "the", "yesterday", "--time-phrases", "--now", now)
	want := `("yesterday": messages from ` + formatTime(day.UnixMilli()) + " to " + formatTime(day.AddDate(0, 0, 1).UnixMilli()) + ")"
	if !strings.HasPrefix(r.stdout, want+"\n") {
		t.Errorf("the output does not start with %s:\n%s", want, r.stdout)
	}
}
