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
		tool, x := ToolText([]byte(tc.event), 1000, 1000)
		if text := x.Text(); tool != tc.tool || text != tc.text || x.Gap {
			t.Errorf("%s: got %q %q, want %q %q", tc.name, tool, text, tc.tool, tc.text)
		}
	}
	// The bounds: the first and the last bytes, each cut at a character,
	// with the gap between them said; the text of a block whose "text"
	// comes before its "type" is kept the same way.
	long := strings.Repeat("é", 100)
	for _, tc := range []struct {
		name, content string
		head, tail    int
		want          Excerpt
	}{
		{"blocks", `[{"type":"text","text":"start ` + long + `"},{"type":"text","text":"` + long + ` the end"}]`, 11, 12,
			Excerpt{Head: "start éé", Tail: "éé the end", Gap: true}},
		{"text before type", `[{"text":"start ` + long + ` the end","type":"text"}]`, 11, 12,
			Excerpt{Head: "start éé", Tail: "éé the end", Gap: true}},
		{"a string", `"` + long + `"`, 4, 5, Excerpt{Head: "éé", Tail: "éé", Gap: true}},
		{"short enough", `[{"type":"text","text":"one"},{"type":"text","text":"two"}]`, 4, 5, Excerpt{Head: "one\n", Tail: "two"}},
		{"a gap inside the second block", `[{"type":"text","text":"one"},{"type":"text","text":"` + long + `"}]`, 4, 4,
			Excerpt{Head: "one\n", Tail: "éé", Gap: true}},
	} {
		_, x := ToolText([]byte(`{"type":"message","message":{"role":"toolResult","content":`+tc.content+`}}`), tc.head, tc.tail)
		if x != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, x, tc.want)
		}
	}
	if got := (Excerpt{Head: "a", Tail: "b", Gap: true}).Text(); got != "a\n…\nb" {
		t.Errorf("Excerpt.Text: %q", got)
	}
	if got := CutFront("aéb", 2); got != "b" {
		t.Errorf("CutFront: %q", got)
	}
	if ToolRole("user") || !ToolRole("toolResult") || !ToolRole("assistant") {
		t.Error("ToolRole")
	}
}
