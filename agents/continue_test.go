package agents

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The session Continue's CLI 1.5.47 wrote in make test-agents'
// conversation, after the first turn and after the resume
// (testdata/REAL.md).
const (
	continueStore     = "testdata/continue-1.5.47"
	continueSessionID = "59eb591e-6ebb-48fd-8981-2f49c93fe8a0"
)

// docs/agents/continue.md AN2-AN3: each session file is one transcript,
// keyed agent:continue:<sessionId>, in its workspace, started when
// sessions.json says; what the user and the model said is searchable, the
// read call and its result are kept and not; the resume's file holds the
// first turn's events, byte for byte, first.
func TestContinueRealSessions(t *testing.T) {
	turn := map[string][][]byte{}
	for _, name := range []string{"turn1", "turn2"} {
		dir := filepath.Join(continueStore, name, "sessions")
		trs, problems := continueList(context.Background(), dir, Env{})
		if len(problems) != 0 || len(trs) != 1 {
			t.Fatalf("%s: List = %d transcripts, problems %v; want 1, none", name, len(trs), problems)
		}
		tr := trs[0]
		if tr.Agent != Continue || tr.Session.Key != "agent:continue:"+continueSessionID || tr.Project != "/tmp/i26d/out-cont/proj" ||
			tr.Session.CreatedAt != 1796651990023 || tr.Resumable || tr.Path != filepath.Join(dir, continueSessionID+".json") {
			t.Errorf("%s: transcript %+v, want key agent:continue:%s, its workspace, sessions.json's start, read whole", name, tr, continueSessionID)
		}
		events, bad := read(t, tr, -1)
		if len(bad) != 0 {
			t.Errorf("%s: bad records %v", name, bad)
		}
		if !strings.Contains(string(events[0]), `"agent":"continue"`) {
			t.Errorf("%s: header %s, want agent continue", name, events[0])
		}
		turn[name] = events
	}
	first := []string{
		"S user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"  assistant: ", // the read call
		"  toolResult: Content of /tmp/i26d/out-cont/proj/zephyr-ledger.txt:\nledger quokkasecret ความลับ 秘密の鍵 गुप्त\n",
		"S assistant: bravoanswer มังคุด 向日葵 बगीचा",
	}
	ccCheckPath(t, "turn1", turn["turn1"], first)
	ccCheckPath(t, "turn2", turn["turn2"], append(first,
		"S user: charlieprompt ลำไย 朝顔 पहाड़",
		"S assistant: deltaanswer เงาะ 桜餅 नदी"))
	for i, e := range turn["turn1"] {
		if !bytes.Equal(e, turn["turn2"][i]) {
			t.Errorf("event %d changed on the resume:\n%s\n%s", i, e, turn["turn2"][i])
		}
	}
	// A read after an item emits the items after it.
	trs, _ := continueList(context.Background(), filepath.Join(continueStore, "turn2", "sessions"), Env{})
	var ends []int64
	_ = trs[0].Read(context.Background(), -1, func(e Event) error { ends = append(ends, e.Pos); return nil })
	for i, pos := range ends {
		tail, _ := read(t, trs[0], pos)
		var want [][]byte
		for j := i + 1; j < len(ends); j++ {
			if ends[j] > pos {
				want = append(want, turn["turn2"][j])
			}
		}
		if !reflect.DeepEqual(tail, want) {
			t.Errorf("read after %d: %d events, want %d", pos, len(tail), len(want))
		}
	}
}

