// Package bulk stores new transcripts with the store's bulk load
// (docs/store.md S20-S23): sessionsearch_load, on a connection of this
// process that has the extension, reads a feed registered here
// (store.RegisterFeed) and stores its transcripts by the store's own rules,
// without the append trigger's work per event. A Loader reads, masks and
// compresses the events on its caller's goroutine while its writer stores
// the ones before, in large transactions. Pure Go over database/sql: import,
// sync and the service's append use it with the databases they are given.
package bulk

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/sessionsearch/sessionsearch/store"
)

// Session is a row of the sessions table (store.Session).
type Session = store.Session

// Result is what one call of sessionsearch_load did (store.LoadResult).
type Result = store.LoadResult

// Querier runs the call: a *sql.Tx of the caller's, or a *sql.Conn inside
// a transaction it began.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Load runs one call of sessionsearch_load with feed, in q's transaction,
// which must be a write transaction already (BEGIN IMMEDIATE, or one that
// has written): the function writes from inside a SELECT, whose read
// transaction SQLite cannot turn into a write one by waiting
// (docs/store.md S16). The feed is registered for this call only.
func Load(ctx context.Context, q Querier, feed store.LoadFeed) (Result, error) {
	token, release := store.RegisterFeed(feed)
	defer release()
	var js string
	var out Result
	if err := q.QueryRowContext(ctx, `SELECT sessionsearch_load(?1)`, token).Scan(&js); err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		return out, fmt.Errorf("sessionsearch_load returned %q: %w", js, err)
	}
	return out, nil
}

// LoaderOptions set a Loader's bounds.
type LoaderOptions struct {
	// HoldBytes bounds the prepared events waiting for the writer
	// (default 4 MiB).
	HoldBytes int
	// BatchBytes is the size of events after which a transaction ends at
	// the next transcript's end (default 4 MiB): a transaction is the
	// most a killed load loses. The pages a transaction writes fit in the
	// writer's cache (writerCacheKiB), which it would otherwise spill
	// into the log and read back (docs/store.md S23).
	BatchBytes int
	// Loaded reports each transcript once its transaction has committed
	// (or failed: err is then the commit's, or the load's), on the
	// writer's goroutine.
	Loaded func(tag any, events int64, err error)
}

// Loader stores new transcripts in bulk on a connection of its own, in
// large transactions, while its caller reads the next ones (Begin, Event,
// End or Abort, from one goroutine). Every transcript must be new: a
// session without events (Load refuses others).
type Loader struct {
	pipe       *store.Pipe
	conn       *sql.Conn
	opts       LoaderOptions
	batchBytes int
	// checkpoints asks the checkpointer to copy what the writer committed
	// into the database file, on a connection of its own (see write).
	checkpoints  chan struct{}
	checkpointed chan struct{}

	mu        sync.Mutex
	changed   sync.Cond
	cuts      int   // cuts handed on
	committed int   // cuts the writer has committed
	err       error // the writer's first failure
	exited    bool
	pending   []loaded // of the transaction the writer is in
	walPages  int64    // the connection's wal_autocheckpoint, restored by Close
	commits   int
}

type loaded struct {
	tag    any
	events int64
	err    error
}

// NewLoader starts a loader on a connection of db.
func NewLoader(ctx context.Context, db *sql.DB, opts LoaderOptions) (*Loader, error) {
	if opts.HoldBytes <= 0 {
		opts.HoldBytes = 4 << 20
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 4 << 20
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// The writer's pages stay in its cache for the whole of a batch, and
	// its commits leave the copying of the log into the database file to
	// the checkpointer (both undone by Close, as the connection goes back
	// to db's pool).
	if _, err := conn.ExecContext(ctx, `PRAGMA cache_size = -`+strconv.Itoa(writerCacheKiB)+`; PRAGMA temp_store = MEMORY`); err != nil {
		conn.Close()
		return nil, err
	}
	var walPages int64
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&walPages); err != nil {
		conn.Close()
		return nil, err
	}
	check, err := db.Conn(ctx)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
		conn.Close()
		check.Close()
		return nil, err
	}
	l := &Loader{conn: conn, opts: opts, walPages: walPages, checkpoints: make(chan struct{}, 1), checkpointed: make(chan struct{})}
	l.changed.L = &l.mu
	l.pipe = store.NewPipe(opts.HoldBytes, func(tag any, events int64, err error) {
		l.pending = append(l.pending, loaded{tag, events, err})
	})
	go l.checkpoint(context.WithoutCancel(ctx), check)
	go l.write(context.WithoutCancel(ctx))
	return l, nil
}

// writerCacheKiB is the writer's page cache: the pages a batch touches
// more than once (the tables' last leaves, the index's merges) are
// written to the log once at commit rather than spilled again and again.
// Its statement journals stay in memory too (temp_store): each insert of
// an event opens one (for its trigger), and FTS5 writes out what it holds
// at such a savepoint, so a journal takes the pages of an index segment,
// which SQLite would otherwise write to a temporary file past 64 KiB
// (strace of a LoCoMo import: 585,000 writes of 4 KiB to /var/tmp against
// 112,000 to the log).
const writerCacheKiB = 8 << 10

