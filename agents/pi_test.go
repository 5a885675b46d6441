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

// The session Pi 0.73.1 wrote in make test-agents' conversation: a turn
// whose model thinks, reads a file and answers, then a resume
// (testdata/REAL.md).
const (
	piStore   = "testdata/pi"
	piSession = "01a2505a-794d-7716-adf8-cef61465b6ae"
	piName    = "2026-12-07T11-53-56-312Z_" + piSession + ".jsonl"
)

var piFile = filepath.Join(piStore, "sessions/--tmp-h9b-pi-proj--", piName)

// docs/agents/pi.md AG52-AG53: the real session is one transcript, keyed
// by its header's id, in its project; its lines are its events, the header
// with the agent's name; what the user and the model said is searchable,
// thinking and the read call and its result are kept and not.
func TestPiRealSession(t *testing.T) {
	trs, problems := piList(context.Background(), piStore, Env{})
	one(t, trs, problems)
	tr := trs[0]
	if tr.Session.Key != "agent:pi:"+piSession || tr.Project != "/tmp/h9b/pi/proj" || !tr.Resumable ||
		tr.Session.CreatedAt == 0 || tr.Session.ParentSessionKey != "" {
		t.Errorf("transcript %+v, want key agent:pi:%s, project /tmp/h9b/pi/proj, resumable, a start, no parent", tr, piSession)
	}
	events, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad records %v", bad)
	}
	lines, err := os.ReadFile(piFile)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n"))
	if len(events) != len(want) {
		t.Fatalf("%d events, want one per line, %d", len(events), len(want))
	}
	if got := string(events[0]); !strings.Contains(got, `"id":"`+piSession+`"`) || !strings.Contains(got, `"agent":"pi"`) {
		t.Errorf("header %s, want the session id and agent pi", got)
	}
	for i := 1; i < len(want); i++ {
		if !bytes.Equal(events[i], want[i]) {
			t.Errorf("event %d is not line %d as it is:\n%s\n%s", i, i+1, events[i], want[i])
		}
	}
	ccCheckPath(t, "real", events, []string{
		"S user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"  assistant: ", // thinking and the read call
		"  toolResult: ledger quokkasecret ความลับ 秘密の鍵 गुप्त\n",
		"S assistant: bravoanswer มังคุด 向日葵 बगीचा",
		"S user: charlieprompt ลำไย 朝顔 पहाड़",
		"S assistant: deltaanswer เงาะ 桜餅 नदी",
	})
	// A read resumed after a line emits the lines after it.
	var ends []int64
	_ = tr.Read(context.Background(), -1, func(e Event) error { ends = append(ends, e.Pos); return nil })
	for i, pos := range ends[:len(ends)-1] {
		tail, _ := read(t, tr, pos)
		if !reflect.DeepEqual(tail, events[i+1:]) {
			t.Errorf("read after %d: %d events, want the %d after it", pos, len(tail), len(events)-i-1)
		}
	}
}

// docs/agents/pi.md AG52-AG53: a forked session names its parent's file;
// a line that is no event is reported and skipped; a file without a
// session header is a problem of its own.
func TestPiForkAndProblems(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".pi", "agent", "sessions", "--w--")
	fork := filepath.Join(dir, "2026-12-07T12-00-00-000Z_0b8a4a57-6c40-4a0c-9d69-3a0e2c7f3f10.jsonl")
	writeTestFile(t, fork, `{"type":"session","version":3,"id":"0b8a4a57-6c40-4a0c-9d69-3a0e2c7f3f10","timestamp":"2026-12-07T12:00:00.000Z","cwd":"/w","parentSession":"/home/u/.pi/agent/sessions/--w--/`+piName+`"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-07T12:00:01.000Z","message":{"role":"user","content":"fork lychee","timestamp":1796644801000}}
{"id":"a2","parentId":"a1"}
not json
{"type":"message","id":"a3","parentId":"a1","timestamp":"2026-12-07T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"forked guava"}]}}
`)
	writeTestFile(t, filepath.Join(dir, "2026-12-07T12-00-00-000Z_ffffffff-6c40-4a0c-9d69-3a0e2c7f3f10.jsonl"), `{"type":"message","id":"a1"}`+"\n")
	trs, problems := piList(context.Background(), filepath.Dir(filepath.Dir(dir)), Env{})
	if len(trs) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "not a session header") {
		t.Fatalf("List = %d transcripts, problems %v; want 1 and the file without a header", len(trs), problems)
	}
	tr := trs[0]
	if tr.Session.Key != "agent:pi:0b8a4a57-6c40-4a0c-9d69-3a0e2c7f3f10" || tr.Session.ParentSessionKey != "agent:pi:"+piSession {
		t.Errorf("session %+v, want the fork keyed by its id, its parent agent:pi:%s", tr.Session, piSession)
	}
	events, bad := read(t, tr, -1)
	var recs []string
	for _, b := range bad {
		recs = append(recs, b.Rec)
	}
	if !reflect.DeepEqual(recs, []string{"line 3", "line 4"}) {
		t.Errorf("bad records %v, want lines 3 and 4", bad)
	}
	ccCheckPath(t, "fork", events, []string{"S user: fork lychee", "S assistant: forked guava"})
}

// docs/agents/pi.md AG50.
func TestPiRoots(t *testing.T) {
	checkRoots(t, piRoots, "/home/u/.pi/agent/sessions", "PI_CODING_AGENT_DIR", "/srv/pi", "/srv/pi/sessions")
}

// docs/agents/pi.md AG51: Pi's files by place or by name and header;
// OpenClaw's transcripts, in the same format, never.
func TestPiClaims(t *testing.T) {
	home := t.TempDir()
	data, err := os.ReadFile(piFile)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(home, "copy", piName)
	writeTestFile(t, elsewhere, string(data))
	openclawLike := filepath.Join(home, "oc", piSession+".jsonl")
	writeTestFile(t, openclawLike, string(data))
	for _, path := range []string{filepath.Join(home, ".pi"), filepath.Join(home, ".pi", "agent", "sessions"),
		elsewhere, filepath.Dir(elsewhere), piStore, filepath.Join(piStore, "sessions"), piFile} {
		if g := Claimed(path); g == nil || g.Agent != Pi {
			t.Errorf("%s is claimed by %v, want pi", path, g)
		}
	}
	for _, path := range []string{openclawLike, filepath.Dir(openclawLike), "../internal/fixtures/transcripts/en-telegram-rewind-fad751fa.jsonl", "testdata/claude-code"} {
		if piClaims(path) {
			t.Errorf("%s is claimed by pi", path)
		}
	}
}
