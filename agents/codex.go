package agents

// OpenAI Codex CLI rollouts (docs/agents/codex.md): one JSONL file per
// thread under $CODEX_HOME/sessions/YYYY/MM/DD/ (or archived_sessions/),
// named rollout-<local time>-<thread uuid>.jsonl, each line
// {"timestamp", "type", "payload"}.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{
		Agent:  Codex,
		Roots:  codexRoots,
		Claims: codexClaims,
		List:   codexList,
	})
}

// The directories of $CODEX_HOME that hold rollouts (docs/agents/codex.md AX1).
const (
	codexSessionsDir = "sessions"
	codexArchivedDir = "archived_sessions"
	codexPrefix      = "rollout-"
	codexSuffix      = ".jsonl"
	// Codex compresses archived rollouts untouched for a week to
	// <name>.jsonl.zst (docs/agents/codex.md AX10).
	codexZstd = ".zst"
)

func codexRoots(env Env) []string {
	home := env.Dir("CODEX_HOME", ".codex")
	return []string{filepath.Join(home, codexSessionsDir), filepath.Join(home, codexArchivedDir)}
}

// codexClaims reports whether path is a Codex home or inside one, by
// names and at most a directory listing or a file's first bytes
// (docs/agents/codex.md AX2).
func codexClaims(path string) bool {
	clean := filepath.Clean(path)
	parts := strings.Split(filepath.ToSlash(clean), "/")
	for i, p := range parts {
		switch {
		case p == ".codex" && (i == len(parts)-1 || parts[i+1] == codexSessionsDir || parts[i+1] == codexArchivedDir):
			return true
		case p == codexSessionsDir && i < len(parts)-1 && codexDateDirs(parts[i+1:]):
			return true // sessions/YYYY[/MM[/DD]]
		}
	}
	base := filepath.Base(clean)
	info, err := os.Stat(clean)
	switch {
	case err != nil:
		return codexRolloutName(base)
	case !info.IsDir():
		return codexRolloutName(base) || strings.HasSuffix(base, ".jsonl") && codexStartsWithMeta(clean)
	case codexTree(clean, base == codexSessionsDir):
		return true
	case base == codexSessionsDir || base == codexArchivedDir:
		// An empty tree of a $CODEX_HOME, told by Codex's config.toml.
		return !codexHasJSONFiles(clean) && codexIsFile(filepath.Join(filepath.Dir(clean), "config.toml"))
	}
	return codexTree(filepath.Join(clean, codexSessionsDir), true) || codexTree(filepath.Join(clean, codexArchivedDir), false)
}

// codexDateDirs reports whether names are YYYY, YYYY/MM or YYYY/MM/DD.
func codexDateDirs(names []string) bool {
	if len(names) > 3 || !codexYear(names[0]) {
		return false
	}
	for _, n := range names[1:] {
		if len(n) != 2 || n[0] < '0' || n[0] > '9' || n[1] < '0' || n[1] > '9' {
			return false
		}
	}
	return true
}

// codexTree reports whether dir holds a rollout file, or (years) a YYYY
// directory.
func codexTree(dir string, years bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && years && codexYear(e.Name()) || !e.IsDir() && codexRolloutName(e.Name()) {
			return true
		}
	}
	return false
}

func codexHasJSONFiles(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") || strings.HasSuffix(e.Name(), ".json") {
			return true
		}
	}
	return false
}

func codexIsFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func codexYear(name string) bool {
	if len(name) != 4 {
		return false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// codexRolloutName reports whether name is rollout-*.jsonl or
// rollout-*.jsonl.zst.
func codexRolloutName(name string) bool {
	name = strings.TrimSuffix(name, codexZstd)
	return strings.HasPrefix(name, codexPrefix) && strings.HasSuffix(name, codexSuffix) && len(name) > len(codexPrefix)+len(codexSuffix)
}

// codexStartsWithMeta reports whether the file's first line is a
// session_meta record. Codex writes the line's "timestamp" first and its
// "type" right after it, so the first bytes tell.
func codexStartsWithMeta(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) && bytes.Contains(head, []byte(`"type":"session_meta"`))
}

// codexFileID returns the thread uuid and start time (the file name's
// local time, read as UTC) of a rollout file name, ok false when the name
// is not rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl.
func codexFileID(name string) (id string, created int64, ok bool) {
	if !codexRolloutName(name) {
		return "", 0, false
	}
	s := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(name, codexZstd), codexPrefix), codexSuffix)
	const stamp = len("2006-01-02T15-04-05")
	if len(s) != stamp+1+36 || s[stamp] != '-' || !codexUUID(s[stamp+1:]) {
		return "", 0, false
	}
	if t, err := time.Parse("2006-01-02T15-04-05", s[:stamp]); err == nil {
		created = t.UnixMilli()
	}
	return s[stamp+1:], created, true
}

func codexUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// codexList lists every rollout under path: a file, a sessions or
// archived_sessions tree, a directory of rollouts, or a Codex home (a
// .codex directory, or one holding such trees: both trees, sessions/
// first). A thread id seen twice (a rollout caught while it is being
// archived) is read from the first file only; the second is a problem.
func codexList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	var files []string
	var problems []Problem
	if !info.IsDir() {
		files = []string{path}
	} else {
		roots := []string{path}
		if base := filepath.Base(filepath.Clean(path)); base == ".codex" ||
			base != codexSessionsDir && base != codexArchivedDir && !codexTree(path, false) &&
				(codexTree(filepath.Join(path, codexSessionsDir), true) || codexTree(filepath.Join(path, codexArchivedDir), false)) {
			// A Codex home: its two trees, live threads first.
			roots = []string{filepath.Join(path, codexSessionsDir), filepath.Join(path, codexArchivedDir)}
		}
		for _, root := range roots {
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) && p == root {
						return nil
					}
					problems = append(problems, Problem{Path: p, Err: err})
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if ctxErr := ctx.Err(); ctxErr != nil {
					return ctxErr
				}
				if !d.IsDir() && codexRolloutName(d.Name()) {
					// A compressed rollout whose plain file is back (Codex
					// decompresses one to append to it) is the plain file's.
					if plain, ok := strings.CutSuffix(p, codexZstd); ok && codexIsFile(plain) {
						return nil
					}
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				problems = append(problems, Problem{Path: root, Err: err})
			}
		}
	}
	var out []Transcript
	seen := map[string]string{}
	for _, file := range files {
		tr, err := codexTranscript(ctx, file)
		if err != nil {
			problems = append(problems, Problem{Path: file, Err: err})
			continue
		}
		if first, dup := seen[tr.Session.Key]; dup {
			problems = append(problems, Problem{Path: file, Err: fmt.Errorf("session %s is also in %s; read from there", tr.Session.Key, first)})
			continue
		}
		seen[tr.Session.Key] = file
		out = append(out, tr)
	}
	return out, problems
}

// codexLine is a rollout line (RolloutLine: timestamp, type, payload).
type codexLine struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// The first layout (docs/agents/codex.md AX11): a bare session meta
	// line first, {"record_type": "state", ...} lines, and bare response
	// items.
	ID         string `json:"id"`
	RecordType string `json:"record_type"`
}

// codexLegacyItems are the response item kinds written bare, without the
// {"type": "response_item", "payload"} envelope, by the first layout.
var codexLegacyItems = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true, "web_search_call": true,
}

// legacyMeta reports whether the line is the first layout's session meta:
// no type, an id.
func (l codexLine) legacyMeta() bool { return l.Type == "" && l.RecordType == "" && l.ID != "" }

