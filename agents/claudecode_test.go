package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// The fixture store (docs/agents/claude-code.md): two projects, a session
// with a rewind and a sub-agent file (A, Claude Code 2.1), one whose
// sub-agent runs are sidechain lines of the main file and which was
// compacted (B, 2.0.14), and one with a sub-agent file beside it (C, 2.0.40).
const (
	ccStore    = "testdata/claude-code"
	ccSessionA = "0d969b79-a24e-5561-b110-20f9fa33baa8"
	ccSessionB = "6a859339-89fc-5779-9193-83765f346a9f"
	ccSessionC = "e292f157-914d-5359-836c-9cd6fc3738dc"
	ccRunB1    = "e6642a1b-a998-5a9b-8b1c-1e392826326d" // B's first in-file run
	ccRunB2    = "665397ee-93ec-5b66-a404-0b079a2c7d10" // B's second, still running when the file ends
	ccFileA    = ccStore + "/projects/-home-ana-src-app/" + ccSessionA + ".jsonl"
	ccFileB    = ccStore + "/projects/-home-kenji-work-site/" + ccSessionB + ".jsonl"
)

// ccTranscriptsByKey lists path and returns its transcripts by session key,
// failing on any problem.
func ccTranscriptsByKey(t *testing.T, path string) map[string]Transcript {
	t.Helper()
	ts, problems := ccList(context.Background(), path, Env{})
	if len(problems) > 0 {
		t.Fatalf("List(%s): problems %v", path, problems)
	}
	out := map[string]Transcript{}
	for _, tr := range ts {
		if _, dup := out[tr.Session.Key]; dup {
			t.Fatalf("List(%s): two transcripts for %s", path, tr.Session.Key)
		}
		out[tr.Session.Key] = tr
	}
	return out
}

func ccKey(id string) string { return Key(ClaudeCode, id) }

