package agents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

const gooseStore = "testdata/goose"

// gooseListT lists path and fails on a problem.
func gooseListT(t *testing.T, path string) []Transcript {
	t.Helper()
	trs, problems := Lookup(Goose).List(context.Background(), path, Env{OpenDB: openReadOnly})
	if len(problems) > 0 {
		t.Fatalf("%s: problems %v", path, problems)
	}
	return trs
}

// docs/agents/goose.md AO1: <data dir>/sessions, moved by GOOSE_PATH_ROOT
// and XDG_DATA_HOME.
func TestGooseRoots(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "/home/ana/.local/share/goose/sessions"},
		{map[string]string{"XDG_DATA_HOME": "/data"}, "/data/goose/sessions"},
		{map[string]string{"GOOSE_PATH_ROOT": "/opt/goose"}, "/opt/goose/data/sessions"},
		{map[string]string{"GOOSE_PATH_ROOT": "relative"}, "/home/ana/.local/share/goose/sessions"},
	} {
		env := Env{Home: "/home/ana", Getenv: func(k string) string { return c.env[k] }}
		if got := Lookup(Goose).Roots(env); len(got) != 1 || got[0] != c.want {
			t.Errorf("env %v: roots %v, want %s", c.env, got, c.want)
		}
	}
}

// docs/agents/goose.md AO2.
func TestGooseClaims(t *testing.T) {
	moved := filepath.Join(t.TempDir(), "backup.db") // a sessions.db under another name
	copyFile(t, filepath.Join(gooseStore, "sessions", gooseDBName), moved)
	for _, c := range []struct {
		path string
		want bool
	}{
		{gooseStore, true},
		{gooseStore + "/sessions", true},
		{gooseStore + "/sessions/sessions.db", true},
		{gooseStore + "/sessions/20250301_143015.jsonl", true},
		{"/home/ana/.local/share/goose/sessions/x.jsonl", true},
		{moved, true},
		{"testdata/hermes-schema6/state.db", false},
		{"testdata/opencode", false},
		{"../store/testdata/schema1.sqlite", false},
		{"/home/ana/.local/share/goose/config.yaml", false},
	} {
		if got := Lookup(Goose).Claims(c.path); got != c.want {
			t.Errorf("%s: claimed %v, want %v", c.path, got, c.want)
		}
	}
}

// docs/agents/goose.md AO3-AO7: the sessions of a sessions directory; what
// each message becomes.
func TestGooseSessions(t *testing.T) {
	trs := gooseListT(t, gooseStore)
	var keys []string
	for _, tr := range trs {
		keys = append(keys, tr.Session.Key)
	}
	want := []string{"agent:goose:20250302_1", "agent:goose:20251020_1", "agent:goose:20251020_2", "agent:goose:20250301_143015"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("sessions %v, want %v: the database's with messages, then the file it does not hold", keys, want)
	}
	tr := trs[1]
	if tr.Project != "/home/ana/src/ledger" || tr.Session.CreatedAt != 1760951702000 || tr.Gen == "" || tr.Resumable {
		t.Errorf("session %+v project %q gen %q resumable %v", tr.Session, tr.Project, tr.Gen, tr.Resumable)
	}
	events, bad := read(t, tr, -1)
	if len(bad) > 0 {
		t.Fatalf("bad %v", bad)
	}
	if !bytes.Contains(events[0], []byte(`"id":"20251020_1","timestamp":"2025-10-20T09:15:02.000Z","cwd":"/home/ana/src/ledger","agent":"goose"`)) {
		t.Errorf("header %s", events[0])
	}
	path, searchable := activePath(t, events)
	wantPath := []string{
		"user: ช่วยอ่านไฟล์ zephyr-ledger.txt ให้หน่อย",
		"assistant: ファイルを読みます。",
		"toolResult: balance comet-output 4200",
		"assistant: शेष राशि 4200 है।",
		"system: Summary of the conversation so far: nova-summary",
	}
	wantSearchable := []bool{true, true, false, true, false}
	if strings.Join(path, "|") != strings.Join(wantPath, "|") {
		t.Fatalf("path\n%q\nwant\n%q", path, wantPath)
	}
	for i := range wantPath {
		if searchable[i] != wantSearchable[i] {
			t.Errorf("%q: searchable %v, want %v", wantPath[i], searchable[i], wantSearchable[i])
		}
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{
		`{"type":"thinking","thinking":"orbit-thinking: read the file first"}`,
		`{"type":"toolCall","id":"toolu_01","name":"developer__shell","arguments":{"command":"cat zephyr-ledger.txt"}}`,
		`"toolCallId":"toolu_01","toolName":"developer__shell"`,
		`{"type":"goose.systemNotification","id":"m5.0"`,
	} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lack %s", kept)
		}
	}
	for _, ev := range events {
		e, text, _ := transcript.Read(ev)
		if !e.Message {
			continue
		}
		for _, hidden := range []string{"orbit-thinking", "comet-output", "nova-summary", "zephyr-ledger.txt\"}"} {
			if strings.Contains(text, hidden) {
				t.Errorf("%s is searchable in %s", hidden, ev)
			}
		}
	}

	// A failed call and its error; a session goose ran for itself is kept
	// and never found.
	events, _ = read(t, trs[0], -1)
	all = string(bytes.Join(events, []byte("\n")))
	if !strings.Contains(all, `"arguments":"-32602: Unknown tool"`) || !strings.Contains(all, `"isError":true`) {
		t.Errorf("the failed call and its error result:\n%s", all)
	}
	events, _ = read(t, trs[2], -1)
	if p, s := activePath(t, events); len(p) != 1 || s[0] {
		t.Errorf("hidden session: path %q searchable %v, want one message not found", p, s)
	}

	// AO3, AO8: a legacy file: its metadata line, a line that is not JSON
	// reported and skipped, results in the older list form.
	events, bad = read(t, trs[3], -1)
	if len(bad) != 1 || bad[0].Rec != "line 3" {
		t.Errorf("bad %v, want line 3", bad)
	}
	if trs[3].Project != "/home/kenji/work/site" || trs[3].Session.CreatedAt != 1740839415000 {
		t.Errorf("legacy project %q created %d", trs[3].Project, trs[3].Session.CreatedAt)
	}
	path, _ = activePath(t, events)
	wantPath = []string{"user: list the pelican files", "assistant: There are three pelican files.", "toolResult: pelican-a pelican-b"}
	if strings.Join(path, "|") != strings.Join(wantPath, "|") {
		t.Errorf("legacy path %q, want %q", path, wantPath)
	}
}