// codexMeta is what this reader uses of a session_meta payload.
type codexMeta struct {
	ID           string          `json:"id"`
	ForkedFromID string          `json:"forked_from_id"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Cwd          string          `json:"cwd"`
	Source       json.RawMessage `json:"source"`
	// Some writers put the spawning thread's id at the top of the payload.
	ParentThreadID string `json:"parent_thread_id"`
}

// parent is the thread that spawned this one: source
// {"subagent":{"thread_spawn":{"parent_thread_id":...}}}, else a top-level
// parent_thread_id.
func (m codexMeta) parent() string {
	var src struct {
		Subagent struct {
			ThreadSpawn struct {
				ParentThreadID string `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	if len(m.Source) > 0 && m.Source[0] == '{' && json.Unmarshal(m.Source, &src) == nil && src.Subagent.ThreadSpawn.ParentThreadID != "" {
		return src.Subagent.ThreadSpawn.ParentThreadID
	}
	return m.ParentThreadID
}

var errCodexFirstLine = errors.New("first line read")

// codexTranscript reads the session_meta line a rollout starts with (the
// file name's uuid stands in when there is none) and returns the
// transcript of the file.
func codexTranscript(ctx context.Context, path string) (Transcript, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Transcript{}, err
	}
	var meta codexMeta
	var metaEnd int64
	var lineTime int64
	err = codexLines(ctx, path, func(line []byte, end int64, rec string, bad error) error {
		var l codexLine
		if bad == nil && json.Unmarshal(line, &l) == nil {
			var m codexMeta
			switch {
			case l.Type == "session_meta" && json.Unmarshal(l.Payload, &m) == nil && m.ID != "":
				meta, metaEnd, lineTime = m, end, Millis(l.Timestamp)
			case l.legacyMeta() && json.Unmarshal(line, &m) == nil:
				meta, metaEnd = m, end
			}
		}
		return errCodexFirstLine
	})
	if err != nil && !errors.Is(err, errCodexFirstLine) {
		return Transcript{}, err
	}
	id, created := meta.ID, Millis(meta.Timestamp)
	if created == 0 {
		created = lineTime
	}
	if id == "" {
		fileID, fileTime, ok := codexFileID(filepath.Base(path))
		if !ok {
			return Transcript{}, errors.New("codex: no session_meta line and the file name rollout-<time>-<uuid>.jsonl has no thread id")
		}
		id, created = fileID, fileTime
	}
	sess := store.Session{Key: Key(Codex, id), CreatedAt: created}
	if p := meta.parent(); p != "" {
		sess.SpawnedBy = Key(Codex, p)
	}
	if meta.ForkedFromID != "" {
		sess.ParentSessionKey = Key(Codex, meta.ForkedFromID)
	}
	r := &codexReader{path: path, sessionID: id, created: created, cwd: meta.Cwd, metaEnd: metaEnd}
	compressed := strings.HasSuffix(path, codexZstd)
	events := info.Size()/400 + 1
	if compressed {
		events *= 8
	}
	return Transcript{
		Agent:   Codex,
		Path:    path,
		Session: sess,
		Project: meta.Cwd,
		// A compressed rollout is replaced, never appended to: it is read
		// again in full when its file changes.
		Resumable: !compressed,
		Events:    events,
		Read:      r.read,
	}, nil
}

// codexReader converts one rollout file. The conversion of a line depends
// on two things earlier lines set: the user turns on the active path (for
// thread_rolled_back) and the names of the tool calls (for their outputs).
// A read after a position replays the lines before it without emitting, so
// that it emits exactly the events a read from the start emits after that
// position (docs/agents/codex.md AX9).
type codexReader struct {
	path      string
	sessionID string
	created   int64
	cwd       string
	metaEnd   int64 // end of the session_meta line the header came from, 0 if none
}

// codexState is what the conversion of a line needs from the lines before.
type codexState struct {
	last  string            // id of the entry that is the leaf
	turns []string          // for each user turn on the active path, the entry before it
	names map[string]string // tool name by call id
}

