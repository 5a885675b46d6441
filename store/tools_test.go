package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/redact"
)

// TestToolSchema: a store without the tool index has nothing of it in its
// schema, so that its writes do no tool work; with it, the index, its
// views, and the append and delete triggers' statements for it; the two
// schemas have digests of their own, which the change token accepts
// (docs/store.md S33, S34).
func TestToolSchema(t *testing.T) {
	for _, tc := range []struct {
		tools bool
		want  []string // objects whose SQL names the tool index or its text
	}{
		{false, nil},
		{true, []string{"sessionsearch_session_delete", "sessionsearch_event_insert", "sessionsearch_tool_content", "sessionsearch_tool_entries"}},
	} {
		var got []string
		for _, o := range derived[toolsIndex(tc.tools)] {
			if strings.Contains(o.name+o.def, "sessionsearch_tool") {
				got = append(got, o.name)
			}
		}
		for _, o := range tables {
			if strings.Contains(o.name+o.def, "sessionsearch_tool") {
				got = append(got, o.name)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("tools %v: objects of the tool index %v, want %v", tc.tools, got, tc.want)
		}
		if !strings.Contains(ChangeSQL, schemaDigest[toolsIndex(tc.tools)]) {
			t.Errorf("tools %v: ChangeSQL does not accept digest %s", tc.tools, schemaDigest[toolsIndex(tc.tools)])
		}
	}
	if schemaDigest[0] == schemaDigest[1] {
		t.Errorf("one digest for both schemas: %s", schemaDigest[0])
	}
}

// TestToolScopeError: a search of tool text on a store without the tool
// index is refused with the switch that enables it, and the scope as
// given; other errors pass unchanged (docs/store.md S35).
func TestToolScopeError(t *testing.T) {
	other := errors.New("disk I/O error")
	for _, tc := range []struct {
		scope []string
		err   error
		want  []string // in the message; nil: err itself
	}{
		{[]string{"toolResults"}, errors.New("no such table: sessionsearch_tools"),
			[]string{`"toolResults"`, "SELECT sessionsearch_tool_index(1)", "import --tools"}},
		{[]string{"messages", "toolCalls"}, errors.New("no such table: sessionsearch_tool_entries"),
			[]string{`"messages,toolCalls"`, "sessionsearch_tool_index(1)"}},
		{[]string{"toolCalls"}, other, nil},
		{[]string{"toolCalls"}, nil, nil},
	} {
		got := ToolScopeError(tc.scope, tc.err)
		if tc.want == nil {
			if got != tc.err {
				t.Errorf("%v, %v: got %v", tc.scope, tc.err, got)
			}
			continue
		}
		for _, w := range tc.want {
			if got == nil || !strings.Contains(got.Error(), w) {
				t.Errorf("%v, %v: %v lacks %q", tc.scope, tc.err, got, w)
			}
		}
	}
}

// TestToolTextSecretsAtTheCuts: a secret that crosses the cut of a long
// output's first or last half is never indexed in part, however much
// shorter the masks before the cut are than the secrets they replace
// (docs/store.md S31): here some 2,400 GitHub tokens, whose masks save
// more than the 16 KiB read past each cut.
func TestToolTextSecretsAtTheCuts(t *testing.T) {
	half := ToolTextLimit / 2
	var tokens strings.Builder
	for i := 0; tokens.Len() < 100_000; i++ {
		fmt.Fprintf(&tokens, "token=ghp_%036d\n", i)
	}
	filler := func(b *strings.Builder, n int) {
		for b.Len() < n-20 {
			b.WriteString("filler words here\n")
		}
		for b.Len() < n {
			b.WriteByte('x')
		}
	}
	for _, s := range []struct{ key, value string }{
		{"DATABASE_PASSWORD=", "Zq9Wm4Kp7Rt2Yx8Lc3Nv6Bh1Jd5"},
		{"aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vT4mLs2"},
		{"", "sk-ant-api03-Zq9Wm4Kp7Rt2Yx8Lc3Nv6Bh1Jd5Fs0GaEeTtZq9Wm4Kp7Rt2Yx8Lc3Nv6Bh1Jd5Fs0GaEeTtZq9Wm4Kp7Rt2Yx8AA"},
	} {
		secret := s.key + s.value
		if masked, _ := redact.Text("x " + secret + " y"); strings.Contains(masked, s.value[len(s.value)-8:]) {
			t.Fatalf("%s is not masked even whole", secret)
		}
		for _, edge := range []int{half, half + toolRedactMargin} {
			for off := 1; off < len(secret); off += 4 {
				// The first half: tokens, then the secret across byte
				// edge, off bytes of it before the edge.
				var head strings.Builder
				head.WriteString(tokens.String())
				filler(&head, edge-off-1)
				head.WriteString("\n" + secret + "\n")
				filler(&head, 3*ToolTextLimit)
				// The last half: the secret across byte len-edge, off
				// bytes of it after it, then tokens.
				var tail strings.Builder
				filler(&tail, 2*ToolTextLimit)
				tail.WriteString("\n")
				start := tail.Len()
				tail.WriteString(secret + "\n" + tokens.String())
				filler(&tail, start+len(secret)-off+edge)
				checkCut(t, secret, s.value, off, map[string]string{"first": head.String(), "last": tail.String()})
			}
		}
	}
}

// checkCut checks that no 8 bytes of value are indexed of each text, an
// output long enough to be cut.
func checkCut(t *testing.T, secret, value string, off int, texts map[string]string) {
	t.Helper()
	for side, text := range texts {
		ev, _ := json.Marshal(map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolName": "bash",
			"content": []any{map[string]any{"type": "text", "text": text}}}})
		_, indexed := ToolIndexedText(ev)
		if !strings.Contains(indexed, "\n…\n") {
			t.Fatalf("%s half: the %d-byte output was not cut", side, len(text))
		}
		for k := 0; k+8 <= len(value); k++ {
			if piece := value[k : k+8]; strings.Contains(indexed, piece) {
				t.Fatalf("%s half, %s cut with %d bytes of it on one side: %q is indexed", side, secret, off, piece)
			}
		}
	}
}