// docs/agents/goose.md AO6, AO8: reading changes nothing on disk and gives
// the same bytes twice; a new message extends the events read before and
// changes the session's generation; a replaced conversation (goose deletes
// and inserts the rows again) with the same messages gives the same events.
func TestGooseReadsOnlyAndExtends(t *testing.T) {
	src := filepath.Join(gooseStore, "sessions", gooseDBName)
	before := fileSum(t, src)
	tr := gooseListT(t, src)[1]
	a, _ := read(t, tr, -1)
	b, _ := read(t, tr, -1)
	if !bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) {
		t.Fatal("two reads differ")
	}
	if fileSum(t, src) != before {
		t.Fatal("reading changed the database")
	}

	db := filepath.Join(t.TempDir(), "goose", "sessions", gooseDBName)
	copyFile(t, src, db)
	w, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json)
		VALUES ('20251020_1', 'user', '[{"type":"text","text":"ありがとう"}]', 1760951800, '2025-10-20 09:16:40', '{"userVisible":true,"agentVisible":true}')`)
	grown := gooseListT(t, db)[1]
	if grown.Gen == tr.Gen {
		t.Error("a new message left the generation as it was")
	}
	c, _ := read(t, grown, -1)
	if len(c) != len(a)+1 || !bytes.Equal(bytes.Join(c[:len(a)], nil), bytes.Join(a, nil)) {
		t.Errorf("%d events after a new message, want the %d before and one more", len(c), len(a))
	}
	exec(`CREATE TABLE keep AS SELECT * FROM messages WHERE session_id = '20251020_1' ORDER BY id`)
	exec(`DELETE FROM messages WHERE session_id = '20251020_1'`)
	exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json)
		SELECT session_id, role, content_json, created_timestamp, timestamp, metadata_json FROM keep ORDER BY id`)
	replaced := gooseListT(t, db)[1]
	d, _ := read(t, replaced, -1)
	if !bytes.Equal(bytes.Join(c, nil), bytes.Join(d, nil)) {
		t.Error("the same conversation inserted again gives other events")
	}
	tail, _ := read(t, replaced, 3)
	if len(tail) == 0 || !bytes.Equal(tail[0], d[len(d)-len(tail)]) {
		t.Error("a read after position 3 is not the tail of the events")
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// docs/agents/goose.md AO8: what is not goose's is reported, alone.
func TestGooseProblems(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, gooseDBName), []byte("not a database at all, long enough to be read as a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(`{"working_dir":"/w"}`+"\n"+`{"role":"user","created":1,"content":[{"type":"text","text":"kept"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trs, problems := Lookup(Goose).List(context.Background(), dir, Env{OpenDB: openReadOnly})
	if len(trs) != 1 || trs[0].Session.Key != "agent:goose:a" {
		t.Errorf("transcripts %v, want the file's session", trs)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "goose:") {
		t.Errorf("problems %v, want the database's", problems)
	}
	if _, problems := Lookup(Goose).List(context.Background(), filepath.Join(gooseStore, "sessions", gooseDBName), Env{}); len(problems) != 1 {
		t.Errorf("without a read-only opener: problems %v, want one", problems)
	}
}
