//go:build sqlite_fts5

package driver

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/sessionsearch/sessionsearch/store"
)

// Bulk loads (docs/store.md S20-S23): new transcripts stored by the store's
// own rules without the append trigger's work per event, the events read,
// masked and compressed on the caller's goroutine while the writer stores
// the ones before.

// LoadResult is what one call of sessionsearch_load did (store.LoadResult).
type LoadResult = store.LoadResult

// Load runs one bulk load of feed with e: inside e's transaction when e is
// a *sql.Tx, else in a transaction of its own (BEGIN IMMEDIATE, as
// sessionsearch_load writes from inside a SELECT; see writing). The feed
// is registered for this call only; sessionsearch_load(token) finds it.
func Load(ctx context.Context, e execer, feed store.LoadFeed) (LoadResult, error) {
	token, release := store.RegisterFeed(feed)
	defer release()
	var out LoadResult
	err := writing(ctx, e, func(e execer) error {
		return scanJSON(e.QueryRowContext(ctx, `SELECT sessionsearch_load(?1)`, token), &out)
	})
	return out, err
}

// LoaderOptions set a Loader's bounds.
type LoaderOptions struct {
	// HoldBytes bounds the prepared events waiting for the writer
	// (default 16 MiB).
	HoldBytes int
	// BatchBytes is the size of events after which a transaction ends at
	// the next transcript's end (default 64 MiB): a transaction is the
	// most a killed load loses.
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

	mu        sync.Mutex
	changed   sync.Cond
	cuts      int   // cuts handed on
	committed int   // cuts the writer has committed
	err       error // the writer's first failure
	exited    bool
	pending   []loaded // of the transaction the writer is in
}

type loaded struct {
	tag    any
	events int64
	err    error
}

// NewLoader starts a loader on a connection of db.
func NewLoader(ctx context.Context, db *sql.DB, opts LoaderOptions) (*Loader, error) {
	if opts.HoldBytes <= 0 {
		opts.HoldBytes = 16 << 20
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 64 << 20
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	l := &Loader{conn: conn, opts: opts}
	l.changed.L = &l.mu
	l.pipe = store.NewPipe(opts.HoldBytes, func(tag any, events int64, err error) {
		l.pending = append(l.pending, loaded{tag, events, err})
	})
	go l.write(context.WithoutCancel(ctx))
	return l, nil
}

// Begin starts a transcript of session s; tag comes back to Loaded.
func (l *Loader) Begin(s Session, tag any) { l.pipe.Begin(s, tag) }

// Event hands on the transcript's next event (JSON), prepared here.
func (l *Loader) Event(event []byte) {
	l.batchBytes += len(event)
	l.pipe.Event(event)
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
		if failed == nil {
			_, err = Load(ctx, l.conn, l.pipe)
		} else {
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
