package transcript

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
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

// ReadIndexed reads what Read reads, with the text of searchable messages
// only, whichever order a message's fields come in: every case of
// TestMessageText, each with its message's fields reversed, and every
// fixture event.
func TestReadIndexed(t *testing.T) {
	var events [][]byte
	for _, c := range []string{
		`{"type":"message","id":"a","message":{"role":"toolResult","content":[{"type":"text","text":"file body"}]}}`,
		`{"type":"message","id":"a","message":{"content":[{"type":"text","text":"file body"}],"role":"toolResult"}}`,
		`{"type":"message","id":"a","message":{"role":"user","content":"first"},"message":{"role":"assistant","content":"second"}}`,
		`{"type":"message","id":"a","message":{"role":"system","content":"rules"},"message":{"content":"after","role":"user"}}`,
		`{"type":"message","id":"a","message":{"role":"toolResult","text":"t","content":"c"}}`,
		`{"type":"message","message":{"content":"  hello  ","role":"user"}}`,
	} {
		events = append(events, []byte(c))
	}
	for _, f := range fixtures.Files() {
		events = append(events, f.Lines...)
	}
	indexed := 0
	for _, ev := range events {
		e, text, err := Read(ev)
		if !e.Message {
			text = ""
		}
		ie, itext, ierr := ReadIndexed(ev)
		if ie != e || itext != text || (err == nil) != (ierr == nil) {
			t.Fatalf("%s:\nRead        %+v %q %v\nReadIndexed %+v %q %v", ev, e, text, err, ie, itext, ierr)
		}
		if itext != "" {
			indexed++
		}
	}
	if indexed < 100 {
		t.Fatalf("only %d events with indexed text", indexed)
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
	reset := func(id, parent string) Entry {
		e := msg(id, parent)
		e.Type, e.Role, e.Message = "reset", "", false
		return e
	}
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
		{"duplicate id: a parentId names the latest before it", []Entry{msg("a", ""), msg("b", "a"), msg("a", "b")}, []string{"a@2", "b", "a@0"}},
		{"duplicate id: later entries follow the newer one", []Entry{msg("a", ""), msg("b", "a"), msg("b", "a"), msg("c", "b"), leaf("L", "b")}, []string{"b@2", "a"}},
		{"duplicate id taken over by a side entry", []Entry{msg("a", ""), msg("b", "a"), side("b", "a"), msg("c", "b")}, []string{"c", "b@2", "a"}},
		{"a parentId naming a later entry dangles: no cycle", []Entry{msg("a", "b"), msg("b", "a")}, []string{"b", "a"}},
		{"a dangling parent at the start makes a root", []Entry{msg("a", "nowhere"), msg("b", "a")}, []string{"b", "a"}},
		{"after a lost line the entry hangs from the leaf", []Entry{msg("a", ""), msg("b", "a"), msg("d", "lost-c"), msg("e", "d")}, []string{"e", "d", "b", "a"}},
		{"a dangling parent after a rewind hangs from the target", []Entry{msg("a", ""), msg("b", "a"), leaf("L", "a"), msg("d", "lost")}, []string{"d", "a"}},
		{"explicit null parent starts a new root", []Entry{msg("a", ""), msg("b", "a"), msg("c", "")}, []string{"c"}},
		{"session header is abandoned by a root message", []Entry{{Type: "session", ID: "uuid"}, msg("a", ""), msg("b", "a")}, []string{"b", "a"}},
		// Resets (OpenClaw's scanSessionTranscriptTree): later entries do not cross the latest one.
		{"a reset keeps what came before on the path", []Entry{msg("a", ""), msg("b", "a"), reset("R", "b"), msg("c", "R")}, []string{"c", "R", "b", "a"}},
		{"a stale parent before the reset hangs from the leaf", []Entry{msg("a", ""), msg("b", "a"), reset("R", "b"), msg("c", "R"), msg("d", "a")}, []string{"d", "c", "R", "b", "a"}},
		{"a null parent after a reset hangs from the leaf", []Entry{msg("a", ""), reset("R", "a"), msg("c", "R"), msg("d", "")}, []string{"d", "c", "R", "a"}},
		{"a branch after the reset is a branch", []Entry{msg("a", ""), reset("R", "a"), msg("c", "R"), msg("d", "c"), msg("e", "c")}, []string{"e", "c", "R", "a"}},
		{"a rewind to before the reset is ignored", []Entry{msg("a", ""), msg("b", "a"), reset("R", "b"), msg("c", "R"), leaf("L", "a")}, []string{"c", "R", "b", "a"}},
		{"a rewind after the reset is followed", []Entry{msg("a", ""), reset("R", "a"), msg("c", "R"), msg("d", "c"), leaf("L", "c")}, []string{"c", "R", "a"}},
		{"the latest reset is the boundary", []Entry{msg("a", ""), reset("R1", "a"), msg("b", "R1"), reset("R2", "b"), msg("c", "R2"), msg("d", "b")}, []string{"d", "c", "R2", "b", "R1", "a"}},
		{"a side entry may hang before the reset", []Entry{msg("a", ""), reset("R", "a"), msg("c", "R"), side("s", "a"), msg("d", "s")}, []string{"d", "c", "R", "a"}},
		{"a reset without id is no boundary", []Entry{msg("a", ""), msg("b", "a"), {Type: "reset", HasParent: true, ParentID: "b"}, msg("d", "a")}, []string{"d", "a"}},
	}
	for _, c := range cases {
		r := NewReplay()
		for _, e := range c.entries {
			r.Append(e)
		}
		count := map[string]int{}
		for _, e := range c.entries {
			count[e.ID]++
		}
		var got []string // ids, with the index where the id is not unique
		for _, i := range r.Path() {
			id := c.entries[i].ID
			if count[id] > 1 {
				id = fmt.Sprintf("%s@%d", id, i)
			}
			got = append(got, id)
		}
		if !reflect.DeepEqual(got, c.path) {
			t.Errorf("%s: path %v, want %v", c.name, got, c.path)
		}
	}
}

