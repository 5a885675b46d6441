package driver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// toolEvents are a session that runs a tool: the user asks, the assistant
// calls exec, the result comes back with output, the assistant answers.
func toolEvents(output string) [][]byte {
	call, _ := json.Marshal(map[string]any{"type": "message", "id": "a1", "parentId": "u1", "timestamp": 1_770_000_001_000,
		"message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me look."},
			map[string]any{"type": "toolCall", "id": "c1", "name": "exec", "arguments": map[string]any{"command": "grep -rn quartzite ./src"}},
		}}})
	result, _ := json.Marshal(map[string]any{"type": "message", "id": "r1", "parentId": "a1", "timestamp": 1_770_000_002_000,
		"message": map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "exec",
			"content": []any{map[string]any{"type": "text", "text": output}}}})
	return [][]byte{
		message("u1", "", "user", "where is the parser?", 1_770_000_000_000),
		call,
		result,
		message("a2", "r1", "assistant", "The parser is in src/parse.go.", 1_770_000_003_000),
	}
}

func (w *world) toolSession(key, output string) {
	w.t.Helper()
	if err := w.db.AddSession(w.ctx, driver.Session{Key: key}); err != nil {
		w.t.Fatal(err)
	}
	for _, ev := range toolEvents(output) {
		if _, err := w.db.Append(w.ctx, key, ev); err != nil {
			w.t.Fatal(err)
		}
	}
}

// newToolWorld is newWorld on a store that keeps the tool index
// (docs/store.md S33).
func newToolWorld(t *testing.T) *world {
	w := newWorld(t)
	if err := w.db.SetToolIndex(w.ctx, true); err != nil {
		t.Fatal(err)
	}
	return w
}

func hitKinds(res *driver.SearchResult) string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.MessageID+":"+r.Kind+":"+r.Tool)
	}
	return strings.Join(out, " ")
}

// TestSearchToolScope: tool calls and results are found only when the
// scope asks, each hit saying its kind and tool; the default answer has
// neither field; a rewind and a delete take the tool text out of search
// (docs/search.md Q33, docs/store.md S30).
func TestSearchToolScope(t *testing.T) {
	w := newToolWorld(t)
	w.toolSession("agent:main:main", "src/parse.go:12: quartzite parser entry\nsrc/lex.go:3: quartzite tokens")
	caller := driver.Options{Caller: "agent:main:main"}
	for _, tc := range []struct {
		scope []string
		opts  driver.SearchOptions
		want  string
	}{
		{nil, driver.SearchOptions{}, ""},
		{[]string{"messages"}, driver.SearchOptions{}, ""},
		{[]string{"toolCalls"}, driver.SearchOptions{}, "a1:toolCall:exec"},
		{[]string{"toolResults"}, driver.SearchOptions{}, "r1:toolResult:exec"},
		{[]string{"toolCalls", "toolResults"}, driver.SearchOptions{Order: "recent"}, "r1:toolResult:exec a1:toolCall:exec"},
		{[]string{"toolResults"}, driver.SearchOptions{Match: "relaxed", Group: "session", Syntax: "query"}, "r1:toolResult:exec"},
		{[]string{"toolCalls", "toolResults"}, driver.SearchOptions{Role: "user"}, ""},
		{[]string{"toolCalls", "toolResults"}, driver.SearchOptions{Role: "assistant"}, "a1:toolCall:exec"},
	} {
		opts := tc.opts
		opts.Options, opts.Scope = caller, tc.scope
		if got := hitKinds(w.search("quartzite", opts)); got != tc.want {
			t.Errorf("scope %v %+v: got %q, want %q", tc.scope, tc.opts, got, tc.want)
		}
	}
	// Messages and tools together: every hit has its kind.
	res := w.search("parser", driver.SearchOptions{Options: caller, Scope: []string{"messages", "toolResults"}, Order: "recent"})
	if got := hitKinds(res); got != "a2:message: r1:toolResult:exec u1:message:" {
		t.Errorf("mixed scope: %q", got)
	}
	// The default answer is what it was: no kind, no tool.
	var raw string
	if err := w.db.QueryRowContext(w.ctx, `SELECT sessions_search('parser', '{"caller":"agent:main:main"}')`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw, `"kind"`) || strings.Contains(raw, `"tool"`) || !strings.Contains(raw, `"messageId":"a2"`) {
		t.Errorf("default answer: %s", raw)
	}
	// A snippet of tool output comes from around the match.
	res = w.search("tokens", driver.SearchOptions{Options: caller, Scope: []string{"toolResults"}})
	if len(res.Results) != 1 || !strings.Contains(res.Results[0].Snippet, "tokens") {
		t.Fatalf("snippet: %+v", res.Results)
	}
	// A rewind to the user's question takes the tool text off the path.
	if _, err := w.db.Append(w.ctx, "agent:main:main", []byte(`{"type":"leaf","id":"L1","targetId":"u1"}`)); err != nil {
		t.Fatal(err)
	}
	all := driver.SearchOptions{Options: caller, Scope: []string{"messages", "toolCalls", "toolResults"}}
	if got := hitKinds(w.search("quartzite", all)); got != "" {
		t.Errorf("after a rewind: %q", got)
	}
	if _, err := w.db.Append(w.ctx, "agent:main:main", []byte(`{"type":"leaf","id":"L2","targetId":"a2"}`)); err != nil {
		t.Fatal(err)
	}
	if got := hitKinds(w.search("quartzite", all)); got != "r1:toolResult:exec a1:toolCall:exec" {
		t.Errorf("back on the branch: %q", got)
	}
	if err := w.db.DeleteSession(w.ctx, "agent:main:main"); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := w.db.QueryRowContext(w.ctx, `SELECT count(*) FROM sessionsearch_tools WHERE sessionsearch_tools MATCH 'quartzite'`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("after delete: %d rows, %v", rows, err)
	}
	// A bad scope is refused, naming the option and the value.
	_, err := w.db.Search(w.ctx, "x", driver.SearchOptions{Options: caller, Scope: []string{"tools"}})
	if err == nil || !strings.Contains(err.Error(), "scope") || !strings.Contains(err.Error(), "tools") {
		t.Fatalf("bad scope: %v", err)
	}
}

