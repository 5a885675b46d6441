package importer

import (
	"bytes"
	"context"
	"database/sql"

	"github.com/sessionsearch/sessionsearch/store"
)

// SQLSink stores transcripts in a sessionsearch database with the plain SQL
// of the transcript store: one transaction per transcript, sessions created
// or their missing links filled, events added with INSERT OR IGNORE so that
// importing again changes nothing. It holds one connection; with
// deferIndexing the store only marks the imported sessions pending, and
// driver.Reconcile indexes them afterwards.
type SQLSink struct {
	conn          *sql.Conn
	deferIndexing bool
	session       *sql.Stmt
	event         *sql.Stmt
	stored        *sql.Stmt
}

// Statements of the transcript store (docs/store.md S1, S10).
const (
	// A session imported again keeps its links; links it lacked are filled.
	insertSessionSQL = store.AddSessionSQL
	insertEventSQL   = `INSERT OR IGNORE INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?)`
	storedEventSQL   = `SELECT event FROM transcript_events WHERE session_key = ? AND seq = ?`
)

// NewSQLSink takes a connection of db for the import; Close gives it back.
func NewSQLSink(ctx context.Context, db *sql.DB, deferIndexing bool) (*SQLSink, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &SQLSink{conn: conn, deferIndexing: deferIndexing}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *SQLSink) prepare(ctx context.Context) error {
	if s.deferIndexing {
		if _, err := s.conn.ExecContext(ctx, `SELECT sessions_defer_indexing(1)`); err != nil {
			return err
		}
	}
	var err error
	if s.session, err = s.conn.PrepareContext(ctx, insertSessionSQL); err != nil {
		return err
	}
	if s.event, err = s.conn.PrepareContext(ctx, insertEventSQL); err != nil {
		return err
	}
	s.stored, err = s.conn.PrepareContext(ctx, storedEventSQL)
	return err
}

// Close turns deferred indexing off again and releases the connection.
// Closing again does nothing.
func (s *SQLSink) Close() error {
	if s.conn == nil {
		return nil
	}
	for _, st := range []*sql.Stmt{s.session, s.event, s.stored} {
		if st != nil {
			st.Close()
		}
	}
	if s.deferIndexing {
		s.conn.ExecContext(context.Background(), `SELECT sessions_defer_indexing(0)`)
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}

// Begin starts the transcript's transaction and creates its session.
func (s *SQLSink) Begin(ctx context.Context, sess Session) (TranscriptWriter, error) {
	return s.begin(ctx, sess, false)
}

// BeginReplace is Begin for a transcript that replaces the stored one: the
// session and its events are deleted first, in the same transaction.
func (s *SQLSink) BeginReplace(ctx context.Context, sess Session) (TranscriptWriter, error) {
	return s.begin(ctx, sess, true)
}

func (s *SQLSink) begin(ctx context.Context, sess Session, replace bool) (TranscriptWriter, error) {
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if replace {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = ?`, sess.Key); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	_, err = tx.StmtContext(ctx, s.session).ExecContext(ctx, sess.Values()...)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	return &sqlTranscript{tx: tx, key: sess.Key, event: tx.StmtContext(ctx, s.event), stored: tx.StmtContext(ctx, s.stored)}, nil
}

type sqlTranscript struct {
	tx            *sql.Tx
	key           string
	event, stored *sql.Stmt
}

func (t *sqlTranscript) Append(ctx context.Context, seq int, event []byte) (bool, error) {
	// The context is checked here, and the insert runs without it: with a
	// context that can end, database/sql and go-sqlite3 start a goroutine
	// per statement to watch it, a fifth of an import's time (issue 14).
	if err := ctx.Err(); err != nil {
		return false, err
	}
	ctx = context.WithoutCancel(ctx)
	// Bound as text: the store keeps events as TEXT.
	res, err := t.event.ExecContext(ctx, t.key, seq, string(event))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return n == 1, err
	}
	var stored []byte
	if err := t.stored.QueryRowContext(ctx, t.key, seq).Scan(&stored); err != nil {
		return false, err
	}
	// A bulk load keeps a large event as a zstd frame (docs/store.md S19).
	if stored, err = store.EventJSON(stored, nil); err != nil {
		return false, err
	}
	if !bytes.Equal(stored, event) {
		return false, &ConflictError{SessionKey: t.key, Seq: seq}
	}
	return false, nil
}

func (t *sqlTranscript) Commit() error   { return t.tx.Commit() }
func (t *sqlTranscript) Rollback() error { return t.tx.Rollback() }
