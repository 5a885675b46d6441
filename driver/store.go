//go:build sqlite_fts5

package driver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessionsearch/sessionsearch/store"
)

// The transcript store, for Go programs: each method is one statement of the
// SQL that every host can run (see the README), so Go and the other hosts
// always agree.

// Session is a row of the sessions table (store.Session).
type Session = store.Session

// execer is what the store methods need: a *sql.DB, *sql.Conn or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Migrate creates or upgrades the schema and returns its version.
func (db *DB) Migrate(ctx context.Context) (int, error) { return Migrate(ctx, db.DB) }

// Migrate runs sessionsearch_migrate() on e, holding the write lock from
// the start (see writing).
func Migrate(ctx context.Context, e execer) (int, error) {
	var v int
	err := writing(ctx, e, func(e execer) error {
		return e.QueryRowContext(ctx, `SELECT sessionsearch_migrate()`).Scan(&v)
	})
	return v, err
}

// SetToolIndex switches the store to index tool calls and results, or not
// (sessionsearch_tool_index, docs/store.md S33): on builds the tool index
// of what is stored, off drops it.
func (db *DB) SetToolIndex(ctx context.Context, on bool) error {
	return writing(ctx, db.DB, func(e execer) error {
		_, err := e.ExecContext(ctx, `SELECT sessionsearch_tool_index(?1)`, on)
		return err
	})
}

// ToolIndex reports whether the store indexes tool calls and results
// (docs/store.md S33).
func (db *DB) ToolIndex(ctx context.Context) (bool, error) {
	var on bool
	err := db.QueryRowContext(ctx, `SELECT sessionsearch_tool_index()`).Scan(&on)
	return on, err
}

