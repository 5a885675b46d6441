package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/scriptmodel"
)

// Agent is one agent program the test drives: how to find it, point it at
// the model, and run a turn and a resume. Add one to agents (drivers.go)
// and the test runs it (docs/contributing.md).
type Agent struct {
	// Name names the subtest: the program and its version.
	Name string
	// Store is the name of sessionsearch's reader of its sessions, as
	// --include takes it.
	Store string
	// Program returns the program's command (its executable, or Node and
	// its script), found under the installed packages; an error when it is
	// not installed.
	Program func(r *Run) ([]string, error)
	// Read is the model's call of the agent's own tool that reads the file
	// at path (absolute).
	Read func(path string) scriptmodel.Call
	// Setup writes the agent's configuration under r.Home so that it uses
	// the model at r.Model, and returns the environment variables it needs
	// besides HOME, PATH and the offline ones.
	Setup func(t *testing.T, r *Run) []string
	// Args are the arguments of a first turn (resume false) or of a resume
	// of the session the first turn started, which say prompt.
	Args func(prompt string, resume bool) []string
	// ResumeArgs, when set, are the arguments of the resume instead of
	// Args': for a program that resumes only a session named by its id,
	// found in what the first turn wrote under r.Home.
	ResumeArgs func(t *testing.T, r *Run, prompt string) []string
	// BeforeResume, when set, runs between the turn and the resume.
	BeforeResume func(t *testing.T, r *Run)
	// KeepsNoThinking: the program writes none of the model's thinking
	// to its files (its page says so), so the store cannot keep it; it
	// must still never be found.
	KeepsNoThinking bool
}

// Run is one run of an agent: its own HOME and project directory, and the
// model it talks to.
type Run struct {
	Home    string // the agent's HOME
	Project string // the directory it runs in, holding the ledger
	Model   string // the scripted model's URL, http://127.0.0.1:port
	Node    string // Node.js 24, for the programs that run on Node
}

// The installed programs: this directory's packages (package.json) and
// tests/openclaw's, which bring OpenClaw and Node.js 24.
const (
	modules         = "node_modules"
	openclawModules = "../openclaw/node_modules"
)

// nodeProgram runs a script of a package on Node.js 24.
func nodeProgram(script string) func(r *Run) ([]string, error) {
	return func(r *Run) ([]string, error) {
		if _, err := os.Stat(script); err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(script)
		return []string{r.Node, abs}, nil
	}
}

// nativeProgram is the executable file of a platform package at version,
// whether npm put it at the top of node_modules or under owner, the package
// that depends on it ("" when it is a dependency of its own).
func nativeProgram(owner, pkg, version, file string) func(r *Run) ([]string, error) {
	dirs := []string{filepath.Join(modules, pkg)}
	if owner != "" {
		dirs = append([]string{filepath.Join(modules, owner, "node_modules", pkg)}, dirs...)
	}
	return func(*Run) ([]string, error) {
		for _, dir := range dirs {
			var meta struct {
				Version string `json:"version"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "package.json"))
			if err != nil || json.Unmarshal(data, &meta) != nil || meta.Version != version {
				continue
			}
			abs, _ := filepath.Abs(filepath.Join(dir, file))
			return []string{abs}, nil
		}
		return nil, fmt.Errorf("%s %s is not installed under %s", pkg, version, modules)
	}
}

// writeFile writes data to path, making its directory.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes v as JSON to path.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}