func TestClaudeCodeListsEverySessionOfTheStore(t *testing.T) {
	got := ccTranscriptsByKey(t, ccStore)
	type row struct {
		unit, spawnedBy, project string
		resumable                bool
		created                  int64
	}
	want := map[string]row{
		ccKey(ccSessionA):                          {"", "", "/home/ana/src/app", true, Millis("2026-11-20T09:00:00.000Z")},
		ccKey(ccSessionA + ":subagent:a3f9c2e1"):   {"", ccKey(ccSessionA), "/home/ana/src/app", true, Millis("2026-11-20T09:02:06.000Z")},
		ccKey(ccSessionB):                          {"", "", "/home/kenji/work/site", true, Millis("2026-11-21T14:00:00.000Z")},
		ccKey(ccSessionB + ":subagent:" + ccRunB1): {"sidechain:" + ccRunB1, ccKey(ccSessionB), "/home/kenji/work/site", false, Millis("2026-11-21T14:00:05.000Z")},
		ccKey(ccSessionB + ":subagent:" + ccRunB2): {"sidechain:" + ccRunB2, ccKey(ccSessionB), "/home/kenji/work/site", false, Millis("2026-11-21T14:06:04.000Z")},
		ccKey(ccSessionC):                          {"", "", "/home/kenji/work/site", true, Millis("2026-11-22T08:00:00.000Z")},
		ccKey(ccSessionC + ":subagent:5e6f7a8b"):   {"", ccKey(ccSessionC), "/home/kenji/work/site", true, Millis("2026-11-22T08:00:03.000Z")},
	}
	if len(got) != len(want) {
		keys := []string{}
		for k := range got {
			keys = append(keys, k)
		}
		t.Fatalf("List: %d transcripts %v, want %d", len(got), keys, len(want))
	}
	for key, w := range want {
		tr, ok := got[key]
		if !ok {
			t.Errorf("List: no transcript %s", key)
			continue
		}
		g := row{tr.Unit, tr.Session.SpawnedBy, tr.Project, tr.Resumable, tr.Session.CreatedAt}
		if g != w {
			t.Errorf("%s: got %+v, want %+v", key, g, w)
		}
		if tr.Agent != ClaudeCode {
			t.Errorf("%s: agent %q", key, tr.Agent)
		}
		events, _ := read(t, tr, -1)
		header, _, err := transcript.Read(events[0])
		if err != nil || header.Type != "session" || "agent:claude-code:"+header.ID != key {
			t.Errorf("%s: first event %s is not its header", key, events[0])
		}
		if !bytes.Contains(events[0], []byte(`"cwd":"`+w.project+`"`)) {
			t.Errorf("%s: header %s does not carry the project", key, events[0])
		}
	}
	// Listing the config directory, the projects directory, a project or
	// one file gives the same transcripts of what it holds.
	for path, keys := range map[string][]string{
		ccStore + "/projects":                                 keysOf(want),
		ccStore + "/projects/-home-ana-src-app":               {ccKey(ccSessionA), ccKey(ccSessionA + ":subagent:a3f9c2e1")},
		ccStore + "/projects/-home-ana-src-app/" + ccSessionA: {ccKey(ccSessionA + ":subagent:a3f9c2e1")},
		ccFileB: {ccKey(ccSessionB), ccKey(ccSessionB + ":subagent:" + ccRunB1), ccKey(ccSessionB + ":subagent:" + ccRunB2)},
		ccStore + "/projects/-home-kenji-work-site/agent-5e6f7a8b.jsonl": {ccKey(ccSessionC + ":subagent:5e6f7a8b")},
	} {
		got := keysOf(ccTranscriptsByKey(t, path))
		if !reflect.DeepEqual(got, sortedCopy(keys)) {
			t.Errorf("List(%s) = %v, want %v", path, got, sortedCopy(keys))
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return sortedCopy(out)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// ccRoles counts the messages of events by role, and the other events by
// type.
func ccRoles(t *testing.T, events [][]byte) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, ev := range events {
		e, _, err := transcript.Read(ev)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == "message" {
			n[e.Role]++
		} else {
			n[e.Type]++
		}
	}
	return n
}

// ccSearchable is the searchable text of events, one message a line, on
// the active path or off it.
func ccSearchable(t *testing.T, events [][]byte) string {
	t.Helper()
	path, searchable := activePath(t, events)
	var b strings.Builder
	for i, p := range path {
		if searchable[i] {
			b.WriteString(p + "\n")
		}
	}
	return b.String()
}

func ccCheckPath(t *testing.T, name string, events [][]byte, want []string) {
	t.Helper()
	path, searchable := activePath(t, events)
	var got []string
	for i, p := range path {
		mark := "  "
		if searchable[i] {
			mark = "S "
		}
		got = append(got, mark+p)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: active path\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Session A: assistant turns split into a line per block, tool results on
// user lines, a rewind, a summary, kept records and a damaged line.
func TestClaudeCodeSessionWithRewind(t *testing.T) {
	tr := ccTranscriptsByKey(t, ccStore)[ccKey(ccSessionA)]
	events, bad := read(t, tr, -1)
	if len(bad) != 1 || bad[0].Rec != "line 16" || !strings.Contains(bad[0].Bad.Error(), "not a JSON object") {
		t.Errorf("bad records %v, want line 16 not a JSON object", bad)
	}
	if got, want := ccRoles(t, events), map[string]int{
		"session": 1, "user": 3, "assistant": 8, "toolResult": 2,
		"claude-code.queue-operation": 1, "claude-code.file-history-snapshot": 1, "claude-code.system": 1,
		"claude-code.summary": 1, "claude-code.worktree-state": 1,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("events by role/type %v, want %v", got, want)
	}
	ccCheckPath(t, "A", events, []string{
		"S user: Warum schlägt der Test für die Größenänderung fehl? Bitte prüfe resize.go.",
		"  assistant: ", // the thinking block: kept, not searchable
		"S assistant: Ich sehe mir resize.go an.",
		"  assistant: ", // the Read call
		"  toolResult: func Resize(h, w int) Image { // quokka\n\treturn scale(w, h)\n}",
		"S assistant: Die Höhe wird vor der Breite übergeben; das ist der Fehler.",
		"S user: やっぱり、まず原因をコメントで説明してください。",
		"S assistant: コメントを追加しました。原因は引数の順序です。",
		"  assistant: ", // the Task call
		"  toolResult: Resize wird in main.go und thumb.go aufgerufen (axolotl).",
		"S assistant: Fertig. Résumé : zwei Aufrufer gefunden, beide übergeben (w, h).",
	})
	text := ccSearchable(t, events)
	for _, hidden := range []string{"zebrafish", "quokka", "axolotl", "narwhal", "ペンギン", "書き直して"} {
		if strings.Contains(text, hidden) {
			t.Errorf("searchable text holds %q (thinking, tool result, summary or the abandoned branch)", hidden)
		}
	}
	// The abandoned branch is kept: its messages are stored, off the path.
	all := string(bytes.Join(events, []byte("\n")))
	for _, kept := range []string{"ペンギン", "zebrafish", "narwhal", `"toolCallId":"toolu_01Read"`, `"name":"Task"`, `"model":"claude-sonnet-4-5-20250929"`} {
		if !strings.Contains(all, kept) {
			t.Errorf("events lost %q", kept)
		}
	}
}

// Session B: sub-agent runs as sidechain lines of the main file, one still
// running at its end; an isMeta line; a compaction.
func TestClaudeCodeSidechainsInTheMainFile(t *testing.T) {
	byKey := ccTranscriptsByKey(t, ccStore)
	main, _ := read(t, byKey[ccKey(ccSessionB)], -1)
	if got, want := ccRoles(t, main), map[string]int{
		"session": 1, "user": 2, "assistant": 3, "toolResult": 1, "system": 2,
		"claude-code.sidechain": 4, "claude-code.system": 1,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("main events by role/type %v, want %v", got, want)
	}
	// The sidechain lines appended last do not take the leaf, and the
	// compact boundary continues the conversation it compacted.
	ccCheckPath(t, "B", main, []string{
		"S user: サイトのビルドが遅いです。原因を調べてもらえますか？",
		"S assistant: Je vais vérifier la configuration de webpack — d'abord le cache.",
		"  toolResult: Le cache est désactivé (cache: false) ; c'est la cause probable du ralentissement.",
		"S assistant: キャッシュが無効になっています。cache: true にすると速くなります。",
		"  system: Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.",
		"  system: This session is being continued from a previous conversation. Summary: webpack のキャッシュ (cache: false) が原因 — wombat.",
		"S user: ありがとう、完璧です！ Et le cache de Babel ?",
		"S assistant: De rien ! Je vérifie aussi Babel.",
	})
	if text := ccSearchable(t, main); strings.Contains(text, "ocelot") || strings.Contains(text, "Analyse webpack") {
		t.Errorf("the main session's searchable text holds a sub-agent's: %s", text)
	}
	run1, _ := read(t, byKey[ccKey(ccSessionB+":subagent:"+ccRunB1)], -1)
	ccCheckPath(t, "B run 1", run1, []string{
		"S user: Analyse webpack.config.js et résume les réglages de cache.",
		"S assistant: Le cache est désactivé (cache: false) ; c'est la cause probable du ralentissement.",
	})
	run2, _ := read(t, byKey[ccKey(ccSessionB+":subagent:"+ccRunB2)], -1)
	ccCheckPath(t, "B run 2", run2, []string{
		"S user: Vérifie le cacheDirectory de Babel.",
		"S assistant: Babel の cacheDirectory は有効です (ocelot)。",
	})
}

// Sub-agent files: under <session>/subagents/ (2.1) and beside the session
// (2.0.28 to 2.1).
func TestClaudeCodeSubagentFiles(t *testing.T) {
	byKey := ccTranscriptsByKey(t, ccStore)
	sub, _ := read(t, byKey[ccKey(ccSessionA+":subagent:a3f9c2e1")], -1)
	ccCheckPath(t, "A's sub-agent", sub, []string{
		"S user: Finde alle Aufrufer von Resize im Repository.",
		"  assistant: ",
		"  toolResult: main.go:12\nthumb.go:40",
		"S assistant: Resize wird in main.go und thumb.go aufgerufen (axolotl).",
	})
	if !bytes.Contains(bytes.Join(sub, nil), []byte(`"model":"claude-haiku-4-5-20251001"`)) {
		t.Error("the sub-agent's model is lost")
	}
	flat, _ := read(t, byKey[ccKey(ccSessionC+":subagent:5e6f7a8b")], -1)
	ccCheckPath(t, "C's sub-agent", flat, []string{
		"S user: Lis README.md et résume-le.",
		"S assistant: Un générateur de sites statiques écrit en Go (capybara).",
	})
	parent, _ := read(t, byKey[ccKey(ccSessionC)], -1)
	if text := ccSearchable(t, parent); strings.Contains(text, "capybara") || !strings.Contains(text, "静的サイトジェネレーター") {
		t.Errorf("C's searchable text: %s", text)
	}
}

func TestClaudeCodeReadsAreDeterministic(t *testing.T) {
	first := ccTranscriptsByKey(t, ccStore)
	second := ccTranscriptsByKey(t, ccStore)
	for key, tr := range first {
		a, _ := read(t, tr, -1)
		b, _ := read(t, second[key], -1)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two reads differ", key)
		}
	}
}

// ccEvents reads a transcript from after and returns its events' JSON and
// positions.
func ccEvents(t *testing.T, tr Transcript, after int64) (out []string, last int64) {
	t.Helper()
	last = after
	err := tr.Read(context.Background(), after, func(e Event) error {
		if e.Bad != nil {
			out = append(out, "bad "+e.Bad.Error())
		} else {
			out = append(out, string(e.JSON))
		}
		last = e.Pos
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, last
}

// A session file read in two parts, the second from where the first
// stopped (a line half written when the first read ran), gives the events
// of one read of the whole file.
func TestClaudeCodeResumedReadEqualsWholeRead(t *testing.T) {
	data, err := os.ReadFile(ccFileA)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".claude", "projects", "-home-ana-src-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, ccSessionA+".jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := len(bytes.Join(lines[:9], nil)) + 40 // nine lines and part of the tenth
	if err := os.WriteFile(file, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	tr := ccTranscriptsByKey(t, file)[ccKey(ccSessionA)]
	if !tr.Resumable {
		t.Fatal("a session file is resumable")
	}
	part1, pos := ccEvents(t, tr, -1)
	if want := int64(len(bytes.Join(lines[:9], nil))); pos != want {
		t.Fatalf("first read stopped at %d, want %d (the end of the last whole line)", pos, want)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[cut:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	part2, _ := ccEvents(t, tr, pos)
	whole, _ := ccEvents(t, ccTranscriptsByKey(t, file)[ccKey(ccSessionA)], -1)
	if got := append(part1, part2...); !reflect.DeepEqual(got, whole) {
		t.Errorf("two reads give\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
	}
}

// ccConvert of single lines: tool results on a user line are never user
// text, and one line's messages chain so that its children follow them all.
func TestClaudeCodeLines(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string // events
		err  string
	}{
		{"tool results and text on one user line",
			`{"type":"user","uuid":"u9","parentUuid":"a8","timestamp":"2026-11-20T09:00:00Z","message":{"role":"user","content":[` +
				`{"type":"tool_result","tool_use_id":"t1","content":"out","is_error":true},{"type":"text","text":"[Request interrupted by user]"}]}}`,
			[]string{
				`{"type":"message","id":"u9#1","parentId":"a8","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"out"}],"toolCallId":"t1","isError":true,"timestamp":1795165200000}}`,
				`{"type":"message","id":"u9","parentId":"u9#1","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}],"timestamp":1795165200000}}`,
			}, ""},
		{"a message line without uuid takes its offset as id and follows the leaf",
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"},{"type":"text","text":"hi"}]}}`,
			[]string{`{"type":"message","id":"byte:1234","message":{"role":"assistant","content":[{"type":"thinking"},{"type":"text","text":"hi"}]}}`}, ""},
		{"a line of a type no version wrote yet is kept in the tree",
			`{"type":"attachment","uuid":"x1","parentUuid":null,"attachment":{"k":1}}`,
			[]string{`{"type":"claude-code.attachment","id":"x1","parentId":null,"data":{"type":"attachment","uuid":"x1","parentUuid":null,"attachment":{"k":1}}}`}, ""},
		{"a summary is kept outside the tree",
			`{"type":"summary","summary":"s","leafUuid":"a8"}`,
			[]string{`{"type":"claude-code.summary","data":{"type":"summary","summary":"s","leafUuid":"a8"}}`}, ""},
		{"not JSON", `hello`, nil, "not a JSON object"},
		{"an array", `[1]`, nil, "not a JSON object"},
		{"no type", `{"uuid":"u1"}`, nil, `field "type" is missing`},
		{"a user line without a message", `{"type":"user","uuid":"u1","parentUuid":null}`, nil, `field "message" is missing on a "user" line`},
		{"a message that is not an object", `{"type":"assistant","uuid":"a1","message":"hi"}`, nil, `field "message" is not a message`},
		{"content neither text nor blocks", `{"type":"user","uuid":"u1","message":{"role":"user","content":7}}`, nil, `field "message.content" is neither text nor blocks`},
	}
	for _, tt := range tests {
		events, err := ccConvert([]byte(tt.line), 1234, false)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []string
		for _, ev := range events {
			got = append(got, string(ev))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestClaudeCodeListReportsWhatItCannotRead(t *testing.T) {
	missing := filepath.Join(t.TempDir(), ".claude", "projects")
	ts, problems := ccList(context.Background(), missing, Env{})
	if len(ts) != 0 || len(problems) != 1 || problems[0].Path != missing {
		t.Errorf("List(missing) = %v, %v; want one problem naming it", ts, problems)
	}
	// A configuration directory without projects (a project's own .claude
	// directory) holds no sessions; nothing else in it is read.
	config := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(filepath.Join(config, "todos"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ccFileA)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "todos", ccSessionA+".jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if ts, problems := ccList(context.Background(), config, Env{}); len(ts) != 0 || len(problems) != 0 {
		t.Errorf("List(.claude without projects) = %v, %v; want nothing", ts, problems)
	}
	other := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, problems := ccList(context.Background(), other, Env{}); len(problems) != 1 || !strings.Contains(problems[0].Error(), "not a .jsonl file") {
		t.Errorf("List(notes.txt) problems %v", problems)
	}
}

func TestClaudeCodeRoots(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	if got, want := ccRoots(env), []string{filepath.Join(home, ".claude/projects"), filepath.Join(home, ".config/claude/projects")}; !reflect.DeepEqual(got, want) {
		t.Errorf("Roots = %v, want %v", got, want)
	}
	// One directory under both names is listed once.
	if err := os.MkdirAll(filepath.Join(home, ".claude/projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".claude"), filepath.Join(home, ".config/claude")); err != nil {
		t.Fatal(err)
	}
	if got := ccRoots(env); !reflect.DeepEqual(got, []string{filepath.Join(home, ".claude/projects")}) {
		t.Errorf("Roots with ~/.config/claude a link to ~/.claude = %v", got)
	}
	env.Getenv = func(name string) string {
		if name == "CLAUDE_CONFIG_DIR" {
			return "/srv/claude-work"
		}
		return ""
	}
	if got := ccRoots(env); !reflect.DeepEqual(got, []string{"/srv/claude-work/projects"}) {
		t.Errorf("Roots with $CLAUDE_CONFIG_DIR = %v", got)
	}
}

func TestClaudeCodeClaims(t *testing.T) {
	tmp := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	openclaw := write(".openclaw/agents/main/sessions/0b7e.jsonl",
		`{"type":"session","version":3,"id":"0b7e","timestamp":"2026-11-20T09:00:00Z","cwd":"/home/ana"}`+"\n"+
			`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}`+"\n")
	codex := write(".codex/sessions/2026/11/20/rollout-2026-11-20T09-00-00-1.jsonl",
		`{"timestamp":"2026-11-20T09:00:00Z","type":"session_meta","payload":{"id":"1","cwd":"/home/ana"}}`+"\n")
	gemini := write(".gemini/tmp/abc/chats/session-1.jsonl",
		`{"sessionId":"s1","projectHash":"abc","startTime":"2026-11-20T09:00:00Z"}`+"\n"+`{"id":"m1","type":"user","content":"hi"}`+"\n")
	// A first line longer than the sniff reads: judged by its keys' text.
	long := write("export/long.jsonl", `{"parentUuid":null,"isSidechain":false,"sessionId":"s1","message":{"role":"user","content":"`+
		strings.Repeat("x", 3*ccSniffBytes)+`"},"uuid":"u1"}`+"\n")
	config := filepath.Join(tmp, "claude-work")
	t.Setenv("CLAUDE_CONFIG_DIR", config)

	for path, want := range map[string]bool{
		ccStore:                                 true, // laid out as the store
		ccStore + "/projects":                   true,
		ccStore + "/projects/-home-ana-src-app": true,
		ccFileA:                                 true, // by its first lines
		ccStore + "/projects/-home-kenji-work-site/agent-5e6f7a8b.jsonl": true,
		filepath.Join(tmp, ".claude"):                                    true, // by name, existing or not
		filepath.Join(tmp, ".claude/projects/-srv-x/1.jsonl"):            true,
		filepath.Join(tmp, ".config/claude/projects"):                    true,
		filepath.Join(config, "projects/-home-ana"):                      true, // $CLAUDE_CONFIG_DIR
		long:                                     true,
		filepath.Join(tmp, ".openclaw"):          false,
		filepath.Dir(openclaw):                   false,
		openclaw:                                 false,
		codex:                                    false,
		filepath.Join(tmp, ".codex"):             false,
		gemini:                                   false,
		filepath.Join(tmp, "claude-work-backup"): false,
		filepath.Join(tmp, ".claude-notes/projects"): false,
	} {
		if got := ccClaims(path); got != want {
			t.Errorf("Claims(%s) = %v, want %v", path, got, want)
		}
	}
	// No other agent's fixtures.
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if d.IsDir() && d.Name() != ClaudeCode && ccClaims(filepath.Join("testdata", d.Name())) {
			t.Errorf("Claims(testdata/%s) = true", d.Name())
		}
	}
	if Lookup(ClaudeCode) == nil || Claimed(ccStore) != Lookup(ClaudeCode) {
		t.Errorf("the registered format does not claim %s", ccStore)
	}
}

// BenchmarkClaudeCodeRead reads a session of 4,000 lines (the fixture's
// conversation repeated, each copy continuing the last) as events, against
// a baseline that only reads its lines and checks they are JSON.
func BenchmarkClaudeCodeRead(b *testing.B) {
	data, err := os.ReadFile(ccFileA)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if json.Valid(l) {
			lines = append(lines, l)
		}
	}
	var buf bytes.Buffer
	for i := 0; buf.Len() == 0 || bytes.Count(buf.Bytes(), []byte("\n")) < 4000; i++ {
		for _, l := range lines {
			buf.Write(l)
			buf.WriteByte('\n')
		}
	}
	dir := filepath.Join(b.TempDir(), ".claude", "projects", "-home-ana-src-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, ccSessionA+".jsonl")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	ts, problems := ccList(context.Background(), file, Env{})
	if len(problems) > 0 || len(ts) != 1 {
		b.Fatalf("List: %v %v", ts, problems)
	}
	b.Run("baseline=lines", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		for b.Loop() {
			err := Lines(context.Background(), file, -1, func(line []byte, _ int64, _ string, _ error) error {
				if !json.Valid(line) {
					b.Fatal("invalid line")
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("events", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		for b.Loop() {
			if err := ts[0].Read(context.Background(), -1, func(Event) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}
