package driver_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// Fuzz targets for the SQL boundary: what any host can pass to the
// extension's functions and the store's tables, through real SQL on a real
// database file. `make fuzz` runs each for a while; `go test` runs their
// seed corpora (testdata/fuzz and the f.Add calls).

// fuzzDB opens a database with a few fixture transcripts in three sessions
// of two agents, one per fuzz process.
func fuzzDB(f *testing.F) *driver.DB {
	db, ctx := openStore(f)
	keys := []driver.Session{{Key: "agent:main:main"}, {Key: "agent:main:sub", SpawnedBy: "agent:main:main"}, {Key: "agent:other:main"}}
	for i, file := range fixtures.Files()[:len(keys)] {
		if err := db.AddSession(ctx, keys[i]); err != nil {
			f.Fatal(err)
		}
		for _, line := range file.Lines[:min(len(file.Lines), 80)] {
			if _, err := db.Append(ctx, keys[i].Key, line); err != nil {
				f.Fatalf("%s: %v", file.Name, err)
			}
		}
	}
	return db
}

// checkFunctionError fails unless err is a clear error of the SQL function
// fn: its message starts with "fn: " once and is not a recovered panic.
func checkFunctionError(t *testing.T, fn string, err error, call string) {
	t.Helper()
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, fn+": ")
	switch {
	case !ok:
		t.Fatalf("%s: the error does not name %s: %q", call, fn, msg)
	case strings.HasPrefix(rest, fn+": "):
		t.Fatalf("%s: the error names %s twice: %q", call, fn, msg)
	case strings.Contains(msg, "internal error"):
		t.Fatalf("%s: %q", call, msg)
	}
}

var optionSeeds = []string{
	`{"caller":"agent:main:main"}`,
	`{"caller":"agent:main:main","limit":25,"order":"recent","prefix":true,"snippetChars":1,"maxBytes":256}`,
	`{"caller":"agent:main:sub","visibility":"self","sessionKey":"agent:main:sub"}`,
	`{"caller":"agent:main:main","visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]}}`,
	`{"caller":"agent:main:sub","sandboxed":true,"sandboxVisibility":"all"}`,
	`{"caller":"agent:main:main","limit":40}`,
	`{"caller":"agent:main:main","limit":1e400}`,
	`{"caller":"agent:main:main","limit":"5"}`,
	`{"caller":"agent:main:main","limit":10,"limit":11}`,
	`{"caller":"agent:main:main","messageId":"84d25333","includeTools":true,"maxChars":1}`,
	`{"caller":"agent:main:main","agentToAgent":{"enabled":"yes"}}`,
	`{"caller":null}`, `{}`, `[]`, `null`, ``, `{"caller":"agent:main:main"} x`, "{\"caller\":\"\xff\"}",
}

// FuzzSearchOptions: sessions_search with any query and any options JSON
// either fails with an error that names sessions_search, or returns valid
// JSON of the documented shape, never more hits than the limit allows.
func FuzzSearchOptions(f *testing.F) {
	db := fuzzDB(f)
	for i, o := range optionSeeds {
		f.Add([]string{"session", "東京", "the user", "\"quoted\" OR *", "x"}[i%5], o)
	}
	f.Fuzz(func(t *testing.T, query, opts string) {
		call := fmt.Sprintf("sessions_search(%q, %q)", query, opts)
		var out string
		if err := db.QueryRow(`SELECT sessions_search(?1, ?2)`, query, opts).Scan(&out); err != nil {
			checkFunctionError(t, "sessions_search", err, call)
			return
		}
		var res driver.SearchResult
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&res); err != nil || !json.Valid([]byte(out)) {
			t.Fatalf("%s returned %q: %v", call, out, err)
		}
		if len(res.Results) > 25 {
			t.Fatalf("%s returned %d results, more than the largest limit", call, len(res.Results))
		}
	})
}

// FuzzHistoryOptions: the same for sessions_history with any session key.
func FuzzHistoryOptions(f *testing.F) {
	db := fuzzDB(f)
	for i, o := range optionSeeds {
		f.Add([]string{"agent:main:main", "agent:main:sub", "agent:other:main", "", "agent:main:missing"}[i%5], o)
	}
	f.Fuzz(func(t *testing.T, key, opts string) {
		call := fmt.Sprintf("sessions_history(%q, %q)", key, opts)
		var out string
		if err := db.QueryRow(`SELECT sessions_history(?1, ?2)`, key, opts).Scan(&out); err != nil {
			checkFunctionError(t, "sessions_history", err, call)
			return
		}
		var res driver.History
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&res); err != nil || !json.Valid([]byte(out)) {
			t.Fatalf("%s returned %q: %v", call, out, err)
		}
		if len(res.Messages) > 1000 {
			t.Fatalf("%s returned %d messages, more than the largest limit", call, len(res.Messages))
		}
	})
}

