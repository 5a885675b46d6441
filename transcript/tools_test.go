package transcript

import (
	"strings"
	"testing"
)

// TestToolText: the tool text of each kind of event (docs/store.md S30),
// and its bound.
func TestToolText(t *testing.T) {
	for _, tc := range []struct {
		name, event, tool, text string
	}{
		{"call", `{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"ls -la"}}]}}`,
			"exec", "exec\n{\"command\":\"ls -la\"}"},
		{"two calls", `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","name":"exec","arguments":"make"}]}}`,
			"read, exec", "read\n{\"path\":\"a.go\"}\nexec\n\"make\""},
		{"assistant without calls", `{"type":"message","message":{"role":"assistant","content":"just words"}}`, "", ""},
		{"result blocks", `{"type":"message","message":{"role":"toolResult","toolName":"exec","content":[{"type":"text","text":"line one"},{"type":"image","data":"xx"},{"type":"text","text":"  line two  "}]}}`,
			"exec", "line one\nline two"},
		{"result string, name after content", `{"type":"message","message":{"content":"ok\n","role":"tool","toolName":"read"}}`, "read", "ok"},
		{"user", `{"type":"message","message":{"role":"user","content":"hello"}}`, "", ""},
		{"not a message", `{"type":"custom","message":{"role":"toolResult","content":"x"}}`, "", ""},
		{"not json", `{"type":"message","message":{"role":"toolResult","content":"x"`, "", ""},
	} {
		tool, text := ToolText([]byte(tc.event), 1000)
		if tool != tc.tool || text != tc.text {
			t.Errorf("%s: got %q %q, want %q %q", tc.name, tool, text, tc.tool, tc.text)
		}
	}
	// The bound: a prefix, cut at a character.
	out := strings.Repeat("é", 100)
	_, text := ToolText([]byte(`{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"`+out+`"},{"type":"text","text":"more"}]}}`), 11)
	if text != strings.Repeat("é", 5) {
		t.Errorf("bounded: %q", text)
	}
	if ToolRole("user") || !ToolRole("toolResult") || !ToolRole("assistant") {
		t.Error("ToolRole")
	}
}
