package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/transcript"
)

const (
	codexMainID  = "0199e2a4-7c1b-7d30-9a55-3f2b8c1d4e01"
	codexArchID  = "0199a0b2-1d2e-7f00-8c3a-5e6f7a8b9c02"
	codexChildID = "0199e2b9-40aa-7b21-8e0f-6a7b8c9d0e03"
	codexForkID  = "0199e7c0-0b5d-7c42-9d1e-7b8c9d0e1f04"
	codexNoMeta  = "01990f3e-aa11-7e55-8b22-0c1d2e3f4a05"
	codexLegacy  = "0198176a-3b2c-7d4e-9f10-2a3b4c5d6e06"
)

var codexFixtures = filepath.Join("testdata", "codex")

// codexTranscripts lists the fixture store and returns its transcripts by
// session key.
func codexTranscripts(t *testing.T) map[string]Transcript {
	t.Helper()
	trs, problems := Lookup(Codex).List(context.Background(), codexFixtures, Env{Home: t.TempDir()})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	out := map[string]Transcript{}
	for _, tr := range trs {
		out[tr.Session.Key] = tr
	}
	return out
}

// codexRoles counts the messages of each role among events.
func codexRoles(t *testing.T, events [][]byte) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, ev := range events {
		e, err := transcript.Parse(ev)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == "message" {
			n[e.Role]++
		} else {
			n["("+e.Type+")"]++
		}
	}
	return n
}

// codexSearchable returns the searchable texts on the active path.
func codexSearchable(t *testing.T, events [][]byte) []string {
	t.Helper()
	return onPathSearchable(activePath(t, events))
}

func TestCodexListSessions(t *testing.T) {
	trs := codexTranscripts(t)
	want := map[string]store.Session{
		Key(Codex, codexMainID):  {Key: Key(Codex, codexMainID), CreatedAt: 1760433123398},
		Key(Codex, codexChildID): {Key: Key(Codex, codexChildID), SpawnedBy: Key(Codex, codexMainID), CreatedAt: 1760433645090},
		Key(Codex, codexForkID):  {Key: Key(Codex, codexForkID), ParentSessionKey: Key(Codex, codexMainID), CreatedAt: 1760515500480},
		Key(Codex, codexArchID):  {Key: Key(Codex, codexArchID), CreatedAt: 1759268411001},
		// No session_meta line: the file name's uuid and time.
		Key(Codex, codexNoMeta): {Key: Key(Codex, codexNoMeta), CreatedAt: 1756720800000},
		// The first layout: a bare session meta line.
		Key(Codex, codexLegacy): {Key: Key(Codex, codexLegacy), CreatedAt: 1752847364118},
	}
	if len(trs) != len(want) {
		t.Fatalf("%d transcripts, want %d: %v", len(trs), len(want), trs)
	}
	projects := map[string]string{
		codexMainID: "/home/jiwoo/src/kafe", codexChildID: "/home/jiwoo/src/kafe", codexForkID: "/home/jiwoo/src/kafe",
		codexArchID: "/home/jiwoo/src/reise", codexNoMeta: "", codexLegacy: "/home/jiwoo/src/kafe",
	}
	for key, s := range want {
		tr, ok := trs[key]
		if !ok {
			t.Errorf("no transcript %s", key)
			continue
		}
		if tr.Session != s {
			t.Errorf("%s: session %+v, want %+v", key, tr.Session, s)
		}
		id := strings.TrimPrefix(key, "agent:codex:")
		if tr.Project != projects[id] || tr.Agent != Codex || !tr.Resumable || tr.Unit != "" {
			t.Errorf("%s: project %q agent %q resumable %v unit %q", key, tr.Project, tr.Agent, tr.Resumable, tr.Unit)
		}
		events, _ := read(t, tr, -1)
		var h struct{ Type, ID, Cwd, Agent string }
		if err := json.Unmarshal(events[0], &h); err != nil || h.Type != "session" || h.ID != id || h.Cwd != projects[id] || h.Agent != Codex {
			t.Errorf("%s: header %s", key, events[0])
		}
	}
	if !strings.Contains(trs[Key(Codex, codexArchID)].Path, "archived_sessions") {
		t.Errorf("archived session read from %s", trs[Key(Codex, codexArchID)].Path)
	}
}

