//go:build sqlite_fts5

package syncer_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/syncer"
	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

// store opens a fresh, migrated sessionsearch database.
func store(t testing.TB) *driver.DB {
	t.Helper()
	db, err := driver.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`SELECT sessionsearch_migrate()`); err != nil {
		t.Fatal(err)
	}
	return db
}

func newSyncer(t testing.TB, db *sql.DB, problems *[]string) *syncer.Syncer {
	s := &syncer.Syncer{DB: db, OpenSource: syncer.OpenReadOnly("sqlite3"), Report: func(p importer.Problem) {
		if problems == nil {
			t.Errorf("problem: %v", p)
			return
		}
		*problems = append(*problems, p.Error())
	}}
	t.Cleanup(func() { s.Close() })
	return s
}

func gateway(t testing.TB, stateDir, agent string) *openclawtest.Gateway {
	t.Helper()
	g, err := openclawtest.New("sqlite3", stateDir, agent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// searchable is what search can find: the message ids on each session's
// active path, and no session left pending.
func searchable(t testing.TB, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query(`SELECT session_key, message_id, pending FROM sessionsearch_messages ORDER BY rowid`)
	must(t, err)
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var key, id string
		var pending bool
		must(t, rows.Scan(&key, &id, &pending))
		if pending {
			t.Errorf("session %s is pending after sync", key)
		}
		out[key] = append(out[key], id)
	}
	must(t, rows.Err())
	return out
}

func links(t testing.TB, db *sql.DB, key string) (spawnedBy, parent string) {
	t.Helper()
	var s, p sql.NullString
	must(t, db.QueryRow(`SELECT spawned_by, parent_session_key FROM sessions WHERE session_key = ?`, key).Scan(&s, &p))
	return s.String, p.String
}

func sync(t testing.TB, s *syncer.Syncer, paths ...string) syncer.Stats {
	t.Helper()
	st, err := s.Sync(context.Background(), paths)
	must(t, err)
	return st
}

func check(t *testing.T, step string, db *sql.DB, want map[string][]string) {
	t.Helper()
	got := searchable(t, db)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after %s, searchable:\n got %v\nwant %v", step, got, want)
	}
}

