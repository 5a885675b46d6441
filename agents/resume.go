package agents

import (
	"strings"
	"unicode"

	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// How a person continues a session in the program that wrote it
// (docs/ui.md U9), each read off the program's own documentation:
//
//   - Claude Code: `claude --resume <session id>`, in the project's
//     directory (its sessions are kept per project). A sub-agent has no
//     session of its own to resume: its parent's is resumed.
//   - Codex CLI: `codex resume <thread id>`.
//   - Gemini CLI: `gemini --resume <session id>`, in the project's
//     directory (its sessions are kept per project).
//   - OpenCode: `opencode --session <session id>`.
//   - Hermes Agent: `hermes --resume <session id>`.
//   - Any other key is OpenClaw's: `openclaw resume <session key>` attaches
//     its terminal UI to the session on the Gateway (an exact key wins).
//
// The coding agents' commands run in the session's project directory when
// it is known: their tools work there.
var resumeCommands = map[string]func(id string) []string{
	ClaudeCode: func(id string) []string { return []string{"claude", "--resume", id} },
	Codex:      func(id string) []string { return []string{"codex", "resume", id} },
	Gemini:     func(id string) []string { return []string{"gemini", "--resume", id} },
	OpenCode:   func(id string) []string { return []string{"opencode", "--session", id} },
	Hermes:     func(id string) []string { return []string{"hermes", "--resume", id} },
}

// claudeSubagent separates a Claude Code session id from its sub-agent's in
// a key (docs/agents/claude-code.md).
const claudeSubagent = ":subagent:"

// Resume is the command line that continues a session, and the directory
// to run it in ("" for anywhere).
type Resume struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir,omitempty"`
}

// ResumeCommand returns how to continue the session of key, whose project
// directory is cwd ("" when unknown). ok is false when the key or the
// directory holds a character that a command line pasted into a terminal
// must not (control and format characters, bidi overrides among them): the
// text comes from a transcript, and a command that looks like another is
// worse than none.
func ResumeCommand(key, cwd string) (r Resume, ok bool) {
	k := sessionkey.Parse(key)
	command, coding := resumeCommands[k.Agent]
	switch {
	case !coding:
		r = Resume{Argv: []string{"openclaw", "resume", key}}
	case k.Rest == "":
		return Resume{}, false
	default:
		id := k.Rest
		if k.Agent == ClaudeCode {
			id, _, _ = strings.Cut(id, claudeSubagent)
		}
		r = Resume{Argv: command(id), Dir: cwd}
	}
	for _, s := range append(r.Argv, r.Dir) {
		if strings.IndexFunc(s, func(c rune) bool { return unicode.IsControl(c) || unicode.Is(unicode.Cf, c) }) >= 0 {
			return Resume{}, false
		}
	}
	return r, true
}

// Shell is the command as a person types it into a POSIX shell, each word
// quoted where it needs it: `cd DIR && claude --resume ID`.
func (r Resume) Shell() string {
	words := make([]string, len(r.Argv))
	for i, a := range r.Argv {
		words[i] = shellWord(a)
	}
	line := strings.Join(words, " ")
	if r.Dir != "" {
		line = "cd " + shellWord(r.Dir) + " && " + line
	}
	return line
}

// shellWord quotes s for a POSIX shell unless every character of it is one
// that no shell treats specially.
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.,:/@%+=", c)))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
