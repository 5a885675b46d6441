package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

// GitHub Copilot CLI's history (docs/agents/copilot.md): one directory per
// session, <config dir>/session-state/<session id>/, whose events.jsonl
// holds the session's events, one a line, each with an id and the id of
// the event before it (parentId), from session.start on.

func init() {
	register(&Format{Agent: Copilot, Roots: copilotRoots, Claims: copilotClaims, List: copilotList})
}

const (
	copilotHomeEnv = "COPILOT_HOME"
	copilotDir     = ".copilot"
	copilotState   = "session-state"
	copilotEvents  = "events.jsonl"
)

// copilotRoots: $COPILOT_HOME/session-state, else
// ~/.copilot/session-state (AG60).
func copilotRoots(env Env) []string {
	return []string{filepath.Join(env.Dir(copilotHomeEnv, copilotDir), copilotState)}
}

// copilotClaims: a .copilot directory and every path inside it, by name;
// else an events.jsonl whose first line is a session.start event, a
// session's directory holding one, or a directory holding such session
// directories (AG61).
func copilotClaims(path string) bool {
	p := filepath.Clean(path)
	if underDir(p, named(copilotDir)) {
		return true
	}
	if filepath.Base(p) == copilotEvents {
		return copilotSniff(p)
	}
	if copilotSniff(filepath.Join(p, copilotEvents)) {
		return true
	}
	for _, pattern := range []string{filepath.Join("*", copilotEvents), filepath.Join(copilotState, "*", copilotEvents)} {
		matches, _ := filepath.Glob(filepath.Join(p, pattern))
		if len(matches) > 0 {
			sort.Strings(matches)
			return copilotSniff(matches[0])
		}
	}
	return false
}

func copilotSniff(path string) bool {
	_, err := copilotReadStart(path)
	return err == nil
}

// copilotStart is a session's first event, session.start.
type copilotStart struct {
	Type string `json:"type"`
	Data struct {
		SessionID string `json:"sessionId"`
		StartTime any    `json:"startTime"`
		Context   struct {
			Cwd string `json:"cwd"`
		} `json:"context"`
	} `json:"data"`
	Timestamp any `json:"timestamp"`
}

func copilotReadStart(path string) (copilotStart, error) {
	var s copilotStart
	err := readFirstLine(path, &s)
	if errors.Is(err, errNoFirstLine) || err == nil && (s.Type != "session.start") {
		err = errors.New(`the first line is not a session.start event`)
	}
	if err != nil {
		return copilotStart{}, err
	}
	return s, nil
}

// copilotList lists the sessions under path: the configuration directory
// (its session-state/), the session-state directory, a session's
// directory or its events.jsonl (AG62).
func copilotList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	files, problems := sessionFiles(ctx, path, copilotState, func(name string) bool { return name == copilotEvents })
	return readEach(files, copilotTranscript, problems)
}

