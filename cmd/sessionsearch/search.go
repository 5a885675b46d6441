package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("search"))
	db := fs.dbFlag()
	who := fs.callerFlags(true)
	limit := fs.Int("limit", 0, "at most `n` results, 1..25 (default 10)")
	session := fs.String("session", "", "search only the session with this `key`")
	prefix := fs.Bool("prefix", false, "match the last query term as a prefix")
	recent := fs.Bool("recent", false, "newest first instead of best first")
	asJSON := fs.Bool("json", false, "print the JSON of sessions_search as it is")
	terms, err := fs.parse(args)
	if err != nil {
		return err
	}
	query := strings.Join(terms, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("search needs a QUERY")
	}
	o := who.options(true)
	if *limit != 0 {
		o["limit"] = *limit
	}
	if *session != "" {
		o["sessionKey"] = *session
	}
	if *prefix {
		o["prefix"] = true
	}
	if *recent {
		o["order"] = sqlfuncs.OrderRecent
	}
	opts := optionsJSON(o)
	// The store checks the options too; checking them here first makes a
	// bad flag value a usage error with the store's own message.
	if _, err := sqlfuncs.ParseSearchOptions(opts); err != nil {
		return usageError{"sessions_search: " + err.Error()}
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	var js string
	if err := store.QueryRowContext(ctx, `SELECT sessions_search(?, ?)`, query, opts).Scan(&js); err != nil {
		return err
	}
	if *asJSON {
		fmt.Fprintln(e.stdout, js)
		return nil
	}
	var res driver.SearchResult
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return fmt.Errorf("sessions_search returned %q: %w", js, err)
	}
	tty := isTerminal(e.stdout)
	for i, r := range res.Results {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s\n", r.SessionKey, formatTime(r.Timestamp), r.Role, r.MessageID)
		snippet := oneLine(r.Snippet)
		if tty {
			snippet = highlight(snippet, query, *prefix)
		}
		fmt.Fprintf(e.stdout, "    %s\n", snippet)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(e.stdout, "no results")
	}
	if res.Truncated {
		fmt.Fprintln(e.stdout, "(more results: raise --limit, up to 25, or narrow the query)")
	}
	if res.Indexing {
		fmt.Fprintln(e.stdout, "(indexing is in progress; results may be incomplete: run 'sessionsearch reconcile')")
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// formatTime shows epoch milliseconds in local time; "-" for none.
func formatTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04")
}

// oneLine folds line breaks and runs of white space, for a list entry, and
// makes control characters visible.
func oneLine(s string) string { return printable(strings.Join(strings.Fields(s), " ")) }

// printable replaces control characters other than line breaks and tabs
// with U+FFFD, so transcript text cannot send escape sequences to the
// terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 {
			return '\uFFFD'
		}
		return r
	}, s)
}
