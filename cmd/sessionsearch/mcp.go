package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/query"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// The MCP server: tools sessions_search and sessions_history over stdio
// (docs/cli.md C13..C17).
//
// Who asks is decided by the operator, at start: --caller KEY binds every
// call to that session, with the visibility flags, and the tools have no
// caller argument, so an agent cannot widen what it sees by naming another
// session. The flags are passed as the ceiling of every call too
// (docs/cli.md C20), so no argument a tool takes can show more. Without --caller the server refuses to start, unless
// --trust-client-caller says that the client is trusted to name the caller
// in each call (a gateway that serves several agents and knows which one
// asks); the tools then take a required "caller" argument. The visibility
// flags apply to every call either way.

// trustFlag is the flag that lets each call name its caller.
const trustFlag = "trust-client-caller"

const (
	searchDescription = "Search the user and assistant messages of the OpenClaw sessions you may see, in any language " +
		"(CJK and Thai by substring, accents and case ignored). Ask in plain words, as you would ask a person; " +
		"\"quotes\" make a phrase, a OR b either word, -word leaves out messages with it, word* is a prefix. " +
		"Messages that hold every word come first, then those with other forms of the words (plurals, tenses) " +
		"or most of them (each result's match and words say which). Results are grouped by session, best " +
		"session first with up to perSession hits each (group message for single messages); each has a snippet " +
		"around the match, secrets masked. Use exclude to page past sessions already seen."
	historyDescription = "Read the messages of one OpenClaw session (its active branch, oldest first), or a window " +
		"around messageId (for example a search result's). Secrets in texts are masked."
)

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("mcp"))
	db := fs.dbFlag()
	var bound driver.Options
	fs.optionFlags(&bound, &bound, visibilitySpecs())
	trust := fs.Bool(trustFlag, false, "let each tool call name its caller in a required \"caller\" argument, instead of --caller: only for a client you trust to name the agent that asks")
	src := fs.sourceFlags()
	fs.notes = []string{
		"The server needs to know who asks. With --caller KEY every call runs as\n" +
			"that session (with --visibility, --sandboxed, --sandbox-visibility and\n" +
			"--agent-to-agent), and the tools have no caller argument: an agent\n" +
			"cannot see more by naming another session. Without --caller the server\n" +
			"does not start, unless --" + trustFlag + " is given: then each call\n" +
			"names its caller and the server believes it, so a client that lets a\n" +
			"model fill in the argument lets it read any session, incognito ones\n" +
			"included. Use it only behind a client that names the caller itself.",
	}
	if err := fs.noArgs(args); err != nil {
		return err
	}
	switch {
	case bound.Caller != "" && *trust:
		return usagef("--caller %q and --%s exclude each other: either the server binds the caller, or each call names it", bound.Caller, trustFlag)
	case bound.Caller == "" && !*trust:
		return usagef("mcp needs --caller KEY, the session the agent searches as (see 'sessionsearch sessions'); or --%s to let each call name its caller", trustFlag)
	}
	enableAgentToAgent(&bound)
	store, err := src.open(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	defer src.close()
	var version string
	if err := store.QueryRowContext(ctx, `SELECT sessionsearch_version()`).Scan(&version); err != nil {
		return err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "sessionsearch", Version: version}, &mcp.ServerOptions{
		// The two tools are fixed: no list_changed notifications.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
	})
	t := &tools{store: store, bound: bound, trust: *trust, src: src}
	t.add(server, "sessions_search", "Search sessions", searchDescription, "query", ownSpecs(sqlfuncs.AnswerOptionSpecs()), searchOutputSchema, t.search)
	t.add(server, "sessions_history", "Read a session", historyDescription, "sessionKey", ownSpecs(sqlfuncs.HistoryOptionSpecs()), historyOutputSchema, t.history)
	err = server.Run(ctx, &lineTransport{in: os.Stdin, out: os.Stdout})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// tools answers the tool calls through the driver.
type tools struct {
	store *driver.DB
	bound driver.Options // the visibility flags
	trust bool           // each call names its caller
	src   *sourceFlags   // synced before each search (docs/sync.md Y12)
	mu    sync.Mutex     // one sync at a time
}