// TestToolOutputSecrets: an environment dump in a tool result never shows
// 8 consecutive characters of a secret in any snippet, nor can a search
// find a secret (docs/store.md S30, docs/redaction.md R1).
func TestToolOutputSecrets(t *testing.T) {
	w := newToolWorld(t)
	secrets := []string{
		"AKIAZ7QX4PLMN2VB8KRT",
		"Zq3vT8mL1xR9wN4kP7jH2cB6dF5gS0aY3eU8iO1p",
		"ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8",
		"T0A1B2C3D4E/B5F6G7H8I9J/Xq7Lm2Nv9Rt4Wz8Ky3Pd6Hs1",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Vb3mT9qLx2",
	}
	dump := "$ env | sort\nHOME=/home/dev\nPATH=/usr/local/bin:/usr/bin\n" +
		"AWS_ACCESS_KEY_ID=" + secrets[0] + "\n" +
		"AWS_SECRET_ACCESS_KEY=" + secrets[1] + "\n" +
		"GITHUB_TOKEN=" + secrets[2] + "\n" +
		"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/" + secrets[3] + "\n" +
		"DEPLOY_KEY=-----BEGIN PRIVATE KEY-----\n" + secrets[4] + "\nR8sKq2Lm5Np7Xw3Zb9Cd1Fg4Hj6Kl0Mn2Pq5Rs8Tu1Vw4Yz7Ab0Cd3Ef6Gh9Ij2\n-----END PRIVATE KEY-----\n" +
		"EDITOR=vim quartzite\n"
	w.toolSession("agent:main:main", dump)
	caller := driver.Options{Caller: "agent:main:main"}
	for _, q := range []string{"env", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "hooks", "slack", "PRIVATE", "quartzite", "EDITOR", "services", "sort"} {
		for _, chars := range []int{8, 20, 40, 100, 300, 2000} {
			res := w.search(q, driver.SearchOptions{Options: caller, Scope: []string{"toolResults"}, SnippetChars: chars, Syntax: "query"})
			for _, r := range res.Results {
				for _, s := range secrets {
					for k := 0; k+8 <= len(s); k++ {
						if strings.Contains(r.Snippet, s[k:k+8]) {
							t.Fatalf("query %q, snippetChars %d: snippet %q shows %q of a secret", q, chars, r.Snippet, s[k:k+8])
						}
					}
				}
			}
		}
	}
	if res := w.search("quartzite", driver.SearchOptions{Options: caller, Scope: []string{"toolResults"}}); len(res.Results) != 1 {
		t.Fatalf("the dump is not found: %+v", res.Results)
	}
	for _, s := range secrets {
		for _, q := range []string{s, s[:8]} {
			res := w.search(q, driver.SearchOptions{Options: caller, Scope: []string{"toolResults"}, Prefix: true})
			if len(res.Results) != 0 {
				t.Fatalf("search %q finds the secret: %+v", q, res.Results)
			}
		}
	}
}

// TestLargeToolOutput: of a 10 MB tool result the index keeps the first
// and the last 128 KiB (what failed, at the end of a log, is found; the
// middle is not), and a hit's snippet is bounded by snippetChars, taken from
// around the match (docs/store.md S31).
func TestLargeToolOutput(t *testing.T) {
	w := newToolWorld(t)
	var b strings.Builder
	b.WriteString("first line has basalt\n")
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "build step %d compiled package p%d\n", i, i)
	}
	b.WriteString("past the first half obsidian\n")
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "line %d of the log\n", i)
	}
	b.WriteString("in the middle pumice\n")
	for i := 0; b.Len() < 10<<20; i++ {
		fmt.Fprintf(&b, "line %d of the log\n", i)
	}
	b.WriteString("FAIL: the very end granite\n")
	w.toolSession("agent:main:main", b.String())
	caller := driver.Options{Caller: "agent:main:main"}
	for q, want := range map[string]int{"basalt": 1, "obsidian": 0, "pumice": 0, "granite": 1} {
		res := w.search(q, driver.SearchOptions{Options: caller, Scope: []string{"toolResults"}, SnippetChars: 120})
		if len(res.Results) != want {
			t.Fatalf("%s: %d hits, want %d", q, len(res.Results), want)
		}
		for _, r := range res.Results {
			if !strings.Contains(r.Snippet, q) || len([]rune(r.Snippet)) > 120+2 {
				t.Fatalf("%s: snippet %q", q, r.Snippet)
			}
		}
	}
	var size int
	if err := w.db.QueryRowContext(w.ctx, `SELECT max(length(text)) FROM sessionsearch_tool_content`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size > 256<<10+len("\n…\n") || size < 255<<10 {
		t.Fatalf("indexed %d bytes of the output", size)
	}
}

