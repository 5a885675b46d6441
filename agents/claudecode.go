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
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/jsonl"
	"github.com/sessionsearch/sessionsearch/store"
)

// Claude Code's history (docs/agents/claude-code.md): one JSONL file per
// session under <config>/projects/<encoded cwd>/<session id>.jsonl, whose
// user and assistant lines form a tree by uuid and parentUuid; sub-agent
// runs in files of their own, or (before 2.0.28) as isSidechain lines of the
// main file.

func init() {
	register(&Format{Agent: ClaudeCode, Roots: ccRoots, Claims: ccClaims, List: ccList})
}

// ccConfigEnv names Claude Code's configuration directory when set
// (docs/agents/claude-code.md AC1).
const ccConfigEnv = "CLAUDE_CONFIG_DIR"

// ccRoots: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects and
// ~/.config/claude/projects (one of them when both are the same directory).
// docs/agents/claude-code.md AC1.
func ccRoots(env Env) []string {
	if dir := strings.TrimSpace(env.getenv(ccConfigEnv)); dir != "" {
		return []string{filepath.Join(dir, "projects")}
	}
	home := env.home()
	roots := []string{filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".config", "claude", "projects")}
	a, errA := filepath.EvalSymlinks(roots[0])
	b, errB := filepath.EvalSymlinks(roots[1])
	if errA == nil && errB == nil && a == b {
		return roots[:1]
	}
	return roots
}

// ccIsConfigDir reports whether dir is named as Claude Code's configuration
// directory: ".claude", ".config/claude" or $CLAUDE_CONFIG_DIR.
func ccIsConfigDir(dir string) bool {
	switch filepath.Base(dir) {
	case ".claude":
		return true
	case "claude":
		if filepath.Base(filepath.Dir(dir)) == ".config" {
			return true
		}
	}
	env := strings.TrimSpace(os.Getenv(ccConfigEnv))
	return env != "" && filepath.Clean(env) == dir
}

