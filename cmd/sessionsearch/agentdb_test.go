package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// An OpenClaw agent database as agent schema 23 writes it
// (src/state/openclaw-agent-schema.sql @0b03f834,
// src/config/sessions/transcript-payload.ts @252fccdb): events of 1 KiB or
// more as zstd frames in event_zstd with event_json NULL, the others as
// TEXT; OpenClaw's seq here starts at 1.
const agentSchema = `
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL, created_at INTEGER, parent_session_key TEXT, spawned_by TEXT, archived_at INTEGER) STRICT;
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, parent_session_key TEXT, spawned_by TEXT) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;
CREATE TABLE schema_meta (meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
INSERT INTO schema_meta VALUES ('agent', 'agent', 23, 'work', '2026.9.6', 0, 0);
`

// agentGeneration is one transcript generation to put in the database.
type agentGeneration struct {
	fixture, key, reason string
	created              int64
}

// buildAgentDB writes the generations into a new agent database at path
// and returns how many events were stored compressed.
func buildAgentDB(t *testing.T, path string, gens []agentGeneration, nodes map[string][2]string) int {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sessionsearch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(agentSchema); err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	compressed := 0
	for _, g := range gens {
		f := loadFixture(t, g.fixture)
		id := f.entries[0].ID
		if _, err := db.Exec(`INSERT INTO session_windows VALUES (?, ?, NULL, ?, ?, ?, NULL, NULL)`, id, g.key, g.reason, g.created, g.created); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(f.raw, "\n"), "\n") {
			var text, frame any
			var size any
			if z := enc.EncodeAll([]byte(line), nil); len(line) >= 1024 && len(z) <= len(line)-max(64, len(line)/10) {
				frame, size = z, len(line)
				compressed++
			} else {
				text = line
			}
			if _, err := db.Exec(`INSERT INTO transcript_events VALUES (?, ?, ?, 0, ?, ?, NULL)`, id, i+1, text, frame, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	for key, n := range nodes {
		current := loadFixture(t, n[0]).entries[0].ID
		if _, err := db.Exec(`INSERT INTO session_nodes VALUES (?, ?, '{}', 0, 1772323200000, NULL, ?, NULL)`, key, current, nullString(n[1])); err != nil {
			t.Fatal(err)
		}
	}
	return compressed
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sessionEvents returns the events of a session, in seq order.
func sessionEvents(t *testing.T, db *sql.DB, key string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT sessionsearch_event(event) FROM transcript_events WHERE session_key = ? ORDER BY seq`, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var events []string
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

// An agent database imports like the JSONL files it holds: the same events
// (zstd rows decoded), under the keys session_nodes and session_windows
// give, with their spawn links; an earlier generation of a key becomes a
// session linked to it; a JSONL copy of a generation in the database is
// skipped.
func TestImportAgentDatabase(t *testing.T) {
	state := t.TempDir()
	dbPath := filepath.Join(state, "agents", "work", "agent", "openclaw-agent.sqlite")
	compressed := buildAgentDB(t, dbPath, []agentGeneration{
		{"uk-telegram-cb02dfb1.jsonl", "agent:work:main", "initial", 1},
		{"ja-desktop-tui-8555a0a4.jsonl", "agent:work:main", "reset", 2},
		{"zh-feishu-images-d23482cc.jsonl", "agent:work:subagent:kid", "initial", 3},
	}, map[string][2]string{
		"agent:work:main":         {"ja-desktop-tui-8555a0a4.jsonl", ""},
		"agent:work:subagent:kid": {"zh-feishu-images-d23482cc.jsonl", "agent:work:main"},
	})
	if compressed < 10 {
		t.Fatalf("only %d events compressed", compressed)
	}
	ja := loadFixture(t, "ja-desktop-tui-8555a0a4.jsonl")
	copyPath := filepath.Join(state, "agents", "work", "sessions", ja.entries[0].ID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(copyPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, []byte(ja.raw), 0o644); err != nil {
		t.Fatal(err)
	}

	dbFile := filepath.Join(t.TempDir(), "s.db")
	r := mustRun(t, "import", "--db", dbFile, state)
	if !strings.Contains(r.stdout, "imported 3 transcripts from 1 files") ||
		!strings.Contains(r.stdout, "skipped 1 files: its session is in the agent database: 1") {
		t.Fatalf("import said %q", r.stdout)
	}
	db := openDB(t, dbFile)

	uk := loadFixture(t, "uk-telegram-cb02dfb1.jsonl")
	feishu := loadFixture(t, "zh-feishu-images-d23482cc.jsonl")
	want := map[string]struct {
		f                 fixture
		spawnedBy, parent string
	}{
		"agent:work:main":                        {ja, "", ""},
		"agent:work:session:" + uk.entries[0].ID: {uk, "", "agent:work:main"},
		"agent:work:subagent:kid":                {feishu, "agent:work:main", ""},
	}
	rows, err := db.Query(`SELECT session_key, coalesce(spawned_by, ''), coalesce(parent_session_key, '') FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rows.Next() {
		var key, spawnedBy, parent string
		if err := rows.Scan(&key, &spawnedBy, &parent); err != nil {
			t.Fatal(err)
		}
		w, ok := want[key]
		if !ok || w.spawnedBy != spawnedBy || w.parent != parent {
			t.Errorf("session %s spawned by %q, parent %q; want %+v", key, spawnedBy, parent, w)
		}
		got++
	}
	rows.Close()
	if got != len(want) {
		t.Fatalf("%d sessions, want %d", got, len(want))
	}
	for key, w := range want {
		lines := strings.Split(strings.TrimSuffix(w.f.raw, "\n"), "\n")
		if events := sessionEvents(t, db.DB, key); !reflect.DeepEqual(events, lines) {
			t.Errorf("%s: %d events differ from the %d lines of %s", key, len(events), len(lines), w.f.name)
		}
		checkHistory(t, db, key, w.f)
	}
	// 授权码 is in long, compressed assistant messages of the subagent.
	res := searchJSON(t, dbFile, "授权码")
	if len(res.Results) == 0 {
		t.Fatal("授权码 not found")
	}
	for _, hit := range res.Results {
		if hit.SessionKey != "agent:work:subagent:kid" {
			t.Errorf("授权码 found in %s", hit.SessionKey)
		}
	}
	// As the subagent, the caller sees itself but not the agent's main
	// session, which spawned it.
	asKid := searchJSON(t, dbFile, "--caller", "agent:work:subagent:kid", "はくあ")
	if len(asKid.Results) != 0 {
		t.Errorf("the subagent sees the main session: %+v", asKid.Results)
	}
	asMain := searchJSON(t, dbFile, "--caller", "agent:work:main", "授权码")
	if len(asMain.Results) == 0 {
		t.Error("the main session does not see the subagent it spawned")
	}
}
