package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/visibilitymodel"
)

// connectMCP starts `sessionsearch mcp args...` and connects the SDK's
// client to it over stdio.
func connectMCP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "sessionsearch-test", Version: "v1"}, nil)
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir()}
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// callTool calls a tool and returns its text and whether it is a tool
// error.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	if !res.IsError && res.StructuredContent == nil {
		t.Errorf("%s: no structured content", name)
	}
	return text.Text, res.IsError
}

// inputSchema returns a tool's properties and required arguments.
func inputSchema(t *testing.T, tool *mcp.Tool) (props, required []string) {
	t.Helper()
	schema, ok := tool.InputSchema.(map[string]any)
	if !ok {
		t.Fatalf("%s: input schema %T", tool.Name, tool.InputSchema)
	}
	for p := range schema["properties"].(map[string]any) {
		props = append(props, p)
	}
	for _, r := range schema["required"].([]any) {
		required = append(required, r.(string))
	}
	slices.Sort(props)
	slices.Sort(required)
	return props, required
}

// A real MCP client lists the two tools and calls them; the answers are the
// JSON of docs/search.md Q13 and Q16, and a bad argument is a tool error the
// agent can read.
func TestMCPServer(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, "--tools", fixtureDir)

	s := connectMCP(t, "--db", dbFile, "--caller", "agent:main:main", "--visibility", "all", "--agent-to-agent", "*")
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		props, required := inputSchema(t, tool)
		switch tool.Name {
		case "sessions_search":
			if !slices.Equal(props, []string{"after", "agent", "before", "exclude", "group", "kind", "limit", "match", "maxBytes", "now", "order", "perSession", "prefix", "project", "query", "role", "scope", "sessionKey", "snippetChars", "syntax", "timePhrases"}) || !slices.Equal(required, []string{"query"}) {
				t.Errorf("sessions_search arguments %v, required %v", props, required)
			}
		case "sessions_history":
			if !slices.Equal(props, []string{"includeTools", "limit", "maxBytes", "maxChars", "messageId", "sessionKey"}) || !slices.Equal(required, []string{"sessionKey"}) {
				t.Errorf("sessions_history arguments %v, required %v", props, required)
			}
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{"sessions_history", "sessions_search"}) {
		t.Fatalf("tools %v", names)
	}

	text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "日报", "limit": 2, "group": "message"})
	var res driver.SearchResult
	decodeStrict(t, text, &res)
	if isErr || len(res.Results) != 2 || !res.Truncated || !strings.Contains(res.Results[0].Snippet, "日报") {
		t.Fatalf("sessions_search: %s", text)
	}
	text, isErr = callTool(t, s, "sessions_history", map[string]any{"sessionKey": res.Results[0].SessionKey, "messageId": res.Results[0].MessageID, "limit": 3})
	var h driver.History
	decodeStrict(t, text, &h)
	if isErr || h.SessionKey != res.Results[0].SessionKey || len(h.Messages) != 3 {
		t.Fatalf("sessions_history: %s", text)
	}
	// Tool output, when the scope asks for it (docs/search.md Q33).
	text, isErr = callTool(t, s, "sessions_search", map[string]any{"query": "missing_brave_api_key", "scope": []string{"toolResults"}})
	res = driver.SearchResult{}
	decodeStrict(t, text, &res)
	if isErr || len(res.Results) == 0 || res.Results[0].Kind != "toolResult" || res.Results[0].Tool != "web_search" {
		t.Fatalf("sessions_search of tool results: %s", text)
	}
	if text, isErr = callTool(t, s, "sessions_search", map[string]any{"query": "日报", "limit": 99}); !isErr || !strings.Contains(text, "limit must be an integer 1..25, got 99") {
		t.Errorf("limit 99: error %v, %s", isErr, text)
	}
	if text, isErr = callTool(t, s, "sessions_search", map[string]any{"query": "日报", "caller": "agent:other:main"}); !isErr || !strings.Contains(text, "caller") {
		t.Errorf("a caller argument with --caller set: error %v, %s", isErr, text)
	}
}

