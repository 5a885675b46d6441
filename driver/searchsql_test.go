package driver_test

import (
	"database/sql"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/extension"
	"github.com/sessionsearch/sessionsearch/store"
)

// referenceSearchSQL is the search of docs/search.md Q17 written the plain
// way: every match joined to its message and checked by session_visible,
// then ordered and cut. extension.SearchSQL must return exactly its rows.
const referenceSearchSQL = `WITH hits AS MATERIALIZED (
  SELECT m.rowid, m.session_key, m.message_id, m.role, m.timestamp, -f.rank AS score
  FROM sessionsearch_fts AS f JOIN sessionsearch_messages AS m ON m.rowid = f.rowid
  WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
    AND NOT m.pending
    AND (:session IS NULL OR m.session_key = :session)
    AND (:after IS NULL OR m.timestamp > :after)
    AND (:before IS NULL OR m.timestamp < :before)
    AND (:role IS NULL OR m.role = :role)
    AND (:project IS NULL OR :project_dir IS NULL)
    AND session_visible(:caller, m.session_key, :options)
  ORDER BY %s
  LIMIT :limit)
SELECT hits.session_key, hits.message_id, hits.role, hits.timestamp,
  sessionsearch_snippet(sessionsearch_fts, :snippet_chars) AS snippet, hits.score
FROM hits CROSS JOIN sessionsearch_fts ON sessionsearch_fts.rowid = hits.rowid
WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
ORDER BY %s`

// searchWorld is a random store for comparing search statements: three
// agents, spawn links, incognito and pending sessions, and texts from a
// vocabulary of eight words, so that scores and timestamps tie often.
func searchWorld(t *testing.T, r *rand.Rand) (*driver.DB, []string) {
	db, ctx, conn := storeConn(t)
	vocab := []string{"kiwi", "mango", "papaya", "lime", "fig", "date", "plum", "pear"}
	var keys []string
	for s := range 40 {
		agent := []string{"main", "ops", "dev"}[r.Intn(3)]
		key := fmt.Sprintf("agent:%s:s%d", agent, s)
		switch r.Intn(8) {
		case 0:
			key = "agent:" + agent + ":main"
		case 1:
			key = fmt.Sprintf("agent:%s:incognito-%d", agent, s)
		}
		if slices.Contains(keys, key) {
			continue
		}
		spawnedBy := ""
		if len(keys) > 0 && r.Intn(2) == 0 {
			spawnedBy = keys[r.Intn(len(keys))]
		}
		if err := driver.DeferIndexing(ctx, conn, r.Intn(6) == 0); err != nil {
			t.Fatal(err)
		}
		if err := driver.AddSession(ctx, conn, driver.Session{Key: key, SpawnedBy: spawnedBy}); err != nil {
			t.Fatal(err)
		}
		prev := ""
		for m := range 1 + r.Intn(12) {
			var words []string
			for range 1 + r.Intn(3) {
				words = append(words, vocab[r.Intn(len(vocab))])
			}
			id := fmt.Sprintf("m%d", m)
			ts := int64(1_770_000_000_000 + r.Intn(20)*1000)
			if _, err := driver.Append(ctx, conn, key, message(id, prev, []string{"user", "assistant"}[m%2], strings.Join(words, " "), ts)); err != nil {
				t.Fatal(err)
			}
			prev = id
		}
		keys = append(keys, key)
	}
	return db, keys
}

