package importer

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// SourceKind says how a Source is read.
type SourceKind int

const (
	JSONLFile     SourceKind = iota // one session transcript
	AgentDatabase                   // an OpenClaw agent database, many transcripts
	AgentStore                      // another agent's store (package agents), many transcripts
)

// Source is one input of an import: a JSONL transcript or an agent
// database, with what its directory says about it.
type Source struct {
	Kind    SourceKind
	Path    string
	Size    int64
	AgentID string

	// AgentStore only: the format that reads it.
	Format *agents.Format

	// JSONL files only.
	SessionID string  // from the file name
	Live      Session // the session whose live transcript this is; Key "" when none
	Lineage   string  // key an archived generation belonged to; "" when unknown
}

// fileSession resolves the session of a JSONL transcript once its header
// is read (see the package comment for the rules).
func (src Source) fileSession(h header) Session {
	if src.Live.Key != "" {
		s := src.Live
		if s.CreatedAt == 0 {
			s.CreatedAt = h.createdAt
		}
		return s
	}
	id := h.id
	if id == "" {
		id = src.SessionID
	}
	return Session{
		Key:              sessionkey.Derived(src.AgentID, id, src.Lineage),
		ParentSessionKey: src.Lineage,
		CreatedAt:        h.createdAt,
	}
}

// Skip is a file a state directory walk leaves out, and why.
type Skip struct {
	Path   string
	Reason string
}

// Plan is what an import of some paths will read.
type Plan struct {
	Sources []Source
	Skipped []Skip
}

// Bytes is the total size of the plan's sources.
func (p Plan) Bytes() int64 {
	var n int64
	for _, s := range p.Sources {
		n += s.Size
	}
	return n
}

// PlanOptions change what a state directory walk includes.
type PlanOptions struct {
	IncludeDeleted bool
	// SessionIDs lists the transcript generations an agent database holds,
	// so that JSONL copies of them are skipped; nil skips nothing.
	SessionIDs func(dbPath string) ([]string, error)
	// Agents says which agents' stores are read: "openclaw" for OpenClaw's,
	// else an agents format name; nil reads every store.
	Agents func(name string) bool
}

// OpenClaw is the name of OpenClaw's stores in PlanOptions.Agents.
const OpenClaw = "openclaw"

func (o PlanOptions) reads(name string) bool { return o.Agents == nil || o.Agents(name) }

// File name kinds in agents/<agentId>/sessions/ (artifacts.ts, see the
// package comment).
var (
	archiveRE    = regexp.MustCompile(`^(.+?)\.jsonl\.(reset|deleted|bak)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.zst)?$`)
	checkpointRE = regexp.MustCompile(`(?i)\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$`)
)

// agentDBName is the one agent database of agents/<agentId>/agent/. OpenClaw
// keeps other SQLite files beside it (openclaw-agent.sqlite.reindex-lock.sqlite
// while it reindexes memory, with a -journal), which hold no transcripts.
const agentDBName = "openclaw-agent.sqlite"

var sqliteMagic = []byte("SQLite format 3\x00")

// NewPlan resolves the paths of an import: files are imported whatever
// their name (an SQLite file as an agent database, anything else as JSONL);
// directories are walked for agents/<agentId>/sessions/ and
// agents/<agentId>/agent/openclaw-agent.sqlite, and a directory that itself holds
// sessions.json or *.jsonl files is read as a sessions directory. Paths that
// cannot be read are returned as problems.
func NewPlan(paths []string, opts PlanOptions) (Plan, []Problem) {
	var p Plan
	var problems []Problem
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			problems = append(problems, Problem{Path: path, Err: unwrapPathError(err)})
			continue
		}
		if f := agents.Claimed(path); f != nil {
			if !opts.reads(f.Agent) {
				p.Skipped = append(p.Skipped, Skip{Path: path, Reason: f.Agent + " is excluded"})
				continue
			}
			size := int64(0)
			if !info.IsDir() {
				size = info.Size()
			}
			p.Sources = append(p.Sources, Source{Kind: AgentStore, Path: path, Size: size, AgentID: f.Agent, Format: f})
			continue
		}
		if !opts.reads(OpenClaw) {
			p.Skipped = append(p.Skipped, Skip{Path: path, Reason: OpenClaw + " is excluded"})
			continue
		}
		if !info.IsDir() {
			src, err := fileSource(path, info.Size())
			if err != nil {
				problems = append(problems, Problem{Path: path, Err: err})
				continue
			}
			if src.Kind == JSONLFile {
				problems = append(problems, describeFromStore(filepath.Dir(path), []*Source{&src})...)
			}
			p.Sources = append(p.Sources, src)
			continue
		}
		n := len(p.Sources) + len(p.Skipped)
		problems = append(problems, p.walk(path, opts)...)
		if len(p.Sources)+len(p.Skipped) == n {
			problems = append(problems, Problem{Path: path, Err: errors.New("no OpenClaw transcripts: expected agents/<agentId>/sessions/, an agent database, sessions.json or *.jsonl files")})
		}
	}
	return p, problems
}

// fileSource is a file named on the command line.
func fileSource(path string, size int64) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return Source{}, unwrapPathError(err)
	}
	magic := make([]byte, len(sqliteMagic))
	n, _ := f.Read(magic)
	f.Close()
	agentID := agentOf(filepath.Dir(path))
	if bytes.Equal(magic[:n], sqliteMagic) {
		return Source{Kind: AgentDatabase, Path: path, Size: size, AgentID: agentID}, nil
	}
	return Source{Kind: JSONLFile, Path: path, Size: size, AgentID: agentID, SessionID: sessionIDOf(filepath.Base(path))}, nil
}

