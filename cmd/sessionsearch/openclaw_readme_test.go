package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionsearch/sessionsearch/driver"
)

// openclawServer is one entry of OpenClaw's mcp.servers: a stdio server is
// a command and its arguments.
type openclawServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// openclawHome is the placeholder the README's entry uses for the user's
// home directory (OpenClaw spawns the command without a shell, so `~` is not
// expanded).
const openclawHome = "/home/you"

// readmeOpenClaw returns the README's "Use from OpenClaw" section.
func readmeOpenClaw(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const heading = "### Use from OpenClaw\n"
	_, section, ok := strings.Cut(string(data), heading)
	if !ok {
		t.Fatalf("README.md has no %q section", strings.TrimSpace(heading))
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	if i := strings.Index(section, "\n### "); i >= 0 {
		section = section[:i]
	}
	return section
}

// readmeOpenClawEntry returns the server name and entry of the section's
// mcp.servers config (its first ```json block), and checks that the
// `openclaw mcp set` command of the section writes the same entry.
func readmeOpenClawEntry(t *testing.T, section string) (string, openclawServer) {
	t.Helper()
	_, rest, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal("the OpenClaw section has no ```json block with the mcp.servers entry")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the OpenClaw section's ```json block is not closed")
	}
	var config struct {
		MCP struct {
			Servers map[string]openclawServer `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(block), &config); err != nil {
		t.Fatalf("the mcp.servers entry is not JSON: %v\n%s", err, block)
	}
	if len(config.MCP.Servers) != 1 {
		t.Fatalf("want one server in mcp.servers, got %d: %s", len(config.MCP.Servers), block)
	}
	var name string
	var entry openclawServer
	for name, entry = range config.MCP.Servers {
	}

	prefix := "openclaw mcp set " + name + " '"
	var set []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, prefix) && strings.HasSuffix(line, "'") {
			set = append(set, strings.TrimSuffix(strings.TrimPrefix(line, prefix), "'"))
		}
	}
	if len(set) != 1 {
		t.Fatalf("want one %q line, got %d", prefix+"...'", len(set))
	}
	var setEntry openclawServer
	if err := json.Unmarshal([]byte(set[0]), &setEntry); err != nil {
		t.Fatalf("openclaw mcp set: %v: %s", err, set[0])
	}
	if !reflect.DeepEqual(setEntry, entry) {
		t.Errorf("openclaw mcp set writes %+v, the config shows %+v", setEntry, entry)
	}
	return name, entry
}

// TestOpenClawREADME runs the command line that README.md tells OpenClaw to
// spawn, as OpenClaw would (no shell, the user's HOME, the default
// database), and talks to it with a real MCP client: it serves the two tools
// under the names the section states, and answers as the documented caller
// with the documented visibility.
func TestOpenClawREADME(t *testing.T) {
	section := readmeOpenClaw(t)
	name, entry := readmeOpenClawEntry(t, section)
	if entry.Command != "sessionsearch" {
		t.Fatalf("command %q, want sessionsearch", entry.Command)
	}
	if len(entry.Args) == 0 || entry.Args[0] != "mcp" {
		t.Fatalf("args %q do not start with mcp", entry.Args)
	}

	// The user's home: the bundled transcripts as ~/.openclaw, imported
	// into the default database, as the README's first section does.
	home := t.TempDir()
	sessions := filepath.Join(home, ".openclaw", "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sessions, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home}
	if r := runBinary(t, env, "import", filepath.Join(home, ".openclaw")); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}

	// The entry names the user's home once, as the --source to follow.
	args := slices.Clone(entry.Args)
	placeholders := 0
	for i, a := range args {
		if strings.Contains(a, openclawHome) {
			placeholders++
			if a != openclawHome+"/.openclaw" || i == 0 || args[i-1] != "--source" {
				t.Errorf("argument %q: the home placeholder %s belongs only in --source %s/.openclaw", a, openclawHome, openclawHome)
			}
			args[i] = strings.Replace(a, openclawHome, home, 1)
		}
	}
	if placeholders != 1 {
		t.Errorf("the entry names %s %d times, want once (in --source)", openclawHome, placeholders)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "openclaw-readme-test", Version: "v1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("sessionsearch %s: %v\n%s", strings.Join(entry.Args, " "), err, stderr.String())
	}
	defer s.Close()

	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tool := range list.Tools {
		tools = append(tools, tool.Name)
	}
	if slices.Sort(tools); !slices.Equal(tools, []string{"sessions_history", "sessions_search"}) {
		t.Fatalf("tools %v", tools)
	}
	// OpenClaw shows them to the model as <server>__<tool>: the section
	// must name exactly those.
	for _, tool := range tools {
		if model := name + "__" + tool; !strings.Contains(section, "`"+model+"`") {
			t.Errorf("the section does not name the model-facing tool %s", model)
		}
	}

	// The server syncs its --source first, within a budget: on a slow
	// machine the first answers may say indexing, and the next calls go on
	// (docs/sync.md Y12). Ask until the answer is complete, as a client
	// that reads "indexing" would.
	const word = "日报"
	var got driver.SearchResult
	for attempt := 0; ; attempt++ {
		text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": word, "limit": 25})
		got = driver.SearchResult{}
		decodeStrict(t, text, &got)
		if isErr || len(got.Results) == 0 && !got.Indexing {
			t.Fatalf("sessions_search %s as %q: %s", word, entry.Args, text)
		}
		if !got.Indexing {
			break
		}
		if attempt == 100 {
			t.Fatalf("sessions_search %s still indexing after %d calls: %s", word, attempt, text)
		}
	}
	for _, hit := range got.Results {
		if !strings.Contains(hit.Snippet, word) {
			t.Errorf("hit %s/%s: snippet %q lacks %s", hit.SessionKey, hit.MessageID, hit.Snippet, word)
		}
	}

	// The same caller flags given to `sessionsearch search` find the same
	// messages: the server answered as the documented caller, with the
	// documented visibility, not as the operator or with its defaults.
	r := runBinary(t, env, append(append([]string{"search", "--json", "--limit", "25"}, args[1:]...), word)...)
	if r.code != 0 {
		t.Fatalf("search with the entry's flags: exit %d: %s", r.code, r.stderr)
	}
	var want driver.SearchResult
	decodeStrict(t, r.stdout, &want)
	hits := func(res driver.SearchResult) (out []string) {
		for _, h := range res.Results {
			out = append(out, h.SessionKey+"/"+h.MessageID)
		}
		return out
	}
	if !slices.Equal(hits(got), hits(want)) {
		t.Errorf("the MCP server found %v, search with its flags %v", hits(got), hits(want))
	}
	// A caller that sees only itself finds none of these: the documented
	// visibility is what lets the main session see its agent's sessions.
	self := runBinary(t, env, "search", "--json", "--limit", "25", "--caller", "agent:main:main", "--visibility", "self", word)
	var selfRes driver.SearchResult
	decodeStrict(t, self.stdout, &selfRes)
	if self.code != 0 || len(selfRes.Results) >= len(got.Results) {
		t.Errorf("visibility self finds %d, the documented entry %d: the check does not tell visibilities apart", len(selfRes.Results), len(got.Results))
	}
}
