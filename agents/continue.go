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

	"github.com/sessionsearch/sessionsearch/store"
)

// Continue's history (docs/agents/continue.md): one JSON file per session,
// <global dir>/sessions/<session id>.json, rewritten whole after each
// change, whose "history" lists the conversation's items in order; beside
// them sessions.json lists the sessions with their start times. The CLI
// (cn) and the editor extensions write the same files.

func init() {
	register(&Format{Agent: Continue, Roots: continueRoots, Claims: continueClaims, List: continueList})
}

const (
	continueGlobalEnv = "CONTINUE_GLOBAL_DIR"
	continueDir       = ".continue"
	continueSessions  = "sessions"
	continueIndex     = "sessions.json"
	// continueSniffBytes is how much of a file Claims reads: the fields
	// before "history" are a few short strings.
	continueSniffBytes = 4096
)

// continueRoots: $CONTINUE_GLOBAL_DIR/sessions, else ~/.continue/sessions
// (AN1).
func continueRoots(env Env) []string {
	return []string{filepath.Join(env.Dir(continueGlobalEnv, continueDir), continueSessions)}
}

// continueClaims: a .continue directory and every path inside it, by name;
// else a .json file that begins as a session does, or a directory holding
// sessions.json (AN1).
func continueClaims(path string) bool {
	p := filepath.Clean(path)
	if underDir(p, named(continueDir)) {
		return true
	}
	if strings.HasSuffix(p, ".json") {
		return filepath.Base(p) == continueIndex && continueIsIndex(p) || continueSniff(p)
	}
	return continueIsIndex(filepath.Join(p, continueIndex)) || continueIsIndex(filepath.Join(p, continueSessions, continueIndex))
}

// continueSniff reports whether the file begins as a session file: a JSON
// object whose first keys are sessionId, title and workspaceDirectory, in
// the order Continue writes them.
func continueSniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, continueSniffBytes))
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for _, want := range []string{"sessionId", "title", "workspaceDirectory"} {
		key, err := dec.Token()
		if err != nil || key != want {
			return false
		}
		var v string
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return true
}

// continueIsIndex reports whether path is a sessions.json: a JSON array
// whose first element has a sessionId (or an empty array).
func continueIsIndex(path string) bool {
	idx, err := continueReadIndex(path)
	return err == nil && idx != nil
}

// continueEntry is an element of sessions.json.
type continueEntry struct {
	SessionID   string `json:"sessionId"`
	DateCreated any    `json:"dateCreated"`
}

// continueReadIndex reads sessions.json: the start time of each session,
// by id; an empty map when the file lists none.
func continueReadIndex(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var entries []continueEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s is not a list of sessions: %w", continueIndex, err)
	}
	out := map[string]int64{}
	for _, e := range entries {
		if e.SessionID == "" {
			return nil, fmt.Errorf("%s lists a session without a sessionId", continueIndex)
		}
		out[e.SessionID] = Millis(e.DateCreated)
	}
	return out, nil
}

