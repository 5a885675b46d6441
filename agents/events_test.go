package agents

import (
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

func TestEventsAsTranscriptReadsThem(t *testing.T) {
	tests := []struct {
		name       string
		event      []byte
		want       transcript.Entry
		text       string
		searchable bool
	}{
		{"header", Header(ClaudeCode, "s1", 1700000000000, "/home/u/p"),
			transcript.Entry{Type: "session", ID: "s1", Timestamp: 1700000000000}, "", false},
		{"user text", Message(Msg{ID: "u1", Parent: Root, Time: 1700000000001, Role: "user", Content: []Block{Text("héllo 世界")}}),
			transcript.Entry{Type: "message", ID: "u1", HasParent: true, Role: "user", Timestamp: 1700000000001, Message: true}, "héllo 世界", true},
		{"assistant thinking and a tool call are not text", Message(Msg{ID: "a1", Parent: ParentID("u1"), Role: "assistant",
			Content: []Block{Thinking("secret plan"), ToolCall("c1", "bash", []byte(`{"cmd":"ls"}`)), Text("done")}}),
			transcript.Entry{Type: "message", ID: "a1", HasParent: true, ParentID: "u1", Role: "assistant", Message: true}, "done", true},
		{"tool result is never searchable", Message(Msg{ID: "r1", Role: "toolResult", ToolCallID: "c1", Content: []Block{Text("file.txt")}}),
			transcript.Entry{Type: "message", ID: "r1", Role: "toolResult"}, "file.txt", false},
		{"kept record", Kept(Codex, "event_msg", "", FromLeaf, 0, []byte(`{"type":"agent_message","message":"hi"}`)),
			transcript.Entry{Type: "codex.event_msg"}, "", false},
		{"leaf", Leaf("", "u1", 0), transcript.Entry{Type: "leaf", TargetID: "u1"}, "", false},
	}
	for _, tt := range tests {
		e, text, err := transcript.Read(tt.event)
		if err != nil {
			t.Fatalf("%s: %s: %v", tt.name, tt.event, err)
		}
		if e != tt.want || text != tt.text || e.Message != tt.searchable {
			t.Errorf("%s: %s\nread %+v %q, want %+v %q", tt.name, tt.event, e, text, tt.want, tt.text)
		}
	}
}

func TestToolCallArguments(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:    `{"a":1}`,
		`  [1,2] `:   `[1,2]`,
		`ls -la <x>`: `"ls -la <x>"`,
		``:           `null`,
	} {
		if got := string(JSONValue([]byte(in))); got != want {
			t.Errorf("JSONValue(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMillis(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want int64
	}{
		{"2025-10-01T12:00:00.5Z", 1759320000500},
		{"2025-10-01T14:00:00+02:00", 1759320000000},
		{float64(1759320000), 1759320000000},
		{float64(1759320000500), 1759320000500},
		{"1759320000.25", 1759320000250},
		{"yesterday", 0},
		{nil, 0},
	} {
		if got := Millis(tt.in); got != tt.want {
			t.Errorf("Millis(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