// FuzzMatch: sessions_match turns any query into an expression that FTS5
// accepts, in the store's index and in a table of one's own in either CJK
// mode; it refuses only an empty or an overlong query, naming itself; a
// text that is the query itself is found by it (unless no term of the
// query has a token); and sessions_search runs the same query without
// error.
func FuzzMatch(f *testing.F) {
	db := fuzzDB(f)
	for _, s := range []string{
		`"cjk trigram"`, `cjk trigram`, `weather`, `ユーザIDを`, `a AND b`, `OR`, `NOT x`, `NEAR(a b)`, `x:y`, `col:val`,
		`(a`, `a)`, `*`, `a*`, `^a`, `-a`, `+a`, `"`, `""`, `"a""b"`, "a\x00b", "\xff\xfe", `東京 weather`,
		`parse_session_key`, `report.txt`, "\u200b", "  ", "",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE own_unigram USING fts5(body, tokenize='sessionsearch');
		CREATE VIRTUAL TABLE own_trigram USING fts5(body, tokenize='sessionsearch cjk trigram');
		INSERT INTO own_unigram(body) VALUES ('東京の天気 weather report.txt'), ('ユーザIDを parseSessionKey');
		INSERT INTO own_trigram(body) SELECT body FROM own_unigram;
		CREATE VIRTUAL TABLE own_self USING fts5(body, tokenize='sessionsearch');
		CREATE VIRTUAL TABLE own_self_trigram USING fts5(body, tokenize='sessionsearch cjk trigram');`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string, prefix bool) {
		call := fmt.Sprintf("sessions_match(%q, %v)", query, prefix)
		var expr string
		if err := db.QueryRow(`SELECT sessions_match(?1, ?2)`, query, prefix).Scan(&expr); err != nil {
			checkFunctionError(t, "sessions_match", err, call)
			if trimmed := strings.TrimSpace(query); trimmed != "" && utf8.ValidString(query) && utf8.RuneCountInString(trimmed) <= 4096 {
				t.Fatalf("%s refused a query of %d characters: %v", call, utf8.RuneCountInString(trimmed), err)
			}
			return
		}
		for _, table := range []string{"sessionsearch_fts", "own_unigram", "own_trigram"} {
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?1`, expr).Scan(&n); err != nil {
				t.Fatalf("%s = %q: MATCH on %s: %v", call, expr, table, err)
			}
		}
		if expr != `""` && utf8.ValidString(query) {
			for _, table := range []string{"own_self", "own_self_trigram"} {
				var n int
				if _, err := db.Exec(`DELETE FROM `+table+`; INSERT INTO `+table+`(body) VALUES (?1)`, query); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRow(`SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?1`, expr).Scan(&n); err != nil || n != 1 {
					t.Fatalf("%s = %q does not find the text %q in %s (%d rows, %v)", call, expr, query, table, n, err)
				}
			}
		}
		opts := fmt.Sprintf(`{"caller":"agent:main:main","prefix":%v}`, prefix)
		var out string
		if err := db.QueryRow(`SELECT sessions_search(?1, ?2)`, query, opts).Scan(&out); err != nil {
			t.Fatalf("sessions_search(%q, %s) failed where sessions_match gave %q: %v", query, opts, expr, err)
		}
	})
}

