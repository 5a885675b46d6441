package main

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// The CLI's time bounds (--after, --before) also take what a person types:
// an age back from now (30m, 12h, 7d, 2w) and a calendar date (2026-11-01:
// midnight in the local time zone). They become the RFC 3339 time that the
// option itself takes (epoch milliseconds and RFC 3339 pass through), so
// SQL keeps one grammar (docs/cli.md).

var (
	ageText  = regexp.MustCompile(`^([0-9]+)([smhdw])$`)
	dateText = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// cliTime turns an age or a date into RFC 3339 at now in loc; other text is
// returned as it is.
func cliTime(text string, now time.Time, loc *time.Location) (string, error) {
	if m := ageText.FindStringSubmatch(text); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
		if err != nil || n > int64(200*365*24*time.Hour/unit) {
			return "", fmt.Errorf("an age must be at most 200 years, got %q", text)
		}
		return now.Add(-time.Duration(n) * unit).UTC().Format(time.RFC3339Nano), nil
	}
	if dateText.MatchString(text) {
		d, err := time.ParseInLocation("2006-01-02", text, loc)
		if err != nil {
			return "", fmt.Errorf("not a date: %q", text)
		}
		return d.Format(time.RFC3339), nil
	}
	return text, nil
}

// timeFlag is a time option's flag with cliTime in front of it.
type timeFlag struct {
	flag.Value
	now func() time.Time
}

func (f timeFlag) Set(text string) error {
	t, err := cliTime(text, f.now(), time.Local)
	if err != nil {
		return err
	}
	return f.Value.Set(t)
}

// humanTimes puts cliTime in front of the named flags of fs.
func humanTimes(fs *flag.FlagSet, names ...string) {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			f.Value = timeFlag{f.Value, time.Now}
			f.Usage += "; or a date (2026-11-01, local midnight) or an age back from now (30m, 12h, 7d, 2w)"
		}
	}
}