// ccInProjects reports whether path is a configuration directory's
// projects directory or inside one.
func ccInProjects(path string) bool {
	for d := path; ; {
		if filepath.Base(d) == "projects" && ccIsConfigDir(filepath.Dir(d)) {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// ccClaims: the configuration directory, its projects directory and every
// path inside that, by name; else a .jsonl file whose first lines look like
// Claude Code's, or a directory laid out as the store is (a projects
// directory, or one holding one, or a project directory) whose first .jsonl
// file does (docs/agents/claude-code.md AC2).
func ccClaims(path string) bool {
	p := filepath.Clean(path)
	if ccIsConfigDir(p) || ccInProjects(p) {
		return true
	}
	if strings.HasSuffix(p, ".jsonl") {
		return ccSniff(p)
	}
	switch {
	case filepath.Base(p) == "projects":
		return ccSniffProjects(p)
	case ccIsDir(filepath.Join(p, "projects")):
		return ccSniffProjects(filepath.Join(p, "projects"))
	}
	file, _ := ccFirstJSONL(p)
	return file != "" && ccSniff(file)
}

// ccSniffProjects sniffs the first .jsonl file of the first project
// directory of a projects directory that has one.
func ccSniffProjects(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if file, _ := ccFirstJSONL(filepath.Join(dir, e.Name())); file != "" {
			return ccSniff(file)
		}
	}
	return false
}

// ccFirstJSONL is the first .jsonl file directly in dir, by name.
func ccFirstJSONL(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", nil
}

// ccSniffBytes is how much of a file Claims reads.
const ccSniffBytes = 8 << 10

// ccSniff reports whether the first lines of a file carry a sessionId and a
// uuid or parentUuid field at their top level, as every conversation line
// of Claude Code does. The first line that does not fit in the bytes read
// is judged by its keys' text.
func ccSniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, ccSniffBytes)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	for len(buf) > 0 {
		line, rest, complete := bytes.Cut(buf, []byte("\n"))
		buf = rest
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !complete && n == ccSniffBytes {
			return bytes.Contains(line, []byte(`"sessionId":`)) &&
				(bytes.Contains(line, []byte(`"uuid":`)) || bytes.Contains(line, []byte(`"parentUuid":`)))
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(line, &keys) != nil {
			continue
		}
		_, sid := keys["sessionId"]
		_, uuid := keys["uuid"]
		_, parent := keys["parentUuid"]
		if sid && (uuid || parent) {
			return !qwenLine(keys) // Qwen Code's records have both too
		}
	}
	return false
}

// ccUUID is the shape of Claude Code's session file names.
var ccUUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ccFile is a transcript file and what its place says it is.
type ccFile struct {
	path    string
	agentID string // "" for a main session file
	parent  string // the parent session id of a sub-agent file named by its directory
}

// ccClassify says what the file at path is from its name and place
// (docs/agents/claude-code.md AC3): <session>/subagents/**/agent-<id>.jsonl
// is a sub-agent of <session>; agent-<id>.jsonl elsewhere is a sub-agent
// whose parent its lines name; <uuid>.jsonl is a session. strict (walking a
// directory) skips any other .jsonl file; a file named by the user is read
// as a session named by its file name.
func ccClassify(path string, strict bool) (ccFile, bool) {
	name := filepath.Base(path)
	if !strings.HasSuffix(name, ".jsonl") {
		return ccFile{}, false
	}
	stem := strings.TrimSuffix(name, ".jsonl")
	if id, ok := strings.CutPrefix(stem, "agent-"); ok && id != "" {
		for d := filepath.Dir(path); ; {
			parent := filepath.Dir(d)
			if filepath.Base(d) == "subagents" {
				return ccFile{path: path, agentID: id, parent: filepath.Base(parent)}, true
			}
			if parent == d || filepath.Base(parent) == "projects" {
				break
			}
			d = parent
		}
		return ccFile{path: path, agentID: id}, true
	}
	if strict {
		// A session file sits in a project directory, never in a session's
		// own directory (tool-results/, subagents/journal.jsonl, ...).
		if !ccUUID.MatchString(stem) || ccUnderSessionDir(path) {
			return ccFile{}, false
		}
	}
	return ccFile{path: path}, true
}

// ccUnderSessionDir reports whether path is inside a session's directory
// (<project>/<session uuid>/...) rather than directly in a project's.
func ccUnderSessionDir(path string) bool {
	for d := filepath.Dir(path); ; {
		parent := filepath.Dir(d)
		if parent == d || filepath.Base(parent) == "projects" {
			return false
		}
		if ccUUID.MatchString(filepath.Base(d)) {
			return true
		}
		d = parent
	}
}

// ccList lists the transcripts under path: a configuration directory (its
// projects/), a projects directory, a project directory, a session's
// directory or one file.
func ccList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	var files []ccFile
	var problems []Problem
	if !info.IsDir() {
		if f, ok := ccClassify(path, false); ok {
			files = append(files, f)
		} else {
			problems = append(problems, Problem{Path: path, Err: errors.New("not a .jsonl file")})
		}
	} else {
		root := path
		if sub := filepath.Join(path, "projects"); filepath.Base(path) != "projects" && ccIsDir(sub) {
			root = sub // a configuration directory: only its projects are transcripts
		} else if ccIsConfigDir(filepath.Clean(path)) {
			return nil, nil // a configuration directory without sessions yet
		}
		problems = walkFiles(ctx, root, func(p, _ string) bool {
			if f, ok := ccClassify(p, true); ok {
				files = append(files, f)
			}
			return true
		})
	}
	var out []Transcript
	for _, f := range files {
		ts, err := ccTranscripts(ctx, f)
		if err != nil {
			problems = append(problems, Problem{Path: f.path, Err: err})
			continue
		}
		out = append(out, ts...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Unit < out[j].Unit
	})
	return out, problems
}

func ccIsDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// ccHead is what the first lines of a file say of its session.
type ccHead struct {
	sessionID string // the first line's sessionId
	cwd       string // the first cwd
	created   int64  // the first timestamp, epoch ms
	version   string // the first Claude Code version
}

// ccHeadLines and ccHeadBytes bound how far ccReadHead reads: the first
// conversation line, which carries all four, comes within the first few
// lines.
const (
	ccHeadLines = 64
	ccHeadBytes = 64 << 10
)