// Without --caller, each call names its caller, and sees what that session
// may see (tree visibility by default).
func TestMCPServerCallerArgument(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	s := connectMCP(t, "--db", dbFile, "--trust-client-caller")
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if props, required := inputSchema(t, tool); !slices.Contains(props, "caller") || !slices.Contains(required, "caller") {
			t.Errorf("%s: caller is not a required argument: %v %v", tool.Name, props, required)
		}
	}
	if text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "日报"}); !isErr || !strings.Contains(text, "caller") {
		t.Errorf("no caller: error %v, %s", isErr, text)
	}
	feishu := "agent:main:session:d23482cc-fe6b-42f9-8d97-2a4415cf8b75"
	text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "日报", "caller": feishu})
	var own driver.SearchResult
	decodeStrict(t, text, &own)
	if isErr || len(own.Results) == 0 {
		t.Fatalf("own session: %s", text)
	}
	text, _ = callTool(t, s, "sessions_search", map[string]any{"query": "日报", "caller": "agent:main:session:8555a0a4-0b79-459d-939c-e17cdbbf4fe2"})
	var other driver.SearchResult
	decodeStrict(t, text, &other)
	if len(other.Results) != 0 {
		t.Errorf("another session's caller sees the Feishu session: %s", text)
	}
}

// schemaTypes collects every "type" of a JSON Schema, at any depth, to
// find unions such as ["null","integer"].
func schemaTypes(v any, out *[]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "type" {
				*out = append(*out, c)
			}
			schemaTypes(c, out)
		}
	case []any:
		for _, c := range x {
			schemaTypes(c, out)
		}
	}
}

// validate checks a tool's structured content against its output schema.
func validate(t *testing.T, tool *mcp.Tool, content any) {
	t.Helper()
	b, _ := json.Marshal(tool.OutputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s output schema: %v", tool.Name, err)
	}
	var instance any
	b, _ = json.Marshal(content)
	json.Unmarshal(b, &instance)
	if err := resolved.Validate(instance); err != nil {
		t.Errorf("%s: structured content %s does not fit its output schema: %v", tool.Name, b, err)
	}
}

// The tools describe themselves to a client: read-only, idempotent, closed
// world; integer parameters with their range and default and a single
// type; order as an enum; no extra arguments; an output schema that the
// structured content of every answer fits; no list_changed, since the two
// tools never change (docs/cli.md C14, C15).
func TestMCPToolDescriptions(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	s := connectMCP(t, "--db", dbFile, "--caller", "agent:main:main", "--visibility", "all")
	if caps := s.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability %+v", caps.Tools)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		schema := tool.InputSchema.(map[string]any)
		if schema["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties %v", tool.Name, schema["additionalProperties"])
		}
		var types []any
		schemaTypes(schema, &types)
		schemaTypes(tool.OutputSchema, &types)
		for _, ty := range types {
			if _, ok := ty.(string); !ok {
				t.Errorf("%s: a type union %v", tool.Name, ty)
			}
		}
		for name, p := range schema["properties"].(map[string]any) {
			p := p.(map[string]any)
			if p["type"] == "integer" && (p["minimum"] == nil || p["maximum"] == nil || p["default"] == nil) {
				t.Errorf("%s.%s: %v", tool.Name, name, p)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
	props := tools["sessions_search"].InputSchema.(map[string]any)["properties"].(map[string]any)
	if limit := props["limit"].(map[string]any); limit["minimum"] != 1.0 || limit["maximum"] != 25.0 || limit["default"] != 10.0 {
		t.Errorf("sessions_search limit %v", limit)
	}
	if order := props["order"].(map[string]any); !reflect.DeepEqual(order["enum"], []any{"relevance", "recent", "blend"}) {
		t.Errorf("sessions_search order %v", order)
	}
	hprops := tools["sessions_history"].InputSchema.(map[string]any)["properties"].(map[string]any)
	if limit := hprops["limit"].(map[string]any); limit["minimum"] != 1.0 || limit["maximum"] != 1000.0 {
		t.Errorf("sessions_history limit %v", limit)
	}

	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_search", Arguments: map[string]any{"query": "日报", "limit": 3, "order": "recent"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	validate(t, tools["sessions_search"], res.StructuredContent)
	var found driver.SearchResult
	b, _ := json.Marshal(res.StructuredContent)
	decodeStrict(t, string(b), &found)
	if len(found.Results) != 3 || found.Results[0].Timestamp < found.Results[1].Timestamp {
		t.Errorf("recent order: %s", b)
	}
	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_history", Arguments: map[string]any{"sessionKey": found.Results[0].SessionKey, "limit": 4}})
	if err != nil || res.IsError {
		t.Fatalf("history: %v %+v", err, res)
	}
	validate(t, tools["sessions_history"], res.StructuredContent)

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "日报", "visibility": "all"}, `unknown argument "visibility"`},
		{map[string]any{"query": "日报", "limit": 10.5}, "limit must be an integer 1..25, got 10.5"},
		{map[string]any{"query": "日报", "order": "newest"}, `order must be "relevance", "recent" or "blend", got "newest"`},
		{map[string]any{"limit": 3}, "query is required"},
		{map[string]any{"query": 7}, "query must be a non-empty string, got 7"},
	} {
		if text, isErr := callTool(t, s, "sessions_search", tc.args); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: error %v, %q; want %q", tc.args, isErr, text, tc.want)
		}
	}
}

