package agents

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

const cursorUser = "testdata/cursor/Cursor/User"

// docs/agents/cursor.md AU1.
func TestCursorRoots(t *testing.T) {
	env := Env{Home: "/home/ana", Getenv: func(k string) string { return map[string]string{"XDG_CONFIG_HOME": "/cfg"}[k] }}
	got := Lookup(Cursor).Roots(env)
	want := []string{"/cfg/Cursor/User/globalStorage/state.vscdb", "/home/ana/Library/Application Support/Cursor/User/globalStorage/state.vscdb"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("roots %q, want %q", got, want)
	}
}

// docs/agents/cursor.md AU2.
func TestCursorClaims(t *testing.T) {
	moved := filepath.Join(t.TempDir(), "copy.vscdb")
	copyFile(t, filepath.Join(cursorUser, "globalStorage", cursorDBName), moved)
	for _, c := range []struct {
		path string
		want bool
	}{
		{"testdata/cursor", true},
		{"testdata/cursor/Cursor", true},
		{cursorUser + "/globalStorage/state.vscdb", true},
		{cursorUser + "/workspaceStorage/7f1c2a9d4e5b6c3a8f0e1d2c3b4a5968/workspace.json", true},
		{"/home/ana/.config/Cursor/User/globalStorage/state.vscdb", true},
		{moved, true},
		{"/home/ana/.config/Code/User/globalStorage/state.vscdb", false},
		{"testdata/goose/sessions/sessions.db", false},
		{"testdata/hermes-schema6/state.db", false},
	} {
		if got := Lookup(Cursor).Claims(c.path); got != c.want {
			t.Errorf("%s: claimed %v, want %v", c.path, got, c.want)
		}
	}
}

// docs/agents/cursor.md AU3-AU7: the conversations of a global state
// database, their projects from the workspaces, what each message becomes.
func TestCursorConversations(t *testing.T) {
	trs, problems := Lookup(Cursor).List(context.Background(), "testdata/cursor", Env{OpenDB: openReadOnly})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var keys []string
	for _, tr := range trs {
		keys = append(keys, tr.Session.Key)
	}
	want := []string{"agent:cursor:1f0e2d3c-aaaa-4bbb-8ccc-0000000000c2", "agent:cursor:98251e54-8aed-4515-b2b4-08895453eedd"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("conversations %v, want %v (oldest first, the empty one left out)", keys, want)
	}
	old, tr := trs[0], trs[1]
	if tr.Project != "/home/ana/src/ledger app" || old.Project != "" {
		t.Errorf("projects %q and %q, want the workspace folder and none", tr.Project, old.Project)
	}
	if tr.Session.CreatedAt != 1766691308486 || tr.Gen == "" || tr.Resumable {
		t.Errorf("session %+v gen %q resumable %v", tr.Session, tr.Gen, tr.Resumable)
	}
	events, bad := read(t, tr, -1)
	if len(bad) != 1 || bad[0].Rec != "bubble 7e3a1d9c-5555-4aaa-8bbb-000000000005" {
		t.Errorf("bad %v, want the missing bubble", bad)
	}
	path, searchable := activePath(t, events)
	wantPath := []string{
		"user: zephyr-ledger.txt を要約して",
		"assistant: ",
		`toolResult: {"contents":"balance marlin-output 4200"}`,
		"assistant: ยอดคงเหลือคือ 4200",
		"user: और हिंदी में?",
	}
	wantSearchable := []bool{true, false, false, true, true}
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
		`{"type":"thinking","thinking":"falcon-thinking: open the file"}`,
		`{"type":"toolCall","id":"toolu_7","name":"read_file","arguments":{"target_file":"zephyr-ledger.txt"}}`,
		`"toolCallId":"toolu_7","toolName":"read_file"`,
		`"cwd":"/home/ana/src/ledger app","agent":"cursor"`,
		`"timestamp":"2025-12-25T19:35:10.000Z"`,
	} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lack %s", kept)
		}
	}
	for _, ev := range events {
		e, text, _ := transcript.Read(ev)
		if e.Message && (strings.Contains(text, "falcon-thinking") || strings.Contains(text, "marlin-output")) {
			t.Errorf("thinking or tool output searchable in %s", ev)
		}
	}
	events, _ = read(t, old, -1)
	path, _ = activePath(t, events)
	if strings.Join(path, "|") != "user: rename the heron module|assistant: Renamed it to egret." {
		t.Errorf("inline conversation: %q", path)
	}
}

// docs/agents/cursor.md AU6: reading only reads; a new message extends the
// events and changes the generation.
func TestCursorReadsOnlyAndExtends(t *testing.T) {
	src := filepath.Join(cursorUser, "globalStorage", cursorDBName)
	before := fileSum(t, src)
	db := filepath.Join(t.TempDir(), "Cursor", "User", "globalStorage", cursorDBName)
	copyFile(t, src, db)
	list := func() Transcript {
		trs, _ := Lookup(Cursor).List(context.Background(), db, Env{OpenDB: openReadOnly})
		return trs[1]
	}
	tr := list()
	a, _ := read(t, tr, -1)
	b, _ := read(t, tr, -1)
	if !bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) {
		t.Fatal("two reads differ")
	}
	if fileSum(t, src) != before {
		t.Fatal("listing changed the database")
	}
	w, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`INSERT INTO cursorDiskKV VALUES ('bubbleId:98251e54-8aed-4515-b2b4-08895453eedd:7e3a1d9c-5555-4aaa-8bbb-000000000005',
		'{"_v":3,"type":2,"bubbleId":"7e3a1d9c-5555-4aaa-8bbb-000000000005","text":"शेष राशि 4200 है।"}')`); err != nil {
		t.Fatal(err)
	}
	grown := list()
	if grown.Gen == tr.Gen {
		t.Error("a new message left the generation as it was")
	}
	c, bad := read(t, grown, -1)
	if len(bad) != 0 || len(c) != len(a)+1 || !bytes.Equal(bytes.Join(c[:len(a)], nil), bytes.Join(a, nil)) {
		t.Errorf("%d events (bad %v) after the missing message arrived, want the %d before and one more", len(c), bad, len(a))
	}
	if _, problems := Lookup(Cursor).List(context.Background(), db, Env{}); len(problems) != 1 {
		t.Errorf("without a read-only opener: %v, want one problem", problems)
	}
}
