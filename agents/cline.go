package agents

// Cline (cline/cline) and its fork Roo Code (RooCodeInc/Roo-Code) keep each
// task in a folder of its own, tasks/<task id>/, under the extension's
// global storage (or, for the Cline CLI, its data directory). The folder's
// ui_messages.json is a JSON array of the messages the user saw, each a
// ClineMessage {ts, type: "say"|"ask", say|ask, text, ...}; the task is
// rewritten whole on every change. The mapping is docs/agents/cline.md
// (rules AL1..AL8).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

// clineVariant is one program that writes Cline's task folders.
type clineVariant struct {
	agent string
	// extID is the extension's id, the name of its global storage folder.
	extID string
	// cli is the data directory of the program's command-line version, ""
	// when it has none.
	cli func(env Env) string
}

var (
	clineCline = &clineVariant{agent: Cline, extID: "saoudrizwan.claude-dev",
		cli: func(env Env) string { return env.Dir("CLINE_DATA_DIR", ".cline", "data") }}
	clineRoo = &clineVariant{agent: RooCode, extID: "rooveterinaryinc.roo-cline"}
)

func init() {
	for _, v := range []*clineVariant{clineCline, clineRoo} {
		register(&Format{Agent: v.agent, Roots: v.roots, Claims: v.claims, List: v.list})
	}
}

// The files of a task folder (src/core/storage/disk.ts GlobalFileNames).
const (
	clineUIMessages = "ui_messages.json"
	clineAPIHistory = "api_conversation_history.json"
	clineOldUI      = "claude_messages.json" // Claude Dev's name, which Cline still reads
)

// clineEditors are the VS Code builds whose user data directories hold
// extensions' global storage (docs/agents/cline.md AL1).
var clineEditors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// roots are the extension's global storage folder in each editor's user
// data directory ($XDG_CONFIG_HOME or ~/.config, ~/Library/Application
// Support on macOS, ~/.vscode-server/data for a remote host), then the
// CLI's data directory. docs/agents/cline.md AL1.
func (v *clineVariant) roots(env Env) []string {
	var out []string
	bases := []string{env.Dir("XDG_CONFIG_HOME", ".config"), filepath.Join(env.home(), "Library", "Application Support")}
	for _, base := range bases {
		for _, ed := range clineEditors {
			out = append(out, filepath.Join(base, ed, "User", "globalStorage", v.extID))
		}
	}
	out = append(out, filepath.Join(env.home(), ".vscode-server", "data", "User", "globalStorage", v.extID))
	if v.cli != nil {
		out = append(out, v.cli(env))
	}
	return out
}

// claims: a path inside the extension's global storage folder (or the
// folder itself), a directory that holds that folder, and for Cline a
// path inside ~/.cline/data and a task folder (or a file of one) found
// anywhere else. Roo Code's folders are never Cline's. docs/agents/cline.md AL2.
func (v *clineVariant) claims(path string) bool {
	clean := filepath.Clean(path)
	for p := clean; ; p = filepath.Dir(p) {
		switch filepath.Base(p) {
		case v.extID:
			return true
		case clineCline.extID, clineRoo.extID:
			return false // the other variant's
		}
		if v.cli != nil && filepath.Base(p) == "data" && filepath.Base(filepath.Dir(p)) == ".cline" {
			return true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	if isDir(filepath.Join(clean, v.extID)) {
		return true
	}
	if v != clineCline {
		return false
	}
	switch filepath.Base(clean) {
	case clineUIMessages, clineAPIHistory, clineOldUI:
		return true
	}
	return clineTaskDir(clean)
}

// clineTaskDir reports whether dir is a task folder: it holds the task's
// messages or its API history.
func clineTaskDir(dir string) bool {
	for _, name := range []string{clineUIMessages, clineOldUI, clineAPIHistory} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// list lists the tasks under path: a task folder (or a file of one), a
// tasks/ folder, a folder with a tasks/ folder (the global storage, the
// CLI's data directory), or a folder that holds the extension's global
// storage folder. docs/agents/cline.md AL1, AL3.
func (v *clineVariant) list(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a root need not exist
		}
		return nil, []Problem{{Path: path, Err: err}}
	}
	var dirs []string
	switch {
	case !st.IsDir():
		dirs = []string{filepath.Dir(path)}
	case clineTaskDir(path):
		dirs = []string{path}
	default:
		tasks := filepath.Join(path, "tasks")
		if !isDir(tasks) && isDir(filepath.Join(path, v.extID, "tasks")) {
			tasks = filepath.Join(path, v.extID, "tasks")
		}
		if filepath.Base(path) == "tasks" {
			tasks = path
		}
		entries, err := os.ReadDir(tasks)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, nil
			}
			return nil, []Problem{{Path: tasks, Err: err}}
		}
		for _, e := range entries {
			if e.IsDir() && clineTaskDir(filepath.Join(tasks, e.Name())) {
				dirs = append(dirs, filepath.Join(tasks, e.Name()))
			}
		}
	}
	sort.Strings(dirs)
	var out []Transcript
	var problems []Problem
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return out, append(problems, Problem{Path: path, Err: err})
		}
		tr, err := v.task(dir, env)
		if err != nil {
			problems = append(problems, Problem{Path: dir, Err: err})
			continue
		}
		out = append(out, tr)
	}
	return out, problems
}

