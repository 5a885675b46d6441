package agents

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The session Factory Droid 0.225.2 wrote in make test-agents'
// conversation: a turn whose model thinks, reads a file and answers, then
// a resume (testdata/REAL.md).
const (
	factoryStore   = "testdata/factory-droid-0.225.2/.factory"
	factorySession = "f39161b0-2245-41b7-bac2-cd1a7d8e1bd0"
)

var factoryFile = filepath.Join(factoryStore, "sessions", "-tmp-i26d-out-fact-proj", factorySession+".jsonl")

// docs/agents/factory-droid.md AF2-AF3: the real session is one
// transcript, keyed by its session_start's id, in its project; what the
// user and the model said is searchable; the injected context, thinking,
// the read call and its result are kept and not; a read resumed after a
// line emits the lines after it.
func TestFactoryDroidRealSession(t *testing.T) {
	trs, problems := factoryList(context.Background(), factoryStore, Env{})
	one(t, trs, problems)
	tr := trs[0]
	if tr.Session.Key != "agent:factory-droid:"+factorySession || tr.Project != "/tmp/i26d/out-fact/proj" || !tr.Resumable ||
		tr.Session.CreatedAt != 1796652971384 || tr.Path != factoryFile {
		t.Errorf("transcript %+v, want key agent:factory-droid:%s, its project, resumable, started at its first line's time", tr, factorySession)
	}
	events, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad records %v", bad)
	}
	if !strings.Contains(string(events[0]), `"agent":"factory-droid"`) {
		t.Errorf("header %s, want agent factory-droid", events[0])
	}
	path, searchable := activePath(t, events)
	if len(path) == 0 || !strings.HasPrefix(path[0], "system: <system-reminder>") || searchable[0] {
		t.Errorf("the first message %.60q, want the injected context as a system message, not searchable", path[0])
	}
	got := onPathSearchable(path, searchable)
	want := []string{
		"user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"assistant: bravoanswer มังคุด 向日葵 बगीचा",
		"user: charlieprompt ลำไย 朝顔 पहाड़",
		"assistant: deltaanswer เงาะ 桜餅 नदी",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("searchable on the active path:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !reflect.DeepEqual(path[1:], []string{want[0], "assistant: ",
		"toolResult: ledger quokkasecret ความลับ 秘密の鍵 गुप्त\n", want[1], want[2], want[3]}) {
		t.Errorf("active path %q", path)
	}
	all := bytes.Join(events, nil)
	for _, w := range []string{"thinkquartz", "thinkonyx", `"name":"Read"`, "agent_turn_outcome"} {
		if !bytes.Contains(all, []byte(w)) {
			t.Errorf("no event keeps %s", w)
		}
	}
	var ends []int64
	_ = tr.Read(context.Background(), -1, func(e Event) error { ends = append(ends, e.Pos); return nil })
	for i, pos := range ends {
		tail, _ := read(t, tr, pos)
		var rest [][]byte
		for j := i + 1; j < len(ends); j++ {
			if ends[j] > pos {
				rest = append(rest, events[j])
			}
		}
		if !reflect.DeepEqual(tail, rest) {
			t.Errorf("read after %d: %d events, want %d", pos, len(tail), len(rest))
		}
	}
}

// docs/agents/factory-droid.md AF3: a notice shown to the user alone is
// not what the user said; a line that is no JSON object is reported and
// skipped; a file whose first line is not session_start is a problem of
// its own.
func TestFactoryDroidNoticesAndProblems(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "-w")
	writeTestFile(t, filepath.Join(dir, "s1.jsonl"), `{"type":"session_start","id":"s1","cwd":"/w"}
{"type":"message","id":"u1","timestamp":"2026-12-07T12:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"asked mango"}]}}
{"type":"message","id":"n1","parentId":"u1","timestamp":"2026-12-07T12:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"Unable to reach guava"}],"visibility":"user_only"}}
not json
{"type":"todo_state","items":[]}
`)
	writeTestFile(t, filepath.Join(dir, "s2.jsonl"), `{"type":"message","id":"u1"}`+"\n")
	trs, problems := factoryList(context.Background(), filepath.Dir(dir), Env{})
	if len(trs) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "not a session_start line") {
		t.Fatalf("List = %d transcripts, problems %v; want 1 and the file without session_start", len(trs), problems)
	}
	events, bad := read(t, trs[0], -1)
	if len(bad) != 1 || bad[0].Rec != "line 4" {
		t.Errorf("bad records %v, want line 4", bad)
	}
	ccCheckPath(t, "notice", events, []string{"S user: asked mango", "  system: Unable to reach guava"})
	if !bytes.Contains(bytes.Join(events, nil), []byte(`"type":"factory-droid.todo_state"`)) {
		t.Errorf("the todo_state line is not kept")
	}
}

// docs/agents/factory-droid.md AF1.
func TestFactoryDroidRootsAndClaims(t *testing.T) {
	checkRoots(t, factoryRoots, "/home/u/.factory/sessions", "FACTORY_HOME_OVERRIDE", "/srv/f", "/srv/f/.factory/sessions")
	data, err := os.ReadFile(factoryFile)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "proj", factorySession+".jsonl")
	writeTestFile(t, elsewhere, string(data))
	for _, path := range []string{"/home/u/.factory", factoryStore, factoryFile, elsewhere, filepath.Dir(elsewhere), filepath.Dir(filepath.Dir(elsewhere))} {
		if g := Claimed(path); g == nil || g.Agent != FactoryDroid {
			t.Errorf("%s is claimed by %v, want factory-droid", path, g)
		}
	}
	for _, path := range []string{"testdata/claude-code", "testdata/pi", "testdata/copilot", "../internal/fixtures/transcripts/en-telegram-rewind-fad751fa.jsonl"} {
		if factoryClaims(path) {
			t.Errorf("%s is claimed by factory-droid", path)
		}
	}
}