// continueList lists the sessions under path: the global directory (its
// sessions/), the sessions directory, or one session file (AN2).
func continueList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	dir := path
	var files []string
	switch {
	case !info.IsDir():
		dir = filepath.Dir(path)
		files = []string{path}
	default:
		if ccIsDir(filepath.Join(path, continueSessions)) {
			dir = filepath.Join(path, continueSessions)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, []Problem{{Path: dir, Err: err}}
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && e.Name() != continueIndex {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	// The start times sessions.json gives; a session it does not list
	// (yet) starts at an unknown time.
	starts, _ := continueReadIndex(filepath.Join(dir, continueIndex))
	return readEach(files, func(file string) (Transcript, error) {
		if err := ctx.Err(); err != nil {
			return Transcript{}, err
		}
		return continueTranscript(file, starts)
	}, nil)
}

// continueSession is a session file.
type continueSession struct {
	SessionID          string            `json:"sessionId"`
	WorkspaceDirectory string            `json:"workspaceDirectory"`
	History            []json.RawMessage `json:"history"`
}

func continueRead(path string) (continueSession, error) {
	var s continueSession
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("not a Continue session: %w", err)
	}
	if s.SessionID == "" {
		return s, errors.New("not a Continue session: it has no sessionId")
	}
	return s, nil
}

// continueTranscript is the session a file holds, keyed by its sessionId;
// the file is rewritten whole, so it is read again whole when it changes
// (AN2).
func continueTranscript(path string, starts map[string]int64) (Transcript, error) {
	s, err := continueRead(path)
	if err != nil {
		return Transcript{}, err
	}
	id, cwd, created := s.SessionID, s.WorkspaceDirectory, starts[s.SessionID]
	tr := Transcript{
		Agent:   Continue,
		Path:    path,
		Session: store.Session{Key: Key(Continue, id), CreatedAt: created},
		Project: cwd,
		Events:  int64(len(s.History)) + 1,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		s, err := continueRead(path)
		if err != nil {
			return err
		}
		if s.SessionID != id {
			return fmt.Errorf("the file now holds session %s, not %s", s.SessionID, id)
		}
		if after < 0 {
			if err := emit(Event{JSON: Header(Continue, id, created, cwd), Rec: "header"}); err != nil {
				return err
			}
		}
		answered := map[string]bool{}
		for i, raw := range s.History {
			pos := int64(i) + 1
			events, err := continueConvert(raw, i, answered)
			if pos <= after {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rec := "history item " + strconv.Itoa(i+1)
			if err != nil {
				if err := emit(Event{Pos: pos, Rec: rec, Bad: err}); err != nil {
					return err
				}
				continue
			}
			for _, ev := range events {
				if err := emit(Event{Pos: pos, JSON: ev, Rec: rec}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return tr, nil
}

// continueItem is one item of a session's history.
type continueItem struct {
	Message struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"toolCallId"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"toolCalls"`
		Usage struct {
			Model string `json:"model"`
		} `json:"usage"`
	} `json:"message"`
	ContextItems   json.RawMessage        `json:"contextItems"`
	Reasoning      *struct{ Text string } `json:"reasoning"`
	ToolCallStates []struct {
		ToolCallID string `json:"toolCallId"`
		ToolCall   struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"toolCall"`
		Status string `json:"status"`
		Output []struct {
			Content string `json:"content"`
		} `json:"output"`
	} `json:"toolCallStates"`
	ConversationSummary json.RawMessage `json:"conversationSummary"`
}

// continueConvert turns the history item at index i into events (AN3):
// its message; the context items injected with it, and the summary of a
// compaction, kept; the results of its tool calls. answered holds the
// tool calls whose result is already an event.
func continueConvert(raw json.RawMessage, i int, answered map[string]bool) ([][]byte, error) {
	var it continueItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, fmt.Errorf("not a history item: %w", err)
	}
	id := "h" + strconv.Itoa(i+1)
	m := it.Message
	text, err := continueText(m.Content)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	if ci := bytes.TrimSpace(it.ContextItems); len(ci) > 0 && string(ci) != "[]" && string(ci) != "null" {
		out = append(out, Kept(Continue, "contextItems", id+".context", FromLeaf, 0, ci))
	}
	switch m.Role {
	case "user", "system":
		out = append(out, Message(Msg{ID: id, Role: m.Role, Content: []Block{Text(text)}}))
	case "assistant", "thinking":
		var blocks []Block
		if it.Reasoning != nil && it.Reasoning.Text != "" {
			blocks = append(blocks, Thinking(it.Reasoning.Text))
		}
		if m.Role == "thinking" {
			blocks = append(blocks, Thinking(text))
		} else if strings.TrimSpace(text) != "" {
			blocks = append(blocks, Text(text))
		}
		for _, c := range m.ToolCalls {
			blocks = append(blocks, ToolCall(c.ID, c.Function.Name, []byte(c.Function.Arguments)))
		}
		out = append(out, Message(Msg{ID: id, Role: "assistant", Content: blocks, Model: m.Usage.Model}))
	case "tool":
		if answered[m.ToolCallID] {
			out = append(out, Kept(Continue, "tool", id, FromLeaf, 0, raw))
		} else {
			answered[m.ToolCallID] = true
			out = append(out, Message(Msg{ID: id, Role: "toolResult", ToolCallID: m.ToolCallID, Content: []Block{Text(text)}}))
		}
	default:
		return append(out, Kept(Continue, "item", id, FromLeaf, 0, raw)), nil
	}
	for j, st := range it.ToolCallStates {
		if len(st.Output) == 0 && st.Status != "errored" && st.Status != "canceled" {
			continue
		}
		var texts []string
		for _, o := range st.Output {
			texts = append(texts, o.Content)
		}
		answered[st.ToolCallID] = true
		out = append(out, Message(Msg{ID: id + ".r" + strconv.Itoa(j+1), Role: "toolResult", ToolCallID: st.ToolCallID,
			ToolName: st.ToolCall.Function.Name, IsError: st.Status == "errored" || st.Status == "canceled",
			Content: []Block{Text(strings.Join(texts, "\n"))}}))
	}
	if cs := bytes.TrimSpace(it.ConversationSummary); len(cs) > 0 && string(cs) != "null" {
		out = append(out, Kept(Continue, "summary", id+".summary", FromLeaf, 0, cs))
	}
	return out, nil
}

// continueText is a message's content: a string, or parts whose text
// parts are joined (an image part is left out).
func continueText(content json.RawMessage) (string, error) {
	c := bytes.TrimSpace(content)
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		err := json.Unmarshal(c, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", fmt.Errorf("content is neither text nor parts: %w", err)
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