// rows runs a search statement with its named parameters.
func searchRows(t *testing.T, db *driver.DB, query string, params map[string]any) [][]any {
	t.Helper()
	var args []any
	for name, v := range params {
		if strings.Contains(query, ":"+name) {
			args = append(args, sql.Named(name, v))
		}
	}
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		row := make([]any, 6)
		ptrs := make([]any, 6)
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// docs/search.md Q17: the statement returns what the plain join returns,
// in the same order, ties included, for random callers, visibility modes,
// limits, sessions, time ranges and both orders.
func TestSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	db, keys := searchWorld(t, r)
	relevance := "score DESC, m.timestamp DESC, m.message_id, m.rowid"
	relevanceOut := "hits.score DESC, hits.timestamp DESC, hits.message_id, hits.rowid"
	recent := "m.timestamp DESC, m.rowid DESC"
	recentOut := "hits.timestamp DESC, hits.rowid DESC"
	words := []string{"kiwi", "mango", "papaya", "lime", "fig", "date", "plum", "pear", "kiwi mango", "pa", "nothing"}
	compared := 0
	for range 400 {
		caller := keys[r.Intn(len(keys))]
		if r.Intn(4) == 0 {
			caller = "agent:" + []string{"main", "ops", "dev"}[r.Intn(3)] + ":main"
		}
		options := map[string]string{
			"": `{}`, "self": `{"visibility":"self"}`, "agent": `{"visibility":"agent"}`,
			"all":       `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["ops"]}}`,
			"sandboxed": `{"sandboxed":true}`,
		}[[]string{"", "self", "agent", "all", "sandboxed"}[r.Intn(5)]]
		params := map[string]any{
			"query": words[r.Intn(len(words))], "prefix": r.Intn(4) == 0, "caller": caller, "options": options,
			"session": nil, "after": nil, "before": nil, "role": nil, "project": nil, "project_dir": nil,
			"limit": 1 + r.Intn(15), "snippet_chars": 40,
		}
		if r.Intn(4) == 0 {
			params["session"] = keys[r.Intn(len(keys))]
		}
		if r.Intn(4) == 0 {
			params["after"] = int64(1_770_000_000_000 + r.Intn(20)*1000)
		}
		if r.Intn(4) == 0 {
			params["before"] = int64(1_770_000_000_000 + r.Intn(20)*1000)
		}
		if r.Intn(4) == 0 {
			params["role"] = []string{"user", "assistant"}[r.Intn(2)]
		}
		ours, ref := extension.SearchSQL, fmt.Sprintf(referenceSearchSQL, relevance, relevanceOut)
		if r.Intn(3) == 0 {
			ours, ref = store.RecentSQL, fmt.Sprintf(referenceSearchSQL, recent, recentOut)
		}
		got, want := searchRows(t, db, ours, params), searchRows(t, db, ref, params)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("params %v:\n got %v\nwant %v", params, got, want)
		}
		if len(want) > 1 {
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("only %d of 400 cases had more than one row to compare", compared)
	}
}

