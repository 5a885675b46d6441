package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// ftsStructure reads an FTS5 table's structure record (the row with id 10
// of its %_data table): the segments it has now and its write counter, the
// leaf pages written to level 0 so far, which grows by at least one at
// every flush of FTS5's pending terms.
func ftsStructure(tb testing.TB, q queryRower, table string) (segments, written int64) {
	var rec []byte
	if err := q.QueryRowContext(context.Background(), `SELECT block FROM `+table+`_data WHERE id = 10`).Scan(&rec); err != nil {
		tb.Fatalf("%s structure: %v", table, err)
	}
	i := 4 // the configuration cookie
	if len(rec) >= 8 && string(rec[4:8]) == "\xff\x00\x00\x01" {
		i += 4 // a version 2 structure record
	}
	var v [3]uint64
	for k := range v {
		n := 0
		v[k], n = sqliteVarint(rec[i:])
		if n == 0 {
			tb.Fatalf("%s structure: bad record %x", table, rec)
		}
		i += n
	}
	return int64(v[1]), int64(v[2])
}

type queryRower interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// execQuerier is a *sql.DB, *sql.Conn or *sql.Tx, as the driver's
// functions take them.
type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	queryRower
}

// reportIndexed fails unless the store's index holds n messages, and
// reports its segments and the leaf pages written to level 0.
func reportIndexed(b *testing.B, q queryRower, n int) {
	var indexed int
	q.QueryRowContext(context.Background(), `SELECT count(*) FROM sessionsearch_fts_docsize`).Scan(&indexed)
	if indexed != n {
		b.Fatalf("%d messages indexed, want %d", indexed, n)
	}
	seg, written := ftsStructure(b, q, "sessionsearch_fts")
	b.ReportMetric(float64(seg), "segments")
	b.ReportMetric(float64(written), "leaves-written")
}

