package syncer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// listFile describes a JSONL transcript file (docs/sync.md Y8): its store
// session comes from the importer's plan (sessions.json), its position is
// the bytes read up to the last complete line.
func (s *Syncer) listFile(src importer.Source, path string, old stamp, rowsOf func(string) map[string]*row) *sourceState {
	ss := &sourceState{path: path, at: s.now()}
	st, mtime, exists := fileStamp(path)
	if !exists {
		ss.ok = true // gone: its session is removed
		return ss
	}
	name := filepath.Base(path)
	kind, ts := importer.ArchiveKind(name)
	sid := importer.SessionIDOf(name)
	u := &unit{source: path, id: "file", sessionID: sid, gen: "file:" + identity(st), end: sizeOf(st), resumable: true}
	switch {
	case kind == kindReset || kind == kindDeleted:
		u.kind = kind
		u.sess = importer.Session{Key: ArchiveKey(src.AgentID, kind, ts, sid, src.Lineage), ParentSessionKey: src.Lineage}
	case src.Live.Key != "":
		u.kind = kindLive
		u.sess = src.Live
	default:
		u.kind = kindHistory
		u.sess = importer.Session{Key: sessionkey.Derived(src.AgentID, sid, src.Lineage), ParentSessionKey: src.Lineage}
	}
	compressed := strings.HasSuffix(name, ".zst")
	if compressed {
		u.resumable = false // a compressed archive is read whole
	}
	u.events = u.end / 512
	u.read = func(ctx context.Context, after int64, emit emitFunc) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		var r io.Reader = f
		offset := int64(0)
		if compressed {
			z, err := importer.ZstdReader(f, importer.MaxArchiveBytes)
			if err != nil {
				return err
			}
			defer z.Close()
			r = z
		} else if after > 0 {
			if _, err := f.Seek(after, io.SeekStart); err != nil {
				return err
			}
			offset = after
		}
		// A line still being written is read next time; a compressed
		// archive is read whole.
		return importer.FileLines(r, offset, !compressed, func(line []byte, start, end int64, n int, bad error) error {
			rec := fmt.Sprintf("line at byte %d", start)
			if compressed {
				rec = fmt.Sprintf("line %d", n)
			}
			return emit(end, line, rec, bad, 0)
		})
	}
	if compressed {
		u.end = 0
	}
	ss.ok, ss.units = true, []*unit{u}
	if old.stamp == st && trusted(old, mtime) {
		ss.stamp = st
		if r := rowsOf(path)["file"]; r != nil && !s.changed(context.Background(), u, r) {
			ss.units = nil // unchanged
		}
		return ss
	}
	ss.stamp = st
	return ss
}

// identity is the device and inode part of a stamp.
func identity(stamp string) string {
	parts := strings.SplitN(stamp, ":", 3)
	if len(parts) < 3 {
		return stamp
	}
	return parts[0] + ":" + parts[1]
}

func sizeOf(stamp string) int64 {
	var dev, ino, size, mtime int64
	fmt.Sscanf(stamp, "%d:%d:%d:%d", &dev, &ino, &size, &mtime)
	return size
}