// clineMessage is one element of ui_messages.json (src/shared/ExtensionMessage.ts
// ClineMessage); the fields not read here are kept with the record.
type clineMessage struct {
	TS      json.RawMessage `json:"ts"`
	Type    string          `json:"type"`
	Say     string          `json:"say"`
	Ask     string          `json:"ask"`
	Text    string          `json:"text"`
	Partial bool            `json:"partial"`
}

// task is the transcript of one task folder.
func (v *clineVariant) task(dir string, env Env) (Transcript, error) {
	path := filepath.Join(dir, clineUIMessages)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, clineOldUI)); err == nil {
			path = filepath.Join(dir, clineOldUI)
		}
	}
	msgs, err := clineLoad(path)
	if err != nil {
		return Transcript{}, err
	}
	id := filepath.Base(dir)
	var created int64
	if len(msgs) > 0 {
		var first clineMessage
		if json.Unmarshal(msgs[0], &first) == nil {
			created = Millis(first.TS)
		}
	}
	project := clineProject(msgs)
	return Transcript{
		Agent:   v.agent,
		Path:    path,
		Session: store.Session{Key: Key(v.agent, id), CreatedAt: created},
		Project: project,
		Events:  int64(len(msgs)) + 1,
		Read: func(ctx context.Context, after int64, emit func(Event) error) error {
			msgs, err := clineLoad(path)
			if err != nil {
				return err
			}
			return v.read(ctx, id, created, project, msgs, after, emit)
		},
	}, nil
}

// clineLoad reads a task's messages: a JSON array, each element kept as
// it is. A task with no ui_messages.json (only its API history) is a
// problem of its own. docs/agents/cline.md AL3, AL8.
func clineLoad(path string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cline: the task folder has no %s", clineUIMessages)
		}
		return nil, err
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		return nil, fmt.Errorf("cline: %s is not a JSON array of messages: %w", filepath.Base(path), err)
	}
	return msgs, nil
}

// clineCwd finds the working directory in the environment details Cline
// (and Roo Code) send with a task's first request, which the
// api_req_started message records: "# Current Working Directory (<dir>)
// Files" (Roo Code: "Current Workspace Directory").
var clineCwd = regexp.MustCompile(`# Current (?:Working|Workspace) Directory \(([^)\n]+)\) Files`)

// clineProject is the task's working directory, "" when no request
// records it. docs/agents/cline.md AL7.
func clineProject(msgs []json.RawMessage) string {
	for _, raw := range msgs {
		var m clineMessage
		if json.Unmarshal(raw, &m) != nil || m.Say != "api_req_started" {
			continue
		}
		var req struct {
			Request string `json:"request"`
		}
		if json.Unmarshal([]byte(m.Text), &req) != nil {
			continue
		}
		if sub := clineCwd.FindStringSubmatch(req.Request); sub != nil {
			return sub[1]
		}
	}
	return ""
}

