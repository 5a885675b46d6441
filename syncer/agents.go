package syncer

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/importer"
)

// kindAgent is the unit kind of another agent's transcript (package
// agents; docs/sync.md Y15).
const kindAgent = "agent"

// listAgentStore lists the transcripts of another agent's store as units,
// one source per file or database they are read from (docs/sync.md Y15). A
// file or database whose stamp is unchanged (and trusted) is not read; a
// source the format could not list is skipped, never taken as emptied.
func (s *Syncer) listAgentStore(ctx context.Context, src importer.Source, stamps map[string]stamp, rowsOf func(string) map[string]*row, add func(*sourceState)) (done func()) {
	root, _ := filepath.Abs(src.Path)
	if info, err := os.Stat(root); err == nil && !info.IsDir() {
		st, newest, _ := sourceStamp(root)
		if old := stamps[root]; old.stamp == st && trusted(old, newest) {
			add(&sourceState{path: root, at: s.now(), ok: true, stamp: st})
			return func() {}
		}
	}
	env, done := importer.AgentEnv(func(path string) (*sql.DB, error) { return s.OpenSource(path, false) })
	transcripts, problems := src.Format.List(ctx, root, env)
	failed := map[string]bool{}
	for _, p := range problems {
		s.report(importer.AgentProblem(p))
		if p.Rec == "" {
			abs, _ := filepath.Abs(p.Path)
			failed[abs] = true
		}
	}
	by := map[string]*sourceState{}
	var order []string
	for path := range failed {
		by[path] = &sourceState{path: path, at: s.now()} // not ok: left as it is
		order = append(order, path)
	}
	for _, tr := range transcripts {
		path, _ := filepath.Abs(tr.Path)
		ss := by[path]
		if ss == nil {
			ss = &sourceState{path: path, at: s.now(), ok: true}
			st, newest, exists := sourceStamp(path)
			if !exists {
				continue
			}
			ss.stamp = st
			ss.recheck = isSQLite(path)
			if old := stamps[path]; old.stamp == st && trusted(old, newest) {
				ss.unchanged = true
			}
			by[path] = ss
			order = append(order, path)
		}
		if !ss.ok {
			continue
		}
		ss.units = append(ss.units, agentUnit(tr, path, ss.stamp))
	}
	if _, ok := by[root]; !ok && len(transcripts) == 0 && len(failed) == 0 {
		// An empty store (or one emptied since the last sync).
		st, _, _ := sourceStamp(root)
		by[root] = &sourceState{path: root, at: s.now(), ok: true, stamp: st}
		order = append(order, root)
	}
	for _, path := range order {
		ss := by[path]
		if ss.unchanged {
			// Nothing changed: the units are kept as they are, unless one
			// is new (a file the format reads as two transcripts).
			rows := rowsOf(path)
			all := true
			for _, u := range ss.units {
				if r := rows[u.id]; r == nil || s.changed(ctx, u, r) {
					all = false
				}
			}
			if all {
				ss.units = nil
			}
		}
		add(ss)
	}
	return done
}

// agentUnit is the unit of one transcript. A file's generation is its
// identity (a new file under the same name is copied again), with its size
// as the position an append is read from; a transcript that cannot resume
// is copied again whenever its file changes at all (its Gen, or the file's
// whole stamp). Its session id, for grouping, is its key.
func agentUnit(tr agents.Transcript, path, stamp string) *unit {
	u := &unit{source: path, id: tr.Unit, sess: tr.Session, kind: kindAgent, sessionID: tr.Session.Key, resumable: tr.Resumable, events: tr.Events}
	if u.id == "" {
		u.id = "file"
	}
	switch {
	case tr.Gen != "":
		u.gen = "agent:" + tr.Gen
	case tr.Resumable:
		u.gen = "file:" + identity(stamp)
		u.end = sizeOf(stamp)
	default:
		u.gen = "file:" + stamp
	}
	if u.events == 0 {
		u.events = max(u.end/1024, 1)
	}
	u.read = func(ctx context.Context, after int64, emit emitFunc) error {
		return tr.Read(ctx, after, func(e agents.Event) error {
			return emit(e.Pos, e.JSON, e.Rec, e.Bad, 0)
		})
	}
	return u
}

// sourceStamp is the stamp of a file, or of a database and its WAL.
func sourceStamp(path string) (string, time.Time, bool) {
	if isSQLite(path) {
		st, newest := dbStamp(path)
		return st, newest.Time, true
	}
	return fileStamp(path)
}

var sqliteMagic = []byte("SQLite format 3\x00")

func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(sqliteMagic))
	_, err = io.ReadFull(f, b)
	return err == nil && bytes.Equal(b, sqliteMagic)
}