// describeFromStore fills in what dir/sessions.json says about JSONL
// sources of dir. A sessions.json that cannot be read in full is reported,
// and what was read of it is still used.
func describeFromStore(dir string, srcs []*Source) []Problem {
	if len(srcs) == 0 {
		return nil
	}
	path := filepath.Join(dir, "sessions.json")
	store, err := readSessionStore(path, srcs[0].AgentID)
	for _, src := range srcs {
		store.describe(src)
	}
	if err != nil {
		return []Problem{{Path: path, Err: err}}
	}
	return nil
}

// agentOf returns the agent id of a directory agents/<agentId>/sessions or
// agents/<agentId>/agent, else sessionkey.DefaultAgent.
func agentOf(dir string) string {
	if id, ok := agentDir(dir); ok {
		return id
	}
	return sessionkey.DefaultAgent
}

// agentDir returns the agent id of dir when dir is agents/<agentId>/<sub>
// for sub "sessions" or "agent".
func agentDir(dir string) (string, bool) {
	parent := filepath.Dir(dir)
	if filepath.Base(filepath.Dir(parent)) != "agents" {
		return "", false
	}
	if b := filepath.Base(dir); b != "sessions" && b != "agent" {
		return "", false
	}
	return filepath.Base(parent), true
}

// sessionIDOf returns the session id a transcript file name carries.
func sessionIDOf(name string) string {
	if m := archiveRE.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return strings.TrimSuffix(name, ".jsonl")
}

func (p *Plan) walk(root string, opts PlanOptions) []Problem {
	var problems []Problem
	var dirs []string // sessions directories
	var dbs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, Problem{Path: path, Err: unwrapPathError(err)})
			return nil
		}
		if d.IsDir() {
			if _, ok := agentDir(path); ok && d.Name() == "sessions" || path == root && hasTranscripts(path) {
				dirs = append(dirs, path)
			}
			return nil
		}
		if _, ok := agentDir(filepath.Dir(path)); ok && d.Type().IsRegular() && d.Name() == agentDBName && filepath.Base(filepath.Dir(path)) == "agent" {
			dbs = append(dbs, path)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, Problem{Path: root, Err: err})
	}
	inDB := map[string]map[string]bool{} // agent id -> session ids its databases hold
	for _, db := range dbs {
		info, err := os.Stat(db)
		if err != nil {
			problems = append(problems, Problem{Path: db, Err: unwrapPathError(err)})
			continue
		}
		agentID := agentOf(filepath.Dir(db))
		p.Sources = append(p.Sources, Source{Kind: AgentDatabase, Path: db, Size: info.Size(), AgentID: agentID})
		if opts.SessionIDs == nil {
			continue
		}
		ids, err := opts.SessionIDs(db)
		if err != nil {
			problems = append(problems, Problem{Path: db, Err: err})
			continue
		}
		if inDB[agentID] == nil {
			inDB[agentID] = map[string]bool{}
		}
		for _, id := range ids {
			inDB[agentID][id] = true
		}
	}
	for _, dir := range dirs {
		problems = append(problems, p.sessionsDir(dir, opts, inDB[agentOf(dir)])...)
	}
	return problems
}

// hasTranscripts reports whether dir directly holds sessions.json or JSONL
// transcripts.
func hasTranscripts(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (n == "sessions.json" || strings.HasSuffix(n, ".jsonl") || archiveRE.MatchString(n)) {
			return true
		}
	}
	return false
}

// sessionsDir plans the transcripts of one sessions directory, in name
// order.
func (p *Plan) sessionsDir(dir string, opts PlanOptions, inDB map[string]bool) []Problem {
	agentID := agentOf(dir)
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return []Problem{{Path: dir, Err: unwrapPathError(err)}}
	}
	var problems []Problem
	first := len(p.Sources)
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if !e.Type().IsRegular() {
			continue
		}
		reason := skipReason(name, opts.IncludeDeleted)
		if reason == "" && inDB[sessionIDOf(name)] {
			reason = "its session is in the agent database"
		}
		if reason != "" {
			if reason != notTranscript {
				p.Skipped = append(p.Skipped, Skip{Path: path, Reason: reason})
			}
			continue
		}
		info, err := e.Info()
		if err != nil {
			problems = append(problems, Problem{Path: path, Err: unwrapPathError(err)})
			continue
		}
		p.Sources = append(p.Sources, Source{Kind: JSONLFile, Path: path, Size: info.Size(), AgentID: agentID, SessionID: sessionIDOf(name)})
	}
	srcs := make([]*Source, 0, len(p.Sources)-first)
	for i := first; i < len(p.Sources); i++ {
		srcs = append(srcs, &p.Sources[i])
	}
	return append(problems, describeFromStore(dir, srcs)...)
}

const notTranscript = "not a transcript"

// skipReason says why a file of a sessions directory is not imported, or
// "" when it is.
func skipReason(name string, includeDeleted bool) string {
	if m := archiveRE.FindStringSubmatch(name); m != nil {
		switch m[2] {
		case "deleted":
			if !includeDeleted {
				return "deleted transcript (import with --include-deleted)"
			}
		case "bak":
			return "backup copy of a transcript"
		}
		return ""
	}
	switch {
	case !strings.HasSuffix(name, ".jsonl"):
		return notTranscript
	case strings.HasSuffix(name, ".trajectory.jsonl"):
		return "runtime trajectory log, not a transcript"
	case checkpointRE.MatchString(name):
		return "pre-compaction checkpoint copy of a transcript"
	}
	return ""
}
