package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// TurnRef is one turn of one conversation: what a returned message is.
type TurnRef struct {
	Conversation string
	Turn         TurnID
}

// SessionRef is one session of one conversation: what a returned session is.
type SessionRef struct {
	Conversation string
	Session      int
}

// Corpus is LoCoMo written as Claude Code sessions under a home directory:
// for each session file's id and each line's uuid, the LoCoMo session and
// turn it holds, so that what a search returns can be scored.
type Corpus struct {
	Home     string
	Sessions map[string]SessionRef // session id (the file's name) → session
	Messages map[string]TurnRef    // line uuid → turn
	// Turns lists each session's turns in the order written, for a system
	// that names a message by its place in its session.
	Turns map[string][]TurnRef
	// Times names a turn by its session and timestamp, for a system that
	// returns a message's time (epoch ms) and text but no id.
	Times map[string]map[int64]TurnRef
}

// Claude Code's line fields as its session files have them
// (docs/agents/claude-code.md, agents/testdata/claude-code).
type ccLine struct {
	ParentUUID  *string   `json:"parentUuid"`
	IsSidechain bool      `json:"isSidechain"`
	UserType    string    `json:"userType"`
	Cwd         string    `json:"cwd"`
	SessionID   string    `json:"sessionId"`
	Version     string    `json:"version"`
	GitBranch   string    `json:"gitBranch"`
	Type        string    `json:"type"`
	Message     ccMessage `json:"message"`
	RequestID   string    `json:"requestId,omitempty"`
	UUID        string    `json:"uuid"`
	Timestamp   string    `json:"timestamp"`
}

type ccMessage struct {
	Model      string  `json:"model,omitempty"`
	ID         string  `json:"id,omitempty"`
	Type       string  `json:"type,omitempty"`
	Role       string  `json:"role"`
	Content    any     `json:"content"`
	StopReason *string `json:"stop_reason,omitempty"`
}

type ccText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

const (
	// ccVersion is the Claude Code release the lines claim to be written by.
	ccVersion = "2.1.14"
	// ccModel is the assistant lines' model.
	ccModel = "claude-sonnet-4-5-20250929"
	// turnGap is the time between two turns of a session.
	turnGap = time.Minute
)

// uuidSpace makes the ids of the written files: the same conversation gives
// the same ids on every run.
var uuidSpace = uuid.NewSHA1(uuid.Nil, []byte("sessionsearch tests/quality LoCoMo"))

// WriteClaudeCode writes each session of convs as a Claude Code session file
// under home/.claude/projects, one project per conversation (its cwd
// /home/locomo/conversation-<id>), as Claude Code 2.1 writes them: speaker
// A's turns are user lines with string content, speaker B's are assistant
// lines with one text block, each line the child of the one before. A
// session starts at its LoCoMo date (UTC) and its turns follow a minute
// apart, so time questions can be answered from the timestamps.
func WriteClaudeCode(home string, convs []Conversation) (*Corpus, error) {
	c := &Corpus{
		Home:     home,
		Sessions: map[string]SessionRef{},
		Messages: map[string]TurnRef{},
		Turns:    map[string][]TurnRef{},
		Times:    map[string]map[int64]TurnRef{},
	}
	for _, conv := range convs {
		cwd := "/home/locomo/conversation-" + conv.ID
		dir := filepath.Join(home, ".claude", "projects", projectDirName(cwd))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for _, s := range conv.Sessions {
			sid := uuid.NewSHA1(uuidSpace, fmt.Appendf(nil, "%s/session_%d", conv.ID, s.N)).String()
			c.Sessions[sid] = SessionRef{conv.ID, s.N}
			c.Times[sid] = map[int64]TurnRef{}
			var b strings.Builder
			var parent *string
			for i, t := range s.Turns {
				ref := TurnRef{conv.ID, t.ID}
				id := uuid.NewSHA1(uuidSpace, fmt.Appendf(nil, "%s/%s", conv.ID, t.ID)).String()
				at := s.Start.Add(time.Duration(i) * turnGap)
				line := ccLine{
					ParentUUID: parent, UserType: "external", Cwd: cwd, SessionID: sid,
					Version: ccVersion, GitBranch: "main", UUID: id,
					Timestamp: at.UTC().Format("2006-01-02T15:04:05.000Z"),
				}
				if t.Speaker == conv.SpeakerA {
					line.Type = "user"
					line.Message = ccMessage{Role: "user", Content: t.Text}
				} else {
					end := "end_turn"
					short := strings.ReplaceAll(id, "-", "")[:24]
					line.Type = "assistant"
					line.RequestID = "req_" + short
					line.Message = ccMessage{Model: ccModel, ID: "msg_" + short, Type: "message", Role: "assistant",
						Content: []ccText{{"text", t.Text}}, StopReason: &end}
				}
				data, err := json.Marshal(line)
				if err != nil {
					return nil, err
				}
				b.Write(data)
				b.WriteByte('\n')
				parent = &line.UUID
				c.Messages[id] = ref
				c.Turns[sid] = append(c.Turns[sid], ref)
				c.Times[sid][at.UnixMilli()] = ref
			}
			if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(b.String()), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// projectDirName is Claude Code's name for a project's directory: the cwd
// with every character other than a letter or digit replaced by '-'.
func projectDirName(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, cwd)
}