// checkpoint copies committed pages from the write-ahead log into the
// database file after each commit, on its own connection: work the
// writer's commits would otherwise do on the writer's goroutine (SQLite's
// automatic checkpoint runs in the committing connection). It ends when
// checkpoints is closed.
func (l *Loader) checkpoint(ctx context.Context, conn *sql.Conn) {
	defer close(l.checkpointed)
	defer conn.Close()
	for range l.checkpoints {
		// PASSIVE: never waits for the writer or readers; a busy log is
		// left for the next round.
		conn.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
}

// Begin starts a transcript of session s; tag comes back to Loaded.
func (l *Loader) Begin(s Session, tag any) { l.pipe.Begin(s, tag) }

// Event hands on the transcript's next event (JSON), prepared here.
func (l *Loader) Event(event []byte) {
	p := l.pipe.Prepare(event)
	l.Prepared(&p, len(event))
}

// Prepare prepares what would be the transcript's next event (JSON), for a
// caller that looks at it (its Err) before it hands it on.
func (l *Loader) Prepare(event []byte) store.Prepared { return l.pipe.Prepare(event) }

// Prepared hands on the transcript's next event, prepared by Prepare from
// n bytes of JSON.
func (l *Loader) Prepared(p *store.Prepared, n int) {
	l.batchBytes += n
	l.pipe.Prepared(p)
}

// End completes the transcript; the transaction ends after it once the
// batch is full.
func (l *Loader) End() {
	l.pipe.End()
	if l.batchBytes >= l.opts.BatchBytes {
		l.cut()
	}
}

// Abort drops the transcript: nothing of it is stored, and Loaded reports
// err.
func (l *Loader) Abort(err error) { l.pipe.Abort(err) }

func (l *Loader) cut() {
	l.batchBytes = 0
	l.mu.Lock()
	l.cuts++
	l.mu.Unlock()
	l.pipe.Cut()
}

// Flush commits every transcript handed on and waits for it; it returns
// the writer's failure, if it had one.
func (l *Loader) Flush() error {
	l.cut()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.committed < l.cuts && !l.exited {
		l.changed.Wait()
	}
	return l.err
}

// Close commits what is left, stops the writer and releases the
// connection; it returns the writer's failure, if it had one.
func (l *Loader) Close() error {
	l.pipe.Close()
	l.mu.Lock()
	for !l.exited {
		l.changed.Wait()
	}
	err := l.err
	l.mu.Unlock()
	close(l.checkpoints)
	<-l.checkpointed
	ctx := context.Background()
	l.conn.ExecContext(ctx, `PRAGMA cache_size = -2000; PRAGMA temp_store = DEFAULT`)
	l.conn.ExecContext(ctx, `PRAGMA wal_autocheckpoint = `+strconv.FormatInt(l.walPages, 10))
	if cerr := l.conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// write runs the calls of sessionsearch_load, one transaction each, until
// the pipe is closed. After a failure it goes on taking the items, so that
// the reader never waits for room, and reports every transcript with it.
func (l *Loader) write(ctx context.Context) {
	var failed error
	for {
		var err error
		switch {
		case !l.pipe.Wait():
		case failed == nil:
			err = l.load(ctx)
		default:
			drain(l.pipe)
		}
		done := l.pipe.Done()
		l.mu.Lock()
		pending := l.pending
		l.pending = nil
		if err != nil && failed == nil {
			failed, l.err = err, err
		}
		l.mu.Unlock()
		for _, p := range pending {
			if failed != nil {
				p.events, p.err = 0, failed
			}
			if l.opts.Loaded != nil {
				l.opts.Loaded(p.tag, p.events, p.err)
			}
		}
		l.mu.Lock()
		if done {
			l.exited = true
		} else {
			l.committed++ // the call ended at a cut
		}
		l.changed.Broadcast()
		l.mu.Unlock()
		if done {
			return
		}
	}
}

// load runs one call in a transaction of its own, and hands the
// checkpointer what it committed.
func (l *Loader) load(ctx context.Context) error {
	if l.commits++; l.commits%walBatches == 0 {
		// The log starts over only at a transaction that begins when all
		// of it is in the database file, and the checkpointer always
		// trails the writer by a batch: so every walBatches batches, the
		// writer copies the rest itself, which bounds the log.
		l.conn.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
	if _, err := l.conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	if _, err := Load(ctx, l.conn, l.pipe); err != nil {
		l.conn.ExecContext(ctx, `ROLLBACK`)
		return err
	}
	if _, err := l.conn.ExecContext(ctx, `COMMIT`); err != nil {
		return err
	}
	select {
	case l.checkpoints <- struct{}{}:
	default: // one is asked for already
	}
	return nil
}

// walBatches is how many batches the log holds at most, about.
const walBatches = 8

// drain takes a call's worth of items without storing them, reporting
// each transcript it sees begin as not stored.
func drain(p *store.Pipe) {
	var tag any
	begun := false
	for {
		item, ok := p.Next()
		if !ok {
			return
		}
		switch {
		case item.Begin != nil:
			tag, begun = item.Begin.Tag, true
		case begun && (item.End || item.Abort != nil):
			p.Loaded(tag, 0, errors.New("not stored"))
			begun = false
		}
	}
}