func TestCodexMainSession(t *testing.T) {
	tr := codexTranscripts(t)[Key(Codex, codexMainID)]
	events, bad := read(t, tr, -1)
	if got, want := codexRoles(t, events), map[string]int{
		"(session)": 1, "(codex.session_meta)": 1, "(codex.turn_context)": 1, "(codex.compacted)": 1,
		"(codex.ghost_snapshot_v2)": 1, "(leaf)": 1,
		// task_started, 3 user_message, agent_reasoning, 3 agent_message, token_count, thread_rolled_back
		"(codex.event_msg.task_started)": 1, "(codex.event_msg.user_message)": 3, "(codex.event_msg.agent_reasoning)": 1,
		"(codex.event_msg.agent_message)": 3, "(codex.event_msg.token_count)": 1, "(codex.event_msg.thread_rolled_back)": 1,
		// developer instructions, AGENTS.md, environment context
		"system": 3,
		"user":   3,
		// reasoning, function call, custom tool call, 3 replies, web search
		"assistant":  7,
		"toolResult": 2,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("roles %v\nwant %v", got, want)
	}
	if len(bad) != 1 || bad[0].Rec != "line 18" || !strings.Contains(bad[0].Bad.Error(), "not a JSON object") {
		t.Errorf("bad records %v, want line 18 (cut off)", bad)
	}
	path, searchable := activePath(t, events)
	want := []string{
		"system: <permissions instructions>\nFilesystem sandboxing: workspace-write. Approvals: on-request.\n</permissions instructions>",
		"system: # AGENTS.md instructions for /home/jiwoo/src/kafe\n\n<INSTRUCTIONS>\nRun pnpm test before every commit. Prüfe die Übersetzungen.\n</INSTRUCTIONS>",
		"system: <environment_context>\n  <cwd>/home/jiwoo/src/kafe</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
		"user: 메뉴 페이지의 가격 표시가 깨져요. Bitte die Preise in Euro mit Komma formatieren.",
		"assistant: ",
		"assistant: ",
		`toolResult: {"output":"src/menu/price.ts:3:export function formatPrice(n: number) {\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`,
		"assistant: ",
		`toolResult: {"output":"Success. Updated the following files:\nM src/menu/price.ts\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`,
		"assistant: 가격 포맷을 고쳤습니다: Intl.NumberFormat('de-DE')로 12,50 € 처럼 표시됩니다. Die Preise erscheinen jetzt als „12,50 €“.",
		// the rolled back turn (Trinkgeld) is off the path
		"user: Stattdessen: 영수증에 부가세(MwSt.) 19%를 표시해 주세요.",
		"assistant: ",
		"assistant: MwSt. 19 % wird jetzt auf dem Beleg angezeigt. 영수증에 부가세가 표시됩니다.",
	}
	if !reflect.DeepEqual(path, want) {
		t.Errorf("active path\n%q\nwant\n%q", path, want)
	}
	wantSearchable := []bool{false, false, false, true, false, false, false, false, false, true, true, false, true}
	if !reflect.DeepEqual(searchable, wantSearchable) {
		t.Errorf("searchable %v, want %v", searchable, wantSearchable)
	}
	// The event_msg mirrors repeat the texts; only the response items count.
	for _, text := range codexSearchable(t, events) {
		n := 0
		for _, ev := range events {
			if got, ok := transcript.MessageText(ev); ok && strings.HasSuffix(text, ": "+got) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q is searchable in %d events, want 1", text, n)
		}
	}
	// Reasoning is thinking (its encrypted content is dropped), tool calls
	// keep their ids, names and arguments, tool results their call's name.
	var sawThinking, sawShell, sawPatch, sawResult bool
	for _, ev := range events {
		var m struct {
			Message struct {
				Role       string
				Content    []Block
				ToolCallID string
				ToolName   string
			}
		}
		_ = json.Unmarshal(ev, &m)
		for _, b := range m.Message.Content {
			switch {
			case b.Type == "thinking" && strings.Contains(b.Thinking, "Preisformat prüfen"):
				sawThinking = true
			case b.Type == "toolCall" && b.ID == "call_K1rg" && b.Name == "shell" && string(b.Arguments) == `{"command":["rg","-n","formatPrice"],"workdir":"/home/jiwoo/src/kafe"}`:
				sawShell = true
			case b.Type == "toolCall" && b.ID == "call_P2ap" && b.Name == "apply_patch" && strings.HasPrefix(string(b.Arguments), `"*** Begin Patch\n`):
				sawPatch = true
			}
		}
		if m.Message.Role == "toolResult" && m.Message.ToolCallID == "call_P2ap" && m.Message.ToolName == "apply_patch" {
			sawResult = true
		}
		if bytes.Contains(ev, []byte("gAAAAABo7kQ1")) && !bytes.Contains(ev, []byte(`"codex.`)) {
			t.Errorf("encrypted reasoning in a message: %s", ev)
		}
	}
	if !sawThinking || !sawShell || !sawPatch || !sawResult {
		t.Errorf("thinking %v, shell call %v, apply_patch call %v, apply_patch result %v", sawThinking, sawShell, sawPatch, sawResult)
	}
}

