//go:build sqlite_fts5

package syncer_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

// TestJSONLFiles follows legacy session files: an append is read from the
// stored offset, a line still being written waits, a rewritten file is
// copied again, archives get archive keys and deleted ones need
// IncludeDeleted (docs/sync.md Y8).
func TestJSONLFiles(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	must(t, os.MkdirAll(sessions, 0o755))
	must(t, os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte(`{"agent:main:main":{"sessionId":"s1"}}`), 0o644))
	live := filepath.Join(sessions, "s1.jsonl")
	M := openclawtest.Message
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-11-01T10:00:00Z","cwd":"/w"}`
	must(t, os.WriteFile(live, []byte(header+"\n"+M("u1", "", "user", "first")+"\n"), 0o644))
	db := store(t)
	s := newSyncer(t, db.DB, nil)
	sync(t, s, dir)
	check(t, "a live file", db.DB, map[string][]string{"agent:main:main": {"u1"}})

	appendTo := func(text string) {
		f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString(text)
		must(t, err)
		must(t, f.Close())
	}
	line := M("a1", "u1", "assistant", "second")
	appendTo(line[:20])
	sync(t, s, dir)
	check(t, "half a line", db.DB, map[string][]string{"agent:main:main": {"u1"}})
	appendTo(line[20:] + "\n")
	st := sync(t, s, dir)
	check(t, "the rest of the line", db.DB, map[string][]string{"agent:main:main": {"u1", "a1"}})
	if st.Bytes > int64(len(line)) {
		t.Errorf("an append of %d bytes read %d: the file was reread", len(line), st.Bytes)
	}

	// Rewritten in place of the old file (a new inode).
	tmp := live + ".tmp"
	must(t, os.WriteFile(tmp, []byte(header+"\n"+M("u9", "", "user", "rewritten")+"\n"), 0o644))
	must(t, os.Rename(tmp, live))
	sync(t, s, dir)
	check(t, "a rewritten file", db.DB, map[string][]string{"agent:main:main": {"u9"}})

	// Archives, plain and compressed.
	must(t, os.WriteFile(filepath.Join(sessions, "s0.jsonl.reset.2026-10-01T08-00-00.000Z"),
		[]byte(strings.ReplaceAll(header, "s1", "s0")+"\n"+M("r1", "", "user", "before the reset")+"\n"), 0o644))
	enc, _ := zstd.NewWriter(nil)
	must(t, os.WriteFile(filepath.Join(sessions, "s2.jsonl.deleted.2026-10-02T08-00-00.000Z.zst"),
		enc.EncodeAll([]byte(strings.ReplaceAll(header, "s1", "s2")+"\n"+M("d1", "", "user", "deleted words")+"\n"), nil), 0o644))
	sync(t, s, dir)
	want := map[string][]string{"agent:main:main": {"u9"}, "agent:main:reset:2026-10-01T08-00-00.000Z:s0": {"r1"}}
	check(t, "archive files", db.DB, want)
	s.IncludeDeleted = true
	sync(t, s, dir)
	want["agent:main:deleted:2026-10-02T08-00-00.000Z:s2"] = []string{"d1"}
	check(t, "archive files with IncludeDeleted", db.DB, want)

	// Without IncludeDeleted again, the deleted archive leaves search; so
	// does a removed file.
	s.IncludeDeleted = false
	sync(t, s, dir)
	delete(want, "agent:main:deleted:2026-10-02T08-00-00.000Z:s2")
	check(t, "archive files without IncludeDeleted again", db.DB, want)
	must(t, os.Remove(filepath.Join(sessions, "s0.jsonl.reset.2026-10-01T08-00-00.000Z")))
	sync(t, s, dir)
	delete(want, "agent:main:reset:2026-10-01T08-00-00.000Z:s0")
	if got := searchable(t, db.DB); !reflect.DeepEqual(got, want) {
		t.Fatalf("after removing an archive file: %v, want %v", got, want)
	}
}
