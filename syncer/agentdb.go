package syncer

import (
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

// readDB opens an agent database (one read snapshot for the step) and
// lists its units.
func (s *Syncer) readDB(ctx context.Context, path string) (a *importer.AgentDB, units []*unit, err error) {
	if s.OpenSource == nil {
		return nil, nil, errors.New("reading agent databases is not available here")
	}
	open := func(p string) (*sql.DB, error) { return s.OpenSource(p, false) }
	if a, err = importer.OpenAgentDB(ctx, path, importer.AgentOf(filepath.Dir(path)), open); err != nil {
		return nil, nil, s.describe(path, err)
	}
	if err = a.Known(MinSchema, MaxSchema); err == nil {
		units, err = s.listUnits(ctx, a)
	}
	if err != nil {
		a.Close()
		return nil, nil, s.describe(path, err)
	}
	return a, units, nil
}

// listUnits lists the windows and archives of the database as units
// (docs/sync.md Y3, Y6, Y7).
func (s *Syncer) listUnits(ctx context.Context, a *importer.AgentDB) ([]*unit, error) {
	windows, err := a.Windows(ctx)
	if err != nil {
		return nil, err
	}
	agentID := a.AgentID
	var units []*unit
	live := map[string]bool{}
	for _, x := range windows {
		id := x.ID
		u := &unit{source: a.Path, id: "window:" + id, sessionID: id, resumable: true}
		hot := x.MaxSeq.Valid
		switch {
		case !hot && x.ColdName.Valid:
			lineage := sessionkey.Canonical(agentID, x.Key.String)
			u.kind = kindCold
			u.sess = importer.Session{Key: ArchiveKey(agentID, kindCold, "", id, lineage),
				ParentSessionKey: lineage, SpawnedBy: sessionkey.Canonical(agentID, x.SpawnedBy.String), CreatedAt: x.CreatedAt.Int64}
			u.gen = "cold:" + x.ColdGen.String
			u.end = x.ColdLastSeq.Int64
			u.events = x.ColdEvents.Int64
			u.resumable = false
			name, storage := x.ColdName.String, x.ColdStorage.String
			u.read = func(ctx context.Context, _ int64, emit emitFunc) error {
				return a.ColdEvents(ctx, id, name, storage, emit)
			}
		case !hot:
			continue // a window without events yet
		case x.Live():
			u.kind, u.sess = kindLive, x.Session(agentID)
		default:
			u.kind, u.sess = kindHistory, x.Session(agentID)
		}
		if hot {
			u.gen = "hot:" + x.RewriteGen.String
			u.end = x.MaxSeq.Int64
			u.events = x.MaxSeq.Int64 + 1
			u.read = func(ctx context.Context, after int64, emit emitFunc) error { return a.Events(ctx, id, after, emit) }
			u.tail = func(ctx context.Context, pos int64) (int64, bool, error) { return a.TailHash(ctx, id, pos) }
		}
		live[id] = true
		units = append(units, u)
	}
	archives, err := a.Archives(ctx)
	if err != nil {
		return nil, err
	}
	// Reset archives, and deletion archives with IncludeDeleted, of
	// generations that are no longer windows.
	for _, r := range archives {
		if live[r.ID] || (r.Reason == kindDeleted && !s.IncludeDeleted) || (r.Reason != kindDeleted && r.Reason != kindReset) {
			continue
		}
		_, ts := importer.ArchiveKind(r.Name)
		if ts == "" {
			ts = fmt.Sprint(r.CreatedAt.Int64)
		}
		lineage := sessionkey.Canonical(agentID, r.Key)
		id, gen := r.ID, r.Generation
		units = append(units, &unit{
			source: a.Path, id: "archive:" + id + ":" + gen, sessionID: id, kind: r.Reason, gen: "sha256:" + r.SHA256,
			sess: importer.Session{Key: ArchiveKey(agentID, r.Reason, ts, id, lineage), ParentSessionKey: lineage, CreatedAt: r.CreatedAt.Int64},
			read: func(ctx context.Context, _ int64, emit emitFunc) error { return a.ArchiveEvents(ctx, id, gen, emit) },
		})
	}
	return units, nil
}