// TestToolIndexSwitch: a store keeps no tool index until switched on
// (docs/store.md S33): a tool scope is refused, naming the switch; on, the
// index is built from what is stored and kept by every write; off, it is
// dropped; a schema change rebuilds it (S34). Searches of the messages
// give the same answers throughout (S35, docs/search.md Q36).
func TestToolIndexSwitch(t *testing.T) {
	w := newWorld(t)
	w.toolSession("agent:main:main", "quartzite in the output")
	caller := driver.Options{Caller: "agent:main:main"}
	tools := driver.SearchOptions{Options: caller, Scope: []string{"toolResults", "toolCalls"}}
	schema := func() string {
		var names string
		if err := w.db.QueryRowContext(w.ctx, `SELECT coalesce(group_concat(name, ' '), '') FROM (SELECT name FROM sqlite_schema WHERE name LIKE 'sessionsearch_tool%' ORDER BY name)`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	refused := func(when string) {
		t.Helper()
		_, err := w.db.Search(w.ctx, "quartzite", tools)
		if err == nil || !strings.Contains(err.Error(), "sessionsearch_tool_index(1)") || !strings.Contains(err.Error(), "toolResults,toolCalls") {
			t.Fatalf("%s: a tool scope gives %v", when, err)
		}
		if got := schema(); got != "" {
			t.Fatalf("%s: the schema has %s", when, got)
		}
	}
	for i, step := range []struct {
		name string
		do   func() error
		on   bool
		want string // the tool hits of quartzite, when on
	}{
		{"by default", func() error { return nil }, false, ""},
		{"switched on", func() error { return w.db.SetToolIndex(w.ctx, true) }, true, "r1:toolResult:exec a1:toolCall:exec"},
		{"on again", func() error { return w.db.SetToolIndex(w.ctx, true) }, true, "r1:toolResult:exec a1:toolCall:exec"},
		{"appended to", func() error {
			w.toolSession("agent:main:other", "quartzite twice, quartzite")
			return nil
		}, true, "r1:toolResult:exec r1:toolResult:exec a1:toolCall:exec a1:toolCall:exec"},
		{"left behind by another schema", func() error {
			// A build that does not know the tool index writes on: its
			// schema digest is another, and the index misses its rows.
			for _, sql := range []string{
				`UPDATE sessionsearch_meta SET value = 'before' WHERE key = 'schema_digest'`,
				`DELETE FROM sessionsearch_tools`,
			} {
				if _, err := w.db.ExecContext(w.ctx, sql); err != nil {
					return err
				}
			}
			_, err := w.db.Migrate(w.ctx)
			return err
		}, true, "r1:toolResult:exec r1:toolResult:exec a1:toolCall:exec a1:toolCall:exec"},
		{"switched off", func() error { return w.db.SetToolIndex(w.ctx, false) }, false, ""},
		{"appended to, off", func() error {
			w.toolSession("agent:main:third", "quartzite")
			return nil
		}, false, ""},
		{"on once more", func() error { return w.db.SetToolIndex(w.ctx, true) }, true,
			"r1:toolResult:exec r1:toolResult:exec r1:toolResult:exec a1:toolCall:exec a1:toolCall:exec a1:toolCall:exec"},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%d %s: %v", i, step.name, err)
		}
		on, err := w.db.ToolIndex(w.ctx)
		if err != nil || on != step.on {
			t.Fatalf("%s: ToolIndex %v, %v", step.name, on, err)
		}
		// The messages' search never sees tool text.
		if got := hitKinds(w.search("quartzite", driver.SearchOptions{Options: caller})); got != "" {
			t.Fatalf("%s: the messages' search finds %q", step.name, got)
		}
		if !step.on {
			refused(step.name)
			continue
		}
		if got := hitKinds(w.search("quartzite", tools)); got != step.want {
			t.Fatalf("%s: %q, want %q", step.name, got, step.want)
		}
		if _, err := w.db.ExecContext(w.ctx, `INSERT INTO sessionsearch_tools(sessionsearch_tools) VALUES ('integrity-check')`); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
	for _, bad := range []string{`SELECT sessionsearch_tool_index(2)`, `SELECT sessionsearch_tool_index(1, 2)`} {
		if _, err := w.db.ExecContext(w.ctx, bad); err == nil || !strings.Contains(err.Error(), "sessionsearch_tool_index") {
			t.Fatalf("%s: %v", bad, err)
		}
	}
}
