package agents

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

const (
	clineStore = "testdata/cline/saoudrizwan.claude-dev"
	rooStore   = "testdata/roo-code/rooveterinaryinc.roo-cline"
)

// clineListT lists path with the format of agent and fails on a problem.
func clineListT(t *testing.T, agent, path string) []Transcript {
	t.Helper()
	trs, problems := Lookup(agent).List(context.Background(), path, Env{OpenDB: openReadOnly})
	if len(problems) > 0 {
		t.Fatalf("%s: problems %v", path, problems)
	}
	return trs
}

// docs/agents/cline.md AL1: each editor's global storage folder of the
// extension, the VS Code server's, and Cline CLI's data directory.
func TestClineRoots(t *testing.T) {
	env := Env{Home: "/home/ana", Getenv: func(string) string { return "" }}
	cline := Lookup(Cline).Roots(env)
	for _, want := range []string{
		"/home/ana/.config/Code/User/globalStorage/saoudrizwan.claude-dev",
		"/home/ana/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev",
		"/home/ana/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev",
		"/home/ana/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev",
		"/home/ana/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev",
		"/home/ana/.cline/data",
	} {
		if !contains(cline, want) {
			t.Errorf("cline roots %q lack %s", cline, want)
		}
	}
	roo := Lookup(RooCode).Roots(env)
	if !contains(roo, "/home/ana/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline") {
		t.Errorf("roo-code roots %q lack VS Code's", roo)
	}
	for _, r := range roo {
		if strings.Contains(r, "claude-dev") || strings.Contains(r, ".cline") {
			t.Errorf("roo-code root %s is Cline's", r)
		}
	}
	moved := Env{Home: "/home/ana", Getenv: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": "/cfg", "CLINE_DATA_DIR": "/data/cline"}[k]
	}}
	cline = Lookup(Cline).Roots(moved)
	for _, want := range []string{"/cfg/Code/User/globalStorage/saoudrizwan.claude-dev", "/data/cline"} {
		if !contains(cline, want) {
			t.Errorf("with XDG_CONFIG_HOME and CLINE_DATA_DIR, roots %q lack %s", cline, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// docs/agents/cline.md AL2: which paths are Cline's and which Roo Code's.
func TestClineClaims(t *testing.T) {
	loose := t.TempDir() // a task folder copied out of any store
	if err := os.WriteFile(filepath.Join(loose, clineUIMessages), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want string // "" for no format of the two
	}{
		{clineStore, Cline},
		{"testdata/cline", Cline},
		{clineStore + "/tasks/1769053680628/ui_messages.json", Cline},
		{"/home/ana/.cline/data/tasks/1/ui_messages.json", Cline},
		{"/home/ana/.cline/data", Cline},
		{loose, Cline},
		{filepath.Join(loose, clineUIMessages), Cline},
		{"/elsewhere/api_conversation_history.json", Cline},
		{rooStore, RooCode},
		{"testdata/roo-code", RooCode},
		{rooStore + "/tasks/0196f1d2-7a3b-7c4d-8e5f-a1b2c3d4e5f6/ui_messages.json", RooCode},
		{"/x/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/1/api_conversation_history.json", RooCode},
		{"/home/ana/.cline", ""},
		{"testdata/hermes-schema6", ""},
		{"testdata", ""},
	} {
		cline, roo := Lookup(Cline).Claims(c.path), Lookup(RooCode).Claims(c.path)
		got := ""
		switch {
		case cline && roo:
			got = "both"
		case cline:
			got = Cline
		case roo:
			got = RooCode
		}
		if got != c.want {
			t.Errorf("%s: claimed by %q, want %q", c.path, got, c.want)
		}
	}
}

// docs/agents/cline.md AL3-AL7: a task of Cline as its messages show it:
// the task and the answers to questions are the user's, the model's text,
// questions and completion result the assistant's; reasoning, tool calls,
// command output and the requests (with the tool results and environment
// details they carry) are kept and never found.
func TestClineTask(t *testing.T) {
	trs := clineListT(t, Cline, clineStore)
	if len(trs) != 2 {
		t.Fatalf("%d tasks, want 2", len(trs))
	}
	tr := trs[0]
	if tr.Session.Key != "agent:cline:1769053680628" || tr.Session.CreatedAt != 1769053680628 {
		t.Errorf("session %+v, want agent:cline:1769053680628 created at its first message", tr.Session)
	}
	if tr.Project != "/home/ana/src/ledger" {
		t.Errorf("project %q, want the request's Current Working Directory", tr.Project)
	}
	if tr.Resumable || tr.Gen != "" {
		t.Errorf("resumable %v, gen %q: a rewritten file is read again whole", tr.Resumable, tr.Gen)
	}
	events, bad := read(t, tr, -1)
	if len(bad) > 0 {
		t.Fatalf("bad records %v", bad)
	}
	if !bytes.Contains(events[0], []byte(`"cwd":"/home/ana/src/ledger","agent":"cline"`)) {
		t.Errorf("header %s", events[0])
	}
	path, searchable := activePath(t, events)
	want := []string{
		"user: สรุปบัญชีแยกประเภท ledger ของ zephyr ให้หน่อย",
		"assistant: ",
		"assistant: 台帳ファイルを読みます。",
		"assistant: ",
		"assistant: क्या मैं सारांश हिंदी में लिखूँ?",
		"user: はい、日本語でお願いします",
		"assistant: ",
		"toolResult: 12 zephyr-ledger.txt",
		"assistant: 残高は四千二百です。",
	}
	wantSearchable := []bool{true, false, true, false, true, true, false, false, true}
	if strings.Join(path, "|") != strings.Join(want, "|") {
		t.Fatalf("path\n%q\nwant\n%q", path, want)
	}
	for i := range want {
		if searchable[i] != wantSearchable[i] {
			t.Errorf("%q: searchable %v, want %v", want[i], searchable[i], wantSearchable[i])
		}
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{
		`"type":"thinking","thinking":"The user wants a summary; quasar-thinking`,
		`"type":"toolCall","id":"m5","name":"readFile","arguments":{"tool":"readFile","path":"zephyr-ledger.txt"`,
		`"type":"toolCall","id":"m11","name":"execute_command","arguments":{"command":"wc -l zephyr-ledger.txt"}`,
		`"toolCallId":"m11","toolName":"execute_command"`,
		`{"type":"cline.say.api_req_started","id":"m7"`,
		`nebula-output`,
		`{"type":"cline.say.checkpoint_created","id":"m1"`,
		`{"type":"cline.ask.completion_result","id":"m14"`,
	} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lack %s", kept)
		}
	}
	// the words only the kept records hold are never searchable
	for _, ev := range events {
		e, text, err := transcript.Read(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !e.Message {
			continue
		}
		for _, hidden := range []string{"nebula-output", "quasar-thinking", "environment_details"} {
			if strings.Contains(text, hidden) {
				t.Errorf("%s is searchable in %s", hidden, ev)
			}
		}
	}

	// A newer Cline says the task as "task"; a plan is the assistant's;
	// an element that is not a message is reported and skipped (AL8).
	events, bad = read(t, trs[1], -1)
	if len(bad) != 1 || bad[0].Rec != "message 1" {
		t.Errorf("bad records %v, want message 1", bad)
	}
	path, searchable = activePath(t, events)
	want = []string{"user: rename the orbit-helper function", "assistant: I will rename it in one commit."}
	if strings.Join(path, "|") != strings.Join(want, "|") || !searchable[0] || !searchable[1] {
		t.Errorf("path %q (searchable %v), want %q, both searchable", path, searchable, want)
	}
	if trs[1].Project != "" {
		t.Errorf("project %q, want none: no request records it", trs[1].Project)
	}
}

// docs/agents/cline.md AL3, AL4: Roo Code writes the same folders; its task
// is said as text, and its working directory is its Current Workspace
// Directory.
func TestRooCodeTask(t *testing.T) {
	trs := clineListT(t, RooCode, "testdata/roo-code")
	if len(trs) != 1 {
		t.Fatalf("%d tasks, want 1", len(trs))
	}
	tr := trs[0]
	if tr.Session.Key != "agent:roo-code:0196f1d2-7a3b-7c4d-8e5f-a1b2c3d4e5f6" || tr.Project != "/home/kenji/work/cache" {
		t.Errorf("key %s project %q", tr.Session.Key, tr.Project)
	}
	events, _ := read(t, tr, -1)
	path, searchable := activePath(t, events)
	want := []string{
		"user: add a kestrel-cache test",
		"assistant: ",
		"assistant: ",
		"assistant: Run the suite now?",
		"user: yes please",
		"assistant: The kestrel-cache test passes.",
	}
	if strings.Join(path, "|") != strings.Join(want, "|") {
		t.Fatalf("path %q, want %q", path, want)
	}
	if got := onPathSearchable(path, searchable); len(got) != 4 {
		t.Errorf("searchable %q, want the task, the question, the answer and the result", got)
	}
	if !bytes.Contains(bytes.Join(events, nil), []byte(`"name":"newFileCreated"`)) {
		t.Error("the tool call is not kept by its tool's name")
	}
}

// docs/agents/cline.md AL6: reading twice gives the same bytes, a read
// after a position gives only the events after it, and a task the user
// continued extends the events read before.
func TestClineReadsExtend(t *testing.T) {
	tr := clineListT(t, Cline, clineStore+"/tasks/1769053680628")[0]
	a, _ := read(t, tr, -1)
	b, _ := read(t, tr, -1)
	if !bytes.Equal(bytes.Join(a, []byte("\n")), bytes.Join(b, []byte("\n"))) {
		t.Fatal("two reads differ")
	}
	tail, _ := read(t, tr, 5)
	if len(tail) != len(a)-6 || !bytes.Equal(tail[0], a[6]) {
		t.Errorf("after position 5: %d events, want the %d after the sixth", len(tail), len(a)-6)
	}

	whole, err := os.ReadFile(filepath.Join(clineStore, "tasks/1769053680628", clineUIMessages))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "1769053680628")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(whole, []byte(`,{"ts":1769053710628,"type":"say","say":"user_feedback"`))
	if cut < 0 {
		t.Fatal("no user_feedback message in the fixture")
	}
	if err := os.WriteFile(filepath.Join(dir, clineUIMessages), append(whole[:cut:cut], ']'), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := read(t, clineListT(t, Cline, dir)[0], -1)
	if len(before) >= len(a) {
		t.Fatalf("%d events before the user answered, %d after", len(before), len(a))
	}
	for i := range before {
		if !bytes.Equal(before[i], a[i]) {
			t.Errorf("event %d changed when the task went on:\n%s\n%s", i, before[i], a[i])
		}
	}
}

// docs/agents/cline.md AL8: what cannot be read is a problem of its own.
func TestClineProblems(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "tasks")
	for name, body := range map[string]string{
		"1/" + clineUIMessages: `{"not":"an array"}`,
		"2/" + clineAPIHistory: `[]`,
		"3/" + clineUIMessages: `[{"ts":1,"type":"say","say":"text","text":"kept task"}]`,
	} {
		p := filepath.Join(tasks, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trs, problems := Lookup(Cline).List(context.Background(), filepath.Dir(tasks), Env{})
	if len(trs) != 1 || trs[0].Session.Key != "agent:cline:3" {
		t.Errorf("transcripts %v, want task 3 alone", trs)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	got := strings.Join(msgs, "\n")
	if len(problems) != 2 || !strings.Contains(got, "is not a JSON array of messages") || !strings.Contains(got, "has no ui_messages.json") {
		t.Errorf("problems:\n%s\nwant task 1's array and task 2's missing messages", got)
	}
	if trs, problems := Lookup(Cline).List(context.Background(), filepath.Join(t.TempDir(), "none"), Env{}); len(trs)+len(problems) != 0 {
		t.Errorf("a root that does not exist: %v %v", trs, problems)
	}
}