func (r *codexReader) read(ctx context.Context, after int64, emit func(Event) error) error {
	st := &codexState{last: r.sessionID, names: map[string]string{}}
	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	if after < 0 {
		// The header comes first in a read from the start only: a file
		// read while it was empty had its header then, from its name.
		if err := emit(Event{Pos: r.metaEnd, JSON: Header(Codex, r.sessionID, r.created, r.cwd), Rec: "session"}); err != nil {
			return err
		}
	}
	return codexLines(ctx, r.path, func(line []byte, end int64, rec string, bad error) error {
		if bad != nil {
			return send(Event{Pos: end, Rec: rec, Bad: bad})
		}
		for _, ev := range st.convert(line, end, end > after) {
			ev.Rec = rec
			if err := send(ev); err != nil {
				return err
			}
		}
		return nil
	})
}

// codexLines is Lines from the start, for a plain rollout or a compressed
// one (its positions are those of the decompressed bytes, which are the
// plain file's: both give the same events).
func codexLines(ctx context.Context, path string, fn func(line []byte, end int64, rec string, bad error) error) error {
	if !strings.HasSuffix(path, codexZstd) {
		return Lines(ctx, path, -1, fn)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	var fnErr error
	err = readLines(ctx, dec, 0, true, func(line []byte, end int64, rec string, bad error) error {
		fnErr = fn(line, end, rec, bad)
		return fnErr
	})
	if err != nil && err != fnErr && ctx.Err() == nil {
		return fmt.Errorf("codex: decompressing %s: %w", filepath.Base(path), err)
	}
	return err
}

// codexContent is a content item of a message (ContentItem).
type codexContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// codexItem is a response_item payload (ResponseItem), the fields this
// reader uses of each kind.
type codexItem struct {
	Type    string         `json:"type"`
	Role    string         `json:"role"`
	Content codexRawList   `json:"content"`
	Summary []codexContent `json:"summary"`
	// function_call, custom_tool_call, local_shell_call, web_search_call
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    json.RawMessage `json:"action"`
	// function_call_output, custom_tool_call_output
	Output json.RawMessage `json:"output"`
}

// codexRawList is a JSON array of content items, or nothing usable.
type codexRawList []codexContent

func (l *codexRawList) UnmarshalJSON(b []byte) error {
	var items []codexContent
	if json.Unmarshal(b, &items) == nil {
		*l = items
	}
	return nil
}

// convert turns one line into its events (docs/agents/codex.md AX3-AX8).
// With emit false it only updates the state, as a resumed read does for the
// lines before its position: the same lines are bad, the same entries get
// ids, but no event is built and only the payloads that change the state
// are decoded in full.
func (st *codexState) convert(line []byte, end int64, emit bool) []Event {
	var l codexLine
	if err := codexDecode(line, &l); err != nil {
		return []Event{{Pos: end, Bad: fmt.Errorf("codex: line is not a JSON object: %w", err)}}
	}
	if line[0] != '{' {
		return []Event{{Pos: end, Bad: errors.New("codex: line is not a JSON object")}}
	}
	id := "@" + strconv.FormatInt(end, 10)
	t := Millis(l.Timestamp)
	kept := func(typ string) []Event {
		st.last = id
		if !emit {
			return nil
		}
		return []Event{{Pos: end, JSON: Kept(Codex, typ, id, FromLeaf, t, line)}}
	}
	switch {
	case l.Type == "" && l.RecordType != "":
		return kept(l.RecordType) // the first layout's state lines
	case l.legacyMeta():
		return kept("session_meta")
	case l.Type == "":
		return []Event{{Pos: end, Bad: errors.New(`codex: line has no "type"`)}}
	case l.Payload == nil && codexLegacyItems[l.Type]:
		// A bare response item of the first layout.
		l.Payload, l.Type = line, "response_item"
	}
	switch l.Type {
	case "session_meta":
		// The first one is also the header; a later one (a fork copies
		// its parent's history) is a record like any other.
		return kept("session_meta")
	case "response_item":
		var it codexItem
		if emit {
			if err := codexPayload(l.Payload, &it, &it.Type); err != nil {
				return []Event{{Pos: end, Bad: fmt.Errorf("codex: response_item: %w", err)}}
			}
		} else {
			var head struct{ Type, Role string }
			if err := codexPayload(l.Payload, &head, &head.Type); err != nil {
				return []Event{{Pos: end, Bad: fmt.Errorf("codex: response_item: %w", err)}}
			}
			if !codexStateful(head.Type, head.Role) {
				st.last = id
				return nil
			}
			_ = codexDecode(l.Payload, &it) // valid JSON with a type: cannot fail
		}
		m, ok := st.item(it)
		if !ok {
			return kept("response_item." + it.Type)
		}
		st.last = id
		if !emit {
			return nil
		}
		m.ID, m.Parent, m.Time = id, FromLeaf, t
		return []Event{{Pos: end, JSON: Message(m)}}
	case "event_msg":
		var ev struct {
			Type     string          `json:"type"`
			NumTurns json.RawMessage `json:"num_turns"`
		}
		if err := codexPayload(l.Payload, &ev, &ev.Type); err != nil {
			return []Event{{Pos: end, Bad: fmt.Errorf("codex: event_msg: %w", err)}}
		}
		if ev.Type != "thread_rolled_back" {
			return kept("event_msg." + ev.Type)
		}
		n, err := strconv.ParseUint(string(ev.NumTurns), 10, 32)
		if err != nil {
			return []Event{{Pos: end, Bad: fmt.Errorf("codex: thread_rolled_back: num_turns %s: not a count of turns", ev.NumTurns)}}
		}
		out := kept("event_msg.thread_rolled_back")
		if target, ok := st.rollback(int(n)); ok && emit {
			out = append(out, Event{Pos: end, JSON: Leaf("", target, t)})
		}
		return out
	default:
		// turn_context, compacted, and types this reader does not know.
		return kept(l.Type)
	}
}

// codexStateful reports whether a response item changes the state: a user
// message (a turn, unless it is injected context) or a named tool call.
func codexStateful(typ, role string) bool {
	switch typ {
	case "message":
		return role == "user"
	case "function_call", "custom_tool_call", "local_shell_call":
		return true
	}
	return false
}

// codexDecode decodes JSON into v; a value of another type than v's field
// leaves the field empty and is not an error (Codex's own reader, serde,
// would refuse the line, but its other fields are still worth keeping).
func codexDecode(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return nil
	}
	return err
}

