//go:build sqlite_fts5

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// TestWritingFunctionsWaitInEveryHost: docs/store.md S16. In each host, a
// connection with a busy timeout calls sessionsearch_migrate() and
// sessions_reconcile() in autocommit mode, SQLite's usual habit, while
// another connection holds the write lock: each call waits for the commit
// instead of failing at once with "database is locked", then does its work.
func TestWritingFunctionsWaitInEveryHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := driver.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// A pending session per host, for reconcile; an index of another
	// version, for migrate.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.DeferIndexing(ctx, conn, true); err != nil {
		t.Fatal(err)
	}
	for i := range hosts {
		key := fmt.Sprintf("agent:main:pending-%d", i)
		if err := driver.AddSession(ctx, conn, driver.Session{Key: key}); err != nil {
			t.Fatal(err)
		}
		ev := `{"type":"message","id":"m0","message":{"role":"user","content":"waiting writers"}}`
		if _, err := conn.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, 0, ?2)`, key, ev); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	if _, err := db.Exec(`UPDATE sessionsearch_meta SET value = '0.0' WHERE key = 'index_version'`); err != nil {
		t.Fatal(err)
	}

	writer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if _, err := writer.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.ExecContext(ctx, `INSERT INTO sessions(session_key) VALUES ('agent:main:writer')`); err != nil {
		t.Fatal(err)
	}
	script := "PRAGMA busy_timeout = 20000;\nSELECT sessionsearch_migrate();\nSELECT sessions_reconcile(5000);\n"
	done := make(chan int, len(hosts))
	results := make([]result, len(hosts))
	for i, h := range hosts {
		go func() {
			results[i] = h.run(path, script, true, false)
			done <- i
		}()
	}
	time.Sleep(time.Second)
	select {
	case i := <-done:
		t.Fatalf("%s returned while another connection held the write lock: %s %v %v", hosts[i].name, results[i].out, results[i].errs, results[i].failed)
	default:
	}
	if _, err := writer.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	indexed := 0
	for range hosts {
		i := <-done
		r := results[i]
		got := lines(r.out)
		if r.failed != nil || len(r.errs) > 0 || len(got) != 3 || got[0] != "20000" || got[1] != "3" {
			t.Errorf("%s: %q, errors %v %v; want 20000, 3 and the reconcile's counts", hosts[i].name, got, r.errs, r.failed)
			continue
		}
		var res struct{ Pending, Indexed int }
		if err := json.Unmarshal([]byte(got[2]), &res); err != nil || res.Pending != 0 {
			t.Errorf("%s: sessions_reconcile answered %s, want nothing pending", hosts[i].name, got[2])
		}
		indexed += res.Indexed
	}
	if indexed != len(hosts) {
		t.Errorf("the hosts' reconciles indexed %d sessions in all, want %d", indexed, len(hosts))
	}
	var version string
	if err := db.QueryRow(`SELECT value FROM sessionsearch_meta WHERE key = 'index_version'`).Scan(&version); err != nil || version == "0.0" || strings.TrimSpace(version) == "" {
		t.Errorf("index_version after the hosts' migrations: %q, %v", version, err)
	}
}