func TestCodexSpawnedForkedArchived(t *testing.T) {
	trs := codexTranscripts(t)

	child, _ := read(t, trs[Key(Codex, codexChildID)], -1)
	if got := codexSearchable(t, child); !reflect.DeepEqual(got, []string{
		"user: Prüfe, ob alle Preise im Menü das Euro-Zeichen haben.",
		"assistant: Alle 14 Preise haben das €-Zeichen; items.json war nicht lesbar, geprüft über price.ts.",
	}) {
		t.Errorf("child searchable %q", got)
	}
	var result struct {
		Message struct {
			Role, ToolCallID, ToolName string
			IsError                    bool
		}
	}
	for _, ev := range child {
		if bytes.Contains(ev, []byte(`"toolResult"`)) {
			_ = json.Unmarshal(ev, &result)
		}
	}
	if result.Message.ToolCallID != "call_L5gr" || result.Message.ToolName != "local_shell" || !result.Message.IsError {
		t.Errorf("local shell result %+v, want call_L5gr, local_shell, an error", result.Message)
	}

	fork, _ := read(t, trs[Key(Codex, codexForkID)], -1)
	if got := codexRoles(t, fork)["(codex.session_meta)"]; got != 2 {
		t.Errorf("fork keeps %d session_meta records, want its own and its parent's copy", got)
	}
	if got := codexSearchable(t, fork); len(got) != 4 || got[2] != "user: 포크: 가격을 원화(₩)로도 보여 주세요." {
		t.Errorf("fork searchable %q", got)
	}

	arch, _ := read(t, trs[Key(Codex, codexArchID)], -1)
	path, searchable := activePath(t, arch)
	if !reflect.DeepEqual(path, []string{
		"system: <user_instructions>\nAntworte knapp.\n</user_instructions>",
		"user: ช่วยแปลเมนูร้านอาหารไทยเป็นภาษาเยอรมัน: ต้มยำกุ้ง, ผัดไทย",
		"assistant: ",
		"assistant: ต้มยำกุ้ง → „Scharf-saure Garnelensuppe“, ผัดไทย → „Gebratene Reisnudeln nach Thai-Art“.",
	}) || !reflect.DeepEqual(searchable, []bool{false, true, false, true}) {
		t.Errorf("archived path %q %v", path, searchable)
	}
	for _, ev := range arch {
		if bytes.Contains(ev, []byte("iVBORw0KGgo")) {
			t.Errorf("image data kept in a message: %s", ev)
		}
	}
	if !bytes.Contains(arch[3], []byte(`{"type":"image","mimeType":"image/png"}`)) ||
		!bytes.Contains(arch[4], []byte(`"thinking":"Die Gerichte sind bekannt`)) {
		t.Errorf("image block or raw reasoning missing:\n%s\n%s", arch[3], arch[4])
	}

	nometa, bad := read(t, trs[Key(Codex, codexNoMeta)], -1)
	if len(bad) != 0 || string(nometa[0]) != `{"type":"session","version":3,"id":"`+codexNoMeta+`","timestamp":"2025-09-01T10:00:00.000Z","agent":"codex"}` {
		t.Errorf("header without session_meta: %s (bad %v)", nometa[0], bad)
	}
}

