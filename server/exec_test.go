//go:build sqlite_fts5

package server_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ssdriver "github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// recording wraps the sessionsearch driver and records which statements
// are sent as queries and which as execs: on dqlite a statement that
// writes must be an exec, and an exec must return no rows.
type recording struct {
	inner driver.Driver
	mu    sync.Mutex
	query []string
	exec  []string
}

func (r *recording) Open(name string) (driver.Conn, error) {
	c, err := r.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &recordingConn{c.(conn), r}, nil
}

type conn interface {
	driver.Conn
	driver.ExecerContext
	driver.QueryerContext
	driver.ConnBeginTx
}

type recordingConn struct {
	conn
	r *recording
}

func (c *recordingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.r.mu.Lock()
	c.r.exec = append(c.r.exec, q)
	c.r.mu.Unlock()
	return c.conn.ExecContext(ctx, q, args)
}

func (c *recordingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.r.mu.Lock()
	c.r.query = append(c.r.query, q)
	c.r.mu.Unlock()
	return c.conn.QueryContext(ctx, q, args)
}

// Prepare is refused so that every statement goes through the two
// recorded paths.
func (c *recordingConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("recording: prepared statements are not recorded")
}

var registerRecording sync.Once

// TestWritesAreExecs: docs/serve.md H9. Every request kind runs with
// every statement recorded: queries only read, and the statements that
// write are execs of statements that return no rows.
func TestWritesAreExecs(t *testing.T) {
	base, err := sql.Open(ssdriver.DriverName, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{inner: base.Driver()}
	base.Close()
	registerRecording.Do(func() { sql.Register("sessionsearch-recording", rec) })
	db, err := sql.Open("sessionsearch-recording", "file:"+filepath.Join(t.TempDir(), "r.db")+"?_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`SELECT 1 WHERE sessionsearch_migrate() IS NULL`); err != nil {
		t.Fatal(err)
	}
	tokens, _ := server.ParseTokens([]byte(tokensJSON))
	ts := httptest.NewServer(server.New(db, server.Options{Tokens: tokens}))
	defer ts.Close()
	s := &testServer{url: ts.URL}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/append", fixture},
		{"POST", "/v1/append", fixture},
		{"POST", "/v1/append", `{"events":[` + event("agent:main:main", 0, "m0", "changed") + `]}`},
		{"POST", "/v1/search", `{"query":"zebra"}`},
		{"POST", "/v1/history", `{"sessionKey":"agent:main:main"}`},
		{"GET", "/v1/status", ``},
		{"POST", "/v1/reconcile", `{"budgetMs":10}`},
		{"DELETE", "/v1/sessions/agent:main:other", ``},
		{"GET", "/readyz", ``},
	} {
		if st, out := s.do(t, tokWriter, c.method, c.path, c.body); st >= 500 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, st, out)
		}
	}
	writes := regexp.MustCompile(`(?i)\b(INSERT|UPDATE|DELETE|REPLACE|RETURNING|PRAGMA)\b|sessions_reconcile|sessionsearch_migrate|sessions_defer_indexing`)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.query) == 0 || len(rec.exec) < 3 {
		t.Fatalf("recorded %d queries and %d execs", len(rec.query), len(rec.exec))
	}
	for _, q := range rec.query {
		if !strings.HasPrefix(strings.TrimSpace(q), "SELECT") || writes.MatchString(q) {
			t.Errorf("a statement that writes was sent as a query: %s", q)
		}
	}
	for _, q := range rec.exec {
		if strings.HasPrefix(strings.TrimSpace(q), "SELECT") && !strings.Contains(q, " WHERE ") {
			t.Errorf("an exec that returns a row: %s", q)
		}
	}
}

// TestTimeoutAndReadiness: docs/serve.md H10, H11. Database work over the
// time limit is a 503 with code "timeout"; /readyz is 503 when the
// database does not answer, while /healthz still answers.
func TestTimeoutAndReadiness(t *testing.T) {
	s := newServer(t, server.Options{})
	tokens, _ := server.ParseTokens([]byte(tokensJSON))
	slow := httptest.NewServer(server.New(s.db.DB, server.Options{Tokens: tokens, RequestTimeout: time.Nanosecond}))
	defer slow.Close()
	st, out := (&testServer{url: slow.URL}).do(t, tokWriter, "POST", "/v1/search", `{"query":"zebra"}`)
	if st != 503 || !strings.Contains(string(out), `"code":"timeout"`) {
		t.Errorf("a search over the time limit: %d %s", st, out)
	}
	s.db.Close()
	if st, out := s.do(t, "", "GET", "/readyz", ""); st != 503 || !strings.Contains(string(out), `"code":"not_ready"`) {
		t.Errorf("readyz with the database closed: %d %s", st, out)
	}
	if st, _ := s.do(t, "", "GET", "/healthz", ""); st != 200 {
		t.Errorf("healthz with the database closed: %d", st)
	}
}
