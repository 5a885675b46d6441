package driver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/store"
)

// The model-based test of the transcript store: random appends, branches,
// rewinds, side entries, entries without ids, duplicate ids, deletes,
// bulk loading and reconciles, in random transaction groupings with
// rollbacks, compared after every step with a model of the active-path
// rules (docs/store.md S4-S6) written independently of package transcript.

// modelEvent is an event as the model sees it.
type modelEvent struct {
	typ       string
	id        string
	hasParent bool
	parent    string
	target    string
	side      bool
	role      string
	text      string
}

func (e modelEvent) json() string {
	m := map[string]any{"type": e.typ}
	if e.id != "" {
		m["id"] = e.id
	}
	if e.hasParent {
		if e.parent == "" {
			m["parentId"] = nil
		} else {
			m["parentId"] = e.parent
		}
	}
	if e.typ == "leaf" {
		m["targetId"] = e.target
	}
	if e.side {
		m["appendMode"] = "side"
	}
	if e.typ == "message" {
		m["message"] = map[string]any{"role": e.role, "content": []any{
			map[string]any{"type": "thinking", "thinking": "hidden reasoning"},
			map[string]any{"type": "text", "text": e.text},
			// Tool text (docs/store.md S30), checked by the tool index's
			// integrity-check against its content view.
			map[string]any{"type": "toolCall", "id": "c" + e.id, "name": "exec", "arguments": map[string]any{"command": "echo " + e.text}},
		}}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// modelSearchable returns the seqs of the searchable messages of a session:
// the user and assistant messages on the path from the leaf up. Links are
// resolved when an entry is appended: an id names the latest entry with it
// so far, and an entry without parentId, or with one that names no earlier
// entry, hangs from the leaf of that moment.
func modelSearchable(evs []modelEvent) map[int]string {
	const none = -1
	leaf := none
	latest := map[string]int{}
	parent := make([]int, len(evs))
	for i, e := range evs {
		switch p, known := latest[e.parent]; {
		case !e.hasParent:
			parent[i] = leaf
		case e.parent != "" && known:
			parent[i] = p
		case e.parent != "": // a parent not appended before: as if none were named
			parent[i] = leaf
		default: // a new root
			parent[i] = none
		}
		switch t, known := latest[e.target]; {
		case e.typ == "leaf":
			if known {
				leaf = t
			}
		case e.side || e.id == "":
		default:
			leaf = i
		}
		if e.id != "" {
			latest[e.id] = i
		}
	}
	out := map[int]string{}
	for i := leaf; i != none; i = parent[i] {
		if e := evs[i]; e.typ == "message" && (e.role == "user" || e.role == "assistant") {
			out[i] = e.text
		}
	}
	return out
}

type model struct {
	sessions map[string][]modelEvent
	order    []string // session keys in creation order
}

func (m model) clone() model {
	c := model{sessions: map[string][]modelEvent{}, order: append([]string(nil), m.order...)}
	for k, v := range m.sessions {
		c.sessions[k] = append([]modelEvent(nil), v...)
	}
	return c
}

var words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa 東京 大阪 한국 ภาษา Straße Οδυσσεύς")

type storeRunner struct {
	t       *testing.T
	r       *rand.Rand
	ctx     context.Context
	conn    *sql.Conn
	model   model
	ids     int
	deferOn bool
}

func (s *storeRunner) exec(q string, args ...any) error {
	_, err := s.conn.ExecContext(s.ctx, q, args...)
	return err
}

func (s *storeRunner) must(err error, what string) {
	if err == nil {
		return
	}
	if s.t == nil { // the crash test's writer process
		panic(fmt.Sprintf("%s: %v", what, err))
	}
	s.t.Helper()
	s.t.Fatalf("%s: %v", what, err)
}

func (s *storeRunner) randomEvent(evs []modelEvent) modelEvent {
	r := s.r
	ids := []string{}
	for _, e := range evs {
		if e.id != "" {
			ids = append(ids, e.id)
		}
	}
	pick := func() string {
		if len(ids) == 0 || r.Intn(10) == 0 {
			return fmt.Sprintf("unknown%d", r.Intn(3))
		}
		return ids[r.Intn(len(ids))]
	}
	s.ids++
	e := modelEvent{typ: "message", id: fmt.Sprintf("e%d", s.ids), role: []string{"user", "assistant", "assistant", "toolResult"}[r.Intn(4)],
		text: words[r.Intn(len(words))] + " " + words[r.Intn(len(words))] + fmt.Sprintf(" w%d", s.ids)}
	switch k := r.Intn(20); {
	case k < 9: // follows the leaf, implicitly or explicitly
		if r.Intn(2) == 0 && len(ids) > 0 {
			e.hasParent, e.parent = true, ids[len(ids)-1]
		}
	case k < 12: // branches from an older entry
		e.hasParent, e.parent = true, pick()
	case k < 14: // rewind or switch
		e = modelEvent{typ: "leaf", id: fmt.Sprintf("L%d", s.ids), target: pick()}
	case k == 14:
		e.side = true
	case k == 15:
		e.id = "" // no id
	case k == 16 && len(ids) > 0:
		e.id = ids[r.Intn(len(ids))] // duplicate id
	case k == 17:
		e.hasParent, e.parent = true, "" // a new root
	case k == 18:
		e = modelEvent{typ: "custom", id: fmt.Sprintf("c%d", s.ids)}
	}
	return e
}

// step applies one random operation to the database and the model.
func (s *storeRunner) step() {
	r := s.r
	m := &s.model
	switch k := r.Intn(100); {
	case k < 5 || len(m.order) == 0:
		key := fmt.Sprintf("agent:a%d:s%d", r.Intn(3), len(m.order)+r.Intn(1000)*100)
		if _, ok := m.sessions[key]; ok {
			return
		}
		s.must(s.exec(`INSERT INTO sessions(session_key) VALUES (?1)`, key), "insert session")
		m.sessions[key] = nil
		m.order = append(m.order, key)
	case k < 7:
		key := m.order[r.Intn(len(m.order))]
		s.must(s.exec(`DELETE FROM sessions WHERE session_key = ?1`, key), "delete session")
		delete(m.sessions, key)
		for i, k := range m.order {
			if k == key {
				m.order = append(m.order[:i], m.order[i+1:]...)
				break
			}
		}
	case k < 9:
		s.deferOn = !s.deferOn
		s.must(s.exec(`SELECT sessions_defer_indexing(?1)`, s.deferOn), "defer indexing")
	case k < 12:
		s.must(s.exec(`SELECT sessions_reconcile(?1)`, r.Intn(3)), "reconcile")
	default:
		key := m.order[r.Intn(len(m.order))]
		e := s.randomEvent(m.sessions[key])
		_, err := driver.Append(s.ctx, s.conn, key, []byte(e.json()))
		s.must(err, "append")
		m.sessions[key] = append(m.sessions[key], e)
	}
}

// check compares the index with the model: every session that is not
// pending has exactly its searchable messages indexed, with their text.
func (s *storeRunner) check(when string) {
	s.t.Helper()
	pending := map[string]bool{}
	rows, err := s.conn.QueryContext(s.ctx, `SELECT session_key, pending FROM sessionsearch_sessions`)
	s.must(err, "read sessions")
	for rows.Next() {
		var key string
		var p bool
		s.must(rows.Scan(&key, &p), "scan")
		pending[key] = p
		if _, ok := s.model.sessions[key]; !ok {
			s.t.Fatalf("%s: the store has session %q, the model does not", when, key)
		}
	}
	rows.Close()
	got := map[string]map[int]string{}
	rows, err = s.conn.QueryContext(s.ctx, `SELECT s.session_key, f.rowid & 4294967295, f.text
		FROM sessionsearch_fts f JOIN sessionsearch_sessions s ON s.sid = f.rowid >> 32`)
	s.must(err, "read index")
	for rows.Next() {
		var key, text string
		var seq int
		s.must(rows.Scan(&key, &seq, &text), "scan")
		if got[key] == nil {
			got[key] = map[int]string{}
		}
		got[key][seq] = text
	}
	rows.Close()
	// The index itself, read through fts5vocab (a scan of sessionsearch_fts
	// reads its content view): each message's unique w<n> token.
	indexed := map[string]map[int]string{}
	rows, err = s.conn.QueryContext(s.ctx, `SELECT s.session_key, v.doc & 4294967295, v.term
		FROM temp.index_terms v JOIN sessionsearch_sessions s ON s.sid = v.doc >> 32
		WHERE v.term >= 'w0' AND v.term < 'w:' AND v.term GLOB 'w[0-9]*'`)
	s.must(err, "read index terms")
	for rows.Next() {
		var key, term string
		var seq int
		s.must(rows.Scan(&key, &seq, &term), "scan")
		if indexed[key] == nil {
			indexed[key] = map[int]string{}
		}
		if indexed[key][seq] != "" {
			s.t.Fatalf("%s: session %q seq %d is indexed with %s and %s", when, key, seq, indexed[key][seq], term)
		}
		indexed[key][seq] = term
	}
	rows.Close()
	for key, docs := range indexed {
		if pending[key] {
			continue
		}
		for seq, term := range docs {
			if text, ok := got[key][seq]; !ok || !strings.HasSuffix(text, " "+term) {
				s.t.Fatalf("%s: session %q seq %d: the index has %s, the content %q", when, key, seq, term, text)
			}
		}
	}
	for key, texts := range got {
		if !pending[key] && len(indexed[key]) != len(texts) {
			s.t.Fatalf("%s: session %q: %d messages in the index, %d in its content", when, key, len(indexed[key]), len(texts))
		}
	}
	for _, key := range s.model.order {
		if _, ok := pending[key]; !ok {
			s.t.Fatalf("%s: session %q has no store row", when, key)
		}
		if pending[key] {
			continue
		}
		want := modelSearchable(s.model.sessions[key])
		if len(want) == 0 && len(got[key]) == 0 {
			continue
		}
		if !reflect.DeepEqual(got[key], want) {
			s.t.Fatalf("%s: session %q indexes %v, want %v\nevents: %v", when, key, got[key], want, s.model.sessions[key])
		}
	}
}

func TestStoreModel(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			db, ctx, conn := storeConn(t)
			// Odd seeds keep the tool index (docs/store.md S33).
			indexes := []string{"sessionsearch_fts"}
			if seed%2 == 1 {
				if err := db.SetToolIndex(ctx, true); err != nil {
					t.Fatal(err)
				}
				indexes = append(indexes, "sessionsearch_tools")
			}
			other, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			otherDefer := false
			if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.index_terms USING fts5vocab(main, sessionsearch_fts, instance)`); err != nil {
				t.Fatal(err)
			}
			s := &storeRunner{t: t, r: rand.New(rand.NewSource(int64(seed))), ctx: ctx, conn: conn,
				model: model{sessions: map[string][]modelEvent{}}}
			for step := 0; step < 300; step++ {
				// A transaction of 1 to 8 operations; one in five rolls back.
				n := 1 + s.r.Intn(8)
				saved := s.model.clone()
				savedDefer, savedIDs := s.deferOn, s.ids
				s.must(s.exec(`BEGIN IMMEDIATE`), "begin")
				for range n {
					s.step()
				}
				s.check(fmt.Sprintf("step %d, inside the transaction", step))
				if s.r.Intn(5) == 0 {
					s.must(s.exec(`ROLLBACK`), "rollback")
					s.model = saved
					s.ids = savedIDs
					_ = savedDefer // the deferral setting belongs to the connection, not the transaction
				} else {
					s.must(s.exec(`COMMIT`), "commit")
				}
				s.check(fmt.Sprintf("step %d", step))
				if s.r.Intn(4) == 0 {
					// Another connection writes between the transactions:
					// what the first connection keeps of a session (the
					// replay of its last leaf move, its reconcile) must
					// notice.
					own, ownDefer := s.conn, s.deferOn
					s.conn, s.deferOn = other, otherDefer
					for range 1 + s.r.Intn(3) {
						s.step()
					}
					s.conn, otherDefer, s.deferOn = own, s.deferOn, ownDefer
					s.check(fmt.Sprintf("step %d, after the other connection", step))
				}
				if step%10 == 9 {
					for _, fts := range indexes {
						if err := s.exec(`INSERT INTO ` + fts + `(` + fts + `) VALUES ('integrity-check')`); err != nil {
							t.Fatalf("step %d: %s integrity-check: %v", step, fts, err)
						}
					}
				}
			}
			// Reconcile everything and check every session.
			for {
				res, err := driver.Reconcile(ctx, conn, 1e9)
				if err != nil {
					t.Fatal(err)
				}
				if res.Pending == 0 {
					break
				}
			}
			var pending int
			conn.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_sessions WHERE pending`).Scan(&pending)
			if pending != 0 {
				t.Fatalf("%d sessions still pending after reconcile", pending)
			}
			s.check("after reconciling everything")
			var ok string
			if err := conn.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("integrity_check: %q %v", ok, err)
			}
			for _, fts := range indexes {
				if err := s.exec(`INSERT INTO ` + fts + `(` + fts + `) VALUES ('integrity-check')`); err != nil {
					t.Fatalf("%s integrity-check: %v", fts, err)
				}
			}
		})
	}
}