// dump is the whole content sync writes: sessions, events and watermarks.
func dump(t testing.TB, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT session_key, coalesce(spawned_by, ''), coalesce(parent_session_key, ''), coalesce(created_at, 0) FROM sessions ORDER BY 1`,
		`SELECT session_key, seq, event FROM transcript_events ORDER BY 1, 2`,
		`SELECT session_key, message_id, role FROM sessionsearch_messages ORDER BY 1, 2`,
		`SELECT source, unit, session_key, kind, generation, position, next_seq, coalesce(tail_hash, 0) FROM sessionsearch_sync_units ORDER BY 1, 2`,
	} {
		rows, err := db.Query(q)
		must(t, err)
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			must(t, rows.Scan(ptrs...))
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}

const long = "a long answer that OpenClaw stores compressed: "

// TestGatewayLife drives an agent database through a gateway's life and
// checks after each step that what is searchable is what OpenClaw's rules
// make the active path of each generation (docs/sync.md Y3, Y6, Y7), and
// that an incremental sync ends where a sync from scratch does.
func TestGatewayLife(t *testing.T) {
	dir := t.TempDir()
	g := gateway(t, dir, "main")
	db := store(t)
	s := newSyncer(t, db.DB, nil)
	main, fork, renamed, sub := g.Key("main"), g.Key("fork"), g.Key("renamed"), g.Key("subagent:7f3a")
	M := openclawtest.Message
	fromScratch := func(step string, includeDeleted bool) {
		t.Helper()
		fresh := store(t)
		f := newSyncer(t, fresh.DB, nil)
		f.IncludeDeleted = includeDeleted
		sync(t, f, dir)
		// Sources are named alike, so the two databases must be equal.
		if a, b := dump(t, db.DB), dump(t, fresh.DB); a != b {
			t.Fatalf("after %s, incremental sync differs from a sync from scratch:\n%s\n---\n%s", step, a, b)
		}
	}

	must(t, g.Create(main, "w1", openclawtest.Link{}))
	must(t, g.Append("w1", M("u1", "", "user", "where is the 東京 office"), M("a1", "u1", "assistant", long+strings.Repeat("Marunouchi ", 200))))
	st := sync(t, s, dir)
	check(t, "the first messages", db.DB, map[string][]string{main: {"u1", "a1"}})
	if st.Events != 3 {
		t.Errorf("first sync stored %d events, want 3 (header, u1, a1)", st.Events)
	}
	var zstdRows int
	must(t, g.DB.QueryRow(`SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL`).Scan(&zstdRows))
	if zstdRows != 1 {
		t.Fatalf("the gateway stored %d events as zstd, want 1 (a1)", zstdRows)
	}

	must(t, g.Append("w1", M("u2", "a1", "user", "and the Osaka one"), M("a2", "u2", "assistant", "Umeda")))
	st = sync(t, s, dir)
	check(t, "an append", db.DB, map[string][]string{main: {"u1", "a1", "u2", "a2"}})
	if st.Events != 2 || st.Bytes > 1000 {
		t.Errorf("an append of 2 events stored %d events and read %d bytes: it reread the transcript", st.Events, st.Bytes)
	}
	if st := sync(t, s, dir); st.Events != 0 || st.Sessions != 0 {
		t.Errorf("a sync without changes wrote %d sessions, %d events", st.Sessions, st.Events)
	}

	// A rewind: a leaf control back to a1, then a new branch.
	must(t, g.Append("w1", openclawtest.Leaf("l1", "a2", "a1"), M("u3", "a1", "user", "no, Nagoya"), M("a3", "u3", "assistant", "Sakae")))
	sync(t, s, dir)
	check(t, "a rewind", db.DB, map[string][]string{main: {"u1", "a1", "u3", "a3"}})

	// A message fork: a new key whose window copies the parent's prefix.
	must(t, g.Fork(main, fork, "w2", M("u1", "", "user", "where is the 東京 office"), M("u4", "u1", "user", "forked question")))
	sync(t, s, dir)
	check(t, "a fork", db.DB, map[string][]string{main: {"u1", "a1", "u3", "a3"}, fork: {"u1", "u4"}})
	if _, p := links(t, db.DB, fork); p != main {
		t.Errorf("fork's parent_session_key = %q, want %q", p, main)
	}

	// A reset that rolls the key over to a new window: the key shows the
	// new window; the old one stays searchable under its derived key,
	// linked to the key, in the same transaction.
	must(t, g.Rollover(main, "w3", "reset", M("u5", "", "user", "fresh start")))
	sync(t, s, dir)
	check(t, "a reset", db.DB, map[string][]string{main: {"u5"}, "agent:main:session:w1": {"u1", "a1", "u3", "a3"}, fork: {"u1", "u4"}})
	if _, p := links(t, db.DB, "agent:main:session:w1"); p != main {
		t.Errorf("the old generation's parent = %q, want %q", p, main)
	}

	// A compaction that rewrites the transcript into a new window with the
	// summary and the kept entries.
	must(t, g.Append("w3", M("a5", "u5", "assistant", "hello again")))
	must(t, g.Rollover(main, "w4", "compaction", openclawtest.Compaction("c1", "", "u5"), M("u5", "c1", "user", "fresh start"), M("u6", "u5", "user", "after compaction")))
	sync(t, s, dir)
	check(t, "a compaction", db.DB, map[string][]string{main: {"u5", "u6"}, "agent:main:session:w1": {"u1", "a1", "u3", "a3"},
		"agent:main:session:w3": {"u5", "a5"}, fork: {"u1", "u4"}})
	fromScratch("a compaction", false)

	// A key rename.
	must(t, g.Rename(fork, renamed))
	sync(t, s, dir)
	check(t, "a key rename", db.DB, map[string][]string{main: {"u5", "u6"}, "agent:main:session:w1": {"u1", "a1", "u3", "a3"},
		"agent:main:session:w3": {"u5", "a5"}, renamed: {"u1", "u4"}})

	// A spawned subagent, then archived (archived_at): still searchable.
	must(t, g.Create(sub, "w5", openclawtest.Link{SpawnedBy: main}))
	must(t, g.Append("w5", M("s1", "", "user", "subtask")))
	must(t, g.Archive(sub))
	sync(t, s, dir)
	if sp, _ := links(t, db.DB, sub); sp != main {
		t.Errorf("subagent's spawned_by = %q, want %q", sp, main)
	}

	// Cold storage of the oldest generation: searchable under its archive
	// key, with the key it belongs to.
	must(t, g.ColdArchive("w1"))
	sync(t, s, dir)
	want := map[string][]string{main: {"u5", "u6"}, "agent:main:cold:w1": {"u1", "a1", "u3", "a3"},
		"agent:main:session:w3": {"u5", "a5"}, renamed: {"u1", "u4"}, sub: {"s1"}}
	check(t, "cold archival", db.DB, want)
	if _, p := links(t, db.DB, "agent:main:cold:w1"); p != main {
		t.Errorf("cold archive's parent = %q, want %q", p, main)
	}
	fromScratch("cold archival", false)

	// Disk-budget cleanup turns the old reset generation into a reset
	// archive (a row and a .reset.<ts>.zst file): one session, not two.
	must(t, g.ResetArchive("w3"))
	sync(t, s, dir)
	got := searchable(t, db.DB)
	var resetKey string
	for k := range got {
		if strings.HasPrefix(k, "agent:main:reset:") && strings.HasSuffix(k, ":w3") {
			resetKey = k
		}
	}
	if resetKey == "" || !reflect.DeepEqual(got[resetKey], []string{"u5", "a5"}) {
		t.Fatalf("after a reset archive, searchable = %v; want agent:main:reset:<ts>:w3 with u5, a5", got)
	}
	delete(want, "agent:main:session:w3")
	want[resetKey] = []string{"u5", "a5"}
	check(t, "a reset archive", db.DB, want)

	// Deletion: gone from search, unless deleted archives are included.
	must(t, g.Delete(renamed))
	sync(t, s, dir)
	delete(want, renamed)
	check(t, "a deletion", db.DB, want)
	fromScratch("a deletion", false)
	s.IncludeDeleted = true
	sync(t, s, dir)
	got = searchable(t, db.DB)
	var deletedKey string
	for k := range got {
		if strings.HasPrefix(k, "agent:main:deleted:") && strings.HasSuffix(k, ":w2") {
			deletedKey = k
		}
	}
	if deletedKey == "" {
		t.Fatalf("with IncludeDeleted the deletion archive is not searchable: %v", got)
	}
	want[deletedKey] = []string{"u1", "u4"}
	check(t, "a deletion with IncludeDeleted", db.DB, want)
	if _, p := links(t, db.DB, deletedKey); p != renamed {
		t.Errorf("deleted archive's parent = %q, want %q", p, renamed)
	}
	fromScratch("a deletion with IncludeDeleted", true)

	// Restoring the cold generation moves it back under its derived key.
	must(t, g.Restore("w1"))
	sync(t, s, dir)
	delete(want, "agent:main:cold:w1")
	want["agent:main:session:w1"] = []string{"u1", "a1", "u3", "a3"}
	check(t, "a restore from cold storage", db.DB, want)

	// The archive view names what came from archives.
	rows, err := db.Query(`SELECT session_key, kind FROM sessionsearch_sync_archives ORDER BY 1`)
	must(t, err)
	var kinds []string
	for rows.Next() {
		var k, kind string
		must(t, rows.Scan(&k, &kind))
		kinds = append(kinds, kind)
	}
	rows.Close()
	sort.Strings(kinds)
	if !reflect.DeepEqual(kinds, []string{"deleted", "reset"}) {
		t.Errorf("sessionsearch_sync_archives kinds = %v, want [deleted reset]", kinds)
	}
}

// docs/sync.md Y7: a cold archive is read in both line formats, OpenClaw's
// record envelope and plain event lines, and gives the same session.
func TestColdArchiveFormats(t *testing.T) {
	M := openclawtest.Message
	for _, plain := range []bool{false, true} {
		dir := t.TempDir()
		g := gateway(t, dir, "main")
		g.PlainColdArchives = plain
		must(t, g.Create(g.Key("main"), "w1", openclawtest.Link{}))
		must(t, g.Append("w1", M("u1", "", "user", "東京 office"), M("a1", "u1", "assistant", "the office in Tokyo")))
		must(t, g.Rollover(g.Key("main"), "w2", "reset", M("u2", "", "user", "a new window")))
		must(t, g.ColdArchive("w1"))
		db := store(t)
		s := newSyncer(t, db.DB, nil)
		sync(t, s, dir)
		check(t, fmt.Sprintf("a cold archive (plain lines: %v)", plain), db.DB,
			map[string][]string{"agent:main:main": {"u2"}, "agent:main:cold:w1": {"u1", "a1"}})
	}
}
