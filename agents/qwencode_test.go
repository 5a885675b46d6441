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

// The session Qwen Code 0.24.4 wrote in make test-agents' conversation: a
// turn whose model thinks, reads a file and answers, then a resume
// (testdata/REAL.md).
const (
	qwenStore   = "testdata/qwen-code"
	qwenSession = "1c410e6a-998c-428e-9278-d38febcb2e2a"
)

var qwenFile = filepath.Join(qwenStore, "projects/-tmp-h9b-qwen-proj/chats", qwenSession+".jsonl")

// docs/agents/qwen-code.md AG42-AG44: the real session is one transcript,
// keyed by its id, in its project; the user's and the model's words are
// on the active path and searchable; thinking, the read call and its
// result are kept and not; telemetry records are kept outside the
// messages.
func TestQwenCodeRealSession(t *testing.T) {
	trs, problems := qwenList(context.Background(), qwenStore, Env{})
	one(t, trs, problems)
	tr := trs[0]
	if tr.Session.Key != "agent:qwen-code:"+qwenSession || tr.Project != "/tmp/h9b/qwen/proj" || !tr.Resumable || tr.Session.CreatedAt == 0 {
		t.Errorf("transcript %+v, want key agent:qwen-code:%s, project /tmp/h9b/qwen/proj, resumable, a start", tr, qwenSession)
	}
	events, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad records %v", bad)
	}
	if got, want := ccRoles(t, events), map[string]int{
		"session": 1, "user": 2, "assistant": 3, "toolResult": 1,
		"qwen-code.attribution_snapshot": 2, "qwen-code.ui_telemetry": 5,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("events by role/type %v, want %v", got, want)
	}
	ccCheckPath(t, "real", events, []string{
		"S user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"  assistant: ", // thinking and the read_file call
		"  toolResult: ledger quokkasecret ความลับ 秘密の鍵 गुप्त\n",
		"S assistant: bravoanswer มังคุด 向日葵 बगीचा",
		"S user: charlieprompt ลำไย 朝顔 पहाड़",
		"S assistant: deltaanswer เงาะ 桜餅 नदी",
	})
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{"thinkquartz", "thinkjade", "thinkonyx", `"name":"read_file"`, "zephyr-ledger.txt", `"toolCallId":"call_0_0"`} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lost %q", kept)
		}
	}
	// A read resumed after any line emits what a whole read emits after it
	// (A8), and a second read the same events (A7).
	var ends []int64
	_ = tr.Read(context.Background(), -1, func(e Event) error { ends = append(ends, e.Pos); return nil })
	again, _ := read(t, tr, -1)
	if !reflect.DeepEqual(again, events) {
		t.Error("a second read gives other events")
	}
	for i, pos := range ends {
		if pos <= 0 || (i > 0 && pos == ends[i-1]) {
			continue
		}
		tail, _ := read(t, tr, pos)
		j := i
		for j < len(ends) && ends[j] == pos {
			j++
		}
		if len(tail)+len(events[j:]) > 0 && !reflect.DeepEqual(tail, events[j:]) {
			t.Errorf("read after %d: %d events, want the %d after it", pos, len(tail), len(events)-j)
		}
	}
}

