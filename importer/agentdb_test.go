//go:build sqlite_fts5

package importer

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sessionsearch/sessionsearch/driver"
)

// writeAgentDB writes an SQLite database at path with the statements.
func writeAgentDB(t *testing.T, path string, statements ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver.DriverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func openReadOnly(path string) (*sql.DB, error) {
	return sql.Open(driver.DriverName, "file:"+path+"?mode=ro")
}

// importDB imports the agent database at path into a memSink.
func importDB(t *testing.T, path string) (*memSink, []string) {
	t.Helper()
	sink := newMemSink()
	var problems []string
	im := &Importer{Sink: sink, OpenDB: openReadOnly, Report: func(p Problem) { problems = append(problems, p.Error()) }}
	p, planProblems := NewPlan([]string{path}, PlanOptions{})
	if len(planProblems) != 0 || len(p.Sources) != 1 || p.Sources[0].Kind != AgentDatabase {
		t.Fatalf("plan %+v, problems %v", p, planProblems)
	}
	if err := im.Import(context.Background(), p.Sources[0]); err != nil {
		t.Fatal(err)
	}
	return sink, problems
}

const (
	ev0 = `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T00:00:00Z"}`
	ev1 = `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hello"}}`
)

// The oldest layout with transcripts: transcript_events alone. Every
// generation gets the derived key of the directory's agent, and the
// events are renumbered from 0 in OpenClaw's seq order.
func TestAgentDBEventsOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents", "ops", "agent", "openclaw-agent.sqlite")
	writeAgentDB(t, path,
		`CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, created_at INTEGER)`,
		`INSERT INTO transcript_events VALUES ('s1', 7, '`+ev1+`', 0), ('s1', 3, '`+ev0+`', 0)`,
	)
	sink, problems := importDB(t, path)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	want := map[string]Session{"agent:ops:session:s1": {Key: "agent:ops:session:s1", CreatedAt: 1772323200000}}
	if !reflect.DeepEqual(sink.sessions, want) {
		t.Fatalf("sessions %+v", sink.sessions)
	}
	if got := sink.events["agent:ops:session:s1"]; len(got) != 2 || string(got[0]) != ev0 || string(got[1]) != ev1 {
		t.Fatalf("events %q", got)
	}
}

// Without session_nodes, a key's newest window is its current generation;
// an older generation of an incognito key stays incognito; schema_meta's
// agent id wins over the path.
func TestAgentDBWindows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copy.sqlite")
	writeAgentDB(t, path,
		`CREATE TABLE schema_meta (meta_key TEXT PRIMARY KEY, agent_id TEXT)`,
		`INSERT INTO schema_meta VALUES ('agent', 'ops')`,
		`CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT, created_at INTEGER, spawned_by TEXT)`,
		`INSERT INTO session_windows VALUES
		  ('w1', 'agent:ops:dashboard:incognito-q', 10, NULL),
		  ('w2', 'agent:ops:dashboard:incognito-q', 20, NULL),
		  ('k1', 'telegram:dm:42', 5, 'agent:ops:main')`,
		`CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT)`,
		`INSERT INTO transcript_events VALUES ('w1', 0, '`+ev1+`'), ('w2', 0, '`+ev1+`'), ('k1', 0, '`+ev1+`')`,
	)
	sink, problems := importDB(t, path)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	want := map[string]Session{
		"agent:ops:session:incognito-w1":  {Key: "agent:ops:session:incognito-w1", ParentSessionKey: "agent:ops:dashboard:incognito-q", CreatedAt: 10},
		"agent:ops:dashboard:incognito-q": {Key: "agent:ops:dashboard:incognito-q", CreatedAt: 20},
		"agent:ops:telegram:dm:42":        {Key: "agent:ops:telegram:dm:42", SpawnedBy: "agent:ops:main", CreatedAt: 5},
	}
	if !reflect.DeepEqual(sink.sessions, want) {
		t.Fatalf("sessions\n got %+v\nwant %+v", sink.sessions, want)
	}
}

// Bad rows are reported with their session and seq and skipped; the rest of
// the generation is imported.
func TestAgentDBBadRows(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll([]byte(ev1), nil)
	path := filepath.Join(t.TempDir(), "openclaw-agent.sqlite")
	writeAgentDB(t, path, `CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, event_zstd BLOB, event_utf8_bytes INTEGER)`)
	db, err := sql.Open(driver.DriverName, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO transcript_events VALUES
	  ('s1', 1, ?, NULL, NULL), ('s1', 2, NULL, NULL, NULL), ('s1', 3, NULL, x'28b52ffd0000', 5),
	  ('s1', 5, NULL, ?, 3), ('s1', 6, 'not json', NULL, NULL), ('s1', 7, NULL, ?, ?)`, ev0, frame, frame, len(ev1))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	sink, problems := importDB(t, path)
	wantProblems := []string{
		path + ": session s1, seq 2: event has neither event_json nor event_zstd",
		path + ": session s1, seq 3: zstd: ",
		path + ": session s1, seq 5: zstd event decodes to " + strconv.Itoa(len(ev1)) + " bytes, event_utf8_bytes says 3",
		path + ": session s1, seq 6: not a JSON object",
	}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems %q", problems)
	}
	for i, p := range problems {
		if !strings.HasPrefix(p, wantProblems[i]) {
			t.Errorf("problem %q, want %q", p, wantProblems[i])
		}
	}
	if got := sink.events["agent:main:session:s1"]; len(got) != 2 || string(got[1]) != ev1 {
		t.Fatalf("events %q", got)
	}
}

func TestNotAnAgentDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.sqlite")
	writeAgentDB(t, path, `CREATE TABLE notes (x)`)
	_, problems := importDB(t, path)
	if len(problems) != 1 || problems[0] != path+": not an OpenClaw agent database: no transcript_events(session_id, seq, event_json) table" {
		t.Fatalf("problems %q", problems)
	}
}
