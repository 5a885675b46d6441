package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// demoQuery is one search of the demo.
type demoQuery struct {
	query  string
	prefix bool
	note   string
}

// The demo's searches, over the real transcripts of internal/fixtures. The
// CJK queries are where unicode61 fails: it makes a whole run of Han or kana
// one token, so a word inside a sentence is never found. The Cyrillic and
// Latin ones show that nothing is lost where unicode61 does well.
var demoQueries = []demoQuery{
	{"日报", false, "Chinese, 2 characters: daily report"},
	{"授权码", false, "Chinese: authorization code"},
	{"変更", false, "Japanese: change, as in 以外の変更を禁ずる"},
	{"はくあ", false, "Japanese: the assistant's name, in hiragana"},
	{"ПЕРЕВІР", true, "Ukrainian in capitals, as a prefix: перевіряю, перевірив"},
	{"São Paulo", false, "Portuguese with its accent: finds America/Sao_Paulo"},
	{"รายงาน", false, "Thai: report, inside รายงานประจำเดือน, in a Claude Code session"},
	{"세션", false, "Korean: session, as in 세션이 만료되면, in a Claude Code session"},
}

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("demo"))
	db := fs.String("db", "", "build the demo database in this `file` (default: a temporary file, removed afterwards)")
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("demo takes no arguments, got %q", rest[0])
	}
	dbFile := *db
	if dbFile == "" {
		dir, err := os.MkdirTemp("", "sessionsearch-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbFile = filepath.Join(dir, "demo.db")
	}
	store, err := openStore(ctx, e, dbFile)
	if err != nil {
		return err
	}
	defer store.Close()
	// The demo compares every session of the database: refuse one that
	// holds other transcripts than the demo's (a user's real database).
	var others int
	if err := store.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE session_key NOT IN (SELECT value FROM json_each(?))`, demoKeysJSON()).Scan(&others); err != nil {
		return err
	}
	if others > 0 {
		return fmt.Errorf("%s already holds %d sessions that are not the demo's; give --db a new file", dbFile, others)
	}
	transcripts, others, err := importFixtures(ctx, store)
	if err != nil {
		return err
	}
	conn, err := store.Conn(ctx) // the temporary tables live on one connection
	if err != nil {
		return err
	}
	defer conn.Close()
	messages, err := buildComparison(ctx, store, conn)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "Imported %d real OpenClaw transcripts (English, Japanese, Portuguese, Ukrainian, Chinese)\n", transcripts)
	fmt.Fprintf(w, "and %d Claude Code sessions (Thai, Korean; written in its format for this demo, project %s)\n", others, demoProject)
	fmt.Fprintf(w, "into %s: %d user and assistant messages with text on their active branches.\n\n", dbFile, messages)
	fmt.Fprintf(w, "How many of them each query finds, with sessionsearch and with FTS5's unicode61\n")
	fmt.Fprintf(w, "tokenizer (remove_diacritics 2) over the same texts:\n\n")
	for _, q := range demoQueries {
		ours, theirs, example, err := compare(ctx, store, conn, q)
		if err != nil {
			return fmt.Errorf("%s: %w", q.query, err)
		}
		shown := q.query
		if q.prefix {
			shown += "*"
		}
		fmt.Fprintf(w, "  %s  (%s)\n", shown, q.note)
		fmt.Fprintf(w, "    sessionsearch %d, unicode61 %d\n", ours, theirs)
		if example != "" {
			fmt.Fprintf(w, "    e.g. %s\n", example)
		}
		fmt.Fprintln(w)
	}
	// The hint runs as printed (cli_test.go TestDemoHint).
	if *db == "" {
		fmt.Fprintln(w, "To keep the database and search it yourself:")
		fmt.Fprintln(w, "  sessionsearch demo --db demo.db > /dev/null")
		fmt.Fprintln(w, "  sessionsearch search --db demo.db 日报")
		fmt.Fprintln(w, "  sessionsearch search --db demo.db 'ПЕРЕВІР*'")
	} else {
		fmt.Fprintln(w, "Search it yourself:")
		fmt.Fprintf(w, "  sessionsearch search --db %s 日报\n", shellQuote(dbFile))
		fmt.Fprintf(w, "  sessionsearch search --db %s --project %s paginate\n", shellQuote(dbFile), demoProject)
		fmt.Fprintf(w, "  sessionsearch sessions --db %s\n", shellQuote(dbFile))
	}
	return nil
}

// demoKeysJSON returns the session keys of the bundled transcripts, as a
// JSON array: import derives them from the headers' session ids.
func demoKeysJSON() string {
	names, _ := fs.Glob(fixtures.Transcripts, "transcripts/*.jsonl") // the pattern is valid
	keys := []string{}
	for _, name := range names {
		data, err := fs.ReadFile(fixtures.Transcripts, name)
		if err != nil {
			continue
		}
		var h struct{ ID string }
		first, _, _ := strings.Cut(string(data), "\n")
		if json.Unmarshal([]byte(first), &h) == nil {
			keys = append(keys, sessionkey.Derived(sessionkey.DefaultAgent, h.ID, ""))
		}
	}
	agentFiles, _ := fs.Glob(fixtures.Agents, "agents/claude-code/projects/*/*.jsonl") // the pattern is valid
	for _, name := range agentFiles {
		keys = append(keys, agents.Key(agents.ClaudeCode, strings.TrimSuffix(path.Base(name), ".jsonl")))
	}
	b, _ := json.Marshal(keys) // strings always encode
	return string(b)
}

// demoProject is the project directory of the bundled Claude Code sessions.
const demoProject = "/home/ana/src/atlas"

// importFixtures imports the bundled transcripts and the other agents'
// sessions, and indexes them. It returns how many of each it imported.
func importFixtures(ctx context.Context, store *driver.DB) (openclaw, others int, err error) {
	names, err := fs.Glob(fixtures.Transcripts, "transcripts/*.jsonl")
	if err != nil {
		return 0, 0, err
	}
	var problems []string
	im := &importer.Importer{Report: func(p importer.Problem) { problems = append(problems, p.Error()) }}
	sink, err := importer.NewBulkSink(ctx, store.DB, im)
	if err != nil {
		return 0, 0, err
	}
	defer sink.Close()
	im.Sink = sink
	for _, name := range names {
		f, err := fixtures.Transcripts.Open(name)
		if err != nil {
			return 0, 0, err
		}
		src := importer.Source{Kind: importer.JSONLFile, Path: name, AgentID: sessionkey.DefaultAgent, SessionID: strings.TrimSuffix(path.Base(name), ".jsonl")}
		err = im.ImportReader(ctx, src, f)
		f.Close()
		if err != nil {
			return 0, 0, err
		}
	}
	if err := sink.Flush(); err != nil {
		return 0, 0, err
	}
	openclaw = im.Stats().Transcripts
	// The other agents' sessions are read from files, as from a user's
	// home, by their formats' readers.
	dir, err := os.MkdirTemp("", "sessionsearch-demo-agents-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	paths, err := fixtures.WriteAgents(dir)
	if err != nil {
		return 0, 0, err
	}
	plan, planProblems := importer.NewPlan(paths, importer.PlanOptions{})
	for _, p := range planProblems {
		problems = append(problems, p.Error())
	}
	for _, src := range plan.Sources {
		if err := im.Import(ctx, src); err != nil {
			return 0, 0, err
		}
	}
	if err := sink.Close(); err != nil {
		return 0, 0, err
	}
	others = im.Stats().Transcripts - openclaw
	if len(problems) > 0 {
		return 0, 0, fmt.Errorf("importing the bundled transcripts: %s", strings.Join(problems, "; "))
	}
	if _, err := reconcileAll(ctx, store, nil); err != nil {
		return 0, 0, err
	}
	return openclaw, others, nil
}

// buildComparison copies the searchable text of every session, as
// History returns it, into two temporary FTS5 tables of conn: one with the
// sessionsearch tokenizer, one with unicode61. It returns the number of
// messages with text.
func buildComparison(ctx context.Context, store *driver.DB, conn *sql.Conn) (int, error) {
	for _, ddl := range []string{
		`CREATE VIRTUAL TABLE temp.demo_ours USING fts5(body, tokenize='sessionsearch')`,
		`CREATE VIRTUAL TABLE temp.demo_unicode61 USING fts5(body, tokenize='unicode61 remove_diacritics 2')`,
	} {
		if _, err := conn.ExecContext(ctx, ddl); err != nil {
			return 0, err
		}
	}
	sessions, err := store.Sessions(ctx, operatorOptions())
	if err != nil {
		return 0, err
	}
	var texts []string
	for _, s := range sessions {
		h, err := store.History(ctx, s.Key, driver.HistoryOptions{Options: operatorOptions(), Limit: 1000, MaxChars: 100000, MaxBytes: 4 << 20})
		if err != nil {
			return 0, err
		}
		for _, m := range h.Messages {
			if m.Text != "" {
				texts = append(texts, m.Text)
			}
		}
	}
	for _, t := range texts {
		if _, err := conn.ExecContext(ctx, `INSERT INTO demo_ours(body) VALUES (?1)`, t); err != nil {
			return 0, err
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO demo_unicode61(body) VALUES (?1)`, t); err != nil {
			return 0, err
		}
	}
	return len(texts), nil
}

// compare counts the messages each table finds for q, with the same FTS5
// expression (sessions_match), and returns a snippet of sessionsearch's best
// hit.
func compare(ctx context.Context, store *driver.DB, conn *sql.Conn, q demoQuery) (ours, theirs int, example string, err error) {
	count := func(table string) (int, error) {
		var n int
		err := conn.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE `+table+` MATCH sessions_match(?, ?)`, q.query, q.prefix).Scan(&n)
		return n, err
	}
	if ours, err = count("demo_ours"); err != nil {
		return
	}
	if theirs, err = count("demo_unicode61"); err != nil {
		return
	}
	res, err := store.Search(ctx, q.query, driver.SearchOptions{Options: operatorOptions(), Limit: 1, SnippetChars: 70, Prefix: q.prefix})
	if err != nil {
		return
	}
	if len(res.Results) > 0 {
		example = oneLine(res.Results[0].Snippet)
	}
	return
}

// shellQuote quotes a path for a command line to copy, when it needs it.
func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"\\$`!*?;&|<>()[]{}#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
