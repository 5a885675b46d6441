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

// The session GitHub Copilot CLI 1.0.102 wrote in make test-agents'
// conversation: a turn whose model thinks, reads a file and answers, then a
// resume (testdata/REAL.md).
const (
	copilotStore   = "testdata/copilot"
	copilotSession = "30f4c58a-b9fa-45fc-ab09-8d5ffba9384c"
)

var copilotFile = filepath.Join(copilotStore, "session-state", copilotSession, "events.jsonl")

// docs/agents/copilot.md AG62-AG63: the real session is one transcript,
// keyed by its id, in its project; what the user typed and the model
// answered is searchable; the system prompt, the injected date, thinking,
// the view call and its result are kept and not.
func TestCopilotRealSession(t *testing.T) {
	trs, problems := copilotList(context.Background(), copilotStore, Env{})
	one(t, trs, problems)
	tr := trs[0]
	if tr.Session.Key != "agent:copilot:"+copilotSession || tr.Project != "/tmp/h9b/cop/proj" || !tr.Resumable || tr.Session.CreatedAt == 0 {
		t.Errorf("transcript %+v, want key agent:copilot:%s, project /tmp/h9b/cop/proj, resumable, a start", tr, copilotSession)
	}
	events, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad records %v", bad)
	}
	if got, want := ccRoles(t, events), map[string]int{
		"session": 1, "user": 2, "assistant": 3, "toolResult": 1, "system": 1,
		"copilot.session.start": 1, "copilot.assistant.turn_start": 3, "copilot.assistant.turn_end": 3,
		"copilot.session.usage_record": 3, "copilot.tool.execution_start": 1, "copilot.session.shutdown": 2,
		"copilot.session.resume": 1, "copilot.user.message": 2,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("events by role/type %v, want %v", got, want)
	}
	path, searchable := activePath(t, events)
	if got, want := onPathSearchable(path, searchable), []string{
		"user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"assistant: bravoanswer มังคุด 向日葵 बगीचा",
		"user: charlieprompt ลำไย 朝顔 पहाड़",
		"assistant: deltaanswer เงาะ 桜餅 नदी",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("searchable on the active path %q, want %q", got, want)
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{"thinkquartz", "thinkonyx", `"name":"view"`, "zephyr-ledger.txt", "quokkasecret", "<current_datetime>", "You are the GitHub Copilot CLI"} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lost %q", kept)
		}
	}
	for _, hidden := range []string{"quokkasecret", "current_datetime", "Copilot CLI", "thinkquartz"} {
		if strings.Contains(strings.Join(onPathSearchable(path, searchable), "\n"), hidden) {
			t.Errorf("searchable text holds %q", hidden)
		}
	}
	// A read resumed after a line emits what a whole read emits after it.
	var ends []int64
	_ = tr.Read(context.Background(), -1, func(e Event) error { ends = append(ends, e.Pos); return nil })
	for i, pos := range ends {
		if pos == 0 || (i > 0 && pos == ends[i-1]) {
			continue
		}
		j := i
		for j < len(ends) && ends[j] == pos {
			j++
		}
		tail, _ := read(t, tr, pos)
		if len(tail)+len(events[j:]) > 0 && !reflect.DeepEqual(tail, events[j:]) {
			t.Errorf("read after %d: %d events, want the %d after it", pos, len(tail), len(events)-j)
		}
	}
}

