package importer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/foreigndb"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// An OpenClaw agent database, read with plain SELECTs. Which tables and
// columns exist depends on the agent schema version, so they are looked up
// first; see the package comment for the layout.
type agentDB struct {
	db      *sql.DB
	agentID string
	events  string // the SELECT of one session's events
	window  string // the SELECT of one session's window, "" without session_windows
	node    string // the SELECT of one key's node, "" without session_nodes
	latest  string // the SELECT of a key's newest window, "" without session_windows
	codec   EventCodec
}

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

func (im *Importer) openAgentDB(ctx context.Context, path, agentID string) (*agentDB, error) {
	if im.OpenDB == nil {
		return nil, errors.New("reading agent databases is not available here")
	}
	db, err := im.OpenDB(path)
	if err != nil {
		return nil, err
	}
	a := &agentDB{db: db, agentID: agentID}
	if err := a.inspect(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

func (a *agentDB) Close() error {
	a.codec.Close()
	return a.db.Close()
}

// columns returns the columns of table, none when it does not exist.
func (a *agentDB) columns(ctx context.Context, table string) (map[string]bool, error) {
	return TableColumns(ctx, a.db, table)
}

// Querier is a *sql.DB, *sql.Conn or *sql.Tx.
type Querier = foreigndb.Querier

// TableColumns returns the columns of table, none when it does not exist
// (foreigndb.Columns).
func TableColumns(ctx context.Context, q Querier, table string) (map[string]bool, error) {
	return foreigndb.Columns(ctx, q, table)
}

// PickColumns lists the wanted columns, NULL for those the table lacks.
func PickColumns(cols map[string]bool, want ...string) string {
	out := make([]string, len(want))
	for i, c := range want {
		out[i] = "NULL"
		if cols[c] {
			out[i] = c
		}
	}
	return strings.Join(out, ", ")
}

func (a *agentDB) inspect(ctx context.Context) error {
	events, err := a.columns(ctx, "transcript_events")
	if err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	if !events["session_id"] || !events["seq"] || !events["event_json"] {
		return errors.New("not an OpenClaw agent database: no transcript_events(session_id, seq, event_json) table")
	}
	a.events = `SELECT seq, ` + PickColumns(events, "event_json", "event_zstd", "event_utf8_bytes") +
		` FROM transcript_events WHERE session_id = ? ORDER BY seq`
	windows, err := a.columns(ctx, "session_windows")
	if err != nil {
		return err
	}
	if windows["session_id"] && windows["session_key"] {
		a.window = `SELECT ` + PickColumns(windows, "session_key", "spawned_by", "parent_session_key", "created_at") +
			` FROM session_windows WHERE session_id = ?`
		a.latest = `SELECT session_id FROM session_windows WHERE session_key = ? ORDER BY ` +
			PickColumns(windows, "created_at") + ` DESC, session_id DESC LIMIT 1`
	}
	nodes, err := a.columns(ctx, "session_nodes")
	if err != nil {
		return err
	}
	if nodes["session_key"] && nodes["current_session_id"] {
		a.node = `SELECT ` + PickColumns(nodes, "current_session_id", "spawned_by", "parent_session_key", "created_at") +
			` FROM session_nodes WHERE session_key = ?`
	}
	meta, err := a.columns(ctx, "schema_meta")
	if err != nil {
		return err
	}
	if meta["agent_id"] {
		var id sql.NullString
		err := a.db.QueryRowContext(ctx, `SELECT agent_id FROM schema_meta WHERE agent_id <> '' ORDER BY rowid LIMIT 1`).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if id.String != "" {
			a.agentID = id.String
		}
	}
	return nil
}

// sessionIDs lists the transcript generations that have events.
func (a *agentDB) sessionIDs(ctx context.Context) ([]string, error) {
	rows, err := a.db.QueryContext(ctx, `SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// links is a row's key, links and creation time, any of them NULL.
type links struct {
	key, spawnedBy, parent sql.NullString
	createdAt              sql.NullInt64
}

// session resolves the store session of transcript generation id (see the
// package comment): the key's own when it is the key's current generation,
// else a derived key linked to it.
func (a *agentDB) session(ctx context.Context, id string) (Session, error) {
	var w links
	if a.window != "" {
		err := a.db.QueryRowContext(ctx, a.window, id).Scan(&w.key, &w.spawnedBy, &w.parent, &w.createdAt)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Session{}, err
		}
	}
	if w.key.String == "" {
		return Session{Key: sessionkey.Derived(a.agentID, id, ""), CreatedAt: w.createdAt.Int64}, nil
	}
	key := w.key.String
	current, n, err := a.current(ctx, key)
	if err != nil {
		return Session{}, err
	}
	if current != id {
		return Session{
			Key:              sessionkey.Derived(a.agentID, id, key),
			SpawnedBy:        sessionkey.Canonical(a.agentID, w.spawnedBy.String),
			ParentSessionKey: sessionkey.Canonical(a.agentID, key),
			CreatedAt:        w.createdAt.Int64,
		}, nil
	}
	return Session{
		Key:              sessionkey.Canonical(a.agentID, key),
		SpawnedBy:        sessionkey.Canonical(a.agentID, Coalesce(n.spawnedBy, w.spawnedBy)),
		ParentSessionKey: sessionkey.Canonical(a.agentID, Coalesce(n.parent, w.parent)),
		CreatedAt:        CoalesceInt(n.createdAt, w.createdAt),
	}, nil
}

// current returns the current generation of key: session_nodes says so,
// or else it is the key's newest window.
func (a *agentDB) current(ctx context.Context, key string) (string, links, error) {
	var n links
	var current sql.NullString
	if a.node != "" {
		err := a.db.QueryRowContext(ctx, a.node, key).Scan(&current, &n.spawnedBy, &n.parent, &n.createdAt)
		if err == nil {
			return current.String, n, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", n, err
		}
	}
	err := a.db.QueryRowContext(ctx, a.latest, key).Scan(&current)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", n, err
	}
	return current.String, n, nil
}

// Coalesce is the first of two columns that is not NULL or empty, as a
// window's links fall back to its node's.
func Coalesce(a, b sql.NullString) string {
	if a.String != "" {
		return a.String
	}
	return b.String
}

// CoalesceInt is the first of two integer columns that is not NULL.
func CoalesceInt(a, b sql.NullInt64) int64 {
	if a.Valid {
		return a.Int64
	}
	return b.Int64
}

// body returns an event's JSON (see EventCodec).
func (a *agentDB) body(text, frame []byte, size sql.NullInt64) ([]byte, error) {
	return a.codec.Event(text, frame, size)
}

// AgentDBSessionIDs lists the transcript generations of the agent database
// at path; it fits PlanOptions.SessionIDs.
func (im *Importer) AgentDBSessionIDs(path string) ([]string, error) {
	ctx := context.Background()
	a, err := im.openAgentDB(ctx, path, sessionkey.DefaultAgent)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return a.sessionIDs(ctx)
}

// importAgentDB imports every transcript generation of an agent database,
// each in its own transaction, in session id order.
func (im *Importer) importAgentDB(ctx context.Context, src Source) error {
	a, err := im.openAgentDB(ctx, src.Path, src.AgentID)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: err})
		return nil
	}
	defer a.Close()
	ids, err := a.sessionIDs(ctx)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: err})
		return nil
	}
	for _, id := range ids {
		if err := im.importGeneration(ctx, a, src.Path, id); err != nil {
			return err
		}
	}
	return nil
}

func (im *Importer) importGeneration(ctx context.Context, a *agentDB, path, id string) error {
	s, err := a.session(ctx, id)
	if err != nil {
		im.report(Problem{Path: path, Record: "session " + id, Err: err})
		return nil
	}
	t := im.newTranscript(ctx, path, func(h header) Session {
		if s.CreatedAt == 0 {
			s.CreatedAt = h.createdAt
		}
		return s
	})
	rows, err := a.db.QueryContext(ctx, a.events, id)
	if err != nil {
		im.report(Problem{Path: path, Record: "session " + id, Err: err})
		return nil
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var text, frame []byte
		var size sql.NullInt64
		if err := rows.Scan(&seq, &text, &frame, &size); err != nil {
			t.abort()
			im.report(Problem{Path: path, Record: "session " + id, Err: err})
			return nil
		}
		at := location{record: fmt.Sprintf("session %s, seq %d", id, seq)}
		im.stats.Bytes += int64(len(text) + len(frame))
		event, err := a.body(text, frame, size)
		if err != nil {
			im.report(Problem{Path: path, Record: at.record, Err: err})
			continue
		}
		if err := t.add(bytes.TrimSpace(event), at); err != nil || t.failed {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		t.abort()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.report(Problem{Path: path, Record: "session " + id, Err: err})
		return nil
	}
	return t.finish()
}