// codexWrite writes lines (each ending in a newline) to a rollout file in a
// temporary sessions tree and returns its transcript.
func codexWrite(t *testing.T, lines ...string) (string, Transcript) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".codex", "sessions", "2025", "11", "02")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rollout-2025-11-02T10-00-00-0199f000-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	trs, problems := Lookup(Codex).List(context.Background(), p, Env{})
	if len(problems) != 0 || len(trs) != 1 {
		t.Fatalf("list %s: %v %v", p, trs, problems)
	}
	return p, trs[0]
}

func TestCodexRollback(t *testing.T) {
	meta := `{"timestamp":"2025-11-02T10:00:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2025-11-02T10:00:00.000Z","cwd":"/w"}}` + "\n"
	user := func(s string) string {
		return `{"timestamp":"2025-11-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + s + `"}]}}` + "\n"
	}
	reply := func(s string) string {
		return `{"timestamp":"2025-11-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + s + `"}]}}` + "\n"
	}
	back := func(n string) string {
		return `{"timestamp":"2025-11-02T10:00:03.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":` + n + `}}` + "\n"
	}
	env := user("<environment_context><cwd>/w</cwd></environment_context>")
	tests := []struct {
		name  string
		lines []string
		want  []string
		bad   string
	}{
		{"one turn back", []string{meta, env, user("eins"), reply("one"), user("zwei"), reply("two"), back("1"), user("drei"), reply("three")},
			[]string{"system: <environment_context><cwd>/w</cwd></environment_context>", "user: eins", "assistant: one", "user: drei", "assistant: three"}, ""},
		{"two rollbacks count the turns left", []string{meta, user("eins"), reply("one"), user("zwei"), back("1"), user("drei"), back("1"), user("vier")},
			[]string{"user: eins", "assistant: one", "user: vier"}, ""},
		{"rollbacks in a row drop one turn each", []string{meta, user("eins"), reply("one"), user("zwei"), reply("two"), back("1"), back("1"), user("vier")},
			[]string{"user: vier"}, ""},
		{"more turns than there are keeps what came before the first", []string{meta, env, user("eins"), reply("one"), back("5"), user("neu")},
			[]string{"system: <environment_context><cwd>/w</cwd></environment_context>", "user: neu"}, ""},
		{"injected context is not a turn", []string{meta, user("eins"), env, back("1"), user("neu")},
			[]string{"user: neu"}, ""},
		{"no turn: nothing moves", []string{meta, env, back("2"), user("neu")},
			[]string{"system: <environment_context><cwd>/w</cwd></environment_context>", "user: neu"}, ""},
		{"a bad count is reported", []string{meta, user("eins"), back(`"zwei"`), user("neu")},
			[]string{"user: eins", "user: neu"}, `line 3: codex: thread_rolled_back: num_turns "zwei": not a count of turns`},
	}
	for _, tt := range tests {
		_, tr := codexWrite(t, tt.lines...)
		events, bad := read(t, tr, -1)
		path, _ := activePath(t, events)
		if !reflect.DeepEqual(path, tt.want) {
			t.Errorf("%s: path %q, want %q", tt.name, path, tt.want)
		}
		var gotBad string
		for _, b := range bad {
			gotBad = b.Rec + ": " + b.Bad.Error()
		}
		if gotBad != tt.bad {
			t.Errorf("%s: bad %q, want %q", tt.name, gotBad, tt.bad)
		}
	}
}