// ccReadHead reads the head of a file: the session's id, cwd, start and
// version, each from the first line that has it (docs/agents/claude-code.md
// AC4).
func ccReadHead(path string) (ccHead, error) {
	f, err := os.Open(path)
	if err != nil {
		return ccHead{}, err
	}
	defer f.Close()
	var h ccHead
	lr := jsonl.NewReader(f)
	read := 0
	for lines := 0; lines < ccHeadLines && read < ccHeadBytes; lines++ {
		line, n, _, err := lr.Next()
		if err == io.EOF {
			break
		}
		read += n
		if errors.Is(err, jsonl.ErrLineTooLong) {
			continue
		}
		if err != nil {
			return h, err
		}
		var r struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Timestamp any    `json:"timestamp"`
			Version   string `json:"version"`
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if h.sessionID == "" {
			h.sessionID = r.SessionID
		}
		if h.cwd == "" {
			h.cwd = r.Cwd
		}
		if h.created == 0 {
			h.created = Millis(r.Timestamp)
		}
		if h.version == "" {
			h.version = r.Version
		}
		if h.sessionID != "" && h.cwd != "" && h.created != 0 && h.version != "" {
			break
		}
	}
	return h, nil
}

// ccTranscripts returns the transcripts of one file: the session (or
// sub-agent run) it holds and, for a main file written by a version that
// kept sub-agent runs in it, one transcript per run.
func ccTranscripts(ctx context.Context, f ccFile) ([]Transcript, error) {
	info, err := os.Stat(f.path)
	if err != nil {
		return nil, err
	}
	head, err := ccReadHead(f.path)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(f.path), ".jsonl")
	sessionID, spawnedBy := stem, ""
	if f.agentID != "" {
		parent := f.parent
		if parent == "" {
			parent = head.sessionID
		}
		if parent != "" {
			sessionID = parent + ":subagent:" + f.agentID
			spawnedBy = Key(ClaudeCode, parent)
		}
	}
	main := Transcript{
		Agent:     ClaudeCode,
		Path:      f.path,
		Session:   store.Session{Key: Key(ClaudeCode, sessionID), SpawnedBy: spawnedBy, CreatedAt: head.created},
		Project:   head.cwd,
		Resumable: true,
		Events:    info.Size()/1024 + 1,
	}
	side := f.agentID != "" // every line of a sub-agent file is a sidechain line
	main.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		if after < 0 {
			if err := emit(Event{JSON: Header(ClaudeCode, sessionID, head.created, head.cwd), Rec: "header"}); err != nil {
				return err
			}
		}
		return Lines(ctx, f.path, after, func(line []byte, end int64, rec string, bad error) error {
			if bad != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: bad})
			}
			return ccEmitLine(line, end, rec, side, emit)
		})
	}
	out := []Transcript{main}
	if f.agentID == "" && ccMayHoldSidechains(head.version) {
		runs, err := ccSidechainRuns(ctx, f.path)
		if err != nil {
			return nil, err
		}
		for _, run := range runs {
			out = append(out, ccSidechainTranscript(f.path, stem, run, info.Size()))
		}
	}
	return out, nil
}

// ccMayHoldSidechains reports whether a main file written by Claude Code
// version v may hold sub-agent runs as isSidechain lines: versions before
// 2.1 (they moved to agent-<id>.jsonl files during 2.0), or an unknown one
// (docs/agents/claude-code.md AC9).
func ccMayHoldSidechains(v string) bool {
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return true
	}
	return ma < 2 || (ma == 2 && mi < 1)
}

// ccRun is one sub-agent run kept in a main file: the sidechain line with
// parentUuid null that starts it.
type ccRun struct {
	root    string
	created int64
	cwd     string
}

var ccSidechainMarks = [][]byte{[]byte(`"isSidechain":true`), []byte(`"isSidechain": true`)}

// ccSidechainRuns finds the runs a main file holds as isSidechain lines.
func ccSidechainRuns(ctx context.Context, path string) ([]ccRun, error) {
	var runs []ccRun
	err := Lines(ctx, path, -1, func(line []byte, _ int64, _ string, bad error) error {
		if bad != nil || !(bytes.Contains(line, ccSidechainMarks[0]) || bytes.Contains(line, ccSidechainMarks[1])) {
			return nil
		}
		var r ccRecord
		if json.Unmarshal(line, &r) != nil || !r.IsSidechain || r.UUID == "" || !r.rootLine() {
			return nil
		}
		runs = append(runs, ccRun{root: r.UUID, created: Millis(r.Timestamp), cwd: r.Cwd})
		return nil
	})
	return runs, err
}

