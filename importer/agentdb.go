package importer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/foreigndb"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// AgentDB is an OpenClaw agent database opened for reading: the one
// reader of these databases, for import and for sync (docs/sync.md Y1,
// Y4-Y7). It reads with plain SELECTs in one read transaction, so that
// every query sees one snapshot while a gateway goes on committing. Which
// tables and columns exist depends on the agent schema version, so they
// are looked up first; see the package comment for the layout.
type AgentDB struct {
	Path    string
	AgentID string // schema_meta's, else the one its path gives
	// Version is the agent schema version (schema_meta, else PRAGMA
	// user_version), 0 when the database says none (layouts before 14).
	Version int64
	// UserVersion is PRAGMA user_version.
	UserVersion int64

	db    *sql.DB
	conn  *sql.Conn
	codec EventCodec
	cols  map[string]map[string]bool
	// Statements, built from the columns the database has.
	events, tail, coldBlob, archiveBlob string
}

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// agentTables are the tables the reader looks at.
var agentTables = []string{"schema_meta", "session_nodes", "session_windows", "transcript_events",
	"transcript_rewrite_watermarks", "session_transcript_cold_archives", "session_transcript_archives"}

// OpenAgentDB opens the agent database at path with open (which opens it
// read-only) and reads its layout, in a read transaction that lasts until
// Close. agentID is the agent its path gives.
func OpenAgentDB(ctx context.Context, path, agentID string, open func(string) (*sql.DB, error)) (*AgentDB, error) {
	if open == nil {
		return nil, errors.New("reading agent databases is not available here")
	}
	db, err := open(path)
	if err != nil {
		return nil, err
	}
	a := &AgentDB{Path: path, AgentID: agentID, db: db}
	if a.conn, err = db.Conn(ctx); err == nil {
		if _, err = a.conn.ExecContext(ctx, `BEGIN`); err == nil {
			err = a.inspect(ctx)
		}
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close ends the read transaction and closes the database.
func (a *AgentDB) Close() error {
	a.codec.Close()
	if a.conn != nil {
		a.conn.ExecContext(context.Background(), `ROLLBACK`)
		a.conn.Close()
	}
	return a.db.Close()
}

// Querier is a *sql.DB, *sql.Conn or *sql.Tx.
type Querier = foreigndb.Querier

// TableColumns returns the columns of table, none when it does not exist
// (foreigndb.Columns).
func TableColumns(ctx context.Context, q Querier, table string) (map[string]bool, error) {
	return foreigndb.Columns(ctx, q, table)
}

// PickColumns lists the wanted columns, NULL for those the table lacks.
func PickColumns(cols map[string]bool, want ...string) string { return pickAs("", cols, want...) }

// pickAs is PickColumns with each column qualified by alias.
func pickAs(alias string, cols map[string]bool, want ...string) string {
	out := make([]string, len(want))
	for i, c := range want {
		out[i] = "NULL"
		if cols[c] {
			out[i] = c
			if alias != "" {
				out[i] = alias + "." + c
			}
		}
	}
	return strings.Join(out, ", ")
}

func (a *AgentDB) inspect(ctx context.Context) error {
	a.cols = map[string]map[string]bool{}
	for _, t := range agentTables {
		c, err := TableColumns(ctx, a.conn, t)
		if err != nil {
			return fmt.Errorf("not a readable SQLite database: %w", err)
		}
		a.cols[t] = c
	}
	events := a.cols["transcript_events"]
	if !events["session_id"] || !events["seq"] || !events["event_json"] {
		return errors.New("not an OpenClaw agent database: no transcript_events(session_id, seq, event_json) table")
	}
	if err := a.conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&a.UserVersion); err != nil {
		return err
	}
	a.Version = a.UserVersion
	if meta := a.cols["schema_meta"]; meta["schema_version"] {
		var v sql.NullInt64
		q := `SELECT schema_version FROM schema_meta ORDER BY meta_key LIMIT 1`
		if meta["role"] {
			q = `SELECT schema_version FROM schema_meta WHERE role = 'agent' ORDER BY meta_key LIMIT 1`
		}
		if err := a.conn.QueryRowContext(ctx, q).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if v.Valid {
			a.Version = v.Int64
		}
	}
	if meta := a.cols["schema_meta"]; meta["agent_id"] {
		order := "rowid"
		if meta["meta_key"] {
			order = "meta_key"
		}
		var id sql.NullString
		err := a.conn.QueryRowContext(ctx, `SELECT agent_id FROM schema_meta WHERE agent_id <> '' ORDER BY `+order+` LIMIT 1`).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if id.String != "" {
			a.AgentID = id.String
		}
	}
	payload := PickColumns(events, "event_json", "event_zstd", "event_utf8_bytes")
	a.events = `SELECT seq, ` + payload + ` FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq`
	a.tail = `SELECT ` + payload + ` FROM transcript_events WHERE session_id = ? AND seq = ?`
	if a.cols["session_transcript_cold_archives"]["archive_blob"] {
		a.coldBlob = `SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?`
	}
	if a.cols["session_transcript_archives"]["archive_blob"] {
		a.archiveBlob = `SELECT encoding, archive_blob FROM session_transcript_archives WHERE session_id = ? AND generation = ?`
	}
	return nil
}

// Known checks that the database is of an agent schema sync reads, fully
// migrated (docs/sync.md Y5): minSchema to maxSchema, schema_meta agreeing
// with PRAGMA user_version, and every column its version has.
func (a *AgentDB) Known(minSchema, maxSchema int64) error {
	switch {
	case a.UserVersion != 0 && a.Version != a.UserVersion:
		return fmt.Errorf("half-migrated OpenClaw agent database: schema_meta says schema %d, PRAGMA user_version %d (run openclaw doctor); skipped", a.Version, a.UserVersion)
	case a.Version == 0:
		return errors.New("no OpenClaw agent schema version (PRAGMA user_version and schema_meta are empty); not an OpenClaw agent database, skipped")
	case a.Version < minSchema:
		return fmt.Errorf("OpenClaw agent schema %d predates session windows (schema %d); run openclaw doctor --fix, or import it with 'sessionsearch import'; skipped", a.Version, minSchema)
	case a.Version > maxSchema:
		return fmt.Errorf("OpenClaw agent schema %d is newer than this sessionsearch reads (%d–%d); skipped until sessionsearch is updated", a.Version, minSchema, maxSchema)
	}
	need := map[string][]string{
		"session_nodes":     {"session_key", "current_session_id"},
		"session_windows":   {"session_id", "session_key", "created_at"},
		"transcript_events": {"session_id", "seq", "event_json"},
	}
	if a.Version >= 20 {
		need["session_transcript_cold_archives"] = []string{"session_id", "generation", "archive_name", "storage", "last_seq"}
	}
	if a.Version >= 23 {
		need["transcript_events"] = append(need["transcript_events"], "event_zstd", "event_utf8_bytes")
	}
	tables := make([]string, 0, len(need))
	for t := range need {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	for _, t := range tables {
		for _, c := range need[t] {
			if !a.cols[t][c] {
				return fmt.Errorf("half-migrated OpenClaw agent database: schema %d but %s has no column %s (run openclaw doctor); skipped", a.Version, t, c)
			}
		}
	}
	return nil
}

// SessionIDs lists the transcript generations that have events.
func (a *AgentDB) SessionIDs(ctx context.Context) ([]string, error) {
	rows, err := a.conn.QueryContext(ctx, `SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id`)
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

// Window is one transcript generation of a session_windows row, with what
// its key's node, its events, its rewrites and its cold archive say.
type Window struct {
	ID                             string
	Key, Parent, SpawnedBy         sql.NullString
	CreatedAt                      sql.NullInt64
	Current                        string // its key's current generation (the node's, else the newest window's)
	nParent, nSpawnedBy            sql.NullString
	nCreatedAt                     sql.NullInt64
	MaxSeq                         sql.NullInt64 // of its events in transcript_events; NULL when it has none (cold)
	RewriteGen                     sql.NullString
	ColdGen, ColdName, ColdStorage sql.NullString
	ColdLastSeq, ColdEvents        sql.NullInt64
}

// Windows lists the session_windows rows (none without the table), in
// session id order.
func (a *AgentDB) Windows(ctx context.Context) ([]*Window, error) {
	w, n := a.cols["session_windows"], a.cols["session_nodes"]
	if !w["session_id"] || !w["session_key"] {
		return nil, nil
	}
	q := `SELECT w.session_id, w.session_key, ` + pickAs("w", w, "parent_session_key", "spawned_by", "created_at")
	joins := ` FROM session_windows w`
	if n["session_key"] && n["current_session_id"] {
		q += `, n.current_session_id, ` + pickAs("n", n, "parent_session_key", "spawned_by", "created_at") + `, n.session_key IS NOT NULL`
		joins += ` LEFT JOIN session_nodes n ON n.session_key = w.session_key`
	} else {
		q += `, NULL, NULL, NULL, NULL, 0`
	}
	q += `, (SELECT max(seq) FROM transcript_events e WHERE e.session_id = w.session_id)`
	if a.cols["transcript_rewrite_watermarks"]["generation"] {
		q += `, g.generation`
		joins += ` LEFT JOIN transcript_rewrite_watermarks g ON g.session_id = w.session_id`
	} else {
		q += `, NULL`
	}
	if c := a.cols["session_transcript_cold_archives"]; c["generation"] {
		q += `, c.generation, c.archive_name, c.storage, c.last_seq, ` + pickAs("c", c, "event_count")
		joins += ` LEFT JOIN session_transcript_cold_archives c ON c.session_id = w.session_id`
	} else {
		q += `, NULL, NULL, NULL, NULL, NULL`
	}
	rows, err := a.conn.QueryContext(ctx, q+joins+` ORDER BY w.session_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var windows []*Window
	var hasNode []bool
	newest := map[string]*Window{} // key -> newest window, for keys without a node
	for rows.Next() {
		x := &Window{}
		var current sql.NullString
		var node bool
		if err := rows.Scan(&x.ID, &x.Key, &x.Parent, &x.SpawnedBy, &x.CreatedAt, &current, &x.nParent, &x.nSpawnedBy,
			&x.nCreatedAt, &node, &x.MaxSeq, &x.RewriteGen, &x.ColdGen, &x.ColdName, &x.ColdStorage, &x.ColdLastSeq, &x.ColdEvents); err != nil {
			return nil, err
		}
		x.Current = current.String
		windows = append(windows, x)
		hasNode = append(hasNode, node)
		if k := x.Key.String; k != "" {
			if b := newest[k]; b == nil || x.CreatedAt.Int64 > b.CreatedAt.Int64 || (x.CreatedAt.Int64 == b.CreatedAt.Int64 && x.ID > b.ID) {
				newest[k] = x
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, x := range windows {
		if b := newest[x.Key.String]; !hasNode[i] && b != nil {
			x.Current = b.ID
		}
	}
	return windows, nil
}

// Live reports whether the window is its key's current generation: its
// store session is the key's own.
func (w *Window) Live() bool { return w.Key.String != "" && w.Current == w.ID }

// Session is the store session of a window's events (see the package
// comment): the key's own when it is the key's current generation, with
// the node's links before the window's, else a derived key that the key is
// the parent of.
func (w *Window) Session(agentID string) Session {
	key := sessionkey.Canonical(agentID, w.Key.String)
	if w.Live() {
		return Session{
			Key:              key,
			SpawnedBy:        sessionkey.Canonical(agentID, Coalesce(w.nSpawnedBy, w.SpawnedBy)),
			ParentSessionKey: sessionkey.Canonical(agentID, Coalesce(w.nParent, w.Parent)),
			CreatedAt:        CoalesceInt(w.nCreatedAt, w.CreatedAt),
		}
	}
	return Session{Key: sessionkey.Derived(agentID, w.ID, key), ParentSessionKey: key,
		SpawnedBy: sessionkey.Canonical(agentID, w.SpawnedBy.String), CreatedAt: w.CreatedAt.Int64}
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

// Archive is a row of session_transcript_archives: a reset or deletion
// archive of a generation.
type Archive struct {
	ID, Generation, Key, Reason, SHA256, Name string
	CreatedAt                                 sql.NullInt64
}

// Archives lists the archive rows (none without the table), in session id
// and generation order.
func (a *AgentDB) Archives(ctx context.Context) ([]Archive, error) {
	if c := a.cols["session_transcript_archives"]; !c["generation"] || !c["reason"] {
		return nil, nil
	}
	rows, err := a.conn.QueryContext(ctx, `SELECT session_id, generation, session_key, reason, archive_sha256, archive_name, created_at
		FROM session_transcript_archives ORDER BY session_id, generation`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Archive
	for rows.Next() {
		var r Archive
		if err := rows.Scan(&r.ID, &r.Generation, &r.Key, &r.Reason, &r.SHA256, &r.Name, &r.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Emit receives one event of a generation: its position, its JSON (nil
// when bad says why it cannot be read), where it is, for problems, and
// the hash of its stored form (StoredHash; 0 for an archive's lines).
type Emit func(pos int64, raw []byte, rec string, bad error, stored int64) error

// Events emits the events of generation id after seq after (-1: all), in
// seq order; the position of each is its seq.
func (a *AgentDB) Events(ctx context.Context, id string, after int64, emit Emit) error {
	rows, err := a.conn.QueryContext(ctx, a.events, id, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var text, frame []byte
		var size sql.NullInt64
		if err := rows.Scan(&seq, &text, &frame, &size); err != nil {
			return err
		}
		rec := fmt.Sprintf("session %s, seq %d", id, seq)
		stored := StoredHash(text, frame)
		event, err := a.codec.Event(text, frame, size)
		if err != nil {
			if err := emit(seq, nil, rec, err, stored); err != nil {
				return err
			}
			continue
		}
		if err := emit(seq, bytes.TrimSpace(event), rec, nil, stored); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TailHash returns the StoredHash of generation id's event at seq, ok
// false when there is none.
func (a *AgentDB) TailHash(ctx context.Context, id string, seq int64) (int64, bool, error) {
	var text, frame []byte
	var size sql.NullInt64
	err := a.conn.QueryRowContext(ctx, a.tail, id, seq).Scan(&text, &frame, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return StoredHash(text, frame), true, nil
}

// hashOf is a 64-bit FNV-1a hash of b.
func hashOf(b []byte) int64 {
	h := fnv.New64a()
	h.Write(b)
	return int64(h.Sum64())
}

// StoredHash identifies an event as the database stores it, without
// decoding it.
func StoredHash(text, frame []byte) int64 {
	if text != nil {
		return hashOf(text)
	}
	return ^hashOf(frame)
}

// ColdPath is where a cold archive file lives: a database in a directory
// named "agent" uses its sibling sessions/cold/, other layouts cold/
// beside the database (docs/reference/database-schemas/layout.md).
func ColdPath(dbPath, name string) string {
	dir := filepath.Dir(dbPath)
	if filepath.Base(dir) == "agent" {
		return filepath.Join(filepath.Dir(dir), "sessions", "cold", name)
	}
	return filepath.Join(dir, "cold", name)
}

// ColdEvents emits the events of generation id's cold archive (a file
// named name, or its blob when storage is "sqlite"), numbered from 0.
// Records of the archive's envelope that hold no event (its header, the
// window's derived rows) are not events (ColdArchiveEvent).
func (a *AgentDB) ColdEvents(ctx context.Context, id, name, storage string, emit Emit) error {
	var r io.Reader
	where := name
	if storage == "sqlite" && a.coldBlob != "" {
		var blob []byte
		if err := a.conn.QueryRowContext(ctx, a.coldBlob, id).Scan(&blob); err != nil {
			return err
		}
		r = bytes.NewReader(blob)
	} else {
		path := ColdPath(a.Path, name)
		if filepath.Base(name) != name || name == "" || name == "." || name == ".." {
			return fmt.Errorf("cold archive name %q is not a file name", name)
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("cold archive of session %s: %w", id, err)
		}
		defer f.Close()
		r, where = f, path
	}
	z, err := ZstdReader(r, MaxArchiveBytes)
	if err != nil {
		return err
	}
	defer z.Close()
	return EmitLines(z, "cold archive "+where, func(pos int64, raw []byte, rec string, bad error, stored int64) error {
		if bad != nil {
			return emit(pos, raw, rec, bad, stored)
		}
		event, ok, err := ColdArchiveEvent(raw)
		if err != nil {
			return emit(pos, nil, rec, err, stored)
		}
		if !ok {
			return nil
		}
		return emit(pos, event, rec, nil, stored)
	})
}

// ArchiveEvents emits the lines of an archive row's blob (zstd when its
// encoding says so), numbered from 0.
func (a *AgentDB) ArchiveEvents(ctx context.Context, id, gen string, emit Emit) error {
	var encoding string
	var blob []byte
	if err := a.conn.QueryRowContext(ctx, a.archiveBlob, id, gen).Scan(&encoding, &blob); err != nil {
		return err
	}
	var r io.Reader = bytes.NewReader(blob)
	if encoding == "zstd" {
		z, err := ZstdReader(r, MaxArchiveBytes)
		if err != nil {
			return err
		}
		defer z.Close()
		r = z
	}
	return EmitLines(r, "archive of session "+id+" generation "+gen, emit)
}

// EmitLines emits the lines of a JSONL stream, numbered from 0. A stream
// that fails (a zstd frame with a bad checksum, a decoded size over the
// cap) fails the whole unit: an archive is copied whole or not at all.
func EmitLines(r io.Reader, what string, emit Emit) error {
	lr := NewLineReader(r)
	var n int64
	for {
		line, _, _, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		rec := fmt.Sprintf("%s, line %d", what, lr.Line())
		if errors.Is(err, ErrLineTooLong) {
			if err := emit(n, nil, rec, ErrLineTooLong, 0); err != nil {
				return err
			}
			n++
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if len(line) == 0 {
			continue
		}
		if err := emit(n, line, rec, nil, 0); err != nil {
			return err
		}
		n++
	}
}

// AgentDBSessionIDs lists the transcript generations of the agent database
// at path; it fits PlanOptions.SessionIDs.
func (im *Importer) AgentDBSessionIDs(path string) ([]string, error) {
	ctx := context.Background()
	a, err := OpenAgentDB(ctx, path, sessionkey.DefaultAgent, im.OpenDB)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return a.SessionIDs(ctx)
}

// importAgentDB imports every transcript generation that has events, each
// in its own transaction, in session id order: a window's under the
// session the window gives, one without a window under its derived key.
func (im *Importer) importAgentDB(ctx context.Context, src Source) error {
	a, err := OpenAgentDB(ctx, src.Path, src.AgentID, im.OpenDB)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: err})
		return nil
	}
	defer a.Close()
	ids, err := a.SessionIDs(ctx)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: err})
		return nil
	}
	windows, err := a.Windows(ctx)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: err})
		return nil
	}
	byID := make(map[string]*Window, len(windows))
	for _, w := range windows {
		byID[w.ID] = w
	}
	for _, id := range ids {
		s := Session{Key: sessionkey.Derived(a.AgentID, id, "")}
		if w := byID[id]; w != nil {
			s = w.Session(a.AgentID)
		}
		if err := im.importGeneration(ctx, a, src.Path, id, s); err != nil {
			return err
		}
	}
	return nil
}

func (im *Importer) importGeneration(ctx context.Context, a *AgentDB, path, id string, s Session) error {
	t := im.newTranscript(ctx, path, func(h header) Session {
		if s.CreatedAt == 0 {
			s.CreatedAt = h.createdAt
		}
		return s
	})
	err := a.Events(ctx, id, -1, func(_ int64, raw []byte, rec string, bad error, _ int64) error {
		im.stats.Bytes += int64(len(raw))
		return t.take(raw, location{record: rec}, bad)
	})
	return t.done(err, location{record: "session " + id})
}
