//go:build sqlite_fts5

package server_test

import (
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// TestLockedIsRetryable: an append that finds the database locked by
// another writer for longer than the connection waits is refused 503
// unavailable, never 500, and writes nothing; sent again once the other
// writer is done, it is stored (docs/serve.md H20).
func TestLockedIsRetryable(t *testing.T) {
	s := newServer(t, server.Options{})
	// One connection, waiting 50 ms for a lock instead of the driver's 10 s.
	s.db.SetMaxOpenConns(1)
	if _, err := s.db.Exec(`PRAGMA busy_timeout = 50`); err != nil {
		t.Fatal(err)
	}
	other, err := driver.Open(s.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	writer, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if _, err := writer.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	body := `{"events":[` + event("agent:main:main", 1, "m1", "written after the lock") + `]}`
	st, out := s.do(t, tokWriter, "POST", "/v1/append", body)
	if st != 503 || !strings.Contains(string(out), `"code":"unavailable"`) || !strings.Contains(string(out), "database is locked") {
		t.Fatalf("append under another writer's lock: %d %s, want 503 unavailable", st, out)
	}
	if _, err := writer.ExecContext(t.Context(), `COMMIT`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_key = 'agent:main:main'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the refused append: %d events, %v; want 1 (the fixture's)", n, err)
	}
	if st, out := s.do(t, tokWriter, "POST", "/v1/append", body); st != 200 || !strings.Contains(string(out), `"eventsAppended":1`) {
		t.Fatalf("the same append once the lock is free: %d %s", st, out)
	}
}
