package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestMessageText(t *testing.T) {
	cases := []struct {
		name, event, want string
		ok                bool
	}{
		{"string content", `{"type":"message","message":{"role":"user","content":"  hello  "}}`, "hello", true},
		{"message.text", `{"type":"message","message":{"role":"assistant","text":"from text"}}`, "from text", true},
		{"text blocks joined", `{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"thinking","thinking":"secret plan"},{"type":"output_text","text":"two"},{"type":"input_text","text":"three"}]}}`, "one\ntwo\nthree", true},
		{"blank blocks skipped", `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":"x"}]}}`, "x", true},
		{"images and tool calls never", `{"type":"message","message":{"role":"assistant","content":[{"type":"image","data":"iVBOR"},{"type":"toolCall","name":"read","arguments":{"path":"/etc"}}]}}`, "", false},
		{"thinking only", `{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"}]}}`, "", false},
		{"tool result never", `{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"file body"}]}}`, "", false},
		{"system never", `{"type":"message","message":{"role":"system","content":"rules"}}`, "", false},
		{"not a message", `{"type":"custom","data":{"text":"x"}}`, "", false},
		{"empty content", `{"type":"message","message":{"role":"assistant","content":[]}}`, "", false},
		{"escapes", `{"type":"message","message":{"role":"user","content":"line\nnext \u6771\u4eac"}}`, "line\nnext 東京", true},
	}
	for _, c := range cases {
		got, ok := MessageText([]byte(c.event))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: MessageText = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestParse(t *testing.T) {
	e, err := Parse([]byte(`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-02-07T05:05:47.434Z","message":{"role":"user","content":"hi"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Entry{Type: "message", ID: "a1", HasParent: true, Role: "user", Timestamp: 1770440747434, Message: true}
	if e != want {
		t.Errorf("Parse = %+v, want %+v", e, want)
	}
	e, _ = Parse([]byte(`{"type":"leaf","id":7,"targetId":"x","appendMode":"side","timestamp":1770440747434}`))
	if e.ID != "7" || e.HasParent || e.TargetID != "x" || !e.Side || !e.Leaf() || e.Timestamp != 1770440747434 {
		t.Errorf("Parse = %+v", e)
	}
	for _, bad := range []string{`not json`, `[1,2]`, `{"id":"x"}`, `{"type":""}`, `{"type":"message"`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

// entry builds an entry from a compact description.
func msg(id, parent string) Entry {
	e := Entry{Type: "message", ID: id, Role: "user", Message: true}
	if parent != "-" {
		e.HasParent, e.ParentID = true, parent
	}
	return e
}

func TestActivePath(t *testing.T) {
	leaf := func(id, target string) Entry { return Entry{Type: "leaf", ID: id, TargetID: target} }
	side := func(id, parent string) Entry { e := msg(id, parent); e.Side = true; return e }
	noID := Entry{Type: "message", Role: "user", Message: true}
	cases := []struct {
		name    string
		entries []Entry
		path    []string // ids from leaf to root
	}{
		{"linear with explicit parents", []Entry{msg("a", ""), msg("b", "a"), msg("c", "b")}, []string{"c", "b", "a"}},
		{"missing parentId follows the leaf", []Entry{msg("a", "-"), msg("b", "-"), msg("c", "-")}, []string{"c", "b", "a"}},
		{"branch without leaf entry abandons the old branch", []Entry{msg("a", ""), msg("b", "a"), msg("c", "b"), msg("d", "a")}, []string{"d", "a"}},
		{"rewind with a leaf entry", []Entry{msg("a", ""), msg("b", "a"), msg("c", "b"), leaf("L", "a")}, []string{"a"}},
		{"append after a rewind follows the target", []Entry{msg("a", ""), msg("b", "a"), leaf("L", "a"), msg("d", "-")}, []string{"d", "a"}},
		{"switch back to the old branch", []Entry{msg("a", ""), msg("b", "a"), msg("d", "a"), leaf("L", "b")}, []string{"b", "a"}},
		{"side entry does not move the leaf", []Entry{msg("a", ""), side("s", "a"), msg("b", "-")}, []string{"b", "a"}},
		{"entry following a side entry brings it in", []Entry{msg("a", ""), side("s", "a"), msg("b", "s")}, []string{"b", "s", "a"}},
		{"entry without id changes nothing", []Entry{msg("a", ""), noID}, []string{"a"}},
		{"leaf to an unknown target is ignored", []Entry{msg("a", ""), msg("b", "a"), leaf("L", "zz")}, []string{"b", "a"}},
		{"duplicate id: the latest wins", []Entry{msg("a", ""), msg("b", "a"), msg("a", "b")}, []string{"a", "b"}},
		{"cycle ends the path", []Entry{msg("a", "b"), msg("b", "a")}, []string{"b", "a"}},
		{"dangling parent ends the path", []Entry{msg("a", "nowhere"), msg("b", "a")}, []string{"b", "a"}},
		{"explicit null parent starts a new root", []Entry{msg("a", ""), msg("b", "a"), msg("c", "")}, []string{"c"}},
		{"session header is abandoned by a root message", []Entry{{Type: "session", ID: "uuid"}, msg("a", ""), msg("b", "a")}, []string{"b", "a"}},
	}
	for _, c := range cases {
		r := NewReplay()
		for _, e := range c.entries {
			r.Append(e)
		}
		var got []string
		for _, i := range r.Path() {
			got = append(got, c.entries[i].ID)
		}
		if !reflect.DeepEqual(got, c.path) {
			t.Errorf("%s: path %v, want %v", c.name, got, c.path)
		}
	}
}

// TestFixturePaths replays the real transcripts: the branches SOURCES.md
// describes are abandoned, everything else is on the path.
func TestFixturePaths(t *testing.T) {
	abandoned := map[string][]string{
		"en-telegram-rewind-fad751fa.jsonl":           {"84d25333"},
		"zh-en-heartbeat-compactions-8d0416c9.jsonl":  {"71dae493"},
		"zh-feishu-images-d23482cc.jsonl":             {"97feba7a"},
		"ja-desktop-tui-8555a0a4.jsonl":               nil,
		"pt-ollama-errors-compactions-052a5793.jsonl": nil,
		"uk-telegram-cb02dfb1.jsonl":                  nil,
	}
	files, _ := filepath.Glob("../internal/fixtures/transcripts/*.jsonl")
	if len(files) != len(abandoned) {
		t.Fatalf("found %d fixture files, want %d", len(files), len(abandoned))
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r := NewReplay()
		var ids []string
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			e, err := Parse(sc.Bytes())
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			r.Append(e)
			ids = append(ids, e.ID)
		}
		fh.Close()
		onPath := map[string]bool{}
		for _, i := range r.Path() {
			onPath[ids[i]] = true
		}
		var off []string
		for i, id := range ids {
			if i > 0 && !onPath[id] { // line 0 is the session header
				off = append(off, id)
			}
		}
		sort.Strings(off)
		want := abandoned[filepath.Base(f)]
		if strings.Join(off, ",") != strings.Join(want, ",") {
			t.Errorf("%s: entries off the path %v, want %v", filepath.Base(f), off, want)
		}
	}
}
