package main

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP server: tools sessions_search and sessions_history with the
// contract's parameters, answering with the contract's JSON (as text
// content, and as structured content).
//
// Who asks: with --caller KEY, every call runs as that session, with
// --visibility and --agent-to-agent, and the tools have no caller
// argument, so an agent cannot widen what it sees. Without --caller, each
// call must name its caller in a "caller" argument (the visibility still
// comes from the flags, by default the contract's "tree"); use this only for
// agents you trust to name themselves.

// searchArgs are the arguments of sessions_search.
type searchArgs struct {
	Query        string `json:"query" jsonschema:"words to find; each white-space separated term is matched as a phrase and all terms must match"`
	Limit        *int   `json:"limit,omitempty" jsonschema:"at most this many results, 1..25 (default 10)"`
	SessionKey   string `json:"sessionKey,omitempty" jsonschema:"search only this session"`
	SnippetChars *int   `json:"snippetChars,omitempty" jsonschema:"longest snippet in characters (default 300)"`
	MaxBytes     *int   `json:"maxBytes,omitempty" jsonschema:"cap on the JSON answer in bytes (default 32768)"`
	Prefix       bool   `json:"prefix,omitempty" jsonschema:"match the last term as a prefix"`
	Order        string `json:"order,omitempty" jsonschema:"relevance (default) or recent"`
}

// historyArgs are the arguments of sessions_history.
type historyArgs struct {
	SessionKey   string `json:"sessionKey" jsonschema:"the session to read"`
	Limit        *int   `json:"limit,omitempty" jsonschema:"at most this many messages, 1..1000 (default 200)"`
	MessageID    string `json:"messageId,omitempty" jsonschema:"return a window around this message"`
	IncludeTools bool   `json:"includeTools,omitempty" jsonschema:"also return tool results"`
	MaxChars     *int   `json:"maxChars,omitempty" jsonschema:"longest text per message in characters (default 4000)"`
	MaxBytes     *int   `json:"maxBytes,omitempty" jsonschema:"cap on the JSON answer in bytes (default 81920)"`
}

// callerArg is the caller argument of the tools when --caller is not set.
type callerArg struct {
	Caller string `json:"caller" jsonschema:"the session key of the agent that asks; results are what this session may see"`
}

type searchArgsWithCaller struct {
	callerArg
	searchArgs
}

type historyArgsWithCaller struct {
	callerArg
	historyArgs
}

const (
	searchDescription = "Search the user and assistant messages of the OpenClaw sessions you may see, in any language " +
		"(CJK and Thai by substring, accents and case ignored). Returns JSON " +
		`{"results":[{"sessionKey","messageId","role","timestamp","snippet","score"}],"indexing","truncated"}.`
	historyDescription = "Read the messages of one OpenClaw session (its active branch, oldest first), or a window around " +
		`messageId. Returns JSON {"sessionKey","messages":[{"id","role","timestamp","text"}],"truncated","hasMore"}.`
)

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("mcp"))
	db := fs.dbFlag()
	who := fs.callerFlags(false)
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("mcp takes no arguments, got %q", rest[0])
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	var version string
	if err := store.QueryRowContext(ctx, `SELECT sessionsearch_version()`).Scan(&version); err != nil {
		return err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "sessionsearch", Version: version}, nil)
	t := &tools{db: store.DB, who: who}
	searchTool := &mcp.Tool{Name: "sessions_search", Description: searchDescription}
	historyTool := &mcp.Tool{Name: "sessions_history", Description: historyDescription}
	if who.caller != "" {
		mcp.AddTool(server, searchTool, func(ctx context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
			return t.search(ctx, "", a)
		})
		mcp.AddTool(server, historyTool, func(ctx context.Context, _ *mcp.CallToolRequest, a historyArgs) (*mcp.CallToolResult, any, error) {
			return t.history(ctx, "", a)
		})
	} else {
		mcp.AddTool(server, searchTool, func(ctx context.Context, _ *mcp.CallToolRequest, a searchArgsWithCaller) (*mcp.CallToolResult, any, error) {
			return t.search(ctx, a.Caller, a.searchArgs)
		})
		mcp.AddTool(server, historyTool, func(ctx context.Context, _ *mcp.CallToolRequest, a historyArgsWithCaller) (*mcp.CallToolResult, any, error) {
			return t.history(ctx, a.Caller, a.historyArgs)
		})
	}
	return server.Run(ctx, &mcp.StdioTransport{})
}

// tools answers the tool calls with the store's SQL functions.
type tools struct {
	db  *sql.DB
	who *callerFlags
}

// options are the common options of a call: the flags' caller, or the
// caller argument.
func (t *tools) options(caller string) map[string]any {
	o := t.who.options(false)
	if caller != "" {
		o["caller"] = caller
	}
	return o
}

func (t *tools) search(ctx context.Context, caller string, a searchArgs) (*mcp.CallToolResult, any, error) {
	o := t.options(caller)
	setInt(o, "limit", a.Limit)
	setInt(o, "snippetChars", a.SnippetChars)
	setInt(o, "maxBytes", a.MaxBytes)
	if a.SessionKey != "" {
		o["sessionKey"] = a.SessionKey
	}
	if a.Prefix {
		o["prefix"] = true
	}
	if a.Order != "" {
		o["order"] = a.Order
	}
	return t.call(ctx, `SELECT sessions_search(?, ?)`, a.Query, o)
}

func (t *tools) history(ctx context.Context, caller string, a historyArgs) (*mcp.CallToolResult, any, error) {
	o := t.options(caller)
	setInt(o, "limit", a.Limit)
	setInt(o, "maxChars", a.MaxChars)
	setInt(o, "maxBytes", a.MaxBytes)
	if a.MessageID != "" {
		o["messageId"] = a.MessageID
	}
	if a.IncludeTools {
		o["includeTools"] = true
	}
	return t.call(ctx, `SELECT sessions_history(?, ?)`, a.SessionKey, o)
}

func setInt(o map[string]any, name string, v *int) {
	if v != nil {
		o[name] = *v
	}
}

// call runs one SQL function; its error (a bad option, a hidden session)
// becomes a tool error the agent can read and correct.
func (t *tools) call(ctx context.Context, query, arg string, o map[string]any) (*mcp.CallToolResult, any, error) {
	var js string
	if err := t.db.QueryRowContext(ctx, query, arg, optionsJSON(o)).Scan(&js); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: js}}}, json.RawMessage(js), nil
}
