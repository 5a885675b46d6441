//go:build sqlite_fts5

package syncer_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	gosync "sync"
	"testing"

	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		must(t, err)
		out[e.Name()] = b
	}
	return out
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The bytes of the -shm file a WAL reader may write: its read marks,
// aReadMark[1..4] of the checkpoint info after the two 48-byte copies of
// the WAL-index header and nBackfill (offsets 104 to 119; SQLite's
// wal.c, "WAL-index format"). Everything else a reader only reads.
const readMarksFrom, readMarksTo = 100, 120

// TestSourceUnchanged proves that sync never writes an agent database: with
// the gateway's connection open (WAL and -shm present), the database file
// and its -wal stay the same byte for byte and the -shm changes at most in
// the read marks; with the gateway stopped (no -wal, no -shm), no byte of
// the directory changes and no file appears (docs/sync.md Y4).
func TestSourceUnchanged(t *testing.T) {
	dir := t.TempDir()
	g := gateway(t, dir, "main")
	M := openclawtest.Message
	must(t, g.Create(g.Key("main"), "w1", openclawtest.Link{}))
	for i := 0; i < 50; i++ {
		parent := ""
		if i > 0 {
			parent = fmt.Sprint("u", i-1)
		}
		must(t, g.Append("w1", M(fmt.Sprint("u", i), parent, "user", fmt.Sprint("message ", i, " ", long, string(bytes.Repeat([]byte("x"), 2000))))))
	}
	agentDir := filepath.Dir(g.Path)
	check := func(when string, allowShm bool) {
		t.Helper()
		before := files(t, agentDir)
		db := store(t)
		s := newSyncer(t, db.DB, nil)
		sync(t, s, dir)
		sync(t, s, dir)
		if n := len(searchable(t, db.DB)[g.Key("main")]); n != 50 {
			t.Fatalf("%s: synced %d messages, want 50", when, n)
		}
		s.Close()
		after := files(t, agentDir)
		if fmt.Sprint(names(before)) != fmt.Sprint(names(after)) {
			t.Fatalf("%s: the agent directory held %v, after sync %v", when, names(before), names(after))
		}
		for name, b := range before {
			a := after[name]
			if bytes.Equal(a, b) {
				continue
			}
			if !allowShm || filepath.Ext(name) != ".sqlite-shm" || len(a) != len(b) {
				t.Errorf("%s: sync changed %s (%d bytes before, %d after)", when, name, len(b), len(a))
				continue
			}
			var changed []int
			for i := range a {
				if a[i] != b[i] {
					changed = append(changed, i)
					if i < readMarksFrom || i >= readMarksTo {
						t.Errorf("%s: sync changed byte %d of %s, outside the read marks", when, i, name)
					}
				}
			}
			t.Logf("%s: sync changed bytes %v of %s (read marks)", when, changed, name)
		}
	}
	if _, err := os.Stat(g.Path + "-wal"); err != nil {
		t.Fatalf("the gateway has no -wal file open: %v", err)
	}
	check("with the gateway running", true)
	must(t, g.Close())
	if _, err := os.Stat(g.Path + "-wal"); err == nil {
		t.Fatalf("the stopped gateway left its -wal")
	}
	check("with the gateway stopped", false)
}

// TestWrittenWhileSyncing syncs while the gateway appends: no sync fails,
// and once the gateway is done, one more sync has every message.
func TestWrittenWhileSyncing(t *testing.T) {
	dir := t.TempDir()
	g := gateway(t, dir, "main")
	M := openclawtest.Message
	must(t, g.Create(g.Key("main"), "w1", openclawtest.Link{}))
	db := store(t)
	s := newSyncer(t, db.DB, nil)
	const n = 300
	var wg gosync.WaitGroup
	wg.Add(1)
	errs := make(chan error, 1)
	go func() {
		defer wg.Done()
		parent := ""
		for i := 0; i < n; i++ {
			id := fmt.Sprint("m", i)
			if err := g.Append("w1", M(id, parent, "user", fmt.Sprint("message number ", i))); err != nil {
				errs <- err
				return
			}
			parent = id
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	rounds := 0
loop:
	for {
		select {
		case <-done:
			break loop
		default:
			sync(t, s, dir)
			rounds++
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	sync(t, s, dir)
	if got := len(searchable(t, db.DB)[g.Key("main")]); got != n {
		t.Fatalf("after %d syncs during writes and one after, %d messages are searchable, want %d", rounds, got, n)
	}
}
