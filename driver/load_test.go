package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/bulk"
	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	"github.com/sessionsearch/sessionsearch/store"
)

// loadSession is a transcript to store both ways: its session and events.
type loadSession struct {
	session store.Session
	events  [][]byte
}

// docs/store.md S20: a bulk load leaves the database exactly as inserting
// the same rows with plain SQL through the append trigger does (then
// reconciling what the trigger deferred for its size): every table, row
// for row, the index term for term, and every search and history the
// same, on every fixture and on random transcripts; with the tool index
// (S33) and without it, when neither writes a row of tool text.
func TestLoadEqualsTrigger(t *testing.T) {
	for _, c := range []struct {
		name     string
		sessions func(t *testing.T) []loadSession
	}{
		{"fixtures", fixtureSessions},
		{"agents", agentSessions},
		{"random", func(*testing.T) []loadSession { return randomSessions(rand.New(rand.NewSource(27)), 40, 300) }},
		{"random-frames", func(*testing.T) []loadSession { return randomSessions(rand.New(rand.NewSource(28)), 12, 120) }},
		{"deferred-for-its-size", func(*testing.T) []loadSession { return bigBranchedSession() }},
	} {
		for _, tools := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tools=%v", c.name, tools), func(t *testing.T) { loadEqualsTrigger(t, c.name, c.sessions(t), tools) })
		}
	}
}

func loadEqualsTrigger(t *testing.T, name string, sessions []loadSession, tools bool) {
	if len(sessions) == 0 {
		t.Fatal("no sessions")
	}
	ctx := context.Background()
	byTrigger, refusedByTrigger := storeByTrigger(t, ctx, sessions, tools)
	byLoad, refusedByLoad := storeByLoad(t, ctx, sessions, tools)
	if strings.Join(refusedByTrigger, "\n") != strings.Join(refusedByLoad, "\n") {
		t.Fatalf("refused by the trigger:\n%s\nby the load:\n%s", strings.Join(refusedByTrigger, "\n"), strings.Join(refusedByLoad, "\n"))
	}
	a, b := storeDump(t, ctx, byTrigger), storeDump(t, ctx, byLoad)
	if len(a) != len(b) {
		t.Fatalf("%d parts against %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the trigger and the bulk load differ in %s", firstDifference(a[i], b[i]))
		}
	}
	frames := 0
	byLoad.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events WHERE typeof(event) = 'blob'`).Scan(&frames)
	t.Logf("%d sessions (%d refused), %d parts compared, %d events stored as frames", len(sessions), len(refusedByLoad), len(a), frames)
	if name == "random-frames" && frames == 0 {
		t.Fatal("no event was stored as a frame")
	}
}

// storeByTrigger stores the sessions with plain SQL, one transaction each,
// each event in the form a bulk load stores it (store.StoredEvent), then
// reconciles.
func storeByTrigger(t *testing.T, ctx context.Context, sessions []loadSession, tools bool) (*driver.DB, []string) {
	db := openStoreTools(t, tools)
	var refused []string
	for _, s := range sessions {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, store.AddSessionSQL, s.session.Values()...); err != nil {
			t.Fatal(err)
		}
		for seq, ev := range s.events {
			stored, frame := store.StoredEvent(int64(seq), ev, nil)
			value := any(string(stored))
			if frame {
				value = stored // a BLOB
			}
			if _, err = tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`,
				s.session.Key, seq, value); err != nil {
				refused = append(refused, fmt.Sprintf("%s: %v", s.session.Key, err))
				break
			}
		}
		if err != nil {
			tx.Rollback()
			continue
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	reconcileDB(t, ctx, db)
	return db, refused
}

