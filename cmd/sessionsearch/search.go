package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/query"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("search"))
	db := fs.dbFlag()
	var opts driver.SearchOptions
	specs := sqlfuncs.AnswerOptionSpecs()
	fs.optionFlags(&opts, &opts.Options, specs)
	asJSON := fs.Bool("json", false, "print the JSON of sessions_search")
	src := fs.sourceFlags()
	fs.notes = []string{operatorNote, "A query is words, \"phrases\", a OR b, -word (not) and word* (a prefix). Messages that hold every word come first, then those with other forms of the words or most of them; results are grouped by session (--group message, --match all and --syntax literal turn this off)."}
	terms, err := fs.parse(args)
	if err != nil {
		return err
	}
	// The answer options' defaults (docs/search.md Q31); the others are the
	// store's, or the operator's (withOperator).
	specs.Select("syntax", "match", "group").FillDefaults(&opts)
	query, prefix, err := cliQuery(terms, opts.Syntax)
	if err != nil {
		return err
	}
	opts.Prefix = opts.Prefix || prefix
	if opts.Project != "" && !filepath.IsAbs(opts.Project) {
		// A session's project is an absolute cwd: --project . is here.
		abs, err := filepath.Abs(opts.Project)
		if err != nil {
			return usagef("--project %s: %v", opts.Project, err)
		}
		opts.Project = abs
	}
	withOperator(&opts.Options)
	if err := opts.Validate(); err != nil {
		return usagef("%v", err)
	}
	store, err := src.open(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	defer src.close()
	syncing, err := src.syncFirst(ctx, store.DB)
	if err != nil {
		return err
	}
	res, err := store.Search(ctx, query, opts)
	if err != nil {
		return err
	}
	res.Indexing = res.Indexing || syncing
	if *asJSON {
		return printJSON(e.stdout, res)
	}
	if res.Time != nil {
		// A time phrase became the search's bounds (docs/cli.md C29).
		fmt.Fprintf(e.stdout, "(%q: messages from %s to %s)\n\n", res.Time.Phrase, formatTime(res.Time.After+1), formatTime(res.Time.Before))
	}
	bold := useStyle(e, e.stdout)
	for i, r := range res.Results {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		what := r.Role
		if r.Kind != "" && r.Kind != sqlfuncs.HitMessage {
			what = strings.TrimSpace(r.Kind + " " + r.Tool) // --scope toolCalls, toolResults
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s\n", r.SessionKey, formatTime(r.Timestamp), what, r.MessageID)
		snippet := oneLine(r.Snippet)
		if bold {
			snippet = highlight(snippet, query, opts.Prefix)
		}
		fmt.Fprintf(e.stdout, "    %s\n", snippet)
	}
	if len(res.Results) == 0 {
		fmt.Fprintf(e.stdout, "no results %s\n", who(opts.Options))
		fmt.Fprintln(e.stdout, "(run 'sessionsearch sessions' to see the sessions and their keys)")
	}
	if res.Truncated {
		fmt.Fprintln(e.stdout, "(more results: raise --limit, up to 25, or narrow the query)")
	}
	if res.Indexing {
		fmt.Fprintln(e.stdout, "(indexing is in progress; results may be incomplete: run 'sessionsearch reconcile')")
	}
	return nil
}

// operatorNote explains the default caller of search, history and sessions.
const operatorNote = "Without --caller the command runs as the operator (agent:main:main with\n" +
	"visibility all and every other agent), who sees every session but the\n" +
	"incognito ones. With --caller KEY it sees what that session may see."

// cliQuery joins the query's terms (docs/cli.md C9). In the query
// language (--syntax query, the default) the store reads them. Read
// literally, a last term ending in * is a prefix, and a * anywhere else is
// refused, since the store matches only the last term as a prefix.
func cliQuery(terms []string, syntax string) (q string, prefix bool, err error) {
	words := strings.Fields(strings.Join(terms, " "))
	if len(words) == 0 {
		return "", false, usagef("search needs a QUERY")
	}
	if syntax == query.SyntaxQuery {
		// The query language reads word* itself, wherever it stands.
		return strings.Join(words, " "), false, nil
	}
	for i, w := range words {
		if !strings.HasSuffix(w, "*") {
			continue
		}
		if i != len(words)-1 {
			return "", false, usagef("QUERY: only the last term can be a prefix (word*), got %q", w)
		}
		words[i] = strings.TrimRight(w, "*")
		if words[i] == "" {
			return "", false, usagef("QUERY: a prefix needs at least one character before *, got %q", w)
		}
		prefix = true
	}
	return strings.Join(words, " "), prefix, nil
}

// printJSON prints v on one line, as the store's functions write it: the
// same members, and <, > and & as they are.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// useStyle reports whether w takes bold and terminal control sequences: a
// terminal, unless NO_COLOR is set to anything or TERM is dumb
// (docs/cli.md C11).
func useStyle(e *env, w io.Writer) bool {
	return isTerminal(w) && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// formatTime shows epoch milliseconds in local time with the zone's
// offset; "-" for none.
func formatTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04 -07:00")
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
