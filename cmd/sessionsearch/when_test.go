package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

func TestCLITime(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		in, want, err string
	}{
		{"7d", "2026-11-24T12:00:00Z", ""},
		{"12h", "2026-12-01T00:00:00Z", ""},
		{"30m", "2026-12-01T11:30:00Z", ""},
		{"90s", "2026-12-01T11:58:30Z", ""},
		{"2w", "2026-11-17T12:00:00Z", ""},
		{"0d", "2026-12-01T12:00:00Z", ""},
		{"2026-11-01", "2026-11-01T00:00:00+09:00", ""},
		{"2026-02-30", "", `not a date: "2026-02-30"`},
		{"99999999d", "", `an age must be at most 200 years, got "99999999d"`},
		// Everything else is the option's own grammar, checked there.
		{"1770000000000", "1770000000000", ""},
		{"2026-11-01T09:30:00Z", "2026-11-01T09:30:00Z", ""},
		{"7 days", "7 days", ""},
		{"-7d", "-7d", ""},
	} {
		got, err := cliTime(tc.in, now, tokyo)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("cliTime(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("cliTime(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// search --after and --before take dates and ages, and bound the results
// before the limit (docs/cli.md).
func TestSearchTimeBounds(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	count := func(args ...string) int {
		t.Helper()
		r := mustRun(t, append([]string{"search", "the", "--db", dbFile, "--json", "--limit", "25"}, args...)...)
		var res driver.SearchResult
		decodeStrict(t, r.stdout, &res)
		for _, hit := range res.Results {
			ts := time.UnixMilli(hit.Timestamp)
			for i, a := range args {
				if a == "--after" && !ts.After(mustTime(t, args[i+1])) || a == "--before" && !ts.Before(mustTime(t, args[i+1])) {
					t.Errorf("%v: a hit at %s", args, ts)
				}
			}
		}
		return len(res.Results)
	}
	all := count()
	if all == 0 {
		t.Fatal("no hits for \"the\" in the fixtures")
	}
	if n := count("--after", "1d"); n != 0 {
		t.Errorf("--after 1d found %d messages in fixtures of early 2026", n)
	}
	if n := count("--before", "2000-01-01"); n != 0 {
		t.Errorf("--before 2000-01-01 found %d messages", n)
	}
	if n := count("--after", "2000-01-01", "--before", "1d"); n != all {
		t.Errorf("--after 2000-01-01 --before 1d found %d of %d messages", n, all)
	}
	r := runBinary(t, nil, "search", "the", "--db", dbFile, "--after", "yesterday")
	if r.code != 2 || !strings.Contains(r.stderr, `invalid value "yesterday" for flag -after`) {
		t.Errorf("--after yesterday: exit %d\n%s", r.code, r.stderr)
	}
}

func mustTime(t *testing.T, text string) time.Time {
	t.Helper()
	s, err := cliTime(text, time.Now(), time.Local)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
