//go:build sqlite_fts5

package syncer_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

// TestBadSources: a corrupt, truncated, locked, half-migrated or too new
// agent database, bad zstd events and a cold archive that fails its
// checksum are each reported with their path and skipped; everything else
// is synced, and nothing synced before is lost (docs/sync.md Y11).
func TestBadSources(t *testing.T) {
	dir := t.TempDir()
	M := openclawtest.Message
	good := gateway(t, dir, "good")
	must(t, good.Create(good.Key("main"), "g1", openclawtest.Link{}))
	must(t, good.Append("g1", M("ok1", "", "user", "fine"), M("bad1", "ok1", "assistant", "checksum"), M("bad2", "bad1", "assistant", "bomb"),
		M("bad3", "bad2", "assistant", "size"), M("ok2", "ok1", "user", "still fine")))
	// Spoil three events the way a damaged file would: a frame whose
	// checksum fails, one that expands past the 32 MiB cap, one whose size
	// is not event_utf8_bytes.
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	frame := enc.EncodeAll([]byte(M("bad1", "ok1", "assistant", strings.Repeat("checksum ", 300))), nil)
	frame[len(frame)-1] ^= 0xff
	bomb := enc.EncodeAll([]byte(`{"type":"message","x":"`+strings.Repeat("a", 40<<20)+`"}`), nil)
	sized := []byte(M("bad3", "bad2", "assistant", strings.Repeat("size ", 300)))
	for _, u := range []struct {
		seq   int
		frame []byte
		size  int
	}{{2, frame, 2735}, {3, bomb, 4194304}, {4, enc.EncodeAll(sized, nil), len(sized) + 1}} {
		_, err := good.DB.Exec(`UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = ?, navigation_json = '{"version":1}'
			WHERE session_id = 'g1' AND seq = ?`, u.frame, u.size, u.seq)
		must(t, err)
	}
	// A cold archive file that fails its checksum.
	must(t, good.Create(good.Key("old"), "g2", openclawtest.Link{}))
	must(t, good.Append("g2", M("c1", "", "user", "cold words")))
	must(t, good.ColdArchive("g2"))
	var name string
	must(t, good.DB.QueryRow(`SELECT archive_name FROM session_transcript_cold_archives`).Scan(&name))
	cold := filepath.Join(dir, "agents", "good", "sessions", "cold", name)
	b, err := os.ReadFile(cold)
	must(t, err)
	b[len(b)-1] ^= 0xff
	must(t, os.WriteFile(cold, b, 0o644))

	later := gateway(t, dir, "later") // synced fine first, corrupted afterwards
	must(t, later.Create(later.Key("main"), "l1", openclawtest.Link{}))
	must(t, later.Append("l1", M("keep", "", "user", "do not lose me")))

	future := gateway(t, dir, "future")
	_, err = future.DB.Exec(`PRAGMA user_version = 99; UPDATE schema_meta SET schema_version = 99`)
	must(t, err)
	half := gateway(t, dir, "half")
	_, err = half.DB.Exec(`UPDATE schema_meta SET schema_version = 22`)
	must(t, err)
	nozstd := gateway(t, dir, "nozstd")
	// Marked schema 23, but transcript_events still has schema 22's shape.
	_, err = nozstd.DB.Exec(`DROP TABLE transcript_events; CREATE TABLE transcript_events(session_id TEXT NOT NULL, seq INTEGER NOT NULL,
		event_json TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) STRICT`)
	must(t, err)

	mkdb := func(agent string, data []byte) string {
		p := filepath.Join(dir, "agents", agent, "agent", "openclaw-agent.sqlite")
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, data, 0o644))
		return p
	}
	corrupt := mkdb("corrupt", append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xa5}, 8192)...))
	// A truncated copy of a real database (the gateway stopped, so the
	// file holds everything).
	trunc := gateway(t, dir, "trunc")
	must(t, trunc.Create(trunc.Key("main"), "t1", openclawtest.Link{}))
	for i := 0; i < 200; i++ {
		must(t, trunc.Append("t1", M("t"+string(rune('a'+i%26)), "", "user", strings.Repeat("filler ", 100))))
	}
	must(t, trunc.Close())
	whole, err := os.ReadFile(trunc.Path)
	must(t, err)
	must(t, os.WriteFile(trunc.Path, whole[:len(whole)/2], 0o644))
	// A locked database: a rollback-journal database whose writer holds an
	// exclusive lock.
	lockedPath := mkdb("locked", nil)
	must(t, os.Remove(lockedPath))
	locker, err := sql.Open("sqlite3", "file:"+lockedPath+"?_journal_mode=DELETE&_locking_mode=EXCLUSIVE")
	must(t, err)
	locker.SetMaxOpenConns(1)
	t.Cleanup(func() { locker.Close() })
	_, err = locker.Exec(openclawtest.Schema)
	must(t, err)
	_, err = locker.Exec(`INSERT INTO schema_meta VALUES ('primary', 'agent', 23, 'locked', 'x', 1, 1)`)
	must(t, err)
	// In exclusive locking mode the writer keeps its lock after the write.
	_, err = locker.Exec(`INSERT INTO schema_meta VALUES ('second', 'agent', 23, 'locked', 'x', 1, 1)`)
	must(t, err)

	db := store(t)
	var problems []string
	s := newSyncer(t, db.DB, &problems)
	// First, the later-corrupted database alone, so it has sessions to lose.
	sync(t, s, later.Path)
	must(t, later.Close())
	before := searchable(t, db.DB)
	if len(before[later.Key("main")]) != 1 {
		t.Fatalf("the database to corrupt later did not sync: %v", before)
	}
	raw, err := os.ReadFile(later.Path)
	must(t, err)
	for i := 100; i < len(raw); i++ {
		raw[i] ^= 0x5a
	}
	must(t, os.WriteFile(later.Path, raw, 0o644))
	problems = nil

	st := sync(t, s, dir)
	got := searchable(t, db.DB)
	if want := []string{"ok1", "ok2"}; strings.Join(got[good.Key("main")], ",") != strings.Join(want, ",") {
		t.Errorf("good agent: searchable %v, want %v (the bad events skipped, the rest synced)", got[good.Key("main")], want)
	}
	if strings.Join(got[later.Key("main")], ",") != "keep" {
		t.Errorf("the corrupted database's session was lost: %v", got)
	}
	if _, ok := got["agent:good:cold:g2"]; ok {
		t.Errorf("a cold archive that fails its checksum was synced")
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{
		good.Path + ": session g1, seq 2: zstd",
		good.Path + ": session g1, seq 3: zstd",
		good.Path + ": session g1, seq 4: zstd event decodes to",
		good.Path + ": window:g2: cold archive " + cold,
		later.Path + ": not a readable SQLite database",
		corrupt + ": not a readable SQLite database",
		trunc.Path + ": ",
		lockedPath + ": locked by another program",
		future.Path + ": OpenClaw agent schema 99 is newer",
		half.Path + ": half-migrated OpenClaw agent database: schema_meta says schema 22, PRAGMA user_version 23",
		nozstd.Path + ": half-migrated OpenClaw agent database: schema 23 but transcript_events has no column event_zstd",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem reported as %q; problems:\n%s", want, all)
		}
	}
	if st.Skipped < 6 {
		t.Errorf("Stats.Skipped = %d, want at least 6 bad databases", st.Skipped)
	}

	// A bad event at the end of a window does not make the next append
	// copy the window again.
	must(t, good.Append("g1", M("bad4", "ok2", "assistant", "spoiled")))
	_, err = good.DB.Exec(`UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = 2735, navigation_json = '{"version":1}'
		WHERE session_id = 'g1' AND seq = 6`, frame)
	must(t, err)
	sync(t, s, dir)
	must(t, good.Append("g1", M("ok3", "ok2", "user", "after the bad one")))
	if st := sync(t, s, dir); st.Events != 1 {
		t.Errorf("an append after a bad last event stored %d events, want 1", st.Events)
	}
	if got := searchable(t, db.DB)[good.Key("main")]; strings.Join(got, ",") != "ok1,ok2,ok3" {
		t.Errorf("good agent after the append: %v, want ok1 ok2 ok3", got)
	}
}