// docs/search.md Q21: sessions_searchable has a 1 exactly at the sessions
// that session_visible accepts and that are not pending, for random
// callers and options; with a session key, at that session alone.
func TestSearchableMask(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	db, keys := searchWorld(t, r)
	type session struct {
		sid     int
		key     string
		pending bool
	}
	var sessions []session
	rows, err := db.Query(`SELECT sid, session_key, pending FROM sessionsearch_sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s session
		rows.Scan(&s.sid, &s.key, &s.pending)
		sessions = append(sessions, s)
	}
	rows.Close()
	pending := 0
	for _, s := range sessions {
		if s.pending {
			pending++
		}
	}
	if pending == 0 || pending == len(sessions) {
		t.Fatalf("%d of %d sessions pending: the world must have both", pending, len(sessions))
	}
	for _, options := range []string{`{}`, `{"visibility":"self"}`, `{"visibility":"agent"}`, `{"visibility":"all"}`, `{"sandboxed":true}`} {
		for _, caller := range append(keys, "agent:main:main", "agent:nobody:x") {
			var mask []byte
			if err := db.QueryRow(`SELECT sessions_searchable(?1, ?2, NULL)`, caller, options).Scan(&mask); err != nil {
				t.Fatal(err)
			}
			want := []byte{}
			for _, s := range sessions {
				var visible bool
				if err := db.QueryRow(`SELECT session_visible(?1, ?2, ?3)`, caller, s.key, options).Scan(&visible); err != nil {
					t.Fatal(err)
				}
				if visible && !s.pending {
					for len(want) <= s.sid {
						want = append(want, 0)
					}
					want[s.sid] = 1
				}
			}
			if string(mask) != string(want) {
				t.Fatalf("sessions_searchable(%q, %s) = %x, want %x", caller, options, mask, want)
			}
			target := sessions[r.Intn(len(sessions))]
			var one []byte
			if err := db.QueryRow(`SELECT sessions_searchable(?1, ?2, ?3)`, caller, options, target.key).Scan(&one); err != nil {
				t.Fatal(err)
			}
			wantOne := []byte{}
			if target.sid < len(want) && want[target.sid] == 1 {
				wantOne = make([]byte, target.sid+1)
				wantOne[target.sid] = 1
			}
			if string(one) != string(wantOne) {
				t.Fatalf("sessions_searchable(%q, %s, %q) = %x, want %x", caller, options, target.key, one, wantOne)
			}
		}
	}
}

// A search run by a statement that reads no table still sees what other
// connections committed since its connection's last search: the decision
// it keeps is for the version it reads (docs/search.md Q21).
func TestSearchSeesOtherConnections(t *testing.T) {
	db, ctx := openStore(t)
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	writer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	count := func(caller string) int {
		t.Helper()
		var n int
		if err := reader.QueryRowContext(ctx, `SELECT json_array_length(sessions_search('guava', json_object('caller', ?1)) -> '$.results')`, caller).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := driver.AddSession(ctx, writer, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := driver.Append(ctx, writer, "agent:main:main", message("a", "", "user", "guava one", 1)); err != nil {
		t.Fatal(err)
	}
	if n := count("agent:main:main"); n != 1 {
		t.Fatalf("%d results, want 1", n)
	}
	// A new session of the agent, and one spawned from a subagent: both
	// appear at the next search on the reader.
	for _, s := range []driver.Session{{Key: "agent:main:other"}, {Key: "agent:ops:child", SpawnedBy: "agent:main:sub"}, {Key: "agent:main:sub"}} {
		if err := driver.AddSession(ctx, writer, s); err != nil {
			t.Fatal(err)
		}
		if _, err := driver.Append(ctx, writer, s.Key, message("a", "", "user", "guava more", 2)); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("agent:main:main"); n != 3 {
		t.Fatalf("agent:main:main: %d results after another connection's commit, want 3", n)
	}
	if n := count("agent:main:sub"); n != 2 {
		t.Fatalf("agent:main:sub: %d results, want itself and the session it spawned", n)
	}
	// A pending session, then reconciled by the writer.
	if err := driver.DeferIndexing(ctx, writer, true); err != nil {
		t.Fatal(err)
	}
	if err := driver.AddSession(ctx, writer, driver.Session{Key: "agent:main:late"}); err != nil {
		t.Fatal(err)
	}
	if _, err := driver.Append(ctx, writer, "agent:main:late", message("a", "", "user", "guava late", 3)); err != nil {
		t.Fatal(err)
	}
	if n := count("agent:main:main"); n != 3 {
		t.Fatalf("agent:main:main: %d results with a pending session, want 3", n)
	}
	if _, err := driver.Reconcile(ctx, writer, 1e9); err != nil {
		t.Fatal(err)
	}
	if n := count("agent:main:main"); n != 4 {
		t.Fatalf("agent:main:main: %d results after another connection reconciled, want 4", n)
	}
}

// docs/search.md Q17: the statement opens three temporary tables (the hits
// and two sorts); each costs a page cache of its own at every run.
func TestSearchStatementTables(t *testing.T) {
	db, _ := openStore(t)
	for name, query := range map[string]string{"relevance": extension.SearchSQL, "recent": store.RecentSQL} {
		rows, err := db.Query(`EXPLAIN `+query, sql.Named("query", "x"), sql.Named("prefix", false), sql.Named("caller", "agent:main:main"),
			sql.Named("options", "{}"), sql.Named("session", nil), sql.Named("after", nil), sql.Named("before", nil), sql.Named("role", nil),
			sql.Named("project", nil), sql.Named("project_dir", nil), sql.Named("limit", 11), sql.Named("snippet_chars", 40))
		if err != nil {
			t.Fatal(err)
		}
		tables := 0
		for rows.Next() {
			var addr, p1, p2, p3, p5 int
			var opcode, p4, comment sql.NullString
			if err := rows.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
				t.Fatal(err)
			}
			if opcode.String == "OpenEphemeral" || opcode.String == "SorterOpen" {
				tables++
			}
		}
		rows.Close()
		if tables > 3 {
			t.Errorf("the %s statement opens %d temporary tables, want at most 3", name, tables)
		}
	}
}

// docs/search.md Q21: the store renews the change token at every change of
// what visibility reads, and only then, so that a connection keeps its
// decisions across appends. Each case runs its setup, then its statements,
// on one connection of a store with the sessions agent:main:main (one
// message) and agent:main:sub (none).
func TestChangeToken(t *testing.T) {
	const deferred = `INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:sub', 0, '{"type":"message","id":"s","parentId":null,"message":{"role":"user","content":"late"}}')`
	for _, c := range []struct {
		name       string
		setup, sql []string
		changes    bool
		// searchable, when set: the searchable messages of agent:main:main
		// after sql, to show the change happened.
		searchable int
	}{
		{"append", nil, []string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 1, '{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"more"}}')`}, false, 2},
		{"rewind", []string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 1, '{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"more"}}')`},
			[]string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 2, '{"type":"leaf","id":"l","targetId":"a"}')`}, false, 1},
		{"branch", []string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 1, '{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"more"}}')`},
			[]string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 2, '{"type":"message","id":"c","parentId":"a","message":{"role":"assistant","content":"other"}}')`}, false, 2},
		{"new root", nil, []string{`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:main', 1, '{"type":"message","id":"r","parentId":null,"message":{"role":"user","content":"again"}}')`}, false, 1},
		{"created_at", nil, []string{`UPDATE sessions SET created_at = 5 WHERE session_key = 'agent:main:sub'`}, false, 0},
		{"new session", nil, []string{`INSERT INTO sessions(session_key) VALUES ('agent:main:new')`}, true, 0},
		{"existing session", nil, []string{`INSERT INTO sessions(session_key) VALUES ('agent:main:sub') ON CONFLICT DO NOTHING`}, false, 0},
		{"link", nil, []string{`UPDATE sessions SET spawned_by = 'agent:main:main' WHERE session_key = 'agent:main:sub'`}, true, 0},
		{"delete", nil, []string{`DELETE FROM sessions WHERE session_key = 'agent:main:sub'`}, true, 0},
		{"deferred", []string{`SELECT sessions_defer_indexing(1)`}, []string{deferred}, true, 0},
		{"deferred again", []string{`SELECT sessions_defer_indexing(1)`, deferred}, []string{
			`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:sub', 1, '{"type":"message","id":"t","parentId":"s","message":{"role":"assistant","content":"later"}}')`}, false, 0},
		{"reconciled", []string{`SELECT sessions_defer_indexing(1)`, deferred, `SELECT sessions_defer_indexing(0)`}, []string{`SELECT sessions_reconcile(1000)`}, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ctx, conn := storeConn(t)
			for _, key := range []string{"agent:main:main", "agent:main:sub"} {
				if err := driver.AddSession(ctx, conn, driver.Session{Key: key}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := driver.Append(ctx, conn, "agent:main:main", message("a", "", "user", "guava", 1)); err != nil {
				t.Fatal(err)
			}
			token := func() string {
				t.Helper()
				var v []byte
				if err := conn.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'sessions_change'`).Scan(&v); err != nil || len(v) != 8 {
					t.Fatalf("change token %x: %v", v, err)
				}
				return string(v)
			}
			run := func(sqls []string) {
				t.Helper()
				for _, q := range sqls {
					if _, err := conn.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			run(c.setup)
			before := token()
			run(c.sql)
			if changed := token() != before; changed != c.changes {
				t.Errorf("%s: token renewed %v, want %v", c.sql, changed, c.changes)
			}
			if c.searchable != 0 {
				var n int
				if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_messages WHERE session_key = 'agent:main:main'`).Scan(&n); err != nil || n != c.searchable {
					t.Errorf("%d searchable messages after %s (%v), want %d", n, c.sql, err, c.searchable)
				}
			}
		})
	}
}

