//go:build sqlite_fts5

package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

func openStore(t *testing.T, name string) *driver.DB {
	t.Helper()
	db, err := driver.Open(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return db
}

// loadLocal stores the fixture transcripts in db, one session each, the
// lines as they are in the files.
func loadLocal(t *testing.T, db *driver.DB) []string {
	t.Helper()
	names, _ := filepath.Glob("../internal/fixtures/transcripts/*.jsonl")
	if len(names) == 0 {
		t.Fatal("no fixtures")
	}
	var keys []string
	for i, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("agent:main:fixture-%d", i)
		keys = append(keys, key)
		if _, err := db.Exec(`INSERT INTO sessions(session_key, created_at) VALUES (?1, ?2)`, key, i+1); err != nil {
			t.Fatal(err)
		}
		for seq, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			if _, err := db.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, key, seq, line); err != nil {
				t.Fatal(err)
			}
		}
	}
	return keys
}

// sameStores fails unless every session of local reads the same through
// sessions_history on remote, and remote has no other sessions.
func sameStores(t *testing.T, local, remote *driver.DB, keys []string) {
	t.Helper()
	const opts = `{"caller":"agent:main:main","limit":1000,"maxBytes":4194304}`
	for _, k := range keys {
		var want, got string
		if err := local.QueryRow(`SELECT sessions_history(?1, ?2)`, k, opts).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := remote.QueryRow(`SELECT sessions_history(?1, ?2)`, k, opts).Scan(&got); err != nil {
			t.Fatalf("%s on the service: %v", k, err)
		}
		if got != want {
			t.Errorf("%s differs on the service:\n got %.300s\nwant %.300s", k, got, want)
		}
	}
	var nl, nr int
	local.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&nl)
	remote.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&nr)
	if nl != nr {
		t.Errorf("%d events here, %d on the service", nl, nr)
	}
}

// TestPush: docs/serve.md H13.
func TestPush(t *testing.T) {
	local, remote := openStore(t, "local.db"), openStore(t, "remote.db")
	keys := loadLocal(t, local)
	tokens, _ := server.ParseTokens([]byte(tokensJSON))
	h := server.New(remote.DB, server.Options{Tokens: tokens})
	var fail atomic.Int32 // requests left before the service goes away; <0: never
	fail.Store(-1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() == 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":"unavailable","message":"gone"}}`)
			return
		}
		if fail.Load() > 0 {
			fail.Add(-1)
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c := &server.Client{URL: ts.URL, Token: tokWriter, Attempts: 2, Backoff: time.Millisecond}
	ctx := t.Context()
	small := server.PushOptions{BatchEvents: 7}

	// The service goes away after five requests: what was sent stays, and
	// the next push continues.
	fail.Store(5)
	if _, err := server.Push(ctx, local.DB, c, small); server.ErrorCode(err) != "unavailable" {
		t.Fatalf("a push to a service that went away: %v", err)
	}
	var partial, total int
	remote.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&partial)
	local.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&total)
	if partial == 0 || partial > 4*7 || partial >= total {
		t.Errorf("after the interruption the service has %d of %d events, want some, at most 4 batches of 7", partial, total)
	}
	fail.Store(-1)
	st, err := server.Push(ctx, local.DB, c, small)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions == 0 || st.Replaced != 0 {
		t.Errorf("resumed push: %+v", st)
	}
	sameStores(t, local, remote, keys)

	// Nothing new: nothing sent.
	if st, err := server.Push(ctx, local.DB, c, small); err != nil || st != (server.PushStats{}) {
		t.Errorf("a push with nothing new: %+v %v", st, err)
	}
	// New events go as they come.
	for seq := 1000; seq < 1003; seq++ {
		var next int
		local.QueryRow(`SELECT max(seq) + 1 FROM transcript_events WHERE session_key = ?1`, keys[0]).Scan(&next)
		if _, err := local.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, keys[0], next,
			fmt.Sprintf(`{"type":"message","id":"new%d","message":{"role":"user","content":"pushed later %d"}}`, seq, seq)); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := server.Push(ctx, local.DB, c, small); err != nil || st != (server.PushStats{Sessions: 1, Events: 3}) {
		t.Errorf("a push of three new events: %+v %v", st, err)
	}
	// A session rewritten here (a shorter transcript with other text) is
	// replaced there.
	if _, err := local.Exec(`DELETE FROM sessions WHERE session_key = ?1`, keys[1]); err != nil {
		t.Fatal(err)
	}
	local.Exec(`INSERT INTO sessions(session_key, created_at) VALUES (?1, 2)`, keys[1])
	local.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, 0, '{"type":"message","id":"r0","message":{"role":"user","content":"rewritten"}}')`, keys[1])
	if st, err := server.Push(ctx, local.DB, c, small); err != nil || st != (server.PushStats{Sessions: 1, Events: 1, Replaced: 1}) {
		t.Errorf("a push of a rewritten session: %+v %v", st, err)
	}
	// A session whose last event changed, same length: the re-sent last
	// event conflicts, and the session is replaced.
	var n int
	local.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_key = ?1`, keys[2]).Scan(&n)
	rows, _ := local.Query(`SELECT event FROM transcript_events WHERE session_key = ?1 AND seq < ?2 ORDER BY seq`, keys[2], n-1)
	var kept []string
	for rows.Next() {
		var e string
		rows.Scan(&e)
		kept = append(kept, e)
	}
	rows.Close()
	local.Exec(`DELETE FROM sessions WHERE session_key = ?1`, keys[2])
	local.Exec(`INSERT INTO sessions(session_key, created_at) VALUES (?1, 3)`, keys[2])
	for seq, e := range append(kept, `{"type":"message","id":"changed","message":{"role":"assistant","content":"a changed last answer"}}`) {
		if _, err := local.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, keys[2], seq, e); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := server.Push(ctx, local.DB, c, small); err != nil || st.Replaced != 1 || st.Events != n {
		t.Errorf("a push of a session with a changed last event (%d events): %+v %v", n, st, err)
	}
	sameStores(t, local, remote, keys)
}
