package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

// Factory Droid's history (docs/agents/factory-droid.md): one append-only
// JSONL file per session, <home>/.factory/sessions/<project>/<session
// id>.jsonl, whose first line is session_start; its message lines form a
// tree by id and parentId and carry Anthropic-shaped content, as Claude
// Code's lines do, so their messages are converted by Claude Code's code.

func init() {
	register(&Format{Agent: FactoryDroid, Roots: factoryRoots, Claims: factoryClaims, List: factoryList})
}

const (
	factoryHomeEnv  = "FACTORY_HOME_OVERRIDE"
	factoryDir      = ".factory"
	factorySessions = "sessions"
	// factoryContext starts the id of the message Factory Droid injects
	// before the user's first message (the tools it offers, the
	// environment): context-<the user message's id>.
	factoryContext = "context-"
)

// factoryRoots: <home>/.factory/sessions, where home is
// $FACTORY_HOME_OVERRIDE when it is set (AF1).
func factoryRoots(env Env) []string {
	return []string{filepath.Join(env.Dir(factoryHomeEnv), factoryDir, factorySessions)}
}

// factoryClaims: a .factory directory and every path inside it, by name;
// else a .jsonl file whose first line is session_start, or a directory
// holding one, directly or in a project directory (AF1).
func factoryClaims(path string) bool {
	p := filepath.Clean(path)
	if underDir(p, named(factoryDir)) {
		return true
	}
	if strings.HasSuffix(p, ".jsonl") {
		_, err := factoryReadStart(p)
		return err == nil
	}
	for _, pattern := range []string{"*.jsonl", filepath.Join("*", "*.jsonl")} {
		matches, _ := filepath.Glob(filepath.Join(p, pattern))
		if len(matches) > 0 {
			_, err := factoryReadStart(matches[0])
			return err == nil
		}
	}
	return false
}

// factoryStart is a session's first line, session_start.
type factoryStart struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Cwd  string `json:"cwd"`
}

// factoryReadStart reads a file's session_start line and the time of its
// first line that has one (the session's start).
func factoryReadStart(path string) (factoryStart, error) {
	var s factoryStart
	err := readFirstLine(path, &s)
	if errors.Is(err, errNoFirstLine) || err == nil && (s.Type != "session_start" || s.ID == "") {
		err = errors.New("the first line is not a session_start line with an id")
	}
	if err != nil {
		return factoryStart{}, err
	}
	return s, nil
}

// factoryList lists the sessions under path: the .factory directory (its
// sessions/), the sessions directory, a project's directory or a session
// file (AF2).
func factoryList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	files, problems := sessionFiles(ctx, path, factorySessions, func(name string) bool { return strings.HasSuffix(name, ".jsonl") })
	return readEach(files, factoryTranscript, problems)
}

// factoryTranscript is the session a file holds, keyed by the id its
// session_start names, started at its first timed line (AF2).
func factoryTranscript(path string) (Transcript, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Transcript{}, err
	}
	start, err := factoryReadStart(path)
	if err != nil {
		return Transcript{}, err
	}
	var created int64
	_ = Lines(context.Background(), path, -1, func(line []byte, _ int64, _ string, _ error) error {
		var r struct {
			Timestamp any `json:"timestamp"`
		}
		if json.Unmarshal(line, &r) == nil {
			created = Millis(r.Timestamp)
		}
		if created != 0 {
			return errFound
		}
		return nil
	})
	id, cwd := start.ID, start.Cwd
	tr := Transcript{
		Agent:     FactoryDroid,
		Path:      path,
		Session:   store.Session{Key: Key(FactoryDroid, id), CreatedAt: created},
		Project:   cwd,
		Resumable: true,
		Events:    info.Size()/1024 + 1,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		if after < 0 {
			if err := emit(Event{JSON: Header(FactoryDroid, id, created, cwd), Rec: "header"}); err != nil {
				return err
			}
		}
		return Lines(ctx, path, after, func(line []byte, end int64, rec string, bad error) error {
			if bad != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: bad})
			}
			evs, err := factoryConvert(line)
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

// errFound ends a scan of lines early.
var errFound = errors.New("found")

// factoryRecord is the part of a line this reader uses.
type factoryRecord struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  json.RawMessage `json:"parentId"`
	Timestamp any             `json:"timestamp"`
	Message   *struct {
		ccMessage
		ModelID    string `json:"modelId"`
		Visibility string `json:"visibility"`
	} `json:"message"`
}

// factoryConvert turns one line into events (AF3): a message line into
// its messages, in the tree by id and parentId, with the context Factory
// Droid injects and the notices it shows the user alone as system
// messages; any other line (session_start, agent_turn_outcome, ...) is
// kept.
func factoryConvert(line []byte) ([][]byte, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, errors.New("line is not a JSON object")
	}
	var r factoryRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("line is not a Factory Droid record: %v", err)
	}
	if r.Type == "" {
		return nil, errors.New(`field "type" is missing`)
	}
	t := Millis(r.Timestamp)
	parent := FromLeaf
	if len(r.ParentID) > 0 {
		var p string
		_ = json.Unmarshal(r.ParentID, &p)
		parent = ParentID(p)
	}
	if r.Type != "message" || r.ID == "" {
		return [][]byte{Kept(FactoryDroid, r.Type, "", FromLeaf, t, line)}, nil
	}
	m := r.Message
	if m == nil || (m.Role != "user" && m.Role != "assistant") {
		return [][]byte{Kept(FactoryDroid, r.Type, r.ID, parent, t, line)}, nil
	}
	m.Model = m.ModelID
	injected := m.Role == "user" && (strings.HasPrefix(r.ID, factoryContext) || m.Visibility == "user_only")
	return chainMessages(ccMessages(m.Role, &ccRecord{IsMeta: injected}, &m.ccMessage, t), r.ID, parent), nil
}