// A connection's kept visibility follows every change of the sessions,
// including one rolled back, on the connection itself or another, and with
// a schema that keeps no change token.
func TestSearchFollowsSessionChanges(t *testing.T) {
	db, ctx := openStore(t)
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var tx *sql.Tx
	defer func() {
		if tx != nil {
			tx.Rollback() // a failed check leaves it open
		}
	}()
	count := func(q queryRower, caller string) int {
		t.Helper()
		var n int
		if err := q.QueryRowContext(ctx, `SELECT json_array_length(sessions_search('guava', json_object('caller', ?1)) -> '$.results')`, caller).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	add := func(e execQuerier, key string) {
		t.Helper()
		if err := driver.AddSession(ctx, e, driver.Session{Key: key}); err != nil {
			t.Fatal(err)
		}
		if _, err := driver.Append(ctx, e, key, message("a", "", "user", "guava "+key, 1)); err != nil {
			t.Fatal(err)
		}
	}
	add(reader, "agent:main:main")
	if n := count(reader, "agent:main:main"); n != 1 {
		t.Fatalf("%d results, want 1", n)
	}
	// Inside a transaction the search sees it; after the rollback it
	// doesn't, and a later change is never taken for the rolled-back one.
	tx, err = reader.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	add(tx, "agent:main:gone")
	if n := count(tx, "agent:main:main"); n != 2 {
		t.Fatalf("%d results inside the transaction, want 2", n)
	}
	tx.Rollback()
	tx, err = reader.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Another agent's session, with the session number the rolled-back
	// one had: a decision kept from inside the first transaction would
	// show it.
	add(tx, "agent:ops:kept")
	var keys string
	if err := tx.QueryRowContext(ctx, `SELECT group_concat(value ->> 'sessionKey', ' ') FROM json_each(sessions_search('guava', '{"caller":"agent:main:main"}') -> '$.results')`).Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if keys != "agent:main:main" {
		t.Fatalf("results from %q after a rollback and another change, want agent:main:main only", keys)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// A link filled in later: the subagent now sees the session it spawned.
	add(db, "agent:main:sub")
	add(db, "agent:ops:child")
	if n := count(reader, "agent:main:sub"); n != 1 {
		t.Fatalf("agent:main:sub: %d results before the link, want 1", n)
	}
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET spawned_by = 'agent:main:sub' WHERE session_key = 'agent:ops:child'`); err != nil {
		t.Fatal(err)
	}
	if n := count(reader, "agent:main:sub"); n != 2 {
		t.Fatalf("agent:main:sub: %d results after another connection linked a child, want 2", n)
	}
	// The highest session number deleted and given to a session the caller
	// does not see.
	if n := count(reader, "agent:main:main"); n != 2 {
		t.Fatalf("%d results, want 2", n)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = 'agent:ops:child'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = 'agent:main:sub'`); err != nil {
		t.Fatal(err)
	}
	add(db, "agent:ops:other")
	if n := count(reader, "agent:main:main"); n != 1 {
		t.Fatalf("%d results after a delete and a session of another agent, want 1", n)
	}
	// A schema of another build keeps no token: decisions last only while
	// the database is unchanged.
	if _, err := db.ExecContext(ctx, `UPDATE sessionsearch_meta SET value = 'another' WHERE key = 'schema_digest'`); err != nil {
		t.Fatal(err)
	}
	if n := count(reader, "agent:main:main"); n != 1 {
		t.Fatalf("%d results under another schema digest, want 1", n)
	}
	// A session added as another build would, leaving the token as it was.
	writer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	var token []byte
	if err := writer.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'sessions_change'`).Scan(&token); err != nil {
		t.Fatal(err)
	}
	add(writer, "agent:main:late")
	if _, err := writer.ExecContext(ctx, `UPDATE sessionsearch_meta SET value = ?1 WHERE key = 'sessions_change'`, token); err != nil {
		t.Fatal(err)
	}
	if n := count(reader, "agent:main:main"); n != 2 {
		t.Fatalf("%d results after a new session under a schema without the token's triggers, want 2", n)
	}
}

// docs/search.md Q29: a word's weight counts the messages and sessions
// that hold it; WordStatsSQL counts the sessions with sessionsearch_runs
// over the matches in rowid order, and must give what count(DISTINCT)
// gives, capped or not.
func TestWordStats(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	db, _ := searchWorld(t, r)
	for _, word := range []string{`"kiwi"`, `"mango" OR "lime"`, `"fig" OR "date" OR "plum" OR "pear"`, `"absent"`} {
		for _, limit := range []int{1, 7, 50, 20000} {
			var messages, sessions, wantMessages, wantSessions int64
			if err := db.QueryRow(store.WordStatsSQL, word, limit).Scan(&messages, &sessions); err != nil {
				t.Fatal(err)
			}
			err := db.QueryRow(`SELECT count(*), count(DISTINCT rowid >> 32) FROM
				(SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH ?1 ORDER BY rowid LIMIT ?2)`, word, limit).Scan(&wantMessages, &wantSessions)
			if err != nil {
				t.Fatal(err)
			}
			if messages != wantMessages || sessions != wantSessions {
				t.Errorf("%s, limit %d: %d messages in %d sessions, want %d in %d", word, limit, messages, sessions, wantMessages, wantSessions)
			}
		}
	}
	// sessionsearch_runs itself: runs of equal values in the order given,
	// NULLs skipped; any value but an integer is an error, as no integer
	// tells two such values apart.
	for _, c := range []struct {
		values string
		want   int64
	}{
		{`SELECT 1 AS column1 WHERE 0`, 0},
		{`VALUES (NULL)`, 0},
		{`VALUES (5)`, 1},
		{`VALUES (1), (1), (2), (NULL), (2), (1), (3)`, 4},
	} {
		var got int64
		if err := db.QueryRow(`SELECT sessionsearch_runs(column1) FROM (` + c.values + `)`).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.values, err)
		}
		if got != c.want {
			t.Errorf("sessionsearch_runs over %s = %d, want %d", c.values, got, c.want)
		}
	}
	for _, c := range []struct{ values, want string }{
		{`VALUES (1), ('a'), ('b')`, `sessionsearch_runs: x must be an integer or NULL, got text 'a'`},
		{`VALUES (1.2), (1.7)`, `sessionsearch_runs: x must be an integer or NULL, got real '1.2'`},
		{`VALUES ('1'), (1)`, `sessionsearch_runs: x must be an integer or NULL, got text '1'`},
		{`VALUES (x'0102'), (x'02')`, `sessionsearch_runs: x must be an integer or NULL, got a blob of 2 bytes`},
	} {
		var got int64
		err := db.QueryRow(`SELECT sessionsearch_runs(column1) FROM (` + c.values + `)`).Scan(&got)
		if err == nil || err.Error() != c.want {
			t.Errorf("sessionsearch_runs over %s = %d, %v; want the error %s", c.values, got, err, c.want)
		}
	}
}
