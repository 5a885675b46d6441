package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/jsonl"
)

// The events a Format emits, in the shape OpenClaw writes them (the session
// header, "message" entries with Anthropic-like content blocks, "leaf"
// entries), so that package transcript reads them as it reads OpenClaw's:
// user and assistant text is searchable; thinking, tool calls, tool results
// and kept records are not (docs/agents.md).

// Header is the first event of a transcript: the session's id, start time
// (epoch ms, 0 when unknown), working directory and agent.
func Header(agent, sessionID string, created int64, cwd string) []byte {
	return encode(struct {
		Type      string `json:"type"`
		Version   int    `json:"version"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp,omitempty"`
		Cwd       string `json:"cwd,omitempty"`
		Agent     string `json:"agent"`
	}{"session", 3, sessionID, isoTime(created), cwd, agent})
}

// Parent is where an entry hangs in the session's tree.
type Parent struct {
	set bool
	id  string
}

// FromLeaf: the entry has no parentId and follows the entry before it (the
// leaf when it is appended), as a linear transcript does.
var FromLeaf = Parent{}

// Root: parentId null, the entry starts a new tree.
var Root = Parent{set: true}

// ParentID is an entry's parent; "" is Root.
func ParentID(id string) Parent { return Parent{set: true, id: id} }