// docs/agents/qwen-code.md AG43-AG45: what each kind of record becomes.
func TestQwenCodeRecords(t *testing.T) {
	line := func(s string) string { return s + "\n" }
	base := func(uuid, parent, typ string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"s1","timestamp":"2026-12-07T10:00:00.000Z","type":"` + typ + `","cwd":"/w","version":"0.24.4"`
	}
	data := line(base("u1", "", "user")+`,"provenance":"real_user","message":{"role":"user","parts":[{"text":"expanded @notes.md with kiwicontent"}]},"systemPayload":{"displayText":"read @notes.md tangerine"}}`) +
		line(base("a1", "u1", "assistant")+`,"model":"m","message":{"role":"model","parts":[{"text":"pondering","thought":true},{"functionCall":{"id":"c1","name":"read_file","args":{"file_path":"/w/a"}}},{"functionCall":{"id":"c2","name":"read_file","args":{"file_path":"/w/b"}}}]}}`) +
		line(base("r1", "a1", "tool_result")+`,"provenance":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"apricotout"}}},{"functionResponse":{"id":"c2","name":"read_file","response":{"error":"no such file"}}}]}}`) +
		line(base("n1", "r1", "user")+`,"subtype":"notification","provenance":"system","message":{"role":"user","parts":[{"text":"background task done plumnote"}]}}`) +
		line(base("m1", "n1", "user")+`,"subtype":"mid_turn_user_message","provenance":"real_user","message":{"role":"user","parts":[{"text":"also check mango"}]}}`) +
		line(base("a2", "m1", "assistant")+`,"message":{"role":"model","parts":[{"text":"abandoned papaya"}]}}`) +
		`not json` + "\n" +
		line(`{"parentUuid":"a2","type":"user","message":{"role":"user","parts":[]}}`) +
		line(base("w1", "m1", "system")+`,"subtype":"rewind","systemPayload":{"targetTurnIndex":1}}`) +
		line(base("u2", "w1", "user")+`,"message":{"role":"user","parts":[{"text":"instead lychee"}]}}`) +
		line(base("a3", "u2", "assistant")+`,"message":{"role":"model","parts":[{"text":"done guava"}]}}`)
	dir := filepath.Join(t.TempDir(), ".qwen", "projects", "-w", "chats")
	path := filepath.Join(dir, "0b8a4a57-6c40-4a0c-9d69-3a0e2c7f3f10.jsonl")
	writeTestFile(t, path, data)
	trs, problems := qwenList(context.Background(), filepath.Dir(filepath.Dir(filepath.Dir(dir))), Env{})
	one(t, trs, problems)
	events, bad := read(t, trs[0], -1)
	var recs []string
	for _, b := range bad {
		recs = append(recs, b.Rec+": "+b.Bad.Error())
	}
	if want := []string{"line 7: line is not a JSON object", `line 8: field "uuid" is missing`}; !reflect.DeepEqual(recs, want) {
		t.Errorf("bad records %q, want %q", recs, want)
	}
	ccCheckPath(t, "records", events, []string{
		"S user: read @notes.md tangerine", // what the user typed, not the expanded prompt
		"  assistant: ",
		"  toolResult: apricotout",
		"  toolResult: no such file",
		"  system: background task done plumnote",
		"S user: also check mango",
		"S user: instead lychee", // after the rewind: the abandoned answer is off the path
		"S assistant: done guava",
	})
	text := ccSearchable(t, events)
	for _, hidden := range []string{"kiwicontent", "pondering", "apricotout", "plumnote", "papaya"} {
		if strings.Contains(text, hidden) {
			t.Errorf("searchable text on the path holds %q", hidden)
		}
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{"abandoned papaya", `"type":"qwen-code.rewind"`, `"isError":true`, `"id":"r1:part:0"`, `"id":"r1","parentId":"r1:part:0"`} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lost %q", kept)
		}
	}
}

// docs/agents/qwen-code.md AG40.
func TestQwenCodeRoots(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "/home/u/.qwen/projects"},
		{map[string]string{"QWEN_HOME": "/srv/qwen"}, "/srv/qwen/projects"},
		{map[string]string{"QWEN_HOME": "/srv/qwen", "QWEN_RUNTIME_DIR": "/var/run/qwen"}, "/var/run/qwen/projects"},
	} {
		env := Env{Home: "/home/u", Getenv: func(k string) string { return c.env[k] }}
		if got := qwenRoots(env); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("Roots with %v = %v, want %s", c.env, got, c.want)
		}
	}
}

// docs/agents/qwen-code.md AG41: Qwen Code's files are its own, by place or
// by their records, never Claude Code's, whose lines also carry a uuid and
// a sessionId; Claude Code's are never Qwen Code's.
func TestQwenCodeClaims(t *testing.T) {
	home := t.TempDir()
	inStore := filepath.Join(home, ".qwen", "projects", "-w", "chats", qwenSession+".jsonl")
	data, err := os.ReadFile(qwenFile)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, inStore, string(data))
	elsewhere := filepath.Join(home, "copy", qwenSession+".jsonl")
	writeTestFile(t, elsewhere, string(data))
	for _, path := range []string{
		filepath.Join(home, ".qwen"), filepath.Join(home, ".qwen", "projects"), inStore, filepath.Dir(inStore),
		elsewhere, qwenStore, filepath.Join(qwenStore, "projects"),
	} {
		if g := Claimed(path); g == nil || g.Agent != QwenCode {
			t.Errorf("%s is claimed by %v, want qwen-code", path, g)
		}
	}
	for _, path := range []string{"testdata/claude-code/projects", "testdata/gemini", filepath.Join(home, "copy"), "."} {
		if qwenClaims(path) {
			t.Errorf("%s is claimed by qwen-code", path)
		}
	}
}