// codexPayload decodes a payload that must be a JSON object with a "type".
func codexPayload(raw json.RawMessage, v any, typ *string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("payload is not a JSON object")
	}
	if err := codexDecode(raw, v); err != nil {
		return err
	}
	if *typ == "" {
		return errors.New(`payload has no "type"`)
	}
	return nil
}

// rollback drops the last n user turns of the active path, as Codex drops
// them from its history (docs/agents/codex.md AX7): the leaf moves to the
// entry before the first dropped turn. No user turn: nothing moves.
func (st *codexState) rollback(n int) (target string, ok bool) {
	if n <= 0 || len(st.turns) == 0 {
		return "", false
	}
	k := len(st.turns) - n
	if k < 0 {
		k = 0
	}
	target = st.turns[k]
	st.turns = st.turns[:k]
	st.last = target
	return target, true
}

// item maps a response item to a message; ok is false for the kinds kept
// as records.
func (st *codexState) item(it codexItem) (Msg, bool) {
	switch it.Type {
	case "message":
		blocks := codexBlocks(it.Content)
		switch it.Role {
		case "user":
			if codexContextual(it.Content) {
				return Msg{Role: "system", Content: blocks}, true
			}
			st.turns = append(st.turns, st.last)
			return Msg{Role: "user", Content: blocks}, true
		case "assistant":
			return Msg{Role: "assistant", Content: blocks}, true
		default: // developer, system
			return Msg{Role: "system", Content: blocks}, true
		}
	case "reasoning":
		var blocks []Block
		for _, s := range it.Summary {
			if strings.TrimSpace(s.Text) != "" {
				blocks = append(blocks, Thinking(s.Text))
			}
		}
		for _, c := range it.Content {
			if strings.TrimSpace(c.Text) != "" {
				blocks = append(blocks, Thinking(c.Text))
			}
		}
		return Msg{Role: "assistant", Content: blocks}, true
	case "function_call":
		st.names[it.CallID] = it.Name
		return Msg{Role: "assistant", Content: []Block{ToolCall(it.CallID, it.Name, []byte(it.Arguments))}}, true
	case "custom_tool_call":
		st.names[it.CallID] = it.Name
		return Msg{Role: "assistant", Content: []Block{ToolCall(it.CallID, it.Name, encode(it.Input))}}, true
	case "local_shell_call":
		callID := it.CallID
		if callID == "" {
			callID = it.ID
		}
		st.names[callID] = "local_shell"
		return Msg{Role: "assistant", Content: []Block{ToolCall(callID, "local_shell", it.Action)}}, true
	case "web_search_call":
		return Msg{Role: "assistant", Content: []Block{ToolCall(it.ID, "web_search", it.Action)}}, true
	case "function_call_output", "custom_tool_call_output":
		text, isError := codexOutput(it.Output)
		return Msg{Role: "toolResult", ToolCallID: it.CallID, ToolName: st.names[it.CallID],
			IsError: isError, Content: []Block{Text(text)}}, true
	}
	return Msg{}, false
}