// docs/agents/copilot.md AG63-AG64: what each event becomes; a rewind
// takes the withdrawn events off the active path, also when sync reads on
// after the line before it; a line that is no event is reported.
func TestCopilotRecords(t *testing.T) {
	ev := func(id, parent, typ, data string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","data":` + data + `,"id":"` + id + `","timestamp":"2026-12-07T12:00:00.000Z","parentId":` + p + "}\n"
	}
	data := ev("e1", "", "session.start", `{"sessionId":"s1","startTime":"2026-12-07T12:00:00.000Z","context":{"cwd":"/w"}}`) +
		ev("e2", "e1", "user.message", `{"content":"first tangerine","transformedContent":"<current_datetime>x</current_datetime> first tangerine"}`) +
		ev("e3", "e2", "assistant.message", `{"content":"","reasoningText":"pondering","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"ls"}}]}`) +
		ev("e4", "e3", "tool.execution_complete", `{"toolCallId":"c1","success":false,"error":{"message":"permission denied plumerror"}}`) +
		ev("e5", "e4", "assistant.message", `{"content":"abandoned papaya"}`) +
		ev("e6", "e5", "user.message", `{"content":"skill prompt kiwiskill","source":"skill-pdf"}`) +
		"not json\n" +
		ev("e7", "e6", "session.snapshot_rewind", `{"upToEventId":"e5","eventsRemoved":2}`) +
		ev("e8", "e7", "user.message", `{"content":"instead lychee"}`) +
		ev("e9", "e8", "assistant.message", `{"content":"done guava"}`)
	file := filepath.Join(t.TempDir(), ".copilot", "session-state", "s1", "events.jsonl")
	writeTestFile(t, file, data)
	trs, problems := copilotList(context.Background(), filepath.Dir(filepath.Dir(filepath.Dir(file))), Env{})
	if len(problems) != 0 || len(trs) != 1 || trs[0].Session.Key != "agent:copilot:s1" {
		t.Fatalf("List = %+v, problems %v; want agent:copilot:s1", trs, problems)
	}
	events, bad := read(t, trs[0], -1)
	if len(bad) != 1 || bad[0].Rec != "line 7" {
		t.Errorf("bad records %v, want line 7", bad)
	}
	ccCheckPath(t, "records", events, []string{
		"S user: first tangerine",
		"  assistant: ",
		"  toolResult: permission denied plumerror",
		"S user: instead lychee",
		"S assistant: done guava",
	})
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{"abandoned papaya", "kiwiskill", `"isError":true`, "pondering"} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lost %q", kept)
		}
	}
	if strings.Contains(ccSearchable(t, events), "kiwiskill") {
		t.Error("a skill's prompt is searchable")
	}
	// Sync read on from the line before the rewind: the same events.
	var pos int64
	_ = trs[0].Read(context.Background(), -1, func(e Event) error {
		if e.Rec == "line 6" {
			pos = e.Pos
		}
		return nil
	})
	tail, _ := read(t, trs[0], pos)
	if n := len(tail); n != 3 || !bytes.Equal(tail[0], events[len(events)-3]) {
		t.Errorf("read after line 7: %d events, want the rewind as a whole read has it and the 2 after it", n)
	}
}

// docs/agents/copilot.md AG60.
func TestCopilotRoots(t *testing.T) {
	checkRoots(t, copilotRoots, "/home/u/.copilot/session-state", "COPILOT_HOME", "/srv/copilot", "/srv/copilot/session-state")
}

// docs/agents/copilot.md AG61.
func TestCopilotClaims(t *testing.T) {
	home := t.TempDir()
	data, err := os.ReadFile(copilotFile)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(home, "saved", copilotSession, "events.jsonl")
	writeTestFile(t, elsewhere, string(data))
	for _, path := range []string{filepath.Join(home, ".copilot"), filepath.Join(home, ".copilot", "session-state"),
		elsewhere, filepath.Dir(elsewhere), filepath.Dir(filepath.Dir(elsewhere)), copilotStore, copilotFile} {
		if g := Claimed(path); g == nil || g.Agent != Copilot {
			t.Errorf("%s is claimed by %v, want copilot", path, g)
		}
	}
	other := filepath.Join(home, "other", "events.jsonl")
	writeTestFile(t, other, `{"type":"message","id":"a"}`+"\n")
	for _, path := range []string{other, filepath.Dir(other), qwenFile, piFile, "testdata/claude-code"} {
		if copilotClaims(path) {
			t.Errorf("%s is claimed by copilot", path)
		}
	}
}
