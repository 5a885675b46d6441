package store

import (
	"errors"
	"strings"
	"testing"
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