// docs/agents/continue.md AN3: the shapes the editor extensions write
// too: content as parts, reasoning and thinking messages, injected context
// items, a tool message whose result the tool call states already gave,
// an errored call, a compaction's summary; an item that is not an object
// is reported and skipped.
func TestContinueItems(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".continue", "sessions")
	writeTestFile(t, filepath.Join(dir, "s1.json"), `{"sessionId":"s1","title":"t","workspaceDirectory":"file:///w","history":[
{"message":{"role":"user","content":[{"type":"text","text":"parts papaya"},{"type":"imageUrl","imageUrl":{"url":"data:"}}]},"contextItems":[{"name":"file.go","content":"injected kumquat"}]},
{"message":{"role":"thinking","content":"thought persimmon"}},
{"message":{"role":"assistant","content":"","toolCalls":[{"id":"c1","function":{"name":"Read","arguments":"{\"filepath\":\"x\"}"}}]},"reasoning":{"text":"reason quince"},
 "toolCallStates":[{"toolCallId":"c1","toolCall":{"function":{"name":"Read"}},"status":"done","output":[{"content":"out tamarind"}]}]},
{"message":{"role":"tool","toolCallId":"c1","content":"out tamarind"}},
{"message":{"role":"assistant","content":"answer lychee","toolCalls":[{"id":"c2","function":{"name":"Bash","arguments":"ls"}}]},
 "toolCallStates":[{"toolCallId":"c2","toolCall":{"function":{"name":"Bash"}},"status":"errored","output":[]}],"conversationSummary":"summary sapodilla"},
[1],
{"message":{"role":"system","content":"rules jackfruit"}}
]}`)
	trs, problems := continueList(context.Background(), filepath.Dir(dir), Env{})
	if len(problems) != 0 || len(trs) != 1 || trs[0].Session.CreatedAt != 0 {
		t.Fatalf("List = %+v, problems %v; want one session without a start (no sessions.json)", trs, problems)
	}
	events, bad := read(t, trs[0], -1)
	if len(bad) != 1 || bad[0].Rec != "history item 6" {
		t.Errorf("bad records %v, want history item 6", bad)
	}
	ccCheckPath(t, "items", events, []string{
		"S user: parts papaya",
		"  assistant: ", // thinking
		"  assistant: ", // reasoning and the call
		"  toolResult: out tamarind",
		"S assistant: answer lychee",
		"  toolResult: ",
		"  system: rules jackfruit",
	})
	var kept []string
	for _, e := range events {
		if s := string(e); strings.HasPrefix(s, `{"type":"continue.`) {
			kept = append(kept, s[len(`{"type":"`):strings.Index(s, `","`)])
		}
	}
	if want := []string{"continue.contextItems", "continue.tool", "continue.summary"}; !reflect.DeepEqual(kept, want) {
		t.Errorf("kept events %v, want %v", kept, want)
	}
	for _, w := range []string{"injected kumquat", "thought persimmon", "reason quince", "summary sapodilla", `"arguments":"ls"`} {
		if !bytes.Contains(bytes.Join(events, nil), []byte(w)) {
			t.Errorf("no event keeps %s", w)
		}
	}
}

// docs/agents/continue.md AN1.
func TestContinueRootsAndClaims(t *testing.T) {
	checkRoots(t, continueRoots, "/home/u/.continue/sessions", "CONTINUE_GLOBAL_DIR", "/srv/cn", "/srv/cn/sessions")
	sessions := filepath.Join(continueStore, "turn2", "sessions")
	elsewhere := filepath.Join(t.TempDir(), "copy.json")
	copyFile(t, filepath.Join(sessions, continueSessionID+".json"), elsewhere)
	for _, path := range []string{"/home/u/.continue", "/home/u/.continue/sessions", sessions, filepath.Dir(sessions),
		filepath.Join(sessions, continueSessionID+".json"), filepath.Join(sessions, "sessions.json"), elsewhere} {
		if g := Claimed(path); g == nil || g.Agent != Continue {
			t.Errorf("%s is claimed by %v, want continue", path, g)
		}
	}
	for _, path := range []string{"testdata/gemini", "testdata/gemini-cli-0.61.0", "testdata/claude-code", "testdata/cline", "testdata/copilot"} {
		if continueClaims(path) {
			t.Errorf("%s is claimed by continue", path)
		}
	}
}