// TestRollbackLeavesIndex: a transaction that appends and rewinds, then
// rolls back, leaves every table of the index exactly as before.
func TestRollbackLeavesIndex(t *testing.T) {
	db, ctx := openStore(t)
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"first question", "first answer", "second question"} {
		role := []string{"user", "assistant", "user"}[i]
		ev := fmt.Sprintf(`{"type":"message","id":"m%d","message":{"role":%q,"content":%q}}`, i, role, text)
		if _, err := db.Append(ctx, "agent:main:main", []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	snapshot := func() string {
		var b strings.Builder
		for _, q := range []string{
			// The index's own tables (a scan of sessionsearch_fts reads
			// its content view).
			`SELECT id, block FROM sessionsearch_fts_data ORDER BY id`,
			`SELECT * FROM sessionsearch_fts_idx ORDER BY 1, 2`,
			`SELECT id, sz FROM sessionsearch_fts_docsize ORDER BY id`,
			`SELECT id, info, active FROM sessionsearch_entries ORDER BY id`,
			`SELECT * FROM sessionsearch_sessions ORDER BY sid`,
			`SELECT session_key, seq, event FROM transcript_events ORDER BY 1, 2`,
			`SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH 'question' ORDER BY rowid`,
		} {
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				rows.Scan(ptrs...)
				fmt.Fprintln(&b, vals...)
			}
			rows.Close()
		}
		return b.String()
	}
	before := snapshot()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := driver.Append(ctx, tx, "agent:main:main", []byte(`{"type":"message","id":"m9","message":{"role":"assistant","content":"rolled back"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := driver.MoveLeaf(ctx, tx, "agent:main:main", "m0"); err != nil {
		t.Fatal(err)
	}
	var inside int
	tx.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_fts_docsize`).Scan(&inside)
	if inside != 1 {
		t.Fatalf("inside the transaction %d messages are indexed after the rewind, want 1", inside)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(); after != before {
		t.Fatalf("rollback changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Events written before sessionsearch_migrate() (the tables of docs/store.md S1,
// created by someone else) become pending sessions that sessions_reconcile
// indexes; events whose session has no row get one.
func TestMigrateExistingEvents(t *testing.T) {
	db, err := driver.Open(filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE sessions(session_key TEXT PRIMARY KEY, spawned_by TEXT, parent_session_key TEXT, created_at INTEGER)`,
		`CREATE TABLE transcript_events(session_key TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_key, seq))`,
		`INSERT INTO sessions(session_key) VALUES ('agent:main:old')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for key, events := range map[string][]string{
		"agent:main:old":    {string(message("a", "", "user", "vintage question", 1)), string(message("b", "a", "assistant", "vintage answer", 2))},
		"agent:main:orphan": {string(message("c", "", "user", "vintage orphan", 3))},
	} {
		for seq, ev := range events {
			if _, err := db.Exec(`INSERT INTO transcript_events VALUES (?1, ?2, ?3)`, key, seq, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if v, err := db.Migrate(ctx); err != nil || v != store.SchemaVersion {
		t.Fatalf("migrate: %d, %v", v, err)
	}
	if st, _ := db.IndexStatus(ctx); st.PendingSessions != 2 {
		t.Fatalf("%d pending sessions after migrating, want 2", st.PendingSessions)
	}
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}}
	if res, _ := db.Search(ctx, "vintage", opts); len(res.Results) != 0 || !res.Indexing {
		t.Fatalf("before reconcile: %d results, indexing=%v", len(res.Results), res.Indexing)
	}
	for {
		res, err := db.Reconcile(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if res.Pending == 0 {
			break
		}
	}
	if res, _ := db.Search(ctx, "vintage", opts); len(res.Results) != 3 || res.Indexing {
		t.Fatalf("after reconcile: %+v", res)
	}
	// Appending after the migration continues the session in order.
	if _, err := db.Append(ctx, "agent:main:old", message("d", "b", "user", "vintage follow-up", 4)); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.IndexStatus(ctx); st.PendingSessions != 0 {
		t.Fatalf("an in-order append after reconcile left %d sessions pending", st.PendingSessions)
	}
	if v, err := db.Migrate(ctx); err != nil || v != store.SchemaVersion {
		t.Fatalf("second migrate: %d, %v", v, err)
	}
	if res, _ := db.Search(ctx, "vintage", opts); len(res.Results) != 4 {
		t.Fatalf("after a second migrate: %d results", len(res.Results))
	}
}

// docs/store.md S7 "One call per append": the program of an append, its
// trigger included, calls sessionsearch_entry once, not once for each
// column its result is split into.
func TestAppendCallsEntryOnce(t *testing.T) {
	db, ctx := openStore(t)
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `EXPLAIN INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 0, '{}')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	calls := 0
	for rows.Next() {
		var addr, p1, p2, p3, p5 int
		var opcode, p4, comment sql.NullString
		if err := rows.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p4.String, "sessionsearch_entry(") {
			calls++
		}
	}
	if calls != 1 {
		t.Fatalf("an append's program calls sessionsearch_entry %d times, want 1", calls)
	}
}
