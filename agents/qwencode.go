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

	"github.com/sessionsearch/sessionsearch/store"
)

// Qwen Code's history (docs/agents/qwen-code.md): Qwen Code began as a fork
// of Gemini CLI, but keeps its sessions its own way: one JSONL file per
// session, <runtime dir>/projects/<cwd with every other character as
// "-">/chats/<session id>.jsonl, whose records (user, assistant,
// tool_result, system) form a tree by uuid and parentUuid, as Claude
// Code's lines do, and carry Gemini API content (parts) in their message.

func init() {
	register(&Format{Agent: QwenCode, Roots: qwenRoots, Claims: qwenClaims, List: qwenList})
}

// Where Qwen Code keeps its files: $QWEN_RUNTIME_DIR holds the session
// data when set, else $QWEN_HOME, else ~/.qwen (AG40).
const (
	qwenRuntimeEnv = "QWEN_RUNTIME_DIR"
	qwenHomeEnv    = "QWEN_HOME"
	qwenDir        = ".qwen"
	qwenProjects   = "projects"
	qwenChats      = "chats"
)

// qwenSessionName is the shape of a session file's name (Qwen Code's
// SESSION_FILE_PATTERN).
var qwenSessionName = regexp.MustCompile(`^[0-9a-fA-F-]{32,36}\.jsonl$`)

func qwenRoots(env Env) []string {
	if dir := strings.TrimSpace(env.getenv(qwenRuntimeEnv)); dir != "" {
		return []string{filepath.Join(dir, qwenProjects)}
	}
	return []string{filepath.Join(env.Dir(qwenHomeEnv, qwenDir), qwenProjects)}
}

// qwenClaims: a .qwen directory with a projects/ directory, and every path
// inside that, by name; else a .jsonl file whose first record is Qwen
// Code's, or a chats directory, a project directory, a projects directory
// or a directory holding one whose first session file is (AG41).
func qwenClaims(path string) bool {
	p := filepath.Clean(path)
	if filepath.Base(p) == qwenDir && ccIsDir(filepath.Join(p, qwenProjects)) {
		return true
	}
	if underDir(p, func(d string) bool {
		return filepath.Base(d) == qwenProjects && filepath.Base(filepath.Dir(d)) == qwenDir
	}) {
		return true
	}
	if strings.HasSuffix(p, ".jsonl") {
		return qwenSniff(p)
	}
	// A chats directory, a project directory (holding chats/), a projects
	// directory (holding those) or a directory holding projects/.
	chats := []string{p, filepath.Join(p, qwenChats)}
	more, _ := filepath.Glob(filepath.Join(p, "*", qwenChats))
	inProjects, _ := filepath.Glob(filepath.Join(p, qwenProjects, "*", qwenChats))
	more = append(more, inProjects...)
	for _, dir := range append(chats, more...) {
		if filepath.Base(dir) != qwenChats {
			continue
		}
		files, _ := qwenFiles(context.Background(), dir, 1)
		if len(files) > 0 {
			return qwenSniff(files[0])
		}
	}
	return false
}

// qwenSniff reports whether the first record of a file that names a
// sessionId and a uuid is Qwen Code's (qwenLine).
func qwenSniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, ccSniffBytes)
	n, _ := io.ReadFull(f, buf)
	for _, line := range bytes.Split(buf[:n], []byte("\n")) {
		var keys map[string]json.RawMessage
		if json.Unmarshal(line, &keys) != nil {
			continue
		}
		if _, ok := keys["sessionId"]; ok {
			if _, ok := keys["uuid"]; ok {
				return qwenLine(keys)
			}
		}
	}
	return false
}

// qwenLine reports whether a record with a sessionId and a uuid is Qwen
// Code's, not Claude Code's: it carries a provenance or a systemPayload,
// or a message of Gemini API parts where Claude Code's has content.
func qwenLine(keys map[string]json.RawMessage) bool {
	if _, ok := keys["provenance"]; ok {
		return true
	}
	if _, ok := keys["systemPayload"]; ok {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(keys["message"], &m) != nil {
		return false
	}
	_, parts := m["parts"]
	return parts
}

// qwenFiles lists the session files under path, in name order, at most
// limit of them (0: all): path itself when it is a file, else the session
// files of the chats directories under it (a .qwen directory's projects/
// only). Other files in a chats directory (Qwen Code's *.ledger.jsonl) are
// not sessions.
func qwenFiles(ctx context.Context, path string, limit int) ([]string, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	root := path
	if filepath.Base(path) == qwenDir {
		root = filepath.Join(path, qwenProjects)
	}
	var files []string
	problems := walkFiles(ctx, root, func(p, name string) bool {
		if filepath.Base(filepath.Dir(p)) == qwenChats && qwenSessionName.MatchString(name) {
			files = append(files, p)
		}
		return limit <= 0 || len(files) < limit
	})
	sort.Strings(files)
	return files, problems
}

// qwenList lists the sessions under path: a .qwen directory, its projects
// directory, a project directory, a chats directory or one file (AG42).
func qwenList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	files, problems := qwenFiles(ctx, path, 0)
	return readEach(files, qwenTranscript, problems)
}