func TestCodexBadLines(t *testing.T) {
	meta := `{"timestamp":"2025-11-02T10:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}` + "\n"
	_, tr := codexWrite(t, meta,
		`not json`+"\n",
		`{"timestamp":"2025-11-02T10:00:01.000Z","payload":{}}`+"\n",
		`{"timestamp":"2025-11-02T10:00:01.000Z","type":"response_item","payload":{"role":"user"}}`+"\n",
		`{"timestamp":"2025-11-02T10:00:01.000Z","type":"event_msg","payload":[1]}`+"\n",
		`{"timestamp":"2025-11-02T10:00:01.000Z","type":"response_item","payload":{"type":"tool_search_call","query":"x"}}`+"\n",
		`{"timestamp":"2025-11-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"noch da"}]}}`+"\n",
		`{"timestamp":"2025-11-02T10:00:03.000Z","type":"response_item","payload":{"type":"message"`, // still being written
	)
	events, bad := read(t, tr, -1)
	var got []string
	for _, b := range bad {
		got = append(got, b.Rec+": "+b.Bad.Error())
	}
	want := []string{
		"line 2: codex: line is not a JSON object: invalid character 'o' in literal null (expecting 'u')",
		`line 3: codex: line has no "type"`,
		`line 4: codex: response_item: payload has no "type"`,
		"line 5: codex: event_msg: payload is not a JSON object",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bad\n%q\nwant\n%q", got, want)
	}
	if n := codexRoles(t, events); n["(codex.response_item.tool_search_call)"] != 1 || n["user"] != 1 {
		t.Errorf("kinds %v: want the unknown response item kept and the user line read", n)
	}
	if got := codexSearchable(t, events); !reflect.DeepEqual(got, []string{"user: noch da"}) {
		t.Errorf("searchable %q", got)
	}
}

func TestCodexDeterministicAndResumable(t *testing.T) {
	tr := codexTranscripts(t)[Key(Codex, codexMainID)]
	var all []Event
	if err := tr.Read(context.Background(), -1, func(e Event) error { all = append(all, e); return nil }); err != nil {
		t.Fatal(err)
	}
	again, _ := read(t, tr, -1)
	var good [][]byte
	for _, e := range all {
		if e.Bad == nil {
			good = append(good, e.JSON)
		}
	}
	if !reflect.DeepEqual(good, again) {
		t.Fatal("two reads differ")
	}
	// Reading from any position emitted gives the rest of a full read.
	for i, e := range all {
		var rest []Event
		if err := tr.Read(context.Background(), e.Pos, func(e Event) error { rest = append(rest, e); return nil }); err != nil {
			t.Fatal(err)
		}
		j := i
		for j < len(all) && all[j].Pos == e.Pos {
			j++
		}
		if len(rest) != len(all)-j {
			t.Fatalf("after %d: %d events, want %d", e.Pos, len(rest), len(all)-j)
		}
		for k := range rest {
			if !bytes.Equal(rest[k].JSON, all[j+k].JSON) || rest[k].Pos != all[j+k].Pos || (rest[k].Bad == nil) != (all[j+k].Bad == nil) {
				t.Fatalf("after %d: event %d is %s, want %s", e.Pos, k, rest[k].JSON, all[j+k].JSON)
			}
		}
	}

	// A file read in two halves, the second appended after the first read.
	data, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	half := len(lines) / 2
	p, tr2 := codexWrite(t, lines[:half]...)
	first, _ := read(t, tr2, -1)
	var last int64
	_ = tr2.Read(context.Background(), -1, func(e Event) error { last = e.Pos; return nil })
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines[half:], "")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	second, _ := read(t, tr2, last)
	whole, _ := read(t, tr2, -1)
	if !reflect.DeepEqual(append(first, second...), whole) {
		t.Errorf("two halves give %d events, one read %d", len(first)+len(second), len(whole))
	}
	if !reflect.DeepEqual(whole, again) {
		t.Errorf("the copied file reads differently from the fixture")
	}
}

func TestCodexRoots(t *testing.T) {
	f := Lookup(Codex)
	got := f.Roots(Env{Home: "/home/ana", Getenv: func(string) string { return "" }})
	if want := []string{"/home/ana/.codex/sessions", "/home/ana/.codex/archived_sessions"}; !reflect.DeepEqual(got, want) {
		t.Errorf("roots %q, want %q", got, want)
	}
	got = f.Roots(Env{Home: "/home/ana", Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return "/srv/codex"
		}
		return ""
	}})
	if want := []string{"/srv/codex/sessions", "/srv/codex/archived_sessions"}; !reflect.DeepEqual(got, want) {
		t.Errorf("roots with CODEX_HOME %q, want %q", got, want)
	}
}

