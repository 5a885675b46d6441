package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/sessionsearch/sessionsearch/bulk"
	"github.com/sessionsearch/sessionsearch/store"
)

// BulkSink is the Sink of an import (docs/cli.md C22): a transcript whose
// session has no events yet, the whole of a first import, goes to a bulk
// load (package bulk), which stores it in large transactions by the
// store's own rules while the importer reads the next one; any other (a
// session stored before, imported again or from another copy) goes to a
// SQLSink, as before, with what that means: events compared, conflicts
// reported, links filled. A bulk transcript's outcome is known once its
// transaction commits; the importer counts and reports it then.
type BulkSink struct {
	im     *Importer
	db     *sql.DB
	sql    *SQLSink
	loader *bulk.Loader
	exists *sql.Stmt

	mu       sync.Mutex
	loaded   []bulkOutcome   // reported by the writer, not yet counted
	inflight map[string]bool // keys handed to the loader and not yet committed
}

type bulkOutcome struct {
	t      *bulkTranscript
	events int64
	err    error
}

// errAborted is the outcome of a transcript the importer rolled back: it
// reported why itself.
var errAborted = errors.New("rolled back")

// NewBulkSink takes connections of db for im's import: the loader's, and
// a SQLSink's with deferred indexing (driver.Reconcile indexes what it
// stored).
func NewBulkSink(ctx context.Context, db *sql.DB, im *Importer) (*BulkSink, error) {
	sqlSink, err := NewSQLSink(ctx, db, true)
	if err != nil {
		return nil, err
	}
	s := &BulkSink{im: im, db: db, sql: sqlSink, inflight: map[string]bool{}}
	if s.exists, err = db.PrepareContext(ctx, `SELECT EXISTS (SELECT 1 FROM transcript_events WHERE session_key = ?1)`); err != nil {
		sqlSink.Close()
		return nil, err
	}
	s.loader, err = bulk.NewLoader(ctx, db, bulk.LoaderOptions{Loaded: s.done})
	if err != nil {
		s.exists.Close()
		sqlSink.Close()
		return nil, err
	}
	return s, nil
}

// done is the loader's report, on its writer's goroutine.
func (s *BulkSink) done(tag any, events int64, err error) {
	t := tag.(*bulkTranscript)
	s.mu.Lock()
	s.loaded = append(s.loaded, bulkOutcome{t, events, err})
	delete(s.inflight, t.key)
	s.mu.Unlock()
}

// count counts and reports, on the importer's goroutine, the bulk
// transcripts whose transactions have ended.
func (s *BulkSink) count() {
	s.mu.Lock()
	loaded := s.loaded
	s.loaded = nil
	s.mu.Unlock()
	for _, o := range loaded {
		switch {
		case errors.Is(o.err, errAborted):
		case o.err != nil:
			s.im.report(Problem{Path: o.t.path, Err: fmt.Errorf("session %s: %w", o.t.key, o.err)})
		default:
			s.im.counted(o.events, o.events)
		}
	}
}

// Begin starts a transcript: in the bulk load when its session has no
// events, stored or handed on, else in the SQLSink, once what was handed
// on is committed.
func (s *BulkSink) Begin(ctx context.Context, sess Session) (TranscriptWriter, error) {
	s.count()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	inflight := s.inflight[sess.Key]
	s.mu.Unlock()
	stored := false
	if !inflight {
		if err := s.exists.QueryRowContext(ctx, sess.Key).Scan(&stored); err != nil {
			return nil, err
		}
	}
	if inflight || stored {
		if err := s.Flush(); err != nil {
			return nil, err
		}
		return s.sql.Begin(ctx, sess)
	}
	s.mu.Lock()
	s.inflight[sess.Key] = true
	s.mu.Unlock()
	t := &bulkTranscript{s: s, key: sess.Key, path: s.im.current}
	s.loader.Begin(sess, t)
	return t, nil
}

// BeginReplace replaces a stored transcript, in the SQLSink.
func (s *BulkSink) BeginReplace(ctx context.Context, sess Session) (TranscriptWriter, error) {
	if err := s.Flush(); err != nil {
		return nil, err
	}
	return s.sql.BeginReplace(ctx, sess)
}

// Flush commits what the loader holds, and counts it: the importer's
// stats and problems are complete after it.
func (s *BulkSink) Flush() error {
	err := s.loader.Flush()
	s.count()
	return err
}

// Close commits what is left and releases the connections; the
// importer's stats and problems are complete after it.
func (s *BulkSink) Close() error {
	if s.loader == nil {
		return nil
	}
	err := s.loader.Close()
	s.loader = nil
	s.count()
	s.exists.Close()
	if cerr := s.sql.Close(); err == nil {
		err = cerr
	}
	return err
}

// bulkTranscript is a transcript handed to the loader.
type bulkTranscript struct {
	s         *BulkSink
	key, path string
}

func (t *bulkTranscript) Append(ctx context.Context, seq int, event []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	t.s.loader.Event(event)
	return true, nil
}

// appendPrepared hands on an event the importer prepared (Loader.Prepare)
// from n bytes of JSON.
func (t *bulkTranscript) appendPrepared(ctx context.Context, p *store.Prepared, n int) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	t.s.loader.Prepared(p, n)
	return true, nil
}

// Commit hands the transcript on complete: it is stored when the loader's
// transaction commits.
func (t *bulkTranscript) Commit() error {
	t.s.loader.End()
	return nil
}

func (t *bulkTranscript) Rollback() error {
	t.s.loader.Abort(errAborted)
	return nil
}

// countedLater: the importer counts the transcript when the sink reports
// it (BulkSink.count), not at Commit.
func (t *bulkTranscript) countedLater() {}