// qwenTranscript is the session a file holds, keyed by the file's name (the
// session id), with the cwd and time of its first records (AG42).
func qwenTranscript(path string) (Transcript, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Transcript{}, err
	}
	head, err := ccReadHead(path)
	if err != nil {
		return Transcript{}, err
	}
	sessionID := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	tr := Transcript{
		Agent:     QwenCode,
		Path:      path,
		Session:   store.Session{Key: Key(QwenCode, sessionID), CreatedAt: head.created},
		Project:   head.cwd,
		Resumable: true,
		Events:    info.Size()/1024 + 1,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		if after < 0 {
			if err := emit(Event{JSON: Header(QwenCode, sessionID, head.created, head.cwd), Rec: "header"}); err != nil {
				return err
			}
		}
		return Lines(ctx, path, after, func(line []byte, end int64, rec string, bad error) error {
			if bad != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: bad})
			}
			events, err := qwenConvert(line)
			if err != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: err})
			}
			for _, ev := range events {
				if err := emit(Event{Pos: end, JSON: ev, Rec: rec}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return tr, nil
}

// qwenRecord is one line of a session file (Qwen Code's ChatRecord).
type qwenRecord struct {
	UUID          string          `json:"uuid"`
	ParentUUID    *string         `json:"parentUuid"`
	Timestamp     any             `json:"timestamp"`
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	Provenance    string          `json:"provenance"`
	Model         string          `json:"model"`
	Message       json.RawMessage `json:"message"`
	SystemPayload json.RawMessage `json:"systemPayload"`
	ToolResult    *struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

func (r qwenRecord) parent() Parent {
	if r.ParentUUID == nil {
		return Root
	}
	return ParentID(*r.ParentUUID)
}

// said reports whether a user record is what the user said (Qwen Code's
// legacySafeProvenance): a plain user record, or a message the user typed
// while tools ran. Notifications, goal prompts and the like are user
// records of other provenances.
func (r qwenRecord) said() bool {
	if r.Provenance != "" && r.Provenance != "real_user" {
		return false
	}
	return r.Subtype == "" || r.Subtype == "mid_turn_user_message"
}

// qwenConvert turns one record into its events (AG43-AG45).
func qwenConvert(line []byte) ([][]byte, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, errors.New("line is not a JSON object")
	}
	var r qwenRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("line is not a Qwen Code record: %v", err)
	}
	if r.Type == "" {
		return nil, errors.New(`field "type" is missing`)
	}
	if r.UUID == "" {
		return nil, errors.New(`field "uuid" is missing`)
	}
	t := Millis(r.Timestamp)
	kind := r.Type
	if r.Subtype != "" {
		kind = r.Subtype
	}
	if r.Type != "user" && r.Type != "assistant" && r.Type != "tool_result" {
		return [][]byte{Kept(QwenCode, kind, r.UUID, r.parent(), t, line)}, nil
	}
	var m struct {
		Parts json.RawMessage `json:"parts"`
	}
	if len(r.Message) > 0 && json.Unmarshal(r.Message, &m) != nil {
		return nil, fmt.Errorf(`field "message" of a %q record is not a message with parts`, r.Type)
	}
	parts := geminiParts(m.Parts)
	msg := Msg{ID: r.UUID, Parent: r.parent(), Time: t}
	switch {
	case r.Type == "assistant":
		msg.Role, msg.Model = "assistant", r.Model
		for _, p := range parts {
			switch {
			case p.Text != nil && p.thought():
				if strings.TrimSpace(*p.Text) != "" {
					msg.Content = append(msg.Content, Thinking(*p.Text))
				}
			case p.FunctionCall != nil:
				msg.Content = append(msg.Content, ToolCall(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args))
			default:
				msg.Content = append(msg.Content, geminiText([]geminiPart{p})...)
				msg.Content = append(msg.Content, geminiImages([]geminiPart{p})...)
			}
		}
	case r.Type == "tool_result" || geminiHasResponse(parts):
		return qwenToolResults(r, t, parts), nil
	default:
		msg.Role = "system"
		if r.said() {
			msg.Role = "user"
		}
		text := geminiText(parts)
		var payload struct {
			DisplayText string `json:"displayText"`
		}
		if json.Unmarshal(r.SystemPayload, &payload) == nil && strings.TrimSpace(payload.DisplayText) != "" {
			text = []Block{Text(payload.DisplayText)}
		}
		msg.Content = append(text, geminiImages(parts)...)
	}
	return [][]byte{Message(msg)}, nil
}

// qwenToolResults: a tool_result record is one toolResult message per
// function response it holds, one after the other, with the text parts
// after each; the last takes the record's uuid, so that the records after
// it hang from it (AG44).
func qwenToolResults(r qwenRecord, t int64, parts []geminiPart) [][]byte {
	var msgs []Msg
	var pending []Block
	for _, p := range parts {
		if resp := p.FunctionResponse; resp != nil {
			text, isErr := geminiResponse(resp.Response)
			msgs = append(msgs, Msg{Role: "toolResult", Time: t, ToolCallID: resp.ID, ToolName: resp.Name,
				IsError: isErr || (r.ToolResult != nil && r.ToolResult.Status == "error"), Content: append(pending, Text(text))})
			pending = nil
			continue
		}
		blocks := append(geminiText([]geminiPart{p}), geminiImages([]geminiPart{p})...)
		if len(msgs) > 0 {
			msgs[len(msgs)-1].Content = append(msgs[len(msgs)-1].Content, blocks...)
		} else {
			pending = append(pending, blocks...)
		}
	}
	if len(msgs) == 0 {
		msgs = append(msgs, Msg{Role: "toolResult", Time: t, Content: pending})
	}
	out := make([][]byte, len(msgs))
	parent := r.parent()
	for i, m := range msgs {
		m.ID = r.UUID
		if i < len(msgs)-1 {
			m.ID = r.UUID + ":part:" + strconv.Itoa(i)
		}
		m.Parent = parent
		out[i] = Message(m)
		parent = ParentID(m.ID)
	}
	return out
}
