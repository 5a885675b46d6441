// Package agents reads the histories of coding agents other than OpenClaw
// (Claude Code, Codex CLI, Gemini CLI, OpenCode, Hermes Agent, Aider, Cline,
// Roo Code, Goose, Cursor, Qwen Code, Pi, GitHub Copilot CLI, Kilo Code,
// Continue, Factory Droid) and turns each of their sessions into a
// transcript of OpenClaw-shaped events, so that the
// store's active-path rule, search, history, visibility and redaction apply
// to them unchanged (docs/agents.md). Pure Go: databases are opened through Env.OpenDB, which
// the caller makes read-only.
//
// Each format lives in a file of its own and registers a Format. A Format
// lists the transcripts a path holds; a Transcript is one session, read as
// events in order. The importer stores every event of a transcript in one
// transaction; the syncer copies only the events after the position it
// stopped at, when the transcript is Resumable.
package agents

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/sessionsearch/sessionsearch/sessionkey"
	"github.com/sessionsearch/sessionsearch/store"
)

// The agents' names: the agent id of their session keys, and the names
// --include and --exclude take.
const (
	ClaudeCode   = "claude-code"
	Codex        = "codex"
	Gemini       = "gemini"
	OpenCode     = "opencode"
	Hermes       = "hermes"
	Aider        = "aider"
	Cline        = "cline"
	RooCode      = "roo-code"
	Goose        = "goose"
	Cursor       = "cursor"
	QwenCode     = "qwen-code"
	Pi           = "pi"
	Copilot      = "copilot"
	KiloCode     = "kilo-code"
	Continue     = "continue"
	FactoryDroid = "factory-droid"
)

// Key is the session key of session id of agent: "agent:<agent>:<id>".
func Key(agent, sessionID string) string { return sessionkey.Scope(agent, sessionID) }

// Env is what a Format may use of the world.
type Env struct {
	// OpenDB opens a SQLite database read-only; nil when databases cannot
	// be read (their transcripts are reported as problems).
	OpenDB func(path string) (*sql.DB, error)
	// Getenv reads an environment variable (os.Getenv, or a test's map).
	Getenv func(string) string
	// Home is the user's home directory.
	Home string
}

// Format is one agent's history format.
type Format struct {
	Agent string // one of the names above
	// Roots are the directories (or database files) the agent keeps its
	// history in by default, from the environment (for Claude Code
	// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects). They need not
	// exist.
	Roots func(env Env) []string
	// Claims reports whether path is, or is inside, a store of this agent
	// that List can read. It looks at names and at most a file's first
	// bytes; a path no Format claims is read as OpenClaw's.
	Claims func(path string) bool
	// List lists the transcripts under path. A source that cannot be read
	// is a problem, never a failure of the others.
	List func(ctx context.Context, path string, env Env) ([]Transcript, []Problem)
}

var formats = map[string]*Format{}

// register adds a format; each format's file calls it from init.
func register(f *Format) {
	if formats[f.Agent] != nil {
		panic("agents: format " + f.Agent + " registered twice")
	}
	formats[f.Agent] = f
}

// Formats returns every format, by agent name.
func Formats() []*Format {
	out := make([]*Format, 0, len(formats))
	for _, f := range formats {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

// Lookup returns the format of an agent, nil when there is none.
func Lookup(agent string) *Format { return formats[agent] }

// Claimed returns the format that claims path, nil when none does.
func Claimed(path string) *Format {
	for _, f := range Formats() {
		if f.Claims(path) {
			return f
		}
	}
	return nil
}

// Transcript is one session of an agent's store.
type Transcript struct {
	Agent   string
	Path    string // the file (or database) it is read from
	Unit    string // which transcript of Path this is; "" when Path holds one
	Session store.Session
	// Project is the directory the session worked in (its cwd), "" when
	// unknown. It is also the cwd of the transcript's header event.
	Project string
	// Resumable: Read can start after any position it emitted, without
	// reading what came before (an append-only JSONL file whose lines are
	// converted one at a time). Otherwise every change is read in full.
	Resumable bool
	// Gen identifies the version of a transcript kept in a database: when
	// it changes, the transcript is read again. "" for a file, whose
	// identity and size the syncer checks itself.
	Gen string
	// Events estimates how many events Read emits.
	Events int64
	// Read emits the events after position after (-1: from the start, where
	// the first event is the header) in order.
	Read func(ctx context.Context, after int64, emit func(Event) error) error
}

// Event is one event of a transcript, or a record that could not be read.
type Event struct {
	// Pos is the position after the record the event came from: the byte
	// offset after its line, for files. Every event of one record has the
	// record's Pos.
	Pos  int64
	JSON []byte // the event; nil when Bad is set
	Rec  string // where the record is, for problems: "line 12", "message msg_01"
	Bad  error  // why the record was skipped; reported with Rec
}

// Problem is something that could not be read: a record of a source, or a
// whole source.
type Problem struct {
	Path string
	Rec  string // "line 12", "session ses_01", or "" for the whole source
	Err  error
}

func (p Problem) Error() string {
	if p.Rec == "" {
		return fmt.Sprintf("%s: %v", p.Path, p.Err)
	}
	return fmt.Sprintf("%s: %s: %v", p.Path, p.Rec, p.Err)
}

func (p Problem) Unwrap() error { return p.Err }

// readEach reads each of a reader's session files, in name order, with
// read; a file that cannot be read is a problem of its own and the others
// are still read.
func readEach(files []string, read func(path string) (Transcript, error), problems []Problem) ([]Transcript, []Problem) {
	sort.Strings(files)
	var out []Transcript
	for _, file := range files {
		tr, err := read(file)
		if err != nil {
			problems = append(problems, Problem{Path: file, Err: err})
			continue
		}
		out = append(out, tr)
	}
	return out, problems
}
