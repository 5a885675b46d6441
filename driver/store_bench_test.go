package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// fixtureEvents returns the events of the fixture transcripts, as lines.
func fixtureEvents(tb testing.TB) [][]byte {
	var events [][]byte
	for _, f := range fixtures.Files() {
		events = append(events, f.Lines...)
	}
	if len(events) == 0 {
		tb.Fatal("no fixture events")
	}
	return events
}

// openStore opens a new migrated database, closed when the test ends.
func openStore(tb testing.TB) (*driver.DB, context.Context) {
	db, err := driver.Open(filepath.Join(tb.TempDir(), "store.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return db, ctx
}

// openStoreTools is openStore with the tool index switched on or not
// (docs/store.md S33).
func openStoreTools(tb testing.TB, tools bool) *driver.DB {
	db, ctx := openStore(tb)
	if err := db.SetToolIndex(ctx, tools); err != nil {
		tb.Fatal(err)
	}
	return db
}

// storeConn is openStore with one connection of its pool, closed when the
// test ends: what a test of one connection's state (deferral, kept
// replays, a caller's decisions) needs.
func storeConn(tb testing.TB) (*driver.DB, context.Context, *sql.Conn) {
	tb.Helper()
	db, ctx := openStore(tb)
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return db, ctx, conn
}

// messageEvent is a linear user or assistant message event.
func messageEvent(i int, text string) []byte {
	role := "user"
	if i%2 == 1 {
		role = "assistant"
	}
	return []byte(fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-02-07T05:05:47.434Z","message":{"role":%q,"content":[{"type":"text","text":%q}]}}`,
		i, parentOf(i), role, text))
}

func parentOf(i int) string {
	if i == 0 {
		return "null"
	}
	return fmt.Sprintf(`"m%d"`, i-1)
}

// BenchmarkAppend compares appending a message to a session (the event row,
// trigger, path bookkeeping, index) with inserting its text into a plain
// FTS5 table with the same tokenizer, interleaved in the same run:
// append-ratio is the cost ratio. event-ratio is the part of it that is the
// event row alone: the same event inserted into a table like
// transcript_events without triggers. Each statement in its own
// transaction, as a gateway appends.
func BenchmarkAppend(b *testing.B) {
	var texts []string
	for _, ev := range fixtureEvents(b) {
		if t, ok := transcript.MessageText(ev); ok {
			texts = append(texts, t)
		}
	}
	db, ctx := openStore(b)
	for _, ddl := range []string{
		`CREATE VIRTUAL TABLE plain USING fts5(text, tokenize='sessionsearch')`,
		`CREATE TABLE bare_events(session_key TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_key, seq))`,
	} {
		if _, err := db.Exec(ddl); err != nil {
			b.Fatal(err)
		}
	}
	conn, _ := db.Conn(ctx)
	defer conn.Close()
	appendStmt, err := conn.PrepareContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	if err != nil {
		b.Fatal(err)
	}
	plainStmt, _ := conn.PrepareContext(ctx, `INSERT INTO plain(text) VALUES (?1)`)
	bareStmt, _ := conn.PrepareContext(ctx, `INSERT INTO bare_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	var tAppend, tPlain, tBare time.Duration
	n := 0
	for b.Loop() {
		key := fmt.Sprintf("agent:main:bench-%d", n)
		if err := driver.AddSession(ctx, conn, driver.Session{Key: key}); err != nil {
			b.Fatal(err)
		}
		for i, text := range texts {
			ev := messageEvent(i, text)
			start := time.Now()
			if _, err := appendStmt.ExecContext(ctx, key, i, ev); err != nil {
				b.Fatal(err)
			}
			tAppend += time.Since(start)
			start = time.Now()
			if _, err := plainStmt.ExecContext(ctx, text); err != nil {
				b.Fatal(err)
			}
			tPlain += time.Since(start)
			start = time.Now()
			if _, err := bareStmt.ExecContext(ctx, key, i, ev); err != nil {
				b.Fatal(err)
			}
			tBare += time.Since(start)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(tAppend.Nanoseconds())/float64(n), "ns/append")
	b.ReportMetric(float64(tPlain.Nanoseconds())/float64(n), "ns/plain-insert")
	b.ReportMetric(float64(tAppend)/float64(tPlain), "append-ratio")
	b.ReportMetric(float64(tBare)/float64(tPlain), "event-ratio")
}

// BenchmarkRewind10k: a session of 10,000 messages is rewound to its first
// message and switched back, each in its own transaction.
func BenchmarkRewind10k(b *testing.B) {
	db, ctx := openStore(b)
	const key = "agent:main:big"
	if err := db.AddSession(ctx, driver.Session{Key: key}); err != nil {
		b.Fatal(err)
	}
	tx, _ := db.BeginTx(ctx, nil)
	stmt, _ := tx.PrepareContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	for i := range 10000 {
		if _, err := stmt.ExecContext(ctx, key, i, messageEvent(i, fmt.Sprintf("message number %d about topic %d", i, i%97))); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	count := func() int {
		var n int
		db.QueryRow(`SELECT count(*) FROM sessionsearch_fts_docsize`).Scan(&n)
		return n
	}
	for b.Loop() {
		for _, target := range []string{"m0", "m9999"} {
			if _, err := db.MoveLeaf(ctx, key, target); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if n := count(); n != 10000 {
		b.Fatalf("%d messages indexed after switching back, want 10000", n)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(2*b.N), "ms/leaf-move")
}

// BenchmarkReconcile: fixture transcripts bulk-loaded without indexing, then
// indexed by sessions_reconcile; MB/s counts the bytes of the events.
func BenchmarkReconcile(b *testing.B) {
	events := fixtureEvents(b)
	var size int64
	for _, ev := range events {
		size += int64(len(ev))
	}
	const copies = 20
	b.SetBytes(size * copies)
	for b.Loop() {
		b.StopTimer()
		db, ctx := openStore(b)
		conn, _ := db.Conn(ctx)
		if err := driver.DeferIndexing(ctx, conn, true); err != nil {
			b.Fatal(err)
		}
		tx, _ := conn.BeginTx(ctx, nil)
		for c := range copies {
			key := fmt.Sprintf("agent:main:copy-%d", c)
			if err := driver.AddSession(ctx, tx, driver.Session{Key: key}); err != nil {
				b.Fatal(err)
			}
			for i, ev := range events {
				if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events VALUES (?1, ?2, ?3)`, key, i, ev); err != nil {
					b.Fatal(err)
				}
			}
		}
		tx.Commit()
		b.StartTimer()
		for {
			res, err := driver.Reconcile(ctx, conn, time.Second)
			if err != nil {
				b.Fatal(err)
			}
			if res.Pending == 0 {
				break
			}
		}
		b.StopTimer()
		conn.Close()
		db.Close()
		b.StartTimer()
	}
	_ = sql.ErrNoRows
}