// writing runs fn inside BEGIN IMMEDIATE on one connection of e, unless e
// is a transaction of the caller's. sessionsearch_migrate and
// sessions_reconcile write from inside a SELECT, whose read transaction
// SQLite cannot turn into a write transaction by waiting: without the lock
// taken first they fail at once with "database is locked" whenever another
// connection writes, whatever the busy timeout. BEGIN IMMEDIATE waits for it
// (docs/store.md S16).
func writing(ctx context.Context, e execer, fn func(execer) error) error {
	var conn *sql.Conn
	switch v := e.(type) {
	case *sql.Tx:
		return fn(v)
	case *sql.Conn:
		conn = v
	case *sql.DB:
		c, err := v.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	default:
		return fn(e)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	if err := fn(conn); err != nil {
		conn.ExecContext(context.Background(), `ROLLBACK`)
		return err
	}
	_, err := conn.ExecContext(ctx, `COMMIT`)
	return err
}

// AddSession inserts a session; an existing one is left as it is.
func (db *DB) AddSession(ctx context.Context, s Session) error { return AddSession(ctx, db.DB, s) }

// AddSession inserts s with e.
func AddSession(ctx context.Context, e execer, s Session) error {
	_, err := e.ExecContext(ctx, `INSERT INTO sessions(session_key, spawned_by, parent_session_key, created_at)
		VALUES (?1, ?2, ?3, ?4) ON CONFLICT(session_key) DO NOTHING`,
		s.Values()...)
	return err
}

// Append adds an event (one OpenClaw transcript entry, JSON) at the end of
// a session and returns its seq. It is indexed in the same transaction.
func (db *DB) Append(ctx context.Context, sessionKey string, event []byte) (int64, error) {
	return Append(ctx, db.DB, sessionKey, event)
}

// Append appends event to a session with e.
func Append(ctx context.Context, e execer, sessionKey string, event []byte) (int64, error) {
	var seq int64
	err := e.QueryRowContext(ctx, `INSERT INTO transcript_events(session_key, seq, event)
		SELECT ?1, coalesce(max(seq) + 1, 0), ?2 FROM transcript_events WHERE session_key = ?1
		RETURNING seq`, sessionKey, string(event)).Scan(&seq)
	return seq, err
}

// MoveLeaf appends a leaf entry that moves the session's active leaf to the
// entry targetID (a rewind or a branch switch) and returns its seq.
func (db *DB) MoveLeaf(ctx context.Context, sessionKey, targetID string) (int64, error) {
	return MoveLeaf(ctx, db.DB, sessionKey, targetID)
}

// MoveLeaf appends a leaf entry with e.
func MoveLeaf(ctx context.Context, e execer, sessionKey, targetID string) (int64, error) {
	id := make([]byte, 4)
	rand.Read(id)
	event, err := json.Marshal(map[string]any{"type": "leaf", "id": hex.EncodeToString(id), "targetId": targetID,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return 0, err
	}
	return Append(ctx, e, sessionKey, event)
}

// DeleteSession removes a session with its events and index rows.
func (db *DB) DeleteSession(ctx context.Context, sessionKey string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = ?1`, sessionKey)
	return err
}

// ReconcileResult is what sessions_reconcile reports: the sessions still
// pending and those the call finished. It is the store's own type.
type ReconcileResult = store.ReconcileResult

// Reconcile indexes pending sessions for about budget and reports progress;
// call it until Pending is 0.
func (db *DB) Reconcile(ctx context.Context, budget time.Duration) (ReconcileResult, error) {
	return Reconcile(ctx, db.DB, budget)
}

// Reconcile runs sessions_reconcile with e.
func Reconcile(ctx context.Context, e execer, budget time.Duration) (ReconcileResult, error) {
	var out ReconcileResult
	err := writing(ctx, e, func(e execer) error {
		return scanJSON(e.QueryRowContext(ctx, `SELECT sessions_reconcile(?1)`, budget.Milliseconds()), &out)
	})
	return out, err
}

// IndexStatus is what sessions_index_status reports.
type IndexStatus struct {
	PendingSessions int `json:"pendingSessions"`
}

// IndexStatus reports how many sessions wait for reconciliation.
func (db *DB) IndexStatus(ctx context.Context) (IndexStatus, error) {
	var out IndexStatus
	err := scanJSON(db.QueryRowContext(ctx, `SELECT sessions_index_status()`), &out)
	return out, err
}

// SessionSummary is a session with what a list of sessions shows.
type SessionSummary struct {
	Session
	Messages     int   // searchable messages: user and assistant text on the active path
	Events       int   // stored transcript events
	LastActivity int64 // epoch ms of the newest searchable message, else CreatedAt
	Pending      bool  // waiting for Reconcile: not searchable yet
}

// Sessions lists the sessions that session_visible(caller, key, options)
// shows, newest activity first; opts.Caller is required.
func (db *DB) Sessions(ctx context.Context, opts Options) ([]SessionSummary, error) {
	// session_visible takes the caller as its first argument, and the
	// other options without it.
	vis, err := json.Marshal(struct {
		Options
		Caller string `json:"caller,omitempty"`
	}{Options: opts})
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `WITH m AS (
			SELECT session_key, count(*) AS n, max(timestamp) AS last, max(pending) AS pending
			FROM sessionsearch_messages GROUP BY session_key),
		ev AS (SELECT session_key, count(*) AS n FROM transcript_events GROUP BY session_key)
		SELECT s.session_key, coalesce(s.spawned_by, ''), coalesce(s.parent_session_key, ''), coalesce(s.created_at, 0),
			coalesce(m.n, 0), coalesce(ev.n, 0), coalesce(m.last, s.created_at, 0),
			coalesce(m.pending, 0) OR s.session_key IN (SELECT session_key FROM sessionsearch_sessions WHERE pending)
		FROM sessions AS s LEFT JOIN m USING (session_key) LEFT JOIN ev USING (session_key)
		WHERE session_visible(?1, s.session_key, ?2)
		ORDER BY 7 DESC, s.session_key`, opts.Caller, string(vis))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SessionSummary
	for rows.Next() {
		var s SessionSummary
		if err := rows.Scan(&s.Key, &s.SpawnedBy, &s.ParentSessionKey, &s.CreatedAt, &s.Messages, &s.Events, &s.LastActivity, &s.Pending); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DeferIndexing switches bulk loading on or off for one connection: while
// on, its inserts only mark sessions pending for Reconcile.
func DeferIndexing(ctx context.Context, c *sql.Conn, on bool) error {
	_, err := c.ExecContext(ctx, `SELECT sessions_defer_indexing(?1)`, on)
	return err
}

func scanJSON(row *sql.Row, v any) error {
	var s string
	if err := row.Scan(&s); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("sessionsearch: bad JSON %q: %w", s, err)
	}
	return nil
}