// sqliteVarint decodes SQLite's big-endian varint (up to 9 bytes, the
// ninth contributing 8 bits).
func sqliteVarint(p []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(p) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(p[i]), 9
		}
		v = v<<7 | uint64(p[i]&0x7f)
		if p[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// ingestTexts is the fixture messages' text repeated to at least n
// messages.
func ingestTexts(tb testing.TB, n int) []string {
	var base []string
	for _, ev := range fixtureEvents(tb) {
		if t, ok := transcript.MessageText(ev); ok {
			base = append(base, t)
		}
	}
	texts := make([]string, 0, n)
	for len(texts) < n {
		texts = append(texts, base...)
	}
	return texts
}

// BenchmarkIngest compares bulk ingestion in one transaction, each message
// through the transcript store, with inserting the same text into a plain
// FTS5 table with the same tokenizer (the baseline, in the same run):
// appends (one INSERT statement per event, indexed by the trigger), and
// deferred indexing then sessions_reconcile. Sessions of 200 messages;
// SESSIONSEARCH_INGEST_MESSAGES sets the number of messages (default
// 20,000). Reported: ratio to the baseline, and the FTS5 segments after
// and the leaf pages written to level 0 (one at least per flush of FTS5's
// pending terms). The floor case is the least any store of events with an
// index of their text pays: the events in a table without triggers and
// the texts in a plain FTS5 table.
func BenchmarkIngest(b *testing.B) {
	n := benchenv.Int(b, "SESSIONSEARCH_INGEST_MESSAGES", 20000)
	texts := ingestTexts(b, n)[:n]
	const perSession = 200
	// The events are built before the clock starts: the baseline is given
	// its texts ready too.
	events := make([][]byte, len(texts))
	for i, t := range texts {
		events[i] = messageEvent(i%perSession, t)
	}

	plain := func(b *testing.B) time.Duration {
		db, ctx := openStore(b)
		if _, err := db.Exec(`CREATE VIRTUAL TABLE plain USING fts5(text, tokenize='sessionsearch')`); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		tx, _ := db.BeginTx(ctx, nil)
		stmt, _ := tx.PrepareContext(ctx, `INSERT INTO plain(text) VALUES (?1)`)
		for _, t := range texts {
			if _, err := stmt.ExecContext(ctx, t); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		seg, written := ftsStructure(b, db, "plain")
		b.ReportMetric(float64(seg), "plain-segments")
		b.ReportMetric(float64(written), "plain-leaves-written")
		return d
	}
	// batched: one INSERT ... SELECT per session, from a JSON array of its
	// events.
	batched := func(b *testing.B) time.Duration {
		db, ctx := openStore(b)
		start := time.Now()
		tx, _ := db.BeginTx(ctx, nil)
		stmt, _ := tx.PrepareContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) SELECT ?1, key, value FROM json_each(?2)`)
		for first := 0; first < len(texts); first += perSession {
			key := fmt.Sprintf("agent:main:s%d", first/perSession)
			if err := driver.AddSession(ctx, tx, driver.Session{Key: key}); err != nil {
				b.Fatal(err)
			}
			arr := []byte{'['}
			for i := first; i < min(first+perSession, len(texts)); i++ {
				if i > first {
					arr = append(arr, ',')
				}
				arr = append(arr, events[i]...)
			}
			arr = append(arr, ']')
			if _, err := stmt.ExecContext(ctx, key, string(arr)); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		reportIndexed(b, db, len(texts))
		return d
	}
	store := func(b *testing.B, deferred bool) time.Duration {
		db, ctx := openStore(b)
		conn, _ := db.Conn(ctx)
		defer conn.Close()
		if deferred {
			if err := driver.DeferIndexing(ctx, conn, true); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		tx, _ := conn.BeginTx(ctx, nil)
		stmt, _ := tx.PrepareContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
		for i := range texts {
			key := fmt.Sprintf("agent:main:s%d", i/perSession)
			if i%perSession == 0 {
				if err := driver.AddSession(ctx, tx, driver.Session{Key: key}); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := stmt.ExecContext(ctx, key, i%perSession, events[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		if deferred {
			insertDone := time.Since(start)
			defer func() { b.ReportMetric(float64(insertDone.Milliseconds()), "insert-ms") }()
			reconcileAll(b, ctx, conn, time.Minute)
		}
		d := time.Since(start)
		reportIndexed(b, conn, len(texts))
		return d
	}
	// floor: what any design that keeps the events and indexes their text
	// must do at least: the events stored in a table like
	// transcript_events, without triggers, and the texts inserted into a
	// plain FTS5 table, in the same transaction.
	// With trigger, the least a store that sees every host's inserts adds
	// (docs/store.md S7): a trigger on the events table that hands each
	// event to the extension, here to a function that only checks its
	// key. Its statement savepoint makes FTS5 flush at every event, so the
	// texts are inserted after all the events, as deferred indexing and
	// reconcile do.
	floor := func(b *testing.B, trigger bool) time.Duration {
		db, ctx := openStore(b)
		if _, err := db.Exec(`CREATE TABLE events(session_key TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_key, seq));
			CREATE VIRTUAL TABLE plain USING fts5(text, tokenize='sessionsearch')`); err != nil {
			b.Fatal(err)
		}
		if trigger {
			if _, err := db.Exec(`CREATE TRIGGER events_insert AFTER INSERT ON events BEGIN
				SELECT sessionsearch_key_problem(NEW.session_key, NULL, NULL);
			END`); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		tx, _ := db.BeginTx(ctx, nil)
		ev, _ := tx.PrepareContext(ctx, `INSERT INTO events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
		fts, _ := tx.PrepareContext(ctx, `INSERT INTO plain(text) VALUES (?1)`)
		for i := range texts {
			if _, err := ev.ExecContext(ctx, fmt.Sprintf("agent:main:s%d", i/perSession), i%perSession, events[i]); err != nil {
				b.Fatal(err)
			}
			if !trigger {
				if _, err := fts.ExecContext(ctx, texts[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		if trigger {
			for _, t := range texts {
				if _, err := fts.ExecContext(ctx, t); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		_, written := ftsStructure(b, db, "plain")
		b.ReportMetric(float64(written), "leaves-written")
		return d
	}
	for _, c := range []struct {
		name string
		run  func(b *testing.B) time.Duration
	}{
		{"floor-events-table-and-plain-fts5", func(b *testing.B) time.Duration { return floor(b, false) }},
		{"floor-with-a-trigger-per-event", func(b *testing.B) time.Duration { return floor(b, true) }},
		{"appends", func(b *testing.B) time.Duration { return store(b, false) }},
		{"appends-one-statement-per-session", batched},
		{"deferred-then-reconcile", func(b *testing.B) time.Duration { return store(b, true) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var tStore, tPlain time.Duration
			for b.Loop() {
				tPlain += plain(b)
				tStore += c.run(b)
			}
			b.ReportMetric(float64(tStore)/float64(tPlain), "ratio")
			b.ReportMetric(float64(tPlain.Milliseconds())/float64(b.N), "plain-ms")
			b.ReportMetric(float64(tStore.Milliseconds())/float64(b.N), "store-ms")
		})
	}
}