// copilotTranscript is the session an events.jsonl holds, keyed by the id
// its session.start names (else its directory's name) (AG62).
func copilotTranscript(path string) (Transcript, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Transcript{}, err
	}
	start, err := copilotReadStart(path)
	if err != nil {
		return Transcript{}, err
	}
	id := start.Data.SessionID
	if id == "" {
		id = filepath.Base(filepath.Dir(path))
	}
	created := Millis(start.Data.StartTime)
	if created == 0 {
		created = Millis(start.Timestamp)
	}
	cwd := start.Data.Context.Cwd
	tr := Transcript{
		Agent:     Copilot,
		Path:      path,
		Session:   store.Session{Key: Key(Copilot, id), CreatedAt: created},
		Project:   cwd,
		Resumable: true,
		Events:    info.Size()/1024 + 1,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		if after < 0 {
			if err := emit(Event{JSON: Header(Copilot, id, created, cwd), Rec: "header"}); err != nil {
				return err
			}
		}
		// A rewind names the first event it withdrew: the lines before the
		// position are read again for their events' parents (AG64).
		parents := map[string]Parent{}
		return Lines(ctx, path, -1, func(line []byte, end int64, rec string, bad error) error {
			if end <= after {
				_, _ = copilotConvert(line, parents)
				return nil
			}
			if bad != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: bad})
			}
			evs, err := copilotConvert(line, parents)
			if err != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: err})
			}
			for _, ev := range evs {
				if err := emit(Event{Pos: end, JSON: ev, Rec: rec}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return tr, nil
}

// copilotEvent is one line of events.jsonl.
type copilotEvent struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp any             `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// copilotData is what the events this reader converts hold in data.
type copilotData struct {
	Content       string `json:"content"`
	Transformed   string `json:"transformedContent"`
	Source        string `json:"source"`
	Autopilot     bool   `json:"isAutopilotContinuation"`
	Model         string `json:"model"`
	ReasoningText string `json:"reasoningText"`
	ToolRequests  []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	Success    *bool  `json:"success"`
	Result     *struct {
		Content string `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// copilotConvert turns one event into its event (AG63, AG64); parents
// holds the parent of each event before it, and gains this one's.
func copilotConvert(line []byte, parents map[string]Parent) ([][]byte, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, errors.New("line is not a JSON object")
	}
	var e copilotEvent
	if err := json.Unmarshal(line, &e); err != nil {
		return nil, fmt.Errorf("line is not a Copilot CLI event: %v", err)
	}
	if e.Type == "" {
		return nil, errors.New(`field "type" is missing`)
	}
	if e.ID == "" {
		return nil, errors.New(`field "id" is missing`)
	}
	parent := Root
	if e.ParentID != nil {
		parent = ParentID(*e.ParentID)
	}
	t := Millis(e.Timestamp)
	if e.Type == "session.snapshot_rewind" {
		// The rewind hangs where the first event it withdrew hung, so the
		// events after it continue from there and the withdrawn ones are off
		// the active path.
		var d struct {
			UpToEventID string `json:"upToEventId"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			if p, ok := parents[d.UpToEventID]; ok {
				parent = p
			}
		}
	}
	parents[e.ID] = parent
	switch e.Type {
	case "user.message", "assistant.message", "tool.execution_complete", "system.message":
	default:
		return [][]byte{Kept(Copilot, e.Type, e.ID, parent, t, line)}, nil
	}
	var d copilotData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, fmt.Errorf(`field "data" of a %s event: %v`, e.Type, err)
	}
	m := Msg{ID: e.ID, Parent: parent, Time: t}
	switch e.Type {
	case "user.message":
		// What the user typed has no source (or "user"); a skill's hidden
		// prompt, another agent's and autopilot's continuations are not
		// the user's words.
		m.Role = "user"
		if (d.Source != "" && d.Source != "user") || d.Autopilot {
			m.Role = "system"
		}
		if strings.TrimSpace(d.Content) != "" {
			m.Content = []Block{Text(d.Content)}
		}
	case "system.message":
		m.Role = "system"
		m.Content = []Block{Text(d.Content)}
	case "assistant.message":
		m.Role, m.Model = "assistant", d.Model
		if strings.TrimSpace(d.ReasoningText) != "" {
			m.Content = append(m.Content, Thinking(d.ReasoningText))
		}
		if strings.TrimSpace(d.Content) != "" {
			m.Content = append(m.Content, Text(d.Content))
		}
		for _, r := range d.ToolRequests {
			m.Content = append(m.Content, ToolCall(r.ToolCallID, r.Name, r.Arguments))
		}
	case "tool.execution_complete":
		m.Role, m.ToolCallID, m.ToolName = "toolResult", d.ToolCallID, d.ToolName
		m.IsError = d.Success != nil && !*d.Success
		if d.Result != nil {
			m.Content = []Block{Text(d.Result.Content)}
		}
		if len(d.Error) > 0 && string(d.Error) != "null" {
			var msg struct {
				Message string `json:"message"`
			}
			text := string(JSONValue(d.Error))
			if json.Unmarshal(d.Error, &msg) == nil && msg.Message != "" {
				text = msg.Message
			}
			m.Content = append(m.Content, Text(text))
		}
	}
	out := [][]byte{Message(m)}
	if e.Type == "user.message" && d.Transformed != "" && d.Transformed != d.Content {
		// What the model got (the message with the context Copilot CLI
		// wraps it in): kept whole, outside the tree.
		out = append(out, Kept(Copilot, e.Type, "", FromLeaf, t, line))
	}
	return out, nil
}