// FuzzEvents: any events appended to a session through the triggers, with
// rewinds to the ids they name. Each append is stored or refused with an
// error that names transcript_events, the session and the seq; the index
// passes FTS5's integrity-check; the searchable messages equal those of a
// copy of the same events indexed from scratch by sessions_reconcile (so
// the triggers' incremental indexing agrees with a replay); and deleting
// the sessions leaves the index consistent.
func FuzzEvents(f *testing.F) {
	db, ctx := openStore(f)
	for _, file := range fixtures.Files() {
		f.Add(slices.Concat(slices.Collect(func(yield func([]byte) bool) {
			for _, l := range file.Lines[:min(len(file.Lines), 12)] {
				if !yield(append(slices.Clone(l), '\n')) {
					return
				}
			}
		})...))
	}
	f.Add([]byte(`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"one"}}
{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"two"}}
{"type":"leaf","id":"l","targetId":"a"}
{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":[{"type":"text","text":"three"}]}}
{"type":"message","id":"a","message":{"role":"user","content":"reused id"}}
{"type":"message","id":"d","parentId":"zz","appendMode":"side","message":{"role":"user","text":"orphan"}}
{"type":"leaf","id":"m","targetId":"nothing"}
[1,2]
{"type":7}
{"type":"message","message":null}`))
	const keyA, keyB = "agent:fuzz:a", "agent:fuzz:b"
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Split(string(data), "\n")
		if len(lines) > 32 {
			lines = lines[:32]
		}
		for _, k := range []string{keyA, keyB} {
			if err := db.DeleteSession(ctx, k); err != nil {
				t.Fatal(err)
			}
			if err := db.AddSession(ctx, driver.Session{Key: k}); err != nil {
				t.Fatal(err)
			}
		}
		// Into A, one append at a time, each rewinding now and then to an
		// id named by an earlier event.
		var accepted [][]byte
		var ids []string
		seq := int64(0)
		appendA := func(ev []byte) {
			_, err := driver.Append(ctx, db, keyA, ev)
			if err == nil {
				accepted = append(accepted, ev)
				seq++
				return
			}
			want := []string{"transcript_events", fmt.Sprintf("session %q", keyA), fmt.Sprintf("seq %d", seq)}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("append of %q at seq %d: the refusal does not name %s: %v", ev, seq, w, err)
				}
			}
		}
		for i, line := range lines {
			appendA([]byte(line))
			var e struct {
				ID any `json:"id"`
			}
			if json.Unmarshal([]byte(line), &e) == nil {
				if id, ok := e.ID.(string); ok {
					ids = append(ids, id)
				}
			}
			if len(ids) > 1 && i%3 == 2 {
				target := ids[(i*7)%len(ids)]
				appendA(mustJSON(t, map[string]any{"type": "leaf", "id": fmt.Sprintf("rewind-%d", i), "targetId": target}))
			}
		}
		ftsIntegrity(t, db, "after appending to "+keyA)

		// Into B, the accepted events with indexing deferred, then
		// reconciled.
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := driver.DeferIndexing(ctx, conn, true); err != nil {
			t.Fatal(err)
		}
		for i, ev := range accepted {
			if _, err := driver.Append(ctx, conn, keyB, ev); err != nil {
				t.Fatalf("deferred append of %q at seq %d, which the triggers accepted for %s: %v", ev, i, keyA, err)
			}
		}
		if err := driver.DeferIndexing(ctx, conn, false); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		for deadline := time.Now().Add(10 * time.Second); ; {
			r, err := db.Reconcile(ctx, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if r.Pending == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("sessions_reconcile still has %d pending sessions after 10 seconds", r.Pending)
			}
		}
		a, b := searchable(t, db.DB, keyA), searchable(t, db.DB, keyB)
		if !slices.Equal(a, b) {
			t.Fatalf("searchable messages after the triggers:\n  %q\nafter sessions_reconcile of the same events:\n  %q", a, b)
		}
		ftsIntegrity(t, db, "after reconciling "+keyB)
		for _, k := range []string{keyA, keyB} {
			if err := db.DeleteSession(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		ftsIntegrity(t, db, "after deleting the sessions")
		var left int
		if err := db.QueryRow(`SELECT count(*) FROM sessionsearch_messages`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d searchable messages left after deleting every session (%v)", left, err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ftsIntegrity(t *testing.T, db *driver.DB, when string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("FTS5 integrity-check %s: %v", when, err)
	}
}

// searchable returns the searchable messages of a session: seq, id, role
// and timestamp, in seq order.
func searchable(t *testing.T, db *sql.DB, key string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT rowid & 4294967295, coalesce(message_id, '<null>'), coalesce(role, '<null>'), timestamp, pending
		FROM sessionsearch_messages WHERE session_key = ?1 ORDER BY rowid`, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var seq, ts, pending int64
		var id, role string
		if err := rows.Scan(&seq, &id, &role, &ts, &pending); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %s %s %d pending=%d", seq, id, role, ts, pending))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzSnippet: for any text and query, sessions_snippet either fails with
// an error that names it, or gives, wherever FTS5 finds the query in the
// text, the snippet sessionsearch_snippet gives from FTS5's own record of
// the matches (docs/search.md Q14).
func FuzzSnippet(f *testing.F) {
	db, ctx := openStore(f)
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE fuzz_snippet USING fts5(x, tokenize='sessionsearch')`); err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][2]string{
		{"The build passed after the fix to parseSessionKey; then we shipped", "sessionkey"},
		{"東京都庁の天気は晴れ、東京タワーも見える", "東京"},
		{"token ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8 for the weather report and more words here", "weather report"},
		{"ภาษาไทยไม่มีช่องว่างระหว่างคำ", "ช่องว่าง"},
		{"snake_case_words and camelCaseWords, foo-bar", "case words"},
	} {
		f.Add(seed[0], seed[1], false, 20)
		f.Add(seed[0], seed[1], true, 8)
	}
	f.Fuzz(func(t *testing.T, text, query string, prefix bool, window int) {
		if !utf8.ValidString(text) || len(text) > 4096 {
			return
		}
		window = 1 + (window%200+200)%200
		var ours string
		call := fmt.Sprintf("sessions_snippet(%q, %q, %v, %d)", text, query, prefix, window)
		if err := db.QueryRowContext(ctx, `SELECT sessions_snippet(?1, ?2, ?3, ?4)`, text, query, prefix, window).Scan(&ours); err != nil {
			checkFunctionError(t, "sessions_snippet", err, call)
			return
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `INSERT INTO fuzz_snippet(x) VALUES (?1)`, text); err != nil {
			t.Fatal(err)
		}
		var fromFTS5 string
		err = tx.QueryRowContext(ctx, `SELECT sessionsearch_snippet(fuzz_snippet, ?3) FROM fuzz_snippet WHERE fuzz_snippet MATCH sessions_match(?1, ?2)`, query, prefix, window).Scan(&fromFTS5)
		if err == sql.ErrNoRows {
			return // FTS5 does not find the query: nothing to compare
		}
		if err != nil {
			t.Fatalf("%s: FTS5: %v", call, err)
		}
		if ours != fromFTS5 {
			t.Fatalf("%s = %q; sessionsearch_snippet gives %q", call, ours, fromFTS5)
		}
	})
}