// The visibility flags bind every call: a sandboxed caller sees itself and
// what it spawned, whatever its visibility.
func TestMCPSandboxed(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	count := func(args ...string) int {
		s := connectMCP(t, append([]string{"--db", dbFile}, args...)...)
		text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "日报", "limit": 25})
		var res driver.SearchResult
		decodeStrict(t, text, &res)
		if isErr {
			t.Fatalf("%v: %s", args, text)
		}
		return len(res.Results)
	}
	if n := count("--caller", "agent:main:main", "--visibility", "all"); n == 0 {
		t.Fatal("the main session sees nothing")
	}
	if n := count("--caller", "agent:main:main", "--visibility", "all", "--sandboxed"); n != 0 {
		t.Errorf("sandboxed main session sees %d results in sessions it did not spawn", n)
	}
	if n := count("--caller", "agent:main:main", "--visibility", "all", "--sandboxed", "--sandbox-visibility", "all"); n == 0 {
		t.Error("sandbox visibility all sees nothing")
	}
}

// A line that is not JSON gets a JSON-RPC parse error, one that is not a
// JSON-RPC message an invalid-request error, and the server goes on
// answering (docs/cli.md C17).
func TestMCPMalformedInput(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--db", dbFile, "--caller", "agent:main:main")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server stopped: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, lines.Bytes())
		}
		return m
	}
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	errorCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		return code
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{`this is not json`, -32700, nil},
		{`{"jsonrpc":"2.0","id":2,"method":`, -32700, nil},
		{`[1,2,3]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":3}`, -32600, 3.0},
	} {
		send(tc.line)
		if m := next(); errorCode(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: %v; want error %v with id %v", tc.line, m, tc.code, tc.id)
		}
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sessions_search","arguments":{"query":"日报","limit":1}}}`)
	m := next()
	result, _ := m["result"].(map[string]any)
	if m["id"] != 4.0 || result == nil || result["isError"] == true || result["structuredContent"] == nil {
		t.Fatalf("a call after the bad lines: %v", m)
	}
	stdin.Close()
}

