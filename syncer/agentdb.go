package syncer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// OpenClaw agent schema versions this sync reads (docs/sync.md Y5): from 14,
// the first with logical session nodes and generation windows, to 25, the
// newest documented (docs/reference/database-schemas/agent-schema-history.md
// in openclaw/openclaw).
const (
	MinSchema = 14
	MaxSchema = 25
)

// OpenReadOnly opens an OpenClaw agent database the only way sync reads
// one (docs/sync.md Y4): a read-only URI (mode=ro, so SQLite opens the
// file O_RDONLY and refuses every write), query_only on, a short busy
// timeout, one connection. It never checkpoints, changes the journal mode
// or writes the schema. A WAL database without its -wal and -shm files (the
// gateway is stopped and checkpointed everything) is opened immutable, so
// that SQLite does not create them; Sync checks afterwards that the file
// did not change meanwhile.
//
// With probe set it opens the file immutable whatever its state, only to
// tell a locked database from an unreadable one.
func OpenReadOnly(driverName string) func(path string, probe bool) (*sql.DB, error) {
	return func(path string, probe bool) (*sql.DB, error) {
		q := url.Values{}
		q.Set("mode", "ro")
		if probe || walWithoutFiles(path) {
			q.Set("immutable", "1")
		}
		q.Set("_query_only", "1")
		q.Set("_busy_timeout", "2000")
		db, err := sql.Open(driverName, "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		return db, nil
	}
}

// walWithoutFiles reports whether path is a WAL-mode database (file format
// bytes 18 and 19 are 2) with neither a -wal nor a -shm file.
func walWithoutFiles(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || h[18] != 2 || h[19] != 2 {
		return false
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + suffix); err == nil || !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	return true
}

// openDB is one read snapshot of an agent database, open for one step.
type openDB struct {
	path  string
	db    *sql.DB
	conn  *sql.Conn
	codec importer.EventCodec
	// Statements, built from the columns the database has.
	events, tail, coldBlob, archiveBlob string
}

func (o *openDB) close() {
	o.codec.Close()
	if o.conn != nil {
		o.conn.ExecContext(context.Background(), `ROLLBACK`)
		o.conn.Close()
	}
	o.db.Close()
}

func dbStamp(path string) (string, sql.NullTime) {
	a, at, _ := fileStamp(path)
	b, bt, _ := fileStamp(path + "-wal")
	newest := at
	if bt.After(newest) {
		newest = bt
	}
	return a + "|" + b, sql.NullTime{Time: newest, Valid: true}
}

// listDB lists the units of an agent database, or learns that nothing
// changed since the stored stamp.
func (s *Syncer) listDB(ctx context.Context, path string, old stamp, rowsOf func(string) map[string]*row) *sourceState {
	ss := &sourceState{path: path, at: s.now()}
	st, newest := dbStamp(path)
	if old.stamp == st && trusted(old, newest.Time) {
		ss.ok, ss.stamp = true, st
		// The session ids only serve to leave JSONL copies out.
		if c, ok := s.ids[path]; ok && c.stamp == st {
			ss.ids = c.ids
		} else if hasJSONL(path) {
			for _, r := range rowsOf(path) {
				ss.ids = append(ss.ids, r.sessionID)
			}
			s.ids[path] = idCache{st, ss.ids}
		}
		return ss
	}
	o, units, err := s.readDB(ctx, path)
	if err != nil {
		if ctx.Err() == nil { // a stopped sync is not a problem of the source
			s.report(importer.Problem{Path: path, Err: err})
		}
		return ss
	}
	ss.ok, ss.stamp, ss.db, ss.units = true, st, o, units
	for _, u := range units {
		ss.ids = append(ss.ids, u.sessionID)
	}
	s.ids[path] = idCache{st, ss.ids}
	return ss
}

// idCache is the session ids of an agent database as of a stamp.
type idCache struct {
	stamp string
	ids   []string
}

// hasJSONL reports whether the sessions directory next to an agent
// database holds JSONL transcripts.
func hasJSONL(dbPath string) bool {
	dir := filepath.Dir(dbPath)
	if filepath.Base(dir) == "agent" {
		dir = filepath.Join(filepath.Dir(dir), "sessions")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".jsonl") && !e.IsDir() {
			return true
		}
	}
	return false
}

