package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/store"
)

// store/testdata/schema1.sqlite was written by the build before schema 2
// (each entry's state a positional array): three agents' sessions with a
// branch, a rewind, a subagent, a secret and a pending session. Migrating it
// in place gives the same searches and histories as the same events
// appended to a new database, and the store keeps working.
func TestMigrateSchema1(t *testing.T) {
	old, _ := testMigrate(t, "schema1.sqlite")
	var arrays int
	if err := old.QueryRow(`SELECT count(*) FROM sessionsearch_entries WHERE info LIKE '[%'`).Scan(&arrays); err != nil || arrays != 0 {
		t.Fatalf("%d entries still in the schema 1 form (%v)", arrays, err)
	}
}

// store/testdata/schema2.sqlite was written by the build before schema 3
// (e9c8399, whose entries repeated their columns in info and kept the
// tip's key in full; in the sqlite3 shell): schema1.sqlite migrated by it,
// and a session with a header, a side entry that takes the leaf's id (the
// tip's key becomes ""), an entry without id, a branch, a leaf entry, a
// message without parentId, a tool call and its result appended through
// its trigger. Migrating it gives the same searches and histories as the
// same events appended to a new database (testMigrate), and that session's
// entries are the very rows this build writes for its events: each fact
// once (docs/store.md S42). Its index version is one that no build before
// schema 3 writes to (S43).
func TestMigrateSchema2(t *testing.T) {
	old, fresh := testMigrate(t, "schema2.sqlite")
	rows := func(db *driver.DB) string {
		t.Helper()
		var out string
		err := db.QueryRow(`SELECT group_concat(concat_ws('|', e.id & 4294967295, e.info, e.message, e.active, quote(e.entry_id), quote(e.role),
				e.ts, e.tip_leaf, quote(e.tip_key), e.tip_messages), char(10))
			FROM (SELECT e.* FROM sessionsearch_entries e JOIN sessionsearch_sessions s ON s.sid = e.sid
				WHERE s.session_key = 'agent:main:side' ORDER BY e.id) AS e`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := rows(old), rows(fresh); a != b || strings.Count(a, "\n") != 11 {
		t.Errorf("the entries of agent:main:side\nmigrated:\n%s\nfresh:\n%s", a, b)
	}
	var repeats, keys, built int
	if err := old.QueryRow(`SELECT count(*) FILTER (WHERE info ->> 'id' IS NOT NULL OR info ->> 'role' IS NOT NULL OR info ->> 'ts' IS NOT NULL OR info ->> 'message' IS NOT NULL),
			count(*) FILTER (WHERE tip_key = entry_id),
			-- Builds before schema 3 wrote to an index version of two parts
			-- (tokenizer.redaction) only.
			(SELECT count(*) FROM sessionsearch_meta WHERE key = 'index_version' AND value = sessionsearch_index_version() AND value LIKE '%.%.3')
			FROM sessionsearch_entries`).Scan(&repeats, &keys, &built); err != nil || repeats != 0 || keys != 0 || built != 1 {
		t.Errorf("after migrating, %d entries repeat a column in info, %d keep a tip key equal to their entry_id, %d index_version of schema 3 (%v)",
			repeats, keys, built, err)
	}
}

// testMigrate migrates a copy of the old store store/testdata/fixture and
// checks it against the same sessions and events appended to a new store
// by this build, before and after a reconcile, an append and a rewind; it
// returns both.
func testMigrate(t *testing.T, fixture string) (old, fresh *driver.DB) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join("..", "store", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "old.db")
	if err := os.WriteFile(oldPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err = driver.Open(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Close() })
	if v, err := old.Migrate(ctx); err != nil || v != store.SchemaVersion {
		t.Fatalf("migrate: %d, %v", v, err)
	}

	// The same sessions and events, appended one by one with this build.
	fresh, err = driver.Open(filepath.Join(dir, "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fresh.Close() })
	if _, err := fresh.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := old.Query(`SELECT session_key, spawned_by, parent_session_key, created_at FROM sessions ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key string
		var spawned, parent *string
		var created *int64
		if err := rows.Scan(&key, &spawned, &parent, &created); err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.Exec(`INSERT INTO sessions VALUES (?1, ?2, ?3, ?4)`, key, spawned, parent, created); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	events, err := old.Query(`SELECT session_key, seq, event FROM transcript_events ORDER BY session_key = 'agent:main:big', rowid`)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := fresh.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for events.Next() {
		var key, event string
		var seq int64
		if err := events.Scan(&key, &seq, &event); err != nil {
			t.Fatal(err)
		}
		if key == "agent:main:big" { // the pending session of the old database
			if _, err := conn.ExecContext(ctx, `SELECT sessions_defer_indexing(1)`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO transcript_events VALUES (?1, ?2, ?3)`, key, seq, event); err != nil {
			t.Fatal(err)
		}
	}
	events.Close()
	if _, err := conn.ExecContext(ctx, `SELECT sessions_defer_indexing(0)`); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	same := func(stage string) {
		t.Helper()
		for _, q := range [][2]string{
			{`SELECT sessions_search('weather', '{"caller":"agent:main:main"}')`},
			{`SELECT sessions_search('東京', '{"caller":"agent:main:main"}')`},
			{`SELECT sessions_search('answer', '{"caller":"agent:main:main","order":"recent"}')`},
			{`SELECT sessions_search('branch question', '{"caller":"agent:main:main"}')`},
			{`SELECT sessions_search('cafe', '{"caller":"agent:main:sub"}')`},
			{`SELECT sessions_search('ghp', '{"caller":"agent:main:main","prefix":true}')`},
			{`SELECT sessions_search('weather', '{"caller":"agent:work:main","visibility":"agent"}')`},
			{`SELECT sessions_history('agent:main:main', '{"caller":"agent:main:main"}')`},
			{`SELECT sessions_history('agent:main:sub', '{"caller":"agent:main:main","includeTools":true}')`},
			{`SELECT sessions_index_status()`},
		} {
			var a, b string
			if err := old.QueryRow(q[0]).Scan(&a); err != nil {
				t.Fatalf("%s, migrated: %s: %v", stage, q[0], err)
			}
			if err := fresh.QueryRow(q[0]).Scan(&b); err != nil {
				t.Fatalf("%s, fresh: %s: %v", stage, q[0], err)
			}
			if a != b {
				t.Errorf("%s: %s\nmigrated: %s\nfresh:    %s", stage, q[0], a, b)
			}
		}
	}
	same("after migrating")
	var history string
	if err := old.QueryRow(`SELECT sessions_history('agent:main:main', '{"caller":"agent:main:main"}')`).Scan(&history); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kept branch question", "final answer after rewind"} {
		if !strings.Contains(history, want) {
			t.Errorf("history after migrating lacks %q: %s", want, history)
		}
	}
	for _, gone := range []string{"abandoned branch", "rewound answer"} {
		if strings.Contains(history, gone) {
			t.Errorf("history after migrating shows %q: %s", gone, history)
		}
	}

	// The old database goes on: the pending session is reconciled, appends
	// and rewinds are indexed as in the fresh one.
	for _, db := range []*driver.DB{old, fresh} {
		for {
			res, err := db.Reconcile(ctx, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if res.Pending == 0 {
				break
			}
		}
		if _, err := db.Append(ctx, "agent:main:main", message("a7", "a6", "user", "weather tomorrow", 1770000000700)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Append(ctx, "agent:main:main", []byte(`{"type":"leaf","id":"l2","parentId":"a7","targetId":"a2"}`)); err != nil {
			t.Fatal(err)
		}
	}
	same("after reconcile, an append and a rewind")
	for _, db := range []*driver.DB{old, fresh} {
		if _, err := db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatalf("FTS5 integrity-check: %v", err)
		}
		var ok string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("integrity_check: %s %v", ok, err)
		}
	}
	return old, fresh
}

// A store written by a newer build is named as such, and left as it is.
func TestMigrateNewerSchema(t *testing.T) {
	db, ctx := openStore(t)
	if _, err := db.Exec(`UPDATE sessionsearch_meta SET value = CASE key WHEN 'schema_version' THEN '99' ELSE 'future' END
		WHERE key IN ('schema_version', 'schema_digest')`); err != nil {
		t.Fatal(err)
	}
	var before, after string
	schema := `SELECT group_concat(sql, ';') FROM sqlite_schema`
	if err := db.QueryRow(schema).Scan(&before); err != nil {
		t.Fatal(err)
	}
	_, err := db.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "sessionsearch_migrate: this database's transcript store has schema 99, written by a newer sessionsearch") {
		t.Fatalf("migrate of a newer schema: %v", err)
	}
	if err := db.QueryRow(schema).Scan(&after); err != nil || after != before {
		t.Fatalf("a refused migrate changed the schema (%v)", err)
	}
}