// Block is one content block of a message.
type Block struct {
	Type      string          `json:"type"` // "text", "thinking", "toolCall", "image"
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`        // toolCall
	Name      string          `json:"name,omitempty"`      // toolCall
	Arguments json.RawMessage `json:"arguments,omitempty"` // toolCall: a JSON value
	MimeType  string          `json:"mimeType,omitempty"`  // image
}

// Text is a text block: searchable in a user or assistant message.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking is a reasoning block: kept, never searchable.
func Thinking(s string) Block { return Block{Type: "thinking", Thinking: s} }

// ToolCall is a tool call block; args is the call's JSON arguments, or any
// other text, which is kept as a JSON string.
func ToolCall(id, name string, args []byte) Block {
	return Block{Type: "toolCall", ID: id, Name: name, Arguments: JSONValue(args)}
}

// JSONValue is b when it is one JSON value, else b as a JSON string (null
// when b is empty).
func JSONValue(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	return encode(string(b))
}

// Msg is a message entry.
type Msg struct {
	ID      string // "" only when the source gives none and FromLeaf is right
	Parent  Parent
	Time    int64  // epoch ms, 0 when unknown
	Role    string // "user", "assistant", "toolResult" or "system"
	Content []Block
	// Tool results: the call they answer.
	ToolCallID, ToolName string
	IsError              bool
	Model                string // the model that wrote an assistant message
}

// Message is the event of a message entry.
func Message(m Msg) []byte {
	type message struct {
		Role       string  `json:"role"`
		Content    []Block `json:"content"`
		ToolCallID string  `json:"toolCallId,omitempty"`
		ToolName   string  `json:"toolName,omitempty"`
		IsError    bool    `json:"isError,omitempty"`
		Model      string  `json:"model,omitempty"`
		Timestamp  int64   `json:"timestamp,omitempty"`
	}
	if m.Content == nil {
		m.Content = []Block{}
	}
	return entry("message", m.ID, m.Parent, m.Time, "message",
		message{m.Role, m.Content, m.ToolCallID, m.ToolName, m.IsError, m.Model, m.Time})
}

// chainMessages encodes the messages of one record that is one node of a
// session's tree (a Claude Code or Factory Droid line): they chain from
// the record's parent, and the last takes the record's id, so that the
// records naming it as parent follow all of them.
func chainMessages(msgs []Msg, id string, parent Parent) [][]byte {
	out := make([][]byte, len(msgs))
	for i := range msgs {
		msgs[i].ID = id
		if i < len(msgs)-1 {
			msgs[i].ID = id + "#" + strconv.Itoa(i+1)
		}
		msgs[i].Parent = parent
		parent = ParentID(msgs[i].ID)
		out[i] = Message(msgs[i])
	}
	return out
}

// Kept is a record of the source that is not a message (or of a kind this
// reader does not know): stored as an event of type "<agent>.<typ>" with
// the record under "data", never searchable. With an id it takes part in
// the tree like any entry (Claude Code's system lines do).
func Kept(agent, typ, id string, parent Parent, t int64, data []byte) []byte {
	return entry(agent+"."+typ, id, parent, t, "data", JSONValue(data))
}

// Leaf is a leaf entry: it moves the session's leaf to target (a rewind),
// as OpenClaw's leaf entries do.
func Leaf(id, target string, t int64) []byte {
	return encode(struct {
		Type      string `json:"type"`
		ID        string `json:"id,omitempty"`
		TargetID  string `json:"targetId"`
		Timestamp string `json:"timestamp,omitempty"`
	}{"leaf", id, target, isoTime(t)})
}

// entry encodes {"type","id","parentId","timestamp",<key>: value} with the
// fields in that order, so that the same record always gives the same
// event (a second import compares them byte for byte).
func entry(typ, id string, p Parent, t int64, key string, value any) []byte {
	w := newJSONWriter()
	w.raw(`{"type":`)
	w.value(typ)
	if id != "" {
		w.raw(`,"id":`)
		w.value(id)
	}
	if p.set {
		w.raw(`,"parentId":`)
		if p.id == "" {
			w.raw("null")
		} else {
			w.value(p.id)
		}
	}
	if t != 0 {
		w.raw(`,"timestamp":`)
		w.value(isoTime(t))
	}
	w.raw(`,`)
	w.value(key)
	w.raw(`:`)
	w.value(value)
	w.raw(`}`)
	return w.b.Bytes()
}

// encode is the JSON of v as the events write it: no HTML escaping, no
// trailing newline.
func encode(v any) []byte {
	w := newJSONWriter()
	w.value(v)
	return w.b.Bytes()
}

// A jsonWriter builds one event in one buffer, with one encoder for all its
// values.
type jsonWriter struct {
	b   bytes.Buffer
	enc *json.Encoder
}

func newJSONWriter() *jsonWriter {
	w := &jsonWriter{}
	w.enc = json.NewEncoder(&w.b)
	w.enc.SetEscapeHTML(false)
	return w
}

func (w *jsonWriter) raw(s string) { w.b.WriteString(s) }

// value appends v's JSON; Encode ends it with a newline, which goes.
func (w *jsonWriter) value(v any) {
	if err := w.enc.Encode(v); err != nil {
		panic(fmt.Sprintf("agents: encoding %T: %v", v, err)) // only our own types are encoded
	}
	w.b.Truncate(w.b.Len() - 1)
}

func isoTime(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// Millis reads a time as the agents write them: RFC 3339 text, or a number
// of seconds or milliseconds since 1970 (a number below 1e11 is seconds).
// It returns 0 for anything else.
func Millis(v any) int64 {
	switch t := v.(type) {
	case string:
		if t == "" {
			return 0
		}
		if p, err := time.Parse(time.RFC3339Nano, t); err == nil {
			return p.UnixMilli()
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return Millis(f)
		}
	case float64:
		if t < 1e11 {
			return int64(t * 1000)
		}
		return int64(t)
	case int64:
		return Millis(float64(t))
	case int:
		return Millis(float64(t))
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return Millis(f)
		}
	case json.RawMessage:
		var x any
		if json.Unmarshal(t, &x) == nil {
			return Millis(x)
		}
	}
	return 0
}

// Lines reads the JSONL file at path after byte offset after (-1 or 0: from
// the start) and calls fn with each complete, non-blank line, the offset
// after it and where it is ("line 12" from the start, "line at byte 4096"
// when resumed). A last line without a newline that is not valid JSON is
// still being written: it is left for the next read. A line over
// jsonl.MaxLineBytes is passed with bad set and no line.
func Lines(ctx context.Context, path string, after int64, fn func(line []byte, end int64, rec string, bad error) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	offset := int64(0)
	if after > 0 {
		if _, err := f.Seek(after, io.SeekStart); err != nil {
			return err
		}
		offset = after
	}
	return readLines(ctx, f, offset, false, fn)
}

// readLines is Lines over r, whose first byte is at offset in its file.
// sealed says nothing is appended to r any more (a compressed archive): a
// last line cut off in the middle is then passed with bad set, not left
// for the next read.
func readLines(ctx context.Context, r io.Reader, offset int64, sealed bool, fn func(line []byte, end int64, rec string, bad error) error) error {
	resumed := offset > 0
	lr := jsonl.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, n, complete, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, jsonl.ErrLineTooLong) {
			return err
		}
		start := offset
		offset += int64(n)
		rec := "line " + strconv.Itoa(lr.Line())
		if resumed {
			rec = "line at byte " + strconv.FormatInt(start, 10)
		}
		if !complete && (err != nil || !json.Valid(line)) {
			if !sealed {
				return nil
			}
			return fn(nil, offset, rec, errors.New("the file ends in the middle of this line"))
		}
		if err != nil {
			if err := fn(nil, offset, rec, err); err != nil {
				return err
			}
			continue
		}
		if len(line) == 0 {
			continue
		}
		if err := fn(line, offset, rec, nil); err != nil {
			return err
		}
	}
}

// home is env.Home, else $HOME.
func (env Env) home() string {
	if env.Home != "" {
		return env.Home
	}
	return env.getenv("HOME")
}

func (env Env) getenv(name string) string {
	if env.Getenv == nil {
		return os.Getenv(name)
	}
	return env.Getenv(name)
}

// Dir is $name when it is set, else def under the home directory.
func (env Env) Dir(name string, def ...string) string {
	if v := strings.TrimSpace(env.getenv(name)); v != "" {
		return v
	}
	return filepath.Join(append([]string{env.home()}, def...)...)
}
