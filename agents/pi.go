package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"

	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Pi's history (docs/agents/pi.md): one JSONL file per session,
// <agent dir>/sessions/--<cwd with / as ->--/<time>_<session id>.jsonl,
// in the very format OpenClaw writes its transcripts in (OpenClaw is built
// on Pi's session manager): a session header, then entries that form a
// tree by id and parentId. Its lines are events as they are; only the
// header gains the agent's name.

func init() {
	register(&Format{Agent: Pi, Roots: piRoots, Claims: piClaims, List: piList})
}

// piDirEnv moves Pi's agent directory (default ~/.pi/agent) (AG50).
const piDirEnv = "PI_CODING_AGENT_DIR"

// piFileName is the shape of a session file's name: the time it started,
// with ":" and "." as "-", and the session id.
var piFileName = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_([0-9A-Za-z-]+)\.jsonl$`)

func piRoots(env Env) []string {
	return []string{filepath.Join(env.Dir(piDirEnv, ".pi", "agent"), "sessions")}
}

// piClaims: a .pi directory, its agent/ directory and every path inside
// that, by name; else a session file named as Pi names them whose first
// line is a session header, or a directory holding one, or holding
// directories that do (AG51). OpenClaw's transcripts, in the same format,
// are named by their session id alone, and are never Pi's.
func piClaims(path string) bool {
	p := filepath.Clean(path)
	if underDir(p, func(d string) bool {
		return filepath.Base(d) == ".pi" || (filepath.Base(d) == "agent" && filepath.Base(filepath.Dir(d)) == ".pi")
	}) {
		return true
	}
	info, err := os.Stat(p)
	if err != nil {
		return false
	}
	if !info.IsDir() {
		return piSessionFile(p)
	}
	for _, pattern := range []string{"*.jsonl", filepath.Join("*", "*.jsonl"), filepath.Join("sessions", "*", "*.jsonl")} {
		matches, _ := filepath.Glob(filepath.Join(p, pattern))
		for _, m := range matches {
			if piFileName.MatchString(filepath.Base(m)) {
				return piSessionFile(m)
			}
		}
	}
	return false
}

// piSessionFile reports whether path is named as Pi's session files are
// and its first line is a session header.
func piSessionFile(path string) bool {
	if !piFileName.MatchString(filepath.Base(path)) {
		return false
	}
	h, err := piReadHeader(path)
	return err == nil && h.Type == "session"
}

// piHeader is a session file's first line.
type piHeader struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	Timestamp     any    `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession"`
}

func piReadHeader(path string) (piHeader, error) {
	var s piHeader
	err := readFirstLine(path, &s)
	if errors.Is(err, errNoFirstLine) || err == nil && (s.Type != "session" || s.ID == "") {
		err = errors.New(`the first line is not a session header ({"type":"session","id":...})`)
	}
	if err != nil {
		return piHeader{}, err
	}
	return s, nil
}

// piList lists the sessions under path: the agent directory (its
// sessions/), the sessions directory, a project's directory or one file
// (AG52).
func piList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	files, problems := sessionFiles(ctx, path, "sessions", piFileName.MatchString)
	return readEach(files, piTranscript, problems)
}

// piTranscript is the session a file holds, keyed by its header's id; a
// session forked or cloned from another names that one's file in its
// header, whose name ends in its id: that session is its parent (AG52).
func piTranscript(path string) (Transcript, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Transcript{}, err
	}
	h, err := piReadHeader(path)
	if err != nil {
		return Transcript{}, err
	}
	created := Millis(h.Timestamp)
	sess := store.Session{Key: Key(Pi, h.ID), CreatedAt: created}
	if h.ParentSession != "" {
		if m := piFileName.FindStringSubmatch(filepath.Base(h.ParentSession)); m != nil && m[1] != h.ID {
			sess.ParentSessionKey = Key(Pi, m[1])
		}
	}
	tr := Transcript{
		Agent:     Pi,
		Path:      path,
		Session:   sess,
		Project:   h.Cwd,
		Resumable: true,
		Events:    info.Size()/1024 + 1,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		first := after < 0
		return Lines(ctx, path, after, func(line []byte, end int64, rec string, bad error) error {
			if bad != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: bad})
			}
			if first {
				first = false
				return emit(Event{Pos: end, JSON: Header(Pi, h.ID, created, h.Cwd), Rec: "header"})
			}
			if _, err := transcript.ReadEntry(line); err != nil {
				return emit(Event{Pos: end, Rec: rec, Bad: err})
			}
			return emit(Event{Pos: end, JSON: append([]byte(nil), line...), Rec: rec})
		})
	}
	return tr, nil
}
