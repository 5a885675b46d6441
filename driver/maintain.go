//go:build sqlite_fts5

package driver

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// MaintainOptions tune Maintain; zero values take the defaults.
type MaintainOptions struct {
	// Interval between two rounds (default 1 s).
	Interval time.Duration
	// Budget of one round's sessions_reconcile (default 200 ms).
	Budget time.Duration
	// WALLimit is the size of the -wal file past which a round checkpoints
	// it with RESTART and truncates it (default 64 MiB).
	WALLimit int64
}

// Maintain starts the upkeep of a database that a long-running program
// writes (docs/store.md S17), until stop is called or the database is
// closed:
//
//   - Sessions left pending (bulk loads, rewinds too big for the writer's
//     transaction) are reconciled in the background, a budget at a time, so
//     that searches stop saying indexing soon after, with no caller asking.
//   - The write-ahead log stays bounded. SQLite's automatic checkpoint is
//     PASSIVE: under continuous readers it never reaches the end of the log,
//     which then grows without limit (4 GB in minutes under a soak). Past
//     WALLimit, a round runs wal_checkpoint(TRUNCATE), which waits briefly
//     (checkpointWait, since writers wait meanwhile) for the readers of the
//     old log to finish, starts the log again and shrinks the file.
//
// Programs that only read, or that reconcile themselves, need not call it.
func (db *DB) Maintain(opts MaintainOptions) (stop func()) {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Budget <= 0 {
		opts.Budget = 200 * time.Millisecond
	}
	if opts.WALLimit <= 0 {
		opts.WALLimit = 64 << 20
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(opts.Interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			db.maintainOnce(ctx, opts)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}

// maintainOnce is one round of Maintain. Its errors (a closed database, a
// busy writer) are left for the next round: upkeep never fails the program.
func (db *DB) maintainOnce(ctx context.Context, opts MaintainOptions) {
	var pending bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessionsearch_sessions WHERE pending)`).Scan(&pending); err == nil && pending {
		db.Reconcile(ctx, opts.Budget)
	}
	if info, err := os.Stat(db.path + "-wal"); err == nil && info.Size() > opts.WALLimit {
		db.checkpoint(ctx)
	}
}

// checkpointWait is how long a checkpoint waits for the readers of the old
// log. Writers wait while it does, so it is short: a reader holding on is
// left alone, and the next round tries again.
const checkpointWait = 50 * time.Millisecond

// checkpoint copies the log into the database and truncates it
// (wal_checkpoint(TRUNCATE): RESTART, then the file cut to zero), on a
// connection of its own whose busy timeout is checkpointWait.
func (db *DB) checkpoint(ctx context.Context) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, checkpointWait.Milliseconds())); err != nil {
		return
	}
	defer conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA busy_timeout = %d`, BusyTimeout.Milliseconds()))
	conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}