// ccSidechainTranscript is the transcript of one run kept in a main file:
// the sidechain lines descending from its root, as a session spawned by the
// file's session. Which lines belong to it depends on the lines before, so
// it is read from the start each time.
func ccSidechainTranscript(path, parent string, run ccRun, size int64) Transcript {
	sessionID := parent + ":subagent:" + run.root
	return Transcript{
		Agent:   ClaudeCode,
		Path:    path,
		Unit:    "sidechain:" + run.root,
		Session: store.Session{Key: Key(ClaudeCode, sessionID), SpawnedBy: Key(ClaudeCode, parent), CreatedAt: run.created},
		Project: run.cwd,
		Events:  size/4096 + 1,
		Read: func(ctx context.Context, _ int64, emit func(Event) error) error {
			if err := emit(Event{JSON: Header(ClaudeCode, sessionID, run.created, run.cwd), Rec: "header"}); err != nil {
				return err
			}
			members := map[string]bool{}
			return Lines(ctx, path, -1, func(line []byte, end int64, rec string, bad error) error {
				if bad != nil || !(bytes.Contains(line, ccSidechainMarks[0]) || bytes.Contains(line, ccSidechainMarks[1])) {
					return nil // reported by the main file's transcript
				}
				var r ccRecord
				if json.Unmarshal(line, &r) != nil || !r.IsSidechain || r.UUID == "" {
					return nil
				}
				if r.UUID != run.root && !members[r.parent()] {
					return nil
				}
				members[r.UUID] = true
				return ccEmitLine(line, end, rec, true, emit)
			})
		},
	}
}