// add adds a tool: its input schema built from the option table
// (integers with their range and default, enums), its output schema, and
// annotations that say it only reads the local store. first is the
// required argument that is not an option (the query, the session key).
//
// The handler checks the arguments itself, with the store's option parser,
// so that a bad value gets the store's message ("limit must be an integer
// 1..25, got 99"), as in SQL and on the command line.
func (t *tools) add(server *mcp.Server, name, title, description, first string, specs sqlfuncs.OptionSpecs, output map[string]any,
	run func(ctx context.Context, first string, options string) (any, error)) {
	props := map[string]any{}
	required := []string{first}
	switch first {
	case "query":
		props["query"] = map[string]any{"type": "string", "minLength": 1, "maxLength": query.MaxChars, "description": "the words to find"}
	case "sessionKey":
		props["sessionKey"] = map[string]any{"type": "string", "minLength": 1, "description": "the key of the session to read"}
	}
	if t.trust {
		caller, _ := sqlfuncs.SearchOptionSpecs().Lookup("caller")
		props["caller"] = caller.Schema()
		required = append(required, "caller")
	}
	for name, p := range specs.Schema()["properties"].(map[string]any) {
		props[name] = p
	}
	tool := &mcp.Tool{
		Name:         name,
		Title:        title,
		Description:  description,
		InputSchema:  map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false},
		OutputSchema: output,
		Annotations: &mcp.ToolAnnotations{
			Title:          title,
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  new(bool), // false: the local store only
		},
	}
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := t.call(ctx, req.Params.Arguments, props, required, run)
		if err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return nil, err
		}
		js := bytes.TrimSpace(b.Bytes())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(js)}}, StructuredContent: json.RawMessage(js)}, nil
	})
}