// TestIncrementalAppend checks what the store relies on to index an append
// without a replay: when Extends holds, the new path is the old one plus the
// entry; when neither Extends nor Moves holds, the path is unchanged and the
// leaf key is KeyAfter's. Random sessions with few ids, so that duplicates,
// side entries taking the leaf's id and dangling parents are common.
func TestIncrementalAppend(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	extended, kept := 0, 0
	for session := 0; session < 2000; session++ {
		var entries []Entry
		replay := NewReplay()
		for n := r.Intn(30); len(entries) < n; {
			id := func() string { return fmt.Sprintf("i%d", r.Intn(8)) }
			e := Entry{Type: "message", ID: id(), Message: true}
			switch r.Intn(10) {
			case 0:
				e = Entry{Type: "leaf", ID: id(), TargetID: id()}
			case 1:
				e.Side = true
			case 2:
				e.ID = ""
			case 3:
				e = Entry{Type: "reset", ID: id()}
			}
			switch r.Intn(4) {
			case 0: // follows the leaf
			case 1:
				e.HasParent = true // a new root
			default:
				e.HasParent, e.ParentID = true, id()
			}
			leaf, key := replay.Leaf()
			before := replay.Path()
			replay.Append(e)
			entries = append(entries, e)
			after := replay.Path()
			_, keyAfter := replay.Leaf()
			switch {
			case Extends(e, leaf >= 0, key):
				extended++
				if !reflect.DeepEqual(after, append([]int{len(entries) - 1}, before...)) {
					t.Fatalf("%v: Extends, but the path went from %v to %v", entries, before, after)
				}
				if keyAfter != e.ID {
					t.Fatalf("%v: leaf key %q after an extension, want %q", entries, keyAfter, e.ID)
				}
			case !Moves(e):
				kept++
				if !reflect.DeepEqual(after, before) {
					t.Fatalf("%v: neither Extends nor Moves, but the path went from %v to %v", entries, before, after)
				}
				if want := KeyAfter(e, key); keyAfter != want {
					t.Fatalf("%v: leaf key %q, KeyAfter says %q", entries, keyAfter, want)
				}
			}
		}
	}
	if extended < 1000 || kept < 1000 {
		t.Fatalf("too few cases: %d extensions, %d kept paths", extended, kept)
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
	files := fixtures.Files()
	if len(files) != len(abandoned) {
		t.Fatalf("found %d fixture files, want %d", len(files), len(abandoned))
	}
	for _, f := range files {
		r := NewReplay()
		var ids []string
		for _, line := range f.Lines {
			e, err := Parse(line)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			r.Append(e)
			ids = append(ids, e.ID)
		}
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
		want := abandoned[f.Name]
		if strings.Join(off, ",") != strings.Join(want, ",") {
			t.Errorf("%s: entries off the path %v, want %v", f.Name, off, want)
		}
	}
}

// TestLostLine loses each line of each real transcript in turn (a line that
// cannot be read is skipped by import): every other entry on the original
// path stays on the path (docs/store.md S6), so one bad line never hides the
// transcript before it.
func TestLostLine(t *testing.T) {
	for _, f := range fixtures.Files() {
		entries := make([]Entry, len(f.Lines))
		for i, line := range f.Lines {
			e, err := Parse(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", f.Name, i+1, err)
			}
			entries[i] = e
		}
		path := func(lost int) map[int]bool {
			r := NewReplay()
			var index []int // entry of each replayed position
			for i, e := range entries {
				if i != lost {
					r.Append(e)
					index = append(index, i)
				}
			}
			on := map[int]bool{}
			for _, p := range r.Path() {
				on[index[p]] = true
			}
			return on
		}
		original := path(-1)
		for lost := range entries {
			got := path(lost)
			for i := range original {
				if i != lost && !got[i] {
					t.Errorf("%s: with line %d lost, line %d (id %q) left the active path", f.Name, lost+1, i+1, entries[i].ID)
				}
			}
		}
	}
}