func TestCodexClaims(t *testing.T) {
	tmp := t.TempDir()
	renamed := filepath.Join(tmp, "kopie.jsonl")
	data, err := os.ReadFile(filepath.Join(codexFixtures, "sessions", "2025", "10", "14", "rollout-2025-10-14T09-12-03-"+codexMainID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// An OpenClaw state dir: agents/<id>/sessions/<uuid>.jsonl.
	claw := filepath.Join(tmp, ".openclaw", "agents", "main", "sessions")
	if err := os.MkdirAll(claw, 0o755); err != nil {
		t.Fatal(err)
	}
	clawFile := filepath.Join(claw, "5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl")
	if err := os.WriteFile(clawFile, []byte(`{"type":"session","version":3,"id":"5f0c","timestamp":"2025-10-01T00:00:00Z","cwd":"/w"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A $CODEX_HOME of another name, its sessions/ still empty, and a
	// store of another agent with a sessions/ directory of its own.
	codexHome := filepath.Join(tmp, "codex-home")
	hermes := filepath.Join(tmp, "hermes")
	for _, f := range []string{filepath.Join(codexHome, "config.toml"), filepath.Join(hermes, "config.yaml"), filepath.Join(hermes, "sessions", "s1.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(codexHome, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	claims := Lookup(Codex).Claims
	for _, p := range []string{
		codexFixtures, // a Codex home not named .codex
		filepath.Join(codexHome, "sessions"),
		"/srv/codex/sessions/2025/10/14",
		"/srv/codex/sessions/2025",
		filepath.Join(codexFixtures, "sessions", "2025", "10", "14"),
		"/home/ana/.codex",
		"/home/ana/.codex/sessions",
		"/home/ana/.codex/sessions/2025/10/14",
		"/home/ana/.codex/archived_sessions",
		filepath.Join(codexFixtures, "sessions"),
		filepath.Join(codexFixtures, "archived_sessions"),
		filepath.Join(codexFixtures, "archived_sessions", "rollout-2025-09-30T21-40-11-"+codexArchID+".jsonl"),
		renamed,
	} {
		if !claims(p) {
			t.Errorf("Claims(%s) = false", p)
		}
	}
	for _, p := range []string{
		filepath.Join(tmp, ".openclaw"), claw, clawFile, filepath.Join(tmp, ".openclaw", "agents"),
		"/home/ana/.codex-old/sessions", "/home/ana/notes.jsonl", tmp, codexHome,
		hermes, filepath.Join(hermes, "sessions"), "/srv/codex/sessions/abc", "/srv/codex/sessions/2025/10/14/15",
	} {
		if claims(p) {
			t.Errorf("Claims(%s) = true", p)
		}
	}
	// Nothing in the other agents' fixtures is Codex's.
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "codex" {
			continue
		}
		_ = filepath.WalkDir(filepath.Join("testdata", d.Name()), func(p string, _ os.DirEntry, err error) error {
			if err == nil && claims(p) {
				t.Errorf("Claims(%s) = true", p)
			}
			return nil
		})
	}
	// List reads a .codex directory's two trees.
	trs, problems := Lookup(Codex).List(context.Background(), filepath.Join(tmp, "none", ".codex"), Env{})
	if len(trs) != 0 || len(problems) != 1 {
		t.Errorf("a missing .codex: %v %v", trs, problems)
	}
}

func TestCodexThreadInBothTrees(t *testing.T) {
	home := filepath.Join(t.TempDir(), "codex-home") // a $CODEX_HOME: sessions/ is read first
	name := "rollout-2025-09-30T21-40-11-" + codexArchID + ".jsonl"
	data, err := os.ReadFile(filepath.Join(codexFixtures, "archived_sessions", name))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(home, "sessions", "2025", "09", "30", name)
	archived := filepath.Join(home, "archived_sessions", name)
	for _, p := range []string{live, archived} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trs, problems := Lookup(Codex).List(context.Background(), home, Env{})
	if len(trs) != 1 || trs[0].Path != live {
		t.Fatalf("transcripts %v, want the one in sessions/", trs)
	}
	if len(problems) != 1 || problems[0].Path != archived || !strings.Contains(problems[0].Error(), "is also in "+live) {
		t.Errorf("problems %v, want the archived copy named", problems)
	}
}

// codexBenchFile writes a rollout of n turns (user, reasoning, call,
// output, reply, and their event_msg mirrors) and returns its transcript.
func codexBenchFile(b *testing.B, n int) Transcript {
	b.Helper()
	dir := filepath.Join(b.TempDir(), ".codex", "sessions", "2025", "11", "02")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString(`{"timestamp":"2025-11-02T10:00:00.000Z","type":"session_meta","payload":{"id":"0199f000-0000-7000-8000-000000000002","timestamp":"2025-11-02T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.46.0","source":"cli"}}` + "\n")
	for i := 0; i < n; i++ {
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Bitte prüfe die Preise im Menü, 가격을 확인해 주세요"}]}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Bitte prüfe die Preise im Menü, 가격을 확인해 주세요","images":[]}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Preise prüfen** in src/menu"}],"content":null,"encrypted_content":"gAAAAABo7kQ1c2VjcmV0"}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"rg\",\"price\"]}","call_id":"call_` + strconv.Itoa(i) + `"}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_` + strconv.Itoa(i) + `","output":"{\"output\":\"src/menu/price.ts:3:export function formatPrice\\n\",\"metadata\":{\"exit_code\":0}}"}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Die Preise sind korrekt formatiert. 가격이 올바릅니다."}]}}` + "\n")
		sb.WriteString(`{"timestamp":"2025-11-02T10:00:05.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Die Preise sind korrekt formatiert. 가격이 올바릅니다."}}` + "\n")
	}
	p := filepath.Join(dir, "rollout-2025-11-02T10-00-00-0199f000-0000-7000-8000-000000000002.jsonl")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	trs, problems := Lookup(Codex).List(context.Background(), p, Env{})
	if len(trs) != 1 || len(problems) != 0 {
		b.Fatalf("%v %v", trs, problems)
	}
	return trs[0]
}

// BenchmarkCodexRead reads a 2,000-turn rollout from the start; the
// Resume case reads only its last turn after the position before it, which
// replays the earlier lines without emitting them (docs/agents/codex.md AX9).
func BenchmarkCodexRead(b *testing.B) {
	tr := codexBenchFile(b, 2000)
	var last []int64
	_ = tr.Read(context.Background(), -1, func(e Event) error { last = append(last, e.Pos); return nil })
	before := last[len(last)-8]
	for _, bc := range []struct {
		name  string
		after int64
	}{{"Full", -1}, {"Resume", before}} {
		b.Run(bc.name, func(b *testing.B) {
			info, _ := os.Stat(tr.Path)
			b.SetBytes(info.Size())
			for b.Loop() {
				n := 0
				if err := tr.Read(context.Background(), bc.after, func(Event) error { n++; return nil }); err != nil || n == 0 {
					b.Fatal(err, n)
				}
			}
		})
	}
}

func TestCodexFileReadWhileEmpty(t *testing.T) {
	p, tr := codexWrite(t) // Codex has created the file, nothing written yet
	events, _ := read(t, tr, -1)
	if len(events) != 1 || !bytes.Contains(events[0], []byte(`"type":"session","version":3,"id":"0199f000-0000-7000-8000-000000000001"`)) {
		t.Fatalf("empty file: %s", events)
	}
	var pos int64 = -2
	_ = tr.Read(context.Background(), -1, func(e Event) error { pos = e.Pos; return nil })
	if err := os.WriteFile(p, []byte(`{"timestamp":"2025-11-02T10:00:00.000Z","type":"session_meta","payload":{"id":"0199f000-0000-7000-8000-000000000001","cwd":"/w"}}`+"\n"+
		`{"timestamp":"2025-11-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"jetzt geschrieben"}]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trs, _ := Lookup(Codex).List(context.Background(), p, Env{})
	if len(trs) != 1 || trs[0].Project != "/w" || trs[0].Session.Key != tr.Session.Key {
		t.Fatalf("after writing: %v", trs)
	}
	rest, _ := read(t, trs[0], pos)
	if got := codexRoles(t, rest); !reflect.DeepEqual(got, map[string]int{"(codex.session_meta)": 1, "user": 1}) {
		t.Errorf("resumed after the header: %v, want the meta record and the message, no second header", got)
	}
	if got := codexSearchable(t, append(events, rest...)); !reflect.DeepEqual(got, []string{"user: jetzt geschrieben"}) {
		t.Errorf("searchable %q", got)
	}
}

func TestCodexCompressedRollout(t *testing.T) {
	name := "rollout-2025-09-30T21-40-11-" + codexArchID + ".jsonl"
	plain := filepath.Join(codexFixtures, "archived_sessions", name)
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	codexZst := func(dst string, data []byte) {
		t.Helper()
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, enc.EncodeAll(data, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		enc.Close()
	}
	home := filepath.Join(t.TempDir(), ".codex")
	dir := filepath.Join(home, "archived_sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zst := filepath.Join(dir, name+".zst")
	codexZst(zst, data)
	if !Lookup(Codex).Claims(zst) {
		t.Errorf("Claims(%s) = false", zst)
	}
	trs, problems := Lookup(Codex).List(context.Background(), home, Env{})
	if len(trs) != 1 || len(problems) != 0 {
		t.Fatalf("list: %v %v", trs, problems)
	}
	tr := trs[0]
	want := codexTranscripts(t)[Key(Codex, codexArchID)]
	if tr.Path != zst || tr.Resumable || tr.Session != want.Session || tr.Project != want.Project {
		t.Errorf("compressed transcript %+v, want %+v, not resumable", tr, want)
	}
	got, _ := read(t, tr, -1)
	plainEvents, _ := read(t, want, -1)
	if !reflect.DeepEqual(got, plainEvents) {
		t.Errorf("compressed rollout reads\n%s\nplain\n%s", got, plainEvents)
	}

	// Decompressed again to be appended to: the plain file is read, not both.
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	trs, problems = Lookup(Codex).List(context.Background(), home, Env{})
	if len(trs) != 1 || len(problems) != 0 || trs[0].Path != filepath.Join(dir, name) || !trs[0].Resumable {
		t.Errorf("plain and compressed: %v %v, want the plain file only", trs, problems)
	}

	// A compressed rollout cut off in a line: the line is reported, the
	// rest is read.
	cut := filepath.Join(t.TempDir(), "rollout-2025-09-30T21-40-11-"+codexArchID+".jsonl.zst")
	codexZst(cut, data[:len(data)-20])
	trs, _ = Lookup(Codex).List(context.Background(), cut, Env{})
	if len(trs) != 1 {
		t.Fatalf("cut: %v", trs)
	}
	events, bad := read(t, trs[0], -1)
	if len(bad) != 1 || bad[0].Rec != "line 6" || len(events) != len(plainEvents)-1 {
		t.Errorf("cut compressed rollout: %d events (want %d), bad %v", len(events), len(plainEvents)-1, bad)
	}
}

func TestCodexFirstLayout(t *testing.T) {
	tr := codexTranscripts(t)[Key(Codex, codexLegacy)]
	events, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad %v", bad)
	}
	if got, want := codexRoles(t, events), map[string]int{
		"(session)": 1, "(codex.session_meta)": 1, "(codex.state)": 3,
		"system": 1, "user": 1, "assistant": 3, "toolResult": 1,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("roles %v, want %v", got, want)
	}
	path, searchable := activePath(t, events)
	if !reflect.DeepEqual(path, []string{
		"system: <environment_context>\n  <cwd>/home/jiwoo/src/kafe</cwd>\n</environment_context>",
		"user: Wo wird der Warenkorb gespeichert? 장바구니는 어디에 저장되나요?",
		"assistant: ",
		"assistant: ",
		`toolResult: {"output":"src/cart/store.ts\n","metadata":{"exit_code":0}}`,
		"assistant: Der Warenkorb liegt in src/cart/store.ts (localStorage). 장바구니는 localStorage에 저장됩니다.",
	}) || !reflect.DeepEqual(searchable, []bool{false, true, false, false, false, true}) {
		t.Errorf("path %q %v", path, searchable)
	}
	var result struct {
		Message struct{ ToolCallID, ToolName string }
	}
	for _, ev := range events {
		if bytes.Contains(ev, []byte(`"toolResult"`)) {
			_ = json.Unmarshal(ev, &result)
		}
	}
	if result.Message.ToolCallID != "call_W1rg" || result.Message.ToolName != "shell" {
		t.Errorf("tool result %+v", result.Message)
	}
}
