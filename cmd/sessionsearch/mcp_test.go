package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionsearch/sessionsearch/driver"
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
// contract's JSON, and a bad argument is a tool error the agent can read.
func TestMCPServer(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)

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
			if !slices.Equal(props, []string{"limit", "maxBytes", "order", "prefix", "query", "sessionKey", "snippetChars"}) || !slices.Equal(required, []string{"query"}) {
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

	text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "日报", "limit": 2})
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
	s := connectMCP(t, "--db", dbFile)
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