// codexBlocks maps content items: input_text and output_text to text,
// input_image to an image block without its data.
func codexBlocks(items []codexContent) []Block {
	out := []Block{}
	for _, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			out = append(out, Text(c.Text))
		case "input_image":
			mime := "image"
			if rest, ok := strings.CutPrefix(c.ImageURL, "data:"); ok {
				if i := strings.IndexAny(rest, ";,"); i > 0 {
					mime = rest[:i]
				}
			}
			out = append(out, Block{Type: "image", MimeType: mime})
		}
	}
	return out
}

// codexContextMarkers are the start and end of the user-role fragments
// Codex injects as context, not typed by the user (docs/agents/codex.md AX5).
var codexContextMarkers = [][2]string{
	{"<user_instructions>", "</user_instructions>"},
	{"<environment_context>", "</environment_context>"},
	{"# AGENTS.md instructions for ", "</INSTRUCTIONS>"},
	{"<skill>", "</skill>"},
	{"<user_shell_command>", "</user_shell_command>"},
	{"<turn_aborted>", "</turn_aborted>"},
	{"<subagent_notification>", "</subagent_notification>"},
}

// codexContextual reports whether a user message is injected context: one
// of its input_text items starts with a context marker (in any case) and
// ends with its end marker, as Codex decides it.
func codexContextual(items []codexContent) bool {
	for _, c := range items {
		if c.Type != "input_text" {
			continue
		}
		text := strings.TrimSpace(c.Text)
		for _, m := range codexContextMarkers {
			if len(text) >= len(m[0]) && strings.EqualFold(text[:len(m[0])], m[0]) && strings.HasSuffix(text, m[1]) {
				return true
			}
		}
	}
	return false
}

// codexOutput is the text of a tool output: a string, an array of content
// items (their text joined), or {"content", "success"}; isError when
// success is false.
func codexOutput(raw json.RawMessage) (text string, isError bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var items []codexContent
	if json.Unmarshal(raw, &items) == nil {
		var parts []string
		for _, c := range items {
			if c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
		return strings.Join(parts, "\n"), false
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		text, _ = codexOutput(obj.Content)
		return text, obj.Success != nil && !*obj.Success
	}
	return string(bytes.TrimSpace(raw)), false
}