// TestMCPFlagsAreTheCeiling: docs/cli.md C20, C21. Over random session
// forests and random visibility flags of a server that lets each call name
// its caller, a call finds exactly what the visibility model shows the
// caller under the flags, whatever else its arguments say: an argument that
// would change the visibility (a visibility option, or a ceiling) is
// refused by name.
func TestMCPFlagsAreTheCeiling(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2026))
	var calls, seen, hidden int
	for range 8 {
		keys, rows, _ := visibilitymodel.RandomForest(rng, 12)
		dbFile := filepath.Join(t.TempDir(), "s.db")
		db := openDB(t, dbFile)
		if _, err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			_, err := db.Exec(`INSERT INTO sessions(session_key, spawned_by, parent_session_key) VALUES (?1, nullif(?2, ''), nullif(?3, ''))`, r.Key, r.SpawnedBy, r.ParentKey)
			if err == nil {
				_, err = db.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, 0, json_object('type', 'message', 'id', ?2, 'message', json_object('role', 'user', 'content', 'zebra')))`,
					r.Key, fmt.Sprint("m", i))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		for range 3 {
			flags := visibilitymodel.RandomOptions(rng, "")
			if flags.Visibility == "bogus" {
				flags.Visibility = "all"
			}
			flags.Allow = slices.DeleteFunc(flags.Allow, func(p string) bool { return p == "" })
			flags.AgentToAgent = len(flags.Allow) > 0
			args := []string{"--db", dbFile, "--trust-client-caller"}
			if flags.Visibility != "" {
				args = append(args, "--visibility", flags.Visibility)
			}
			if flags.Sandboxed {
				args = append(args, "--sandboxed")
			}
			if flags.SandboxVisibility != "" {
				args = append(args, "--sandbox-visibility", flags.SandboxVisibility)
			}
			if flags.AgentToAgent {
				args = append(args, "--agent-to-agent", strings.Join(flags.Allow, ","))
			}
			s := connectMCP(t, args...)
			for range 4 {
				caller := keys[rng.IntN(len(keys))]
				asked := flags
				asked.Caller = caller
				var want []string
				for _, k := range keys {
					if visibilitymodel.Visible(asked, rows, k) {
						want = append(want, k)
						seen++
					} else {
						hidden++
					}
				}
				slices.Sort(want)
				callArgs := map[string]any{"query": "zebra", "limit": 25, "caller": caller}
				if rng.IntN(2) == 0 {
					callArgs["order"] = "recent"
				}
				text, isErr := callTool(t, s, "sessions_search", callArgs)
				var res driver.SearchResult
				decodeStrict(t, text, &res)
				var got []string
				for _, r := range res.Results {
					got = append(got, r.SessionKey)
				}
				slices.Sort(got)
				calls++
				if isErr || !slices.Equal(got, want) {
					t.Fatalf("flags %v, call %v: found %q, want %q (%s)\nrows: %+v", args, callArgs, got, want, text, rows)
				}
				target := keys[rng.IntN(len(keys))]
				text, isErr = callTool(t, s, "sessions_history", map[string]any{"sessionKey": target, "caller": caller})
				if isErr == slices.Contains(want, target) {
					t.Fatalf("flags %v, caller %q: history of %q: %s (tool error %v)", args, caller, target, text, isErr)
				}
				for _, widen := range []string{"visibility", "sandboxed", "agentToAgent", "ceiling"} {
					callArgs[widen] = map[string]any{"visibility": "all", "sandboxed": false, "agentToAgent": map[string]any{"enabled": true, "allow": []string{"*"}}, "ceiling": map[string]any{"visibility": "all"}}[widen]
					text, isErr := callTool(t, s, "sessions_search", callArgs)
					if !isErr || !strings.Contains(text, `unknown argument "`+widen+`"`) {
						t.Fatalf("flags %v, call %v: %s", args, callArgs, text)
					}
					delete(callArgs, widen)
				}
			}
		}
	}
	t.Logf("%d calls: %d sessions seen, %d hidden", calls, seen, hidden)
	if seen < 100 || hidden < 100 {
		t.Errorf("the generator is too narrow: %d seen, %d hidden", seen, hidden)
	}
}