// read emits a task's events: the header, then one event per message, in
// the array's order (docs/agents/cline.md AL4-AL6). Message i is entry
// "m<i>" at position i+1; a task is linear, each entry follows the one
// before it.
func (v *clineVariant) read(ctx context.Context, id string, created int64, project string, msgs []json.RawMessage, after int64, emit func(Event) error) error {
	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	if err := send(Event{Pos: 0, Rec: "task " + id, JSON: Header(v.agent, id, created, project)}); err != nil {
		return err
	}
	lastCall, lastName := "", "" // the last tool call, which a tool result answers
	for i, raw := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos := int64(i) + 1
		rec := "message " + strconv.Itoa(i)
		var m clineMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			if err := send(Event{Pos: pos, Rec: rec, Bad: fmt.Errorf("not a message object: %w", err)}); err != nil {
				return err
			}
			continue
		}
		entry := "m" + strconv.Itoa(i)
		t := Millis(m.TS)
		msg := func(role string, content ...Block) []byte {
			return Message(Msg{ID: entry, Parent: FromLeaf, Time: t, Role: role, Content: content})
		}
		var ev []byte
		switch kind := clineKind(i, m); kind {
		case clineUser:
			ev = msg("user", Text(m.Text))
		case clineAssistant:
			ev = msg("assistant", Text(clineSaid(m)))
		case clineThinking:
			ev = msg("assistant", Thinking(m.Text))
		case clineCall:
			name, args := clineToolCall(m)
			lastCall, lastName = entry, name
			ev = msg("assistant", ToolCall(entry, name, args))
		case clineResult:
			ev = Message(Msg{ID: entry, Parent: FromLeaf, Time: t, Role: "toolResult", Content: []Block{Text(m.Text)},
				ToolCallID: lastCall, ToolName: lastName})
		default:
			ev = Kept(v.agent, m.Type+"."+m.Say+m.Ask, entry, FromLeaf, t, raw)
		}
		if err := send(Event{Pos: pos, Rec: rec, JSON: ev}); err != nil {
			return err
		}
	}
	return nil
}

type clineRole int

const (
	clineKept clineRole = iota
	clineUser
	clineAssistant
	clineThinking
	clineCall
	clineResult
)

// clineKind says what message i is (docs/agents/cline.md AL4, AL5).
func clineKind(i int, m clineMessage) clineRole {
	if m.Type == "say" {
		switch m.Say {
		case "task":
			return clineUser
		case "text":
			if i == 0 { // the task, which Roo Code and Cline before "task" said as text
				return clineUser
			}
			if m.Text == "" {
				return clineKept
			}
			return clineAssistant
		case "user_feedback":
			return clineUser
		case "completion_result":
			return clineAssistant
		case "reasoning":
			return clineThinking
		case "tool", "command", "use_mcp_server", "browser_action", "browser_action_launch":
			return clineCall
		case "command_output", "mcp_server_response", "browser_action_result", "subtask_result":
			return clineResult
		}
		return clineKept
	}
	if m.Type == "ask" {
		switch m.Ask {
		case "followup", "plan_mode_respond":
			if clineSaid(m) == "" {
				return clineKept
			}
			return clineAssistant
		case "tool", "command", "use_mcp_server", "browser_action_launch", "new_task":
			return clineCall
		case "command_output":
			return clineResult
		}
	}
	return clineKept
}

// clineSaid is the model's words in a message: a question (followup) or a
// plan (plan_mode_respond) is a JSON object whose "question" or "response"
// holds them (the options it offers are not read); any other text is
// itself. docs/agents/cline.md AL4.
func clineSaid(m clineMessage) string {
	if m.Type != "ask" {
		return m.Text
	}
	var obj struct {
		Question *string `json:"question"`
		Response *string `json:"response"`
	}
	if json.Unmarshal([]byte(m.Text), &obj) != nil {
		return m.Text
	}
	switch {
	case obj.Question != nil:
		return *obj.Question
	case obj.Response != nil:
		return *obj.Response
	}
	return m.Text
}

// clineToolCall is the call a message shows: a "tool" message's JSON
// names its tool ({"tool":"readFile","path":...}); a command is
// execute_command with the command line; the others are named by their
// kind, with their text as the arguments. docs/agents/cline.md AL5.
func clineToolCall(m clineMessage) (string, []byte) {
	kind := m.Say + m.Ask
	switch kind {
	case "tool":
		var obj struct {
			Tool string `json:"tool"`
		}
		if json.Unmarshal([]byte(m.Text), &obj) == nil && obj.Tool != "" {
			return obj.Tool, []byte(m.Text)
		}
	case "command":
		return "execute_command", encode(map[string]string{"command": strings.TrimSpace(m.Text)})
	}
	return kind, []byte(m.Text)
}