// describe names why a database could not be read. The process's
// auto-extensions (sessionsearch's own) run when a connection opens and
// fail first, with a message of their own, on a database SQLite cannot read
// at that moment: a probe that takes no locks tells a locked database from
// an unreadable one.
func (s *Syncer) describe(path string, err error) error {
	if !strings.Contains(err.Error(), "automatic extension loading failed") {
		return describeOpenError(err)
	}
	db, perr := s.OpenSource(path, true)
	if perr == nil {
		defer db.Close()
		var n int
		if perr = db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); perr == nil {
			return errors.New("locked by another program; skipped, the next sync tries again")
		}
	}
	return fmt.Errorf("not a readable SQLite database (%v); skipped", perr)
}

// describeOpenError turns SQLite's errors into what the user can act on.
func describeOpenError(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fmt.Errorf("locked by another program (%v); skipped, the next sync tries again", err)
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return fmt.Errorf("not a readable SQLite database (%v); skipped", err)
		}
	}
	return err
}

func (s *Syncer) readDB(ctx context.Context, path string) (o *openDB, units []*unit, err error) {
	if s.OpenSource == nil {
		return nil, nil, errors.New("reading agent databases is not available here")
	}
	db, err := s.OpenSource(path, false)
	if err != nil {
		return nil, nil, err
	}
	o = &openDB{path: path, db: db}
	defer func() {
		if err != nil {
			o.close()
			o, units = nil, nil
			err = s.describe(path, err)
		}
	}()
	if o.conn, err = db.Conn(ctx); err != nil {
		return
	}
	// One read transaction: every query of this step sees one snapshot,
	// whatever the gateway commits meanwhile.
	if _, err = o.conn.ExecContext(ctx, `BEGIN`); err != nil {
		return
	}
	cols, err := o.inspect(ctx)
	if err != nil {
		return
	}
	units, err = s.listUnits(ctx, o, cols)
	return
}

// inspect checks the schema version and the tables sync reads, and builds
// the statements.
func (o *openDB) inspect(ctx context.Context) (map[string]map[string]bool, error) {
	cols := map[string]map[string]bool{}
	for _, t := range []string{"schema_meta", "session_nodes", "session_windows", "transcript_events",
		"transcript_rewrite_watermarks", "session_transcript_cold_archives", "session_transcript_archives"} {
		c, err := importer.TableColumns(ctx, o.conn, t)
		if err != nil {
			return nil, err
		}
		cols[t] = c
	}
	var userVersion int64
	if err := o.conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&userVersion); err != nil {
		return nil, err
	}
	version := userVersion
	if cols["schema_meta"]["schema_version"] {
		var meta sql.NullInt64
		q := `SELECT schema_version FROM schema_meta ORDER BY meta_key LIMIT 1`
		if cols["schema_meta"]["role"] {
			q = `SELECT schema_version FROM schema_meta WHERE role = 'agent' ORDER BY meta_key LIMIT 1`
		}
		if err := o.conn.QueryRowContext(ctx, q).Scan(&meta); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if meta.Valid {
			if userVersion != 0 && meta.Int64 != userVersion {
				return nil, fmt.Errorf("half-migrated OpenClaw agent database: schema_meta says schema %d, PRAGMA user_version %d (run openclaw doctor); skipped", meta.Int64, userVersion)
			}
			version = meta.Int64
		}
	}
	switch {
	case version == 0:
		return nil, errors.New("no OpenClaw agent schema version (PRAGMA user_version and schema_meta are empty); not an OpenClaw agent database, skipped")
	case version < MinSchema:
		return nil, fmt.Errorf("OpenClaw agent schema %d predates session windows (schema %d); run openclaw doctor --fix, or import it with 'sessionsearch import'; skipped", version, MinSchema)
	case version > MaxSchema:
		return nil, fmt.Errorf("OpenClaw agent schema %d is newer than this sessionsearch reads (%d–%d); skipped until sessionsearch is updated", version, MinSchema, MaxSchema)
	}
	need := map[string][]string{
		"session_nodes":     {"session_key", "current_session_id"},
		"session_windows":   {"session_id", "session_key", "created_at"},
		"transcript_events": {"session_id", "seq", "event_json"},
	}
	if version >= 20 {
		need["session_transcript_cold_archives"] = []string{"session_id", "generation", "archive_name", "storage", "last_seq"}
	}
	if version >= 23 {
		need["transcript_events"] = append(need["transcript_events"], "event_zstd", "event_utf8_bytes")
	}
	for _, t := range sortedKeys(need) {
		for _, c := range need[t] {
			if !cols[t][c] {
				return nil, fmt.Errorf("half-migrated OpenClaw agent database: schema %d but %s has no column %s (run openclaw doctor); skipped", version, t, c)
			}
		}
	}
	payload := importer.PickColumns(cols["transcript_events"], "event_json", "event_zstd", "event_utf8_bytes")
	o.events = `SELECT seq, ` + payload + ` FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq`
	o.tail = `SELECT ` + payload + ` FROM transcript_events WHERE session_id = ? AND seq = ?`
	if cols["session_transcript_cold_archives"]["archive_blob"] {
		o.coldBlob = `SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?`
	}
	if cols["session_transcript_archives"]["archive_blob"] {
		o.archiveBlob = `SELECT encoding, archive_blob FROM session_transcript_archives WHERE session_id = ? AND generation = ?`
	}
	return cols, nil
}