// storeByLoad stores the sessions with a Loader, in transactions of a few
// sessions, then reconciles what it deferred.
func storeByLoad(t *testing.T, ctx context.Context, sessions []loadSession, tools bool) (*driver.DB, []string) {
	db := openStoreTools(t, tools)
	var refused, failures []string
	l, err := bulk.NewLoader(ctx, db.DB, bulk.LoaderOptions{HoldBytes: 64 << 10, BatchBytes: 200 << 10,
		Loaded: func(tag any, events int64, err error) {
			s := sessions[tag.(int)]
			switch {
			case err != nil && events == 0:
				refused = append(refused, fmt.Sprintf("%s: %v", s.session.Key, err))
			case err != nil || events != int64(len(s.events)):
				failures = append(failures, fmt.Sprintf("%s: %d events, %v", s.session.Key, events, err))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sessions {
		l.Begin(s.session, i)
		for _, ev := range s.events {
			l.Event(ev)
		}
		l.End()
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if len(failures) > 0 {
		t.Fatalf("not loaded: %v", failures)
	}
	reconcileDB(t, ctx, db)
	return db, refused
}

// reconcileDB reconciles until nothing is pending.
func reconcileDB(t *testing.T, ctx context.Context, db *driver.DB) {
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reconcileAll(t, ctx, conn, 0)
}

// storeDump is every table of the store, row by row (the random change
// token and reconcile mark left out), the index itself term by term
// (fts5vocab), and the answers of searches and histories.
func storeDump(t *testing.T, ctx context.Context, db *driver.DB) []string {
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tools, err := db.ToolIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	indexes := []string{"sessionsearch_fts"}
	if tools {
		indexes = append(indexes, "sessionsearch_tools")
	}
	for _, fts := range indexes {
		if _, err := conn.ExecContext(ctx, `INSERT INTO `+fts+`(`+fts+`) VALUES ('integrity-check')`); err != nil {
			t.Fatalf("%s integrity-check: %v", fts, err)
		}
		if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.`+strings.TrimPrefix(fts, "sessionsearch_")+`_vocab USING fts5vocab('main', '`+fts+`', 'instance')`); err != nil {
			t.Fatal(err)
		}
	}
	// Without the tool index, nothing of it is in the schema (S33).
	queries := []string{`SELECT type, name FROM sqlite_schema WHERE name LIKE 'sessionsearch_tool%' ORDER BY name`}
	if tools {
		// The tool index (docs/store.md S30).
		queries = append(queries,
			`SELECT term, doc, col, offset FROM temp.tools_vocab ORDER BY term, doc, col, offset`,
			`SELECT id, hex(sz) FROM sessionsearch_tools_docsize ORDER BY id`,
			`SELECT hex(block) FROM sessionsearch_tools_data WHERE id = 1`)
	} else if got := queryDump(t, ctx, conn, queries[0]); got != "" {
		t.Fatalf("a store without the tool index has %s", got)
	}
	var out []string
	for _, q := range append(queries, []string{
		`SELECT * FROM sessions ORDER BY session_key`,
		`SELECT session_key, seq, typeof(event), hex(event) FROM transcript_events ORDER BY session_key, seq`,
		`SELECT * FROM sessionsearch_sessions ORDER BY sid`,
		`SELECT * FROM sessionsearch_entries ORDER BY id`,
		`SELECT * FROM sessionsearch_meta WHERE key NOT IN ('reconcile_mark', 'sessions_change') ORDER BY key`,
		`SELECT term, doc, col, offset FROM temp.fts_vocab ORDER BY term, doc, col, offset`,
		`SELECT id, hex(sz) FROM sessionsearch_fts_docsize ORDER BY id`,
		`SELECT hex(block) FROM sessionsearch_fts_data WHERE id = 1`,
		`SELECT rowid, text FROM sessionsearch_fts ORDER BY rowid`,
	}...) {
		out = append(out, q+"\n"+queryDump(t, ctx, conn, q))
	}
	// Searches: words of the indexed text, and a prefix of each.
	var keys []string
	rows, err := conn.QueryContext(ctx, `SELECT session_key FROM sessions ORDER BY session_key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys = append(keys, k)
	}
	rows.Close()
	var words []string
	rows, err = conn.QueryContext(ctx, `SELECT DISTINCT term FROM temp.fts_vocab ORDER BY term`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var w string
		rows.Scan(&w)
		words = append(words, w)
	}
	rows.Close()
	r := rand.New(rand.NewSource(1))
	opts := `{"caller":%q,"visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]},"limit":25}`
	for i := 0; i < 60 && len(words) > 0; i++ {
		w := words[r.Intn(len(words))]
		var res string
		if err := conn.QueryRowContext(ctx, `SELECT sessions_search(?1, ?2)`, w, fmt.Sprintf(opts, keys[0])).Scan(&res); err != nil {
			t.Fatalf("search %q: %v", w, err)
		}
		out = append(out, "search "+w+"\n"+res)
	}
	for _, k := range keys {
		var res string
		if err := conn.QueryRowContext(ctx, `SELECT sessions_history(?1, ?2)`, k,
			fmt.Sprintf(`{"caller":%q,"includeTools":true,"limit":1000,"maxBytes":4194304}`, k)).Scan(&res); err != nil {
			t.Fatalf("history %s: %v", k, err)
		}
		out = append(out, "history "+k+"\n"+res)
	}
	return out
}

func queryDump(t *testing.T, ctx context.Context, conn *sql.Conn, q string) string {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "%q", v)
			default:
				fmt.Fprintf(&b, "%T:%v", v, v)
			}
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// firstDifference shows where two dumps part.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("%s, line %d:\ntrigger: %.600s\nload:    %.600s", la[0], i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%s: %d lines against %d", la[0], len(la), len(lb))
}

// fixtureSessions are the real OpenClaw transcripts of internal/fixtures.
func fixtureSessions(*testing.T) []loadSession {
	var out []loadSession
	for i, f := range fixtures.Files() {
		s := loadSession{session: store.Session{Key: fmt.Sprintf("agent:main:fixture:%d", i), CreatedAt: int64(1770000000000 + i)}}
		for _, line := range f.Lines {
			if len(strings.TrimSpace(string(line))) > 0 {
				s.events = append(s.events, line)
			}
		}
		out = append(out, s)
	}
	return out
}

// agentSessions are the other agents' sample sessions (agents/testdata and
// internal/fixtures/agents), as their readers turn them into events.
func agentSessions(t *testing.T) []loadSession {
	dir := t.TempDir()
	roots, err := fixtures.WriteAgents(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"claude-code/projects", "codex", "gemini", "opencode/storage"} {
		abs, _ := filepath.Abs(filepath.Join("..", "agents", "testdata", d))
		if _, err := os.Stat(abs); err == nil {
			roots = append(roots, abs)
		}
	}
	ctx := context.Background()
	env := agents.Env{Getenv: func(string) string { return "" }, Home: dir}
	var out []loadSession
	for _, root := range roots {
		f := agents.Claimed(root)
		if f == nil {
			continue
		}
		trs, _ := f.List(ctx, root, env)
		for _, tr := range trs {
			s := loadSession{session: tr.Session}
			tr.Read(ctx, -1, func(e agents.Event) error {
				if e.Bad == nil {
					s.events = append(s.events, e.JSON)
				}
				return nil
			})
			if len(s.events) > 0 {
				out = append(out, s)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].session.Key < out[j].session.Key })
	for i := 1; i < len(out); i++ {
		if out[i].session.Key == out[i-1].session.Key {
			t.Fatalf("two agent transcripts with key %s", out[i].session.Key)
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d agent transcripts read from %v", len(out), roots)
	}
	return out
}

// randomSessions are sessions of random events (storeRunner.randomEvent:
// branches, rewinds, side entries, entries without ids, duplicate and
// dangling ids, new roots), with reset entries, secrets, timestamps,
// text long enough to be kept as frames, and a line that is not an event.
func randomSessions(r *rand.Rand, n, most int) []loadSession {
	gen := &storeRunner{r: r}
	var out []loadSession
	for i := range n {
		s := loadSession{session: store.Session{Key: fmt.Sprintf("agent:a%d:s%d", r.Intn(3), i)}}
		if i > 0 && r.Intn(4) == 0 {
			s.session.SpawnedBy = out[r.Intn(len(out))].session.Key
		}
		var evs []modelEvent
		for range r.Intn(most) {
			e := gen.randomEvent(evs)
			if e.typ == "message" {
				switch r.Intn(8) {
				case 0:
					e.text = strings.Repeat(e.text+" and more words about it ", 20+r.Intn(200))
				case 1:
					e.text += " key ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8"
				}
			}
			evs = append(evs, e)
			ev := e.json()
			switch k := r.Intn(40); {
			case k == 0:
				ev = fmt.Sprintf(`{"type":"reset","id":"R%d","parentId":%q}`, gen.ids, e.id)
			case k == 1:
				ev = strings.Replace(ev, `{"type"`, `{"timestamp":"2026-02-07T05:05:47.434Z","type"`, 1)
			}
			s.events = append(s.events, []byte(ev))
		}
		if i%10 == 3 && len(s.events) > 0 {
			// A line the store refuses: the transcript is stored by neither.
			s.events[r.Intn(len(s.events))] = []byte(`{"type":"bad json`)
		}
		out = append(out, s)
	}
	return out
}

// bigBranchedSession is a session past the trigger's inline limit that
// branches: the trigger defers it (docs/store.md S7), and the load must
// too.
func bigBranchedSession() []loadSession {
	s := loadSession{session: store.Session{Key: "agent:main:big"}}
	n := store.MaxInlineMessages + 50
	for i := range n {
		s.events = append(s.events, []byte(fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"message":{"role":"user","content":"word%d"}}`,
			i, parentOf(i), i%500)))
	}
	s.events = append(s.events,
		[]byte(`{"type":"leaf","id":"L","targetId":"m20"}`),
		[]byte(`{"type":"message","id":"after","message":{"role":"assistant","content":"after the branch"}}`))
	return []loadSession{s, {session: store.Session{Key: "agent:main:small"}, events: [][]byte{[]byte(`{"type":"message","id":"x","message":{"role":"user","content":"small"}}`)}}}
}