// ccRecord is the part of a line this reader uses.
type ccRecord struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        json.RawMessage `json:"parentUuid"` // absent, null or a string
	LogicalParentUUID string          `json:"logicalParentUuid"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	Cwd               string          `json:"cwd"`
	Timestamp         any             `json:"timestamp"`
	Message           *ccMessage      `json:"message"`
}

// hasParent: the line has a parentUuid field (null counts).
func (r *ccRecord) hasParent() bool { return len(r.ParentUUID) > 0 }

// parent is the parentUuid, "" when null or absent.
func (r *ccRecord) parent() string {
	var s string
	if json.Unmarshal(r.ParentUUID, &s) != nil {
		return ""
	}
	return s
}

// rootLine: parentUuid is null (or empty).
func (r *ccRecord) rootLine() bool { return r.hasParent() && r.parent() == "" }

// treeParent is where a line hangs (docs/agents/claude-code.md AC6): its
// parentUuid; for a compact boundary, which starts a new root, the
// logicalParentUuid it continues.
func (r *ccRecord) treeParent() Parent {
	if !r.hasParent() {
		return FromLeaf
	}
	p := r.parent()
	if p == "" && r.Type == "system" && r.Subtype == "compact_boundary" && r.LogicalParentUUID != "" {
		p = r.LogicalParentUUID
	}
	return ParentID(p)
}

// ccMessage is an Anthropic message as Claude Code stores it.
type ccMessage struct {
	Role    string    `json:"role"`
	Model   string    `json:"model"`
	Content ccContent `json:"content"`
}

// ccContent is message.content: a string or blocks, decoded in the line's
// one pass.
type ccContent struct {
	isText bool
	text   string
	blocks []ccBlock
}

// ccContentError is why message.content could not be read.
type ccContentError struct{ err error }

func (e ccContentError) Error() string {
	return `field "message.content" is neither text nor blocks: ` + e.err.Error()
}

func (c *ccContent) UnmarshalJSON(b []byte) error {
	var err error
	switch b[0] {
	case '"':
		c.isText = true
		err = json.Unmarshal(b, &c.text)
	case '[':
		err = json.Unmarshal(b, &c.blocks)
	case 'n':
	default:
		err = fmt.Errorf("got %.20s", b)
	}
	if err != nil {
		return ccContentError{err}
	}
	return nil
}

// ccBlock is one content block.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks
	IsError   bool            `json:"is_error"`
	Source    struct {
		MediaType string `json:"media_type"`
	} `json:"source"`
}

// ccEmitLine emits the events of one line (ccConvert), or the line as a
// bad record.
func ccEmitLine(line []byte, end int64, rec string, sidechain bool, emit func(Event) error) error {
	events, err := ccConvert(line, end, sidechain)
	if err != nil {
		return emit(Event{Pos: end, Rec: rec, Bad: err})
	}
	for _, ev := range events {
		if err := emit(Event{Pos: end, JSON: ev, Rec: rec}); err != nil {
			return err
		}
	}
	return nil
}

// ccConvert turns one line into events (docs/agents/claude-code.md AC5-AC8).
// end is the offset after the line: the id of a message line without a
// uuid. sidechain says whether the transcript is a sub-agent run, whose
// lines all carry isSidechain; in a main file such lines are kept only.
func ccConvert(line []byte, end int64, sidechain bool) ([][]byte, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, errors.New("line is not a JSON object")
	}
	var r ccRecord
	if err := json.Unmarshal(line, &r); err != nil {
		var content ccContentError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &content):
			return nil, content
		case errors.As(err, &typ) && typ.Field == "message":
			return nil, fmt.Errorf(`field "message" is not a message: %v`, err)
		}
		return nil, fmt.Errorf("line is not a JSON object: %v", err)
	}
	if r.Type == "" {
		return nil, errors.New(`field "type" is missing`)
	}
	t := Millis(r.Timestamp)
	if r.IsSidechain && !sidechain {
		// A sub-agent run kept in the main file: its own transcript
		// (ccSidechainTranscript); here it is kept, outside the tree, so that
		// it never moves the session's leaf.
		return [][]byte{Kept(ClaudeCode, "sidechain", "", FromLeaf, t, line)}, nil
	}
	switch r.Type {
	case "user", "assistant":
	default:
		// summary, system, progress, file-history-snapshot, queue-operation,
		// and types this reader does not know: kept, never searchable; in the
		// tree when they have a uuid and a parentUuid (system lines do).
		if r.UUID != "" && r.hasParent() {
			return [][]byte{Kept(ClaudeCode, r.Type, r.UUID, r.treeParent(), t, line)}, nil
		}
		return [][]byte{Kept(ClaudeCode, r.Type, "", FromLeaf, t, line)}, nil
	}
	if r.Message == nil {
		return nil, fmt.Errorf(`field "message" is missing on a %q line`, r.Type)
	}
	id := r.UUID
	if id == "" {
		id = "byte:" + strconv.FormatInt(end, 10)
	}
	return chainMessages(ccMessages(r.Type, &r, r.Message, t), id, r.treeParent()), nil
}

// ccMessages converts a user or assistant message into messages (ids and
// parents left to the caller).
func ccMessages(typ string, r *ccRecord, m *ccMessage, t int64) []Msg {
	if m.Content.isText {
		role := typ
		if typ == "user" && (r.IsMeta || r.IsCompactSummary) {
			role = "system"
		}
		return []Msg{{Time: t, Role: role, Content: []Block{Text(m.Content.text)}, Model: m.Model}}
	}
	blocks := m.Content.blocks
	if typ == "assistant" {
		content := []Block{}
		for _, b := range blocks {
			if cb, ok := ccAssistantBlock(b); ok {
				content = append(content, cb)
			}
		}
		return []Msg{{Time: t, Role: "assistant", Content: content, Model: m.Model}}
	}
	// A user line: tool results ride on it but are never user text
	// (docs/agents/claude-code.md AC7). Each becomes a toolResult message;
	// the other blocks between them, a user message.
	role := "user"
	if r.IsMeta || r.IsCompactSummary {
		role = "system"
	}
	var out []Msg
	var text []Block
	flush := func() {
		if len(text) > 0 {
			out = append(out, Msg{Time: t, Role: role, Content: text})
			text = nil
		}
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			flush()
			out = append(out, Msg{Time: t, Role: "toolResult", ToolCallID: b.ToolUseID, IsError: b.IsError, Content: ccResultContent(b.Content)})
		case "text":
			text = append(text, Text(b.Text))
		case "image":
			text = append(text, Block{Type: "image", MimeType: b.Source.MediaType})
		}
	}
	flush()
	if len(out) == 0 {
		out = []Msg{{Time: t, Role: role}}
	}
	return out
}

// ccAssistantBlock converts a block of an assistant message.
func ccAssistantBlock(b ccBlock) (Block, bool) {
	switch b.Type {
	case "text":
		return Text(b.Text), true
	case "thinking", "redacted_thinking":
		return Thinking(b.Thinking), true
	case "tool_use", "server_tool_use":
		return ToolCall(b.ID, b.Name, b.Input), true
	case "image":
		return Block{Type: "image", MimeType: b.Source.MediaType}, true
	}
	return Block{}, false
}

// ccResultContent is the content of a tool result: a string, or text and
// image blocks.
func ccResultContent(raw json.RawMessage) []Block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{Text(s)}
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return []Block{}
	}
	out := []Block{}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, Text(b.Text))
		case "image":
			out = append(out, Block{Type: "image", MimeType: b.Source.MediaType})
		}
	}
	return out
}