type window struct {
	id, key, parent, spawnedBy     sql.NullString
	createdAt                      sql.NullInt64
	current, nParent, nSpawnedBy   sql.NullString
	nCreatedAt                     sql.NullInt64
	hasNode                        bool
	maxSeq                         sql.NullInt64
	rewriteGen                     sql.NullString
	coldGen, coldName, coldStorage sql.NullString
	coldLastSeq                    sql.NullInt64
	coldEvents                     sql.NullInt64
}

// listUnits lists the windows and archives of the database as units
// (docs/sync.md Y3, Y6, Y7).
func (s *Syncer) listUnits(ctx context.Context, o *openDB, cols map[string]map[string]bool) ([]*unit, error) {
	agentID := importer.AgentOf(filepath.Dir(o.path))
	if cols["schema_meta"]["agent_id"] {
		var id sql.NullString
		err := o.conn.QueryRowContext(ctx, `SELECT agent_id FROM schema_meta WHERE agent_id <> '' ORDER BY meta_key LIMIT 1`).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if id.String != "" {
			agentID = id.String
		}
	}
	w := cols["session_windows"]
	n := cols["session_nodes"]
	q := `SELECT w.session_id, w.session_key, ` + pickAs("w", w, "parent_session_key", "spawned_by", "created_at") + `,
		n.current_session_id, ` + pickAs("n", n, "parent_session_key", "spawned_by", "created_at") + `, n.session_key IS NOT NULL,
		(SELECT max(seq) FROM transcript_events e WHERE e.session_id = w.session_id)`
	joins := ` FROM session_windows w LEFT JOIN session_nodes n ON n.session_key = w.session_key`
	if cols["transcript_rewrite_watermarks"]["generation"] {
		q += `, g.generation`
		joins += ` LEFT JOIN transcript_rewrite_watermarks g ON g.session_id = w.session_id`
	} else {
		q += `, NULL`
	}
	if c := cols["session_transcript_cold_archives"]; c["generation"] {
		q += `, c.generation, c.archive_name, c.storage, c.last_seq, ` + pickAs("c", c, "event_count")
		joins += ` LEFT JOIN session_transcript_cold_archives c ON c.session_id = w.session_id`
	} else {
		q += `, NULL, NULL, NULL, NULL, NULL`
	}
	rows, err := o.conn.QueryContext(ctx, q+joins+` ORDER BY w.session_id`)
	if err != nil {
		return nil, err
	}
	var windows []*window
	newest := map[string]*window{} // key -> newest window, for keys without a node
	for rows.Next() {
		x := &window{}
		if err := rows.Scan(&x.id, &x.key, &x.parent, &x.spawnedBy, &x.createdAt, &x.current, &x.nParent, &x.nSpawnedBy,
			&x.nCreatedAt, &x.hasNode, &x.maxSeq, &x.rewriteGen, &x.coldGen, &x.coldName, &x.coldStorage, &x.coldLastSeq, &x.coldEvents); err != nil {
			rows.Close()
			return nil, err
		}
		windows = append(windows, x)
		if k := x.key.String; k != "" {
			if b := newest[k]; b == nil || x.createdAt.Int64 > b.createdAt.Int64 || (x.createdAt.Int64 == b.createdAt.Int64 && x.id.String > b.id.String) {
				newest[k] = x
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var units []*unit
	live := map[string]bool{}
	for _, x := range windows {
		id := x.id.String
		key := x.key.String
		current := x.current.String
		if !x.hasNode && newest[key] != nil {
			current = newest[key].id.String
		}
		u := &unit{source: o.path, id: "window:" + id, sessionID: id, resumable: true}
		hot := x.maxSeq.Valid
		switch {
		case !hot && x.coldName.Valid:
			u.kind = kindCold
			u.sess = importer.Session{Key: ArchiveKey(agentID, kindCold, "", id, sessionkey.Canonical(agentID, key)),
				ParentSessionKey: sessionkey.Canonical(agentID, key), SpawnedBy: sessionkey.Canonical(agentID, x.spawnedBy.String), CreatedAt: x.createdAt.Int64}
			u.gen = "cold:" + x.coldGen.String
			u.end = x.coldLastSeq.Int64
			u.events = x.coldEvents.Int64
			u.resumable = false
			u.read = o.coldReader(id, x.coldName.String, x.coldStorage.String)
		case !hot:
			continue // a window without events yet
		case key != "" && current == id:
			u.kind = kindLive
			u.sess = importer.Session{
				Key:              sessionkey.Canonical(agentID, key),
				SpawnedBy:        sessionkey.Canonical(agentID, importer.Coalesce(x.nSpawnedBy, x.spawnedBy)),
				ParentSessionKey: sessionkey.Canonical(agentID, importer.Coalesce(x.nParent, x.parent)),
				CreatedAt:        importer.CoalesceInt(x.nCreatedAt, x.createdAt),
			}
		default:
			u.kind = kindHistory
			lineage := sessionkey.Canonical(agentID, key)
			u.sess = importer.Session{Key: sessionkey.Derived(agentID, id, lineage), ParentSessionKey: lineage,
				SpawnedBy: sessionkey.Canonical(agentID, x.spawnedBy.String), CreatedAt: x.createdAt.Int64}
		}
		if hot {
			u.gen = "hot:" + x.rewriteGen.String
			u.end = x.maxSeq.Int64
			u.events = x.maxSeq.Int64 + 1
			u.read = o.eventReader(id)
			u.tail = o.tailHash(id)
		}
		live[id] = true
		units = append(units, u)
	}
	if c := cols["session_transcript_archives"]; c["generation"] && c["reason"] {
		arch, err := s.listArchives(ctx, o, agentID, live)
		if err != nil {
			return nil, err
		}
		units = append(units, arch...)
	}
	return units, nil
}

func pickAs(alias string, cols map[string]bool, want ...string) string {
	out := make([]string, len(want))
	for i, c := range want {
		out[i] = "NULL"
		if cols[c] {
			out[i] = alias + "." + c
		}
	}
	return strings.Join(out, ", ")
}

// listArchives lists reset archives, and deletion archives with
// IncludeDeleted, of generations that are no longer windows.
func (s *Syncer) listArchives(ctx context.Context, o *openDB, agentID string, live map[string]bool) ([]*unit, error) {
	rows, err := o.conn.QueryContext(ctx, `SELECT session_id, generation, session_key, reason, archive_sha256, archive_name, created_at
		FROM session_transcript_archives ORDER BY session_id, generation`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var units []*unit
	for rows.Next() {
		var id, gen, key, reason, sha, name string
		var createdAt sql.NullInt64
		if err := rows.Scan(&id, &gen, &key, &reason, &sha, &name, &createdAt); err != nil {
			return nil, err
		}
		if live[id] || (reason == kindDeleted && !s.IncludeDeleted) || (reason != kindDeleted && reason != kindReset) {
			continue
		}
		_, ts := importer.ArchiveKind(name)
		if ts == "" {
			ts = fmt.Sprint(createdAt.Int64)
		}
		lineage := sessionkey.Canonical(agentID, key)
		units = append(units, &unit{
			source: o.path, id: "archive:" + id + ":" + gen, sessionID: id, kind: reason, gen: "sha256:" + sha,
			sess: importer.Session{Key: ArchiveKey(agentID, reason, ts, id, lineage), ParentSessionKey: lineage, CreatedAt: createdAt.Int64},
			read: o.archiveReader(id, gen),
		})
	}
	return units, rows.Err()
}

func (o *openDB) eventReader(id string) func(context.Context, int64, emitFunc) error {
	return func(ctx context.Context, after int64, emit emitFunc) error {
		rows, err := o.conn.QueryContext(ctx, o.events, id, after)
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
			stored := storedHash(text, frame)
			event, err := o.codec.Event(text, frame, size)
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
}

func (o *openDB) tailHash(id string) func(context.Context, int64) (int64, bool, error) {
	return func(ctx context.Context, seq int64) (int64, bool, error) {
		var text, frame []byte
		var size sql.NullInt64
		err := o.conn.QueryRowContext(ctx, o.tail, id, seq).Scan(&text, &frame, &size)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		return storedHash(text, frame), true, nil
	}
}

// storedHash identifies an event as the database stores it, without
// decoding it.
func storedHash(text, frame []byte) int64 {
	if text != nil {
		return hashOf(text)
	}
	return ^hashOf(frame)
}

// coldPath is where a cold archive file lives: a database in a directory
// named "agent" uses its sibling sessions/cold/, other layouts cold/ beside
// the database (docs/reference/database-schemas/layout.md).
func coldPath(dbPath, name string) string {
	dir := filepath.Dir(dbPath)
	if filepath.Base(dir) == "agent" {
		return filepath.Join(filepath.Dir(dir), "sessions", "cold", name)
	}
	return filepath.Join(dir, "cold", name)
}

func (o *openDB) coldReader(id, name, storage string) func(context.Context, int64, emitFunc) error {
	return func(ctx context.Context, _ int64, emit emitFunc) error {
		var r io.Reader
		where := name
		if storage == "sqlite" && o.coldBlob != "" {
			var blob []byte
			if err := o.conn.QueryRowContext(ctx, o.coldBlob, id).Scan(&blob); err != nil {
				return err
			}
			r = bytes.NewReader(blob)
		} else {
			path := coldPath(o.path, name)
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
		z, err := importer.ZstdReader(r, importer.MaxArchiveBytes)
		if err != nil {
			return err
		}
		defer z.Close()
		// Records of the archive's envelope that hold no event (its header,
		// the window's derived rows) are not events (importer.ColdArchiveEvent).
		return emitLines(z, "cold archive "+where, func(pos int64, raw []byte, rec string, bad error, stored int64) error {
			if bad != nil {
				return emit(pos, raw, rec, bad, stored)
			}
			event, ok, err := importer.ColdArchiveEvent(raw)
			if err != nil {
				return emit(pos, nil, rec, err, stored)
			}
			if !ok {
				return nil
			}
			return emit(pos, event, rec, nil, stored)
		})
	}
}

func (o *openDB) archiveReader(id, gen string) func(context.Context, int64, emitFunc) error {
	return func(ctx context.Context, _ int64, emit emitFunc) error {
		var encoding string
		var blob []byte
		if err := o.conn.QueryRowContext(ctx, o.archiveBlob, id, gen).Scan(&encoding, &blob); err != nil {
			return err
		}
		var r io.Reader = bytes.NewReader(blob)
		if encoding == "zstd" {
			z, err := importer.ZstdReader(r, importer.MaxArchiveBytes)
			if err != nil {
				return err
			}
			defer z.Close()
			r = z
		}
		return emitLines(r, "archive of session "+id+" generation "+gen, emit)
	}
}

// emitLines emits the lines of a JSONL stream, numbered from 0. A stream
// that fails (a zstd frame with a bad checksum, a decoded size over the
// cap) fails the whole unit: an archive is copied whole or not at all.
func emitLines(r io.Reader, what string, emit emitFunc) error {
	lr := importer.NewLineReader(r)
	var n int64
	for {
		line, _, _, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		rec := fmt.Sprintf("%s, line %d", what, lr.Line())
		if errors.Is(err, importer.ErrLineTooLong) {
			if err := emit(n, nil, rec, importer.ErrLineTooLong, 0); err != nil {
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