// call checks a call's arguments against the tool's parameters and runs
// it with the options JSON: the bound visibility flags, then the call's
// options (and caller, when trusted).
func (t *tools) call(ctx context.Context, raw json.RawMessage, props map[string]any, required []string,
	run func(ctx context.Context, first string, options string) (any, error)) (any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // 10.0 stays 10.0, for the parser to refuse
		if err := dec.Decode(&args); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
	}
	for name := range args {
		if _, ok := props[name]; !ok {
			if name == "caller" {
				return nil, fmt.Errorf("caller is not an argument: the server runs every call as %q (sessionsearch mcp --caller)", t.bound.Caller)
			}
			return nil, fmt.Errorf("unknown argument %q", name)
		}
	}
	for _, name := range required {
		if _, ok := args[name]; !ok {
			return nil, fmt.Errorf("%s is required", name)
		}
	}
	first, ok := args[required[0]].(string)
	if !ok || first == "" {
		return nil, fmt.Errorf("%s must be a non-empty string, got %s", required[0], jsonText(args[required[0]]))
	}
	delete(args, required[0])
	if !t.trust {
		args["caller"] = t.bound.Caller
	}
	js, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return run(ctx, first, string(js))
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func object(props map[string]any) map[string]any {
	required := make([]string, 0, len(props))
	for k := range props {
		required = append(required, k)
	}
	slices.Sort(required)
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// optional adds properties that an object may leave out.
func optional(obj map[string]any, props map[string]any) map[string]any {
	for k, v := range props {
		obj["properties"].(map[string]any)[k] = v
	}
	return obj
}

var (
	str = map[string]any{"type": "string"}

	searchOutputSchema = object(map[string]any{
		"results": map[string]any{"type": "array", "items": optional(object(map[string]any{
			"sessionKey": str, "messageId": str, "role": str, "snippet": str,
			"timestamp": map[string]any{"type": "integer", "description": "epoch milliseconds"},
			"score":     map[string]any{"type": "number", "description": "higher is better"},
		}), map[string]any{
			"match":        map[string]any{"type": "string", "enum": []any{"all", "forms", "some"}, "description": "whether the message holds every word, every word in some form, or some words"},
			"words":        map[string]any{"type": "array", "items": str, "description": "the words of the query it holds, when not all"},
			"repeats":      map[string]any{"type": "integer", "description": "near-identical messages of its session folded into it"},
			"sessionScore": map[string]any{"type": "number", "description": "the score of its session, when grouped by session"},
			"kind":         map[string]any{"type": "string", "enum": []any{"message", "toolCall", "toolResult"}, "description": "what the hit is, when the scope goes beyond messages"},
			"tool":         map[string]any{"type": "string", "description": "the tool of a tool call or result"},
		})},
		"indexing":  map[string]any{"type": "boolean", "description": "a visible session waits for indexing: results may be incomplete"},
		"truncated": map[string]any{"type": "boolean", "description": "more results exist than were returned"},
	})
	historyOutputSchema = object(map[string]any{
		"sessionKey": str,
		"messages": map[string]any{"type": "array", "items": object(map[string]any{
			"id": str, "role": str, "text": str,
			"timestamp": map[string]any{"type": "integer", "description": "epoch milliseconds"},
		})},
		"truncated": map[string]any{"type": "boolean", "description": "some text was shortened to fit"},
		"hasMore":   map[string]any{"type": "boolean", "description": "more messages exist beyond the window"},
	})
)

// withBound runs a call as caller under the visibility flags, which are
// also the ceiling of the call (docs/search.md Q22): whatever a tool
// argument asks, the call shows nothing the flags alone hide.
func (t *tools) withBound(caller string) driver.Options {
	o, ceiling := t.bound, t.bound
	o.Caller, ceiling.Caller = caller, ""
	o.Ceiling = &ceiling
	return o
}

func (t *tools) search(ctx context.Context, query, options string) (any, error) {
	opts, err := sqlfuncs.ParseAnswerOptions(options)
	if err != nil {
		return nil, err
	}
	opts.Options = t.withBound(opts.Caller)
	t.mu.Lock()
	syncing, err := t.src.syncFirst(ctx, t.store.DB)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	res, err := t.store.Search(ctx, query, opts)
	if err == nil && syncing {
		res.Indexing = true
	}
	return res, err
}

func (t *tools) history(ctx context.Context, key, options string) (any, error) {
	opts, err := sqlfuncs.ParseHistoryOptions(options)
	if err != nil {
		return nil, err
	}
	opts.Options = t.withBound(opts.Caller)
	return t.store.History(ctx, key, opts)
}

// maxLine is the longest message line the server reads, as the SDK's own
// stdio transport.
const maxLine = mcp.DefaultMaxLineLength

// lineTransport is MCP's stdio transport that survives bad input: a line
// that is not JSON gets a JSON-RPC parse error, and one that is not a
// JSON-RPC message an invalid-request error, and the server reads on
// (docs/cli.md C17). The SDK's own transport ends the session instead.
type lineTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: t.out}
	go t.filter(pw, w)
	return (&mcp.IOTransport{Reader: pr, Writer: w}).Connect(ctx)
}

// filter copies the well-formed messages of t.in to pw, one per line, and
// answers the others on w.
func (t *lineTransport) filter(pw *io.PipeWriter, w *lockedWriter) {
	r := bufio.NewReaderSize(t.in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			tooLong, line = true, line[:0]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			w.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a message line over %d bytes", maxLine))
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if ok := t.check(msg, w); ok {
				if _, werr := pw.Write(append(msg, '\n')); werr != nil {
					return
				}
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// check reports whether msg is a JSON-RPC message, and answers it if not.
func (t *lineTransport) check(msg []byte, w *lockedWriter) bool {
	if !json.Valid(msg) {
		w.reply(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
		return false
	}
	if msg[0] != '{' {
		w.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is one JSON object (batches are not supported)")
		return false
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	json.Unmarshal(msg, &head)
	_, err := jsonrpc.DecodeMessage(msg)
	switch {
	case err != nil:
		w.reply(head.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	case head.Method == nil && (head.ID == nil || head.Result == nil && head.Error == nil):
		// Neither a request, a notification nor a response.
		w.reply(head.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: no method")
	default:
		return true
	}
	return false
}

// lockedWriter serialises the SDK's messages and the filter's errors.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// reply writes a JSON-RPC error response; id is null when unknown.
func (l *lockedWriter) reply(id json.RawMessage, code int, message string) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	l.Write(append(b, '\n'))
}
