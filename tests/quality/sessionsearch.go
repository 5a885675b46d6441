package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// System is a search program under measurement.
type System interface {
	// Name is the system's row in the tables.
	Name() string
	// ContentQuery is the query the system is asked for a question's
	// content words.
	ContentQuery(words []string) string
	// Ask runs query, asked at the time at, and maps the answer onto the
	// corpus.
	Ask(ctx context.Context, query string, at time.Time) (Ranked, error)
}

// operator is whom sessionsearch searches as: the CLI's operator
// (docs/cli.md C6), who sees every session, with 25 results.
var operator = map[string]any{
	"caller":       "agent:main:main",
	"visibility":   "all",
	"agentToAgent": map[string]any{"enabled": true, "allow": []string{"*"}},
	"limit":        25,
}

// sessionKeyPrefix is the start of a Claude Code session's key
// (docs/agents/claude-code.md AC3).
const sessionKeyPrefix = "agent:claude-code:"

// ImportSessionsearch imports the corpus with `bin import --include
// claude-code` into the database dbPath, with HOME set to the corpus's home
// as a user's would be.
func ImportSessionsearch(ctx context.Context, bin, dbPath string, c *Corpus) error {
	cmd := exec.CommandContext(ctx, bin, "import", "--include", "claude-code", "--db", dbPath)
	cmd.Env = append(os.Environ(), "HOME="+c.Home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s import: %v\n%s", bin, err, out)
	}
	return nil
}

// sessionsearchSystem asks sessions_search through the Go driver, with one
// variant's options.
type sessionsearchSystem struct {
	name    string
	corpus  *Corpus
	search  *sql.Stmt
	options string
	// askedAt: the variant's "now" is nowAsked, so each question's now is
	// the time it is asked (Question.At), not the clock's (docs/quality.md).
	askedAt bool
}

// nowAsked is the value of a variant's "now" that stands for the time a
// question is asked: LoCoMo's questions are asked of a conversation that
// ended in 2023, so "last year" is the year before its end.
const nowAsked = "asked"

// NewSessionsearch returns one system per variant, each asking the store
// at dbPath (opened read-only) with the operator's options and the
// variant's merged over them.
func NewSessionsearch(dbPath string, c *Corpus, variants []benchenv.Variant) ([]System, func(), error) {
	db, err := driver.OpenReadOnly(dbPath)
	if err != nil {
		return nil, nil, err
	}
	stmt, err := db.Prepare(`SELECT sessions_search(?1, ?2)`)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	var out []System
	for _, v := range variants {
		askedAt := string(v.Options["now"]) == `"`+nowAsked+`"`
		if askedAt {
			v.Options = maps.Clone(v.Options)
			delete(v.Options, "now")
		}
		opts, err := v.OptionsJSON(operator)
		if err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		name := "sessionsearch"
		if len(variants) > 1 || v.Name != "default" {
			name += " " + v.Name
		}
		out = append(out, &sessionsearchSystem{name, c, stmt, opts, askedAt})
	}
	return out, func() { stmt.Close(); db.Close() }, nil
}

func (s *sessionsearchSystem) Name() string { return s.name }

// ContentQuery: the words, separated by spaces.
func (s *sessionsearchSystem) ContentQuery(words []string) string { return strings.Join(words, " ") }

func (s *sessionsearchSystem) Ask(ctx context.Context, query string, at time.Time) (Ranked, error) {
	options := s.options
	if s.askedAt {
		// The options are an object: now goes in front of its members.
		options = `{"now":"` + at.UTC().Format(time.RFC3339) + `",` + options[1:]
	}
	var js string
	if err := s.search.QueryRowContext(ctx, query, options).Scan(&js); err != nil {
		return Ranked{}, fmt.Errorf("%s: sessions_search(%q, %s): %w", s.name, query, options, err)
	}
	a, err := ReadSearchAnswer([]byte(js))
	if err != nil {
		return Ranked{}, fmt.Errorf("%s: %w", s.name, err)
	}
	r := Ranked{Bytes: a.Bytes}
	for _, key := range a.Sessions {
		ref, ok := s.corpus.Sessions[strings.TrimPrefix(key, sessionKeyPrefix)]
		if !ok {
			return r, fmt.Errorf("%s: %q returned session %q, which the corpus does not have", s.name, query, key)
		}
		r.Sessions = append(r.Sessions, ref)
	}
	for _, m := range a.Messages {
		ref, ok := s.corpus.Messages[m.Message]
		if !ok {
			return r, fmt.Errorf("%s: %q returned message %q of %q, which the corpus does not have", s.name, query, m.Message, m.Session)
		}
		r.Turns = append(r.Turns, ref)
	}
	return r, nil
}

// dbIn is the database file of sessionsearch in the work directory.
func dbIn(work string) string { return filepath.Join(work, "sessionsearch.db") }
