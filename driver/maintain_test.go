package driver_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// docs/store.md S17: with Maintain, a pending session is reconciled with no
// caller asking, and the write-ahead log is brought back under its limit
// while readers search without pause.
func TestMaintain(t *testing.T) {
	db, ctx := openStore(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bigSession(t, ctx, conn, "agent:main:bulk", 2000, 2)
	conn.Close()
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}}
	if res, err := db.Search(ctx, "needle", opts); err != nil || !res.Indexing {
		t.Fatalf("before maintenance: %+v, %v", res, err)
	}

	const limit = 256 << 10
	stop := db.Maintain(driver.MaintainOptions{Interval: 20 * time.Millisecond, Budget: 20 * time.Millisecond, WALLimit: limit})
	defer stop()
	readCtx, done := context.WithCancel(ctx)
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for readCtx.Err() == nil {
				db.Search(readCtx, "needle", opts)
			}
		}()
	}
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	var biggest int64
	for i := range 600 {
		if _, err := db.Append(ctx, "agent:main:main", messageEvent(i, "appended while readers search")); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(db.Path() + "-wal"); err == nil && info.Size() > biggest {
			biggest = info.Size()
		}
	}
	done()
	readers.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := db.Search(ctx, "needle", opts)
		info, statErr := os.Stat(db.Path() + "-wal")
		if err == nil && !res.Indexing && len(res.Results) == 10 && statErr == nil && info.Size() <= limit {
			t.Logf("largest log %d bytes during the appends, %d after", biggest, info.Size())
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("maintenance did not finish: %+v (%v), log %+v (%v)", res, err, info, statErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
