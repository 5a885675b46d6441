package agents

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the database/sql driver of the test databases
)

// opencodeSchemaSQL is OpenCode's SQLite schema for the tables this reader
// uses, as its first migration creates them:
// anomalyco/opencode packages/opencode/migration/20260127222353_familiar_lady_ursula/migration.sql
// (read at ed4e4843c2a65018d6f23f24f86c6a471e391053; docs/agents/opencode.md).
const opencodeSchemaSQL = "CREATE TABLE `project` (\n" +
	"`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text,\n" +
	"`time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);\n" +
	"CREATE TABLE `message` (\n" +
	"`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,\n" +
	"CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `part` (\n" +
	"`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,\n" +
	"CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `session` (\n" +
	"`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL,\n" +
	"`title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer,\n" +
	"`summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL,\n" +
	"`time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer,\n" +
	"CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);\n" +
	"CREATE INDEX `message_session_idx` ON `message` (`session_id`);\n" +
	"CREATE INDEX `part_message_idx` ON `part` (`message_id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n" +
	"CREATE INDEX `session_project_idx` ON `session` (`project_id`);\n" +
	"CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);\n"

// The sessions of the database fixture.
const (
	ocAtlas  = "ses_5b0e1a7c4ffeW3kQp9sLm2xYz1" // zh + fr, reasoning, tools, a task, a revert
	ocTask   = "ses_5b0e0f00aaffTask7Rk2mPq0Zv" // the task's subagent session, parent ocAtlas
	ocBoreal = "ses_5b0d9c11e3ffBoreal8Jx4nVb2" // another directory, a bad row, ignored text
	ocNile   = "ses_5a9f3e2d1cffNile7Qw3eRt5yU8i"
	ocT0     = int64(1764590400000) // 2025-12-01T12:00:00Z
)

// ocEnv opens databases read-only, as the importer does.
func ocEnv(vars map[string]string) Env {
	return Env{
		OpenDB: openReadOnly,
		Getenv: func(k string) string { return vars[k] },
		Home:   "/home/ana",
	}
}

// ocDB is a database written by the test (never a user's).
type ocDB struct {
	t    *testing.T
	path string
	db   *sql.DB
}

func ocCreate(t *testing.T, path, schema string) *ocDB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &ocDB{t, path, db}
}

func (d *ocDB) exec(q string, args ...any) {
	d.t.Helper()
	if _, err := d.db.Exec(q, args...); err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
}

func (d *ocDB) project(id, worktree string) {
	d.exec("INSERT INTO project(id, worktree, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, '[]')", id, worktree, ocT0, ocT0)
}

func (d *ocDB) session(id, project, parent, dir, title string, created int64, revert string) {
	var p, r any
	if parent != "" {
		p = parent
	}
	if revert != "" {
		r = revert
	}
	d.exec(`INSERT INTO session(id, project_id, parent_id, slug, directory, title, version, revert, time_created, time_updated)
		VALUES (?, ?, ?, 'slug', ?, ?, '1.2.6', ?, ?, ?)`, id, project, p, dir, title, r, created, created+60000)
}

func (d *ocDB) message(session, id string, created int64, data string) {
	d.exec("INSERT INTO message(id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", id, session, created, created, data)
}

func (d *ocDB) part(session, message, id string, created int64, data string) {
	d.exec("INSERT INTO part(id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)", id, message, session, created, created, data)
}

const (
	ocUser      = `{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`
	ocAssistant = `{"role":"assistant","time":{"created":%d,"completed":%d},"parentID":"%s","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/ana/src/atlas","root":"/home/ana/src/atlas"},"cost":0.01,"tokens":{"input":900,"output":120,"reasoning":30,"cache":{"read":0,"write":0}},"finish":"stop"}`
)

// opencodeFixtureDB writes the database fixture: three sessions in two
// directories (docs/agents/opencode.md, the tests of AO3-AO10).
func opencodeFixtureDB(t *testing.T, dir string) *ocDB {
	t.Helper()
	d := ocCreate(t, filepath.Join(dir, "opencode.db"), opencodeSchemaSQL)
	d.project("b1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0", "/home/ana/src/atlas")
	d.project("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", "/home/ana/src/boreal")

	// atlas: Chinese and French, reverted from its third user message on.
	d.session(ocAtlas, "b1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0", "", "/home/ana/src/atlas", "构建失败", ocT0,
		`{"messageID":"msg_d0a1000000050Atlas0Usr005","snapshot":"9f1c2d3e"}`)
	d.message(ocAtlas, "msg_d0a1000000010Atlas0Usr001", ocT0+1000, fmt.Sprintf(ocUser, ocT0+1000))
	d.part(ocAtlas, "msg_d0a1000000010Atlas0Usr001", "prt_d0a1000000010Atlas0P0001", ocT0+1000,
		`{"type":"text","text":"为什么 go build 在 Linux 上失败了？"}`)
	d.message(ocAtlas, "msg_d0a1000000020Atlas0Ast002", ocT0+2000, fmt.Sprintf(ocAssistant, ocT0+2000, ocT0+9000, "msg_d0a1000000010Atlas0Usr001"))
	d.part(ocAtlas, "msg_d0a1000000020Atlas0Ast002", "prt_d0a1000000020Atlas0P0002", ocT0+2000,
		`{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}`)
	d.part(ocAtlas, "msg_d0a1000000020Atlas0Ast002", "prt_d0a1000000020Atlas0P0003", ocT0+2100,
		`{"type":"reasoning","text":"Je dois d'abord lancer la compilation pour voir l'erreur exacte.","time":{"start":1764590402100,"end":1764590402500}}`)
	d.part(ocAtlas, "msg_d0a1000000020Atlas0Ast002", "prt_d0a1000000020Atlas0P0004", ocT0+3000,
		`{"type":"tool","callID":"toolu_01AbCbuild","tool":"bash","state":{"status":"completed","input":{"command":"go build ./...","description":"Build all packages"},"output":"./label.go:12:2: undefined: étiquette","title":"Build all packages","metadata":{"exit":1},"time":{"start":1764590403000,"end":1764590404000}}}`)
	d.part(ocAtlas, "msg_d0a1000000020Atlas0Ast002", "prt_d0a1000000020Atlas0P0005", ocT0+5000,
		`{"type":"text","text":"构建失败是因为 label.go 里的 étiquette 没有定义。","time":{"start":1764590405000,"end":1764590408000}}`)
	d.part(ocAtlas, "msg_d0a1000000020Atlas0Ast002", "prt_d0a1000000020Atlas0P0006", ocT0+9000,
		`{"type":"step-finish","reason":"stop","cost":0.01,"tokens":{"input":900,"output":120,"reasoning":30,"cache":{"read":0,"write":0}}}`)
	d.message(ocAtlas, "msg_d0a1000000030Atlas0Usr003", ocT0+20000, fmt.Sprintf(ocUser, ocT0+20000))
	d.part(ocAtlas, "msg_d0a1000000030Atlas0Usr003", "prt_d0a1000000030Atlas0P0007", ocT0+20000,
		`{"type":"text","text":"Peux-tu corriger l'erreur sans casser l'API publique ?"}`)
	d.part(ocAtlas, "msg_d0a1000000030Atlas0Usr003", "prt_d0a1000000030Atlas0P0008", ocT0+20000,
		`{"type":"file","mime":"text/plain","filename":"label.go","url":"file:///home/ana/src/atlas/label.go","source":{"type":"file","path":"label.go","text":{"value":"@label.go","start":0,"end":9}}}`)
	d.part(ocAtlas, "msg_d0a1000000030Atlas0Usr003", "prt_d0a1000000030Atlas0P0009", ocT0+20000,
		`{"type":"text","synthetic":true,"text":"Called the Read tool with the following input: {\"filePath\":\"/home/ana/src/atlas/label.go\"}"}`)
	d.part(ocAtlas, "msg_d0a1000000030Atlas0Usr003", "prt_d0a1000000030Atlas0P0010", ocT0+20000,
		`{"type":"text","synthetic":true,"text":"package atlas\n\n// zephyrsynthetic marks the file the model read"}`)
	d.message(ocAtlas, "msg_d0a1000000040Atlas0Ast004", ocT0+21000, fmt.Sprintf(ocAssistant, ocT0+21000, ocT0+40000, "msg_d0a1000000030Atlas0Usr003"))
	d.part(ocAtlas, "msg_d0a1000000040Atlas0Ast004", "prt_d0a1000000040Atlas0P0011", ocT0+22000,
		`{"type":"tool","callID":"toolu_02Task","tool":"task","state":{"status":"completed","input":{"description":"Find uses","prompt":"Trouve tous les usages de étiquette","subagent_type":"general"},"output":"3 usages dans pkg/label","title":"Find uses","metadata":{"sessionId":"`+ocTask+`"},"time":{"start":1764590422000,"end":1764590430000}}}`)
	d.part(ocAtlas, "msg_d0a1000000040Atlas0Ast004", "prt_d0a1000000040Atlas0P0012", ocT0+31000,
		`{"type":"tool","callID":"toolu_03Edit","tool":"edit","state":{"status":"error","input":{"filePath":"/home/ana/src/atlas/label.go","oldString":"étiquette","newString":"label"},"error":"oldString not found in label.go","time":{"start":1764590431000,"end":1764590432000}}}`)
	d.part(ocAtlas, "msg_d0a1000000040Atlas0Ast004", "prt_d0a1000000040Atlas0P0013", ocT0+33000,
		`{"type":"text","text":"D'accord : j'ai renommé étiquette en label, l'API publique ne change pas."}`)
	d.message(ocAtlas, "msg_d0a1000000050Atlas0Usr005", ocT0+50000, fmt.Sprintf(ocUser, ocT0+50000))
	d.part(ocAtlas, "msg_d0a1000000050Atlas0Usr005", "prt_d0a1000000050Atlas0P0014", ocT0+50000,
		`{"type":"text","text":"换一种方式：用 quasarword 方案重写"}`)
	d.message(ocAtlas, "msg_d0a1000000060Atlas0Ast006", ocT0+51000, fmt.Sprintf(ocAssistant, ocT0+51000, ocT0+52000, "msg_d0a1000000050Atlas0Usr005"))
	d.part(ocAtlas, "msg_d0a1000000060Atlas0Ast006", "prt_d0a1000000060Atlas0P0015", ocT0+51000,
		`{"type":"text","text":"好的，quasarword 方案如下。"}`)

	// The task tool's subagent session.
	d.session(ocTask, "b1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0", ocAtlas, "/home/ana/src/atlas", "Find uses (@general subagent)", ocT0+22000, "")
	d.message(ocTask, "msg_d0a1000000041Task00Usr001", ocT0+22100, fmt.Sprintf(ocUser, ocT0+22100))
	d.part(ocTask, "msg_d0a1000000041Task00Usr001", "prt_d0a1000000041Task00P0001", ocT0+22100,
		`{"type":"text","text":"Trouve tous les usages de étiquette"}`)
	d.message(ocTask, "msg_d0a1000000042Task00Ast002", ocT0+22200, fmt.Sprintf(ocAssistant, ocT0+22200, ocT0+29000, "msg_d0a1000000041Task00Usr001"))
	d.part(ocTask, "msg_d0a1000000042Task00Ast002", "prt_d0a1000000042Task00P0002", ocT0+22300,
		`{"type":"tool","callID":"toolu_04Grep","tool":"grep","state":{"status":"completed","input":{"pattern":"étiquette"},"output":"label.go:12\nrender.go:40\nrender_test.go:7","title":"étiquette","metadata":{"matches":3},"time":{"start":1764590422300,"end":1764590422400}}}`)
	d.part(ocTask, "msg_d0a1000000042Task00Ast002", "prt_d0a1000000042Task00P0003", ocT0+23000,
		`{"type":"text","text":"Trouvé 3 usages dans pkg/label : label.go, render.go, render_test.go."}`)

	// boreal: another directory; a row that is not JSON, a part that is
	// not an object, text shown to the user only, a part of no known type.
	d.session(ocBoreal, "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", "", "/home/ana/src/boreal", "TODOs", ocT0+100000, "")
	d.message(ocBoreal, "msg_d0a1000000070Boreal0Usr01", ocT0+100000, fmt.Sprintf(ocUser, ocT0+100000))
	d.part(ocBoreal, "msg_d0a1000000070Boreal0Usr01", "prt_d0a1000000070Boreal0P001", ocT0+100000,
		`{"type":"text","text":"List the TODO comments in main.go"}`)
	d.part(ocBoreal, "msg_d0a1000000070Boreal0Usr01", "prt_d0a1000000070Boreal0P002", ocT0+100000,
		`{"type":"text","ignored":true,"text":"nimbusignored: shown to the user only"}`)
	d.part(ocBoreal, "msg_d0a1000000070Boreal0Usr01", "prt_d0a1000000070Boreal0P003", ocT0+100000,
		`{"type":"agent","name":"plan","source":{"value":"@plan","start":0,"end":5}}`)
	d.message(ocBoreal, "msg_d0a1000000080Boreal0Bad02", ocT0+101000, `{"role":"assistant","time":`)
	d.message(ocBoreal, "msg_d0a1000000090Boreal0Ast03", ocT0+102000, fmt.Sprintf(ocAssistant, ocT0+102000, ocT0+103000, "msg_d0a1000000070Boreal0Usr01"))
	d.part(ocBoreal, "msg_d0a1000000090Boreal0Ast03", "prt_d0a1000000090Boreal0P004", ocT0+102000,
		`{"type":"text","text":"There are two TODOs: retry logic and config reload."}`)
	d.part(ocBoreal, "msg_d0a1000000090Boreal0Ast03", "prt_d0a1000000090Boreal0P005", ocT0+102500, `[1, 2`)
	d.part(ocBoreal, "msg_d0a1000000090Boreal0Ast03", "prt_d0a1000000090Boreal0P006", ocT0+103000,
		`{"type":"hologram","frames":3}`)
	return d
}

// ocList lists path and fails on problems.
func ocList(t *testing.T, path string, env Env) map[string]Transcript {
	t.Helper()
	trs, probs := Lookup(OpenCode).List(context.Background(), path, env)
	for _, p := range probs {
		t.Errorf("problem: %v", p)
	}
	out := map[string]Transcript{}
	for _, tr := range trs {
		if _, dup := out[tr.Unit]; dup {
			t.Errorf("session %s listed twice", tr.Unit)
		}
		out[tr.Unit] = tr
	}
	return out
}

// ocKinds describes each event: its type, role and block types, or bad
// with its record.
func ocKinds(t *testing.T, events [][]byte) []string {
	t.Helper()
	var out []string
	for _, ev := range events {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(ev, &e); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		k := e.Type
		if e.Type == "message" {
			k += " " + e.Message.Role
			for _, b := range e.Message.Content {
				k += " " + b.Type
			}
		}
		out = append(out, k)
	}
	return out
}

func TestOpenCodeDatabase(t *testing.T) {
	dir := t.TempDir()
	opencodeFixtureDB(t, dir)
	env := ocEnv(nil)
	trs := ocList(t, filepath.Join(dir, "opencode.db"), env)
	if len(trs) != 3 {
		t.Fatalf("listed %d sessions, want 3", len(trs))
	}

	atlas := trs[ocAtlas]
	if atlas.Agent != OpenCode || atlas.Path != filepath.Join(dir, "opencode.db") || atlas.Project != "/home/ana/src/atlas" ||
		atlas.Resumable || atlas.Gen == "" || atlas.Session.Key != "agent:opencode:"+ocAtlas || atlas.Session.SpawnedBy != "" ||
		atlas.Session.CreatedAt != ocT0 {
		t.Errorf("atlas transcript: %+v", atlas)
	}
	events, bad := read(t, atlas, -1)
	if len(bad) != 0 {
		t.Errorf("atlas: bad records %v", bad)
	}
	want := []string{
		"session",
		"message user text",
		"message assistant thinking toolCall text", "opencode.step-start", "message toolResult text", "opencode.step-finish",
		"message user text", "opencode.file", "opencode.text", "opencode.text",
		"message assistant toolCall toolCall text", "message toolResult text", "message toolResult text",
		"message user text",
		"message assistant text",
		"leaf",
	}
	if got := ocKinds(t, events); !reflect.DeepEqual(got, want) {
		t.Errorf("atlas events:\n got %q\nwant %q", got, want)
	}
	path, searchable := activePath(t, events)
	wantPath := []string{
		"user: 为什么 go build 在 Linux 上失败了？",
		"assistant: 构建失败是因为 label.go 里的 étiquette 没有定义。",
		"toolResult: ./label.go:12:2: undefined: étiquette",
		"user: Peux-tu corriger l'erreur sans casser l'API publique ?",
		"assistant: D'accord : j'ai renommé étiquette en label, l'API publique ne change pas.",
		"toolResult: 3 usages dans pkg/label",
		"toolResult: oldString not found in label.go",
	}
	if !reflect.DeepEqual(path, wantPath) || !reflect.DeepEqual(searchable, []bool{true, true, false, true, true, false, false}) {
		t.Errorf("atlas active path:\n got %q %v\nwant %q", path, searchable, wantPath)
	}
	// The reverted messages are stored, off the active path.
	all := string(bytes.Join(events, []byte("\n")))
	if strings.Count(all, "quasarword") != 2 || strings.Contains(strings.Join(path, "\n"), "quasarword") {
		t.Errorf("reverted messages: want both stored and neither on the path:\n%s", all)
	}
	leaf := events[len(events)-1]
	if !bytes.Contains(leaf, []byte(`"targetId":"prt_d0a1000000040Atlas0P0012"`)) {
		t.Errorf("revert leaf %s: want it to target the last entry before msg_…Usr005", leaf)
	}
	// Reasoning, tool input, synthetic text: stored, never searchable.
	for _, s := range []string{"Je dois d'abord", `"command":"go build ./..."`, "zephyrsynthetic"} {
		if !strings.Contains(all, s) {
			t.Errorf("%q is not stored", s)
		}
		for _, p := range path {
			if strings.Contains(p, s) {
				t.Errorf("%q is on the path as text: %q", s, p)
			}
		}
	}
	if !strings.Contains(all, `"toolCallId":"toolu_01AbCbuild","toolName":"bash"`) ||
		!strings.Contains(all, `"toolCallId":"toolu_03Edit","toolName":"edit","isError":true`) ||
		!strings.Contains(all, `{"type":"toolCall","id":"toolu_01AbCbuild","name":"bash","arguments":{"command":"go build ./...","description":"Build all packages"}}`) ||
		!strings.Contains(all, `"model":"claude-sonnet-4-5"`) {
		t.Errorf("tool calls, results or model missing:\n%s", all)
	}
	if !bytes.HasPrefix(events[0], []byte(`{"type":"session","version":3,"id":"`+ocAtlas+`","timestamp":"2025-12-01T12:00:00.000Z","cwd":"/home/ana/src/atlas","agent":"opencode"}`)) {
		t.Errorf("header %s", events[0])
	}

	task := trs[ocTask]
	if task.Session.Key != "agent:opencode:"+ocTask || task.Session.SpawnedBy != "agent:opencode:"+ocAtlas || task.Project != "/home/ana/src/atlas" {
		t.Errorf("task session: %+v", task.Session)
	}
	events, _ = read(t, task, -1)
	if path, _ := activePath(t, events); !reflect.DeepEqual(path, []string{
		"user: Trouve tous les usages de étiquette",
		"assistant: Trouvé 3 usages dans pkg/label : label.go, render.go, render_test.go.",
		"toolResult: label.go:12\nrender.go:40\nrender_test.go:7",
	}) {
		t.Errorf("task path %q", path)
	}

	boreal := trs[ocBoreal]
	if boreal.Project != "/home/ana/src/boreal" || boreal.Session.SpawnedBy != "" {
		t.Errorf("boreal: %+v", boreal)
	}
	events, bad = read(t, boreal, -1)
	var recs []string
	for _, b := range bad {
		recs = append(recs, b.Rec+": "+b.Bad.Error())
	}
	if len(bad) != 2 || bad[0].Rec != "message msg_d0a1000000080Boreal0Bad02" || bad[1].Rec != "part prt_d0a1000000090Boreal0P005" ||
		!strings.Contains(bad[0].Bad.Error(), "not a JSON object") {
		t.Errorf("boreal bad records: %q", recs)
	}
	if got := ocKinds(t, events); !reflect.DeepEqual(got, []string{"session",
		"message user text", "opencode.text", "opencode.agent",
		"message assistant text", "opencode.hologram"}) {
		t.Errorf("boreal events %q", got)
	}
	path, searchable = activePath(t, events)
	if !reflect.DeepEqual(path, []string{"user: List the TODO comments in main.go", "assistant: There are two TODOs: retry logic and config reload."}) ||
		!reflect.DeepEqual(searchable, []bool{true, true}) {
		t.Errorf("boreal path %q %v", path, searchable)
	}
	if all := string(bytes.Join(events, nil)); !strings.Contains(all, "nimbusignored") {
		t.Errorf("ignored text is not kept")
	}
}

func TestOpenCodeRevertToPartAndToStart(t *testing.T) {
	dir := t.TempDir()
	d := opencodeFixtureDB(t, dir)
	env := ocEnv(nil)
	tests := []struct {
		name, revert string
		path         []string
		target       string
	}{
		{"from a part on: the edit and the answer after it are reverted",
			`{"messageID":"msg_d0a1000000040Atlas0Ast004","partID":"prt_d0a1000000040Atlas0P0012"}`,
			[]string{
				"user: 为什么 go build 在 Linux 上失败了？",
				"assistant: 构建失败是因为 label.go 里的 étiquette 没有定义。",
				"toolResult: ./label.go:12:2: undefined: étiquette",
				"user: Peux-tu corriger l'erreur sans casser l'API publique ?",
				"assistant: ",
				"toolResult: 3 usages dans pkg/label",
			}, "prt_d0a1000000040Atlas0P0011"},
		{"a part id past the message's parts: only later messages", `{"messageID":"msg_d0a1000000040Atlas0Ast004","partID":"prt_d0a1000000040Atlas0P9999"}`,
			nil, "prt_d0a1000000040Atlas0P0012"},
		{"from the first message: nothing is left", `{"messageID":"msg_d0a1000000010Atlas0Usr001"}`, []string{}, ocAtlas},
		{"a message id past every message: nothing is reverted", `{"messageID":"msg_zzzz"}`, nil, ""},
	}
	for _, tt := range tests {
		d.exec("UPDATE session SET revert = ? WHERE id = ?", tt.revert, ocAtlas)
		events, bad := read(t, ocList(t, d.path, env)[ocAtlas], -1)
		if len(bad) != 0 {
			t.Errorf("%s: bad %v", tt.name, bad)
		}
		path, _ := activePath(t, events)
		last := string(events[len(events)-1])
		switch {
		case tt.target == "":
			if strings.Contains(last, `"leaf"`) || len(path) != 9 {
				t.Errorf("%s: want no leaf and 9 messages on the path, got %s, %q", tt.name, last, path)
			}
		case !strings.Contains(last, `"type":"leaf","targetId":"`+tt.target+`"`):
			t.Errorf("%s: last event %s, want a leaf to %s", tt.name, last, tt.target)
		case tt.path != nil && !reflect.DeepEqual(path, tt.path) && !(len(path) == 0 && len(tt.path) == 0):
			t.Errorf("%s: path\n got %q\nwant %q", tt.name, path, tt.path)
		}
	}
	d.exec("UPDATE session SET revert = ? WHERE id = ?", `"not an object"`, ocAtlas)
	events, bad := read(t, ocList(t, d.path, env)[ocAtlas], -1)
	if len(bad) != 1 || bad[0].Rec != "session "+ocAtlas || !strings.Contains(bad[0].Bad.Error(), "revert") {
		t.Errorf("a revert that is not an object: bad %v", bad)
	}
	if path, _ := activePath(t, events); len(path) != 9 {
		t.Errorf("a broken revert reverts nothing: path %q", path)
	}
}

func TestOpenCodeGenAndDeterminism(t *testing.T) {
	dir := t.TempDir()
	d := opencodeFixtureDB(t, dir)
	env := ocEnv(nil)
	first := ocList(t, d.path, env)
	second := ocList(t, d.path, env)
	for id, tr := range first {
		if second[id].Gen != tr.Gen {
			t.Errorf("%s: Gen %s then %s with nothing changed", id, tr.Gen, second[id].Gen)
		}
		a, _ := read(t, tr, -1)
		b, _ := read(t, second[id], -1)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two reads differ", id)
		}
	}
	// OpenCode upserts a part's data without touching time_updated.
	d.exec("UPDATE part SET data = ? WHERE id = ?", `{"type":"text","text":"There are three TODOs."}`, "prt_d0a1000000090Boreal0P004")
	third := ocList(t, d.path, env)
	if third[ocBoreal].Gen == first[ocBoreal].Gen {
		t.Errorf("boreal: Gen unchanged after a part changed")
	}
	if third[ocAtlas].Gen != first[ocAtlas].Gen || third[ocTask].Gen != first[ocTask].Gen {
		t.Errorf("other sessions' Gen changed with boreal's part")
	}
	d.exec("UPDATE session SET revert = NULL WHERE id = ?", ocAtlas)
	if ocList(t, d.path, env)[ocAtlas].Gen == first[ocAtlas].Gen {
		t.Errorf("atlas: Gen unchanged after an unrevert")
	}
	d.exec("INSERT INTO message(id, session_id, time_created, time_updated, data) VALUES ('msg_e', ?, 1, 1, '{\"role\":\"user\"}')", ocTask)
	if ocList(t, d.path, env)[ocTask].Gen == first[ocTask].Gen {
		t.Errorf("task: Gen unchanged after a new message")
	}
	// Read after a position emits only what follows it.
	events, _ := read(t, first[ocTask], -1)
	var all []Event
	_ = first[ocTask].Read(context.Background(), -1, func(e Event) error { all = append(all, e); return nil })
	var after []Event
	_ = first[ocTask].Read(context.Background(), all[1].Pos, func(e Event) error { after = append(after, e); return nil })
	if len(all) != len(events) || len(after) == 0 || after[0].Pos <= all[1].Pos {
		t.Errorf("Read(after): %d events from the start, %d after pos %d", len(all), len(after), all[1].Pos)
	}
}

func TestOpenCodeMissingOptionalColumns(t *testing.T) {
	dir := t.TempDir()
	d := ocCreate(t, filepath.Join(dir, "old.db"), "CREATE TABLE session (id text PRIMARY KEY);"+
		"CREATE TABLE message (id text PRIMARY KEY, session_id text, data text);"+
		"CREATE TABLE part (id text PRIMARY KEY, message_id text, data text);")
	d.exec("INSERT INTO session(id) VALUES ('ses_1')")
	d.exec(`INSERT INTO message VALUES ('msg_2', 'ses_1', '{"role":"assistant","time":{"created":1764590402000}}'), ('msg_1', 'ses_1', '{"role":"user"}')`)
	d.exec(`INSERT INTO part VALUES ('prt_2', 'msg_2', '{"type":"text","text":"réponse"}'), ('prt_1', 'msg_1', '{"type":"text","text":"question"}')`)
	trs := ocList(t, d.path, ocEnv(nil))
	tr := trs["ses_1"]
	if tr.Project != "" || tr.Session.Key != "agent:opencode:ses_1" || tr.Gen == "" {
		t.Errorf("transcript %+v", tr)
	}
	events, bad := read(t, tr, -1)
	if path, _ := activePath(t, events); len(bad) != 0 || !reflect.DeepEqual(path, []string{"user: question", "assistant: réponse"}) {
		t.Errorf("path %q, bad %v", path, bad)
	}
	if string(events[0]) != `{"type":"session","version":3,"id":"ses_1","agent":"opencode"}` {
		t.Errorf("header %s", events[0])
	}

	// Without session.directory, the project's worktree, but for the
	// global project's "/".
	nodir := ocCreate(t, filepath.Join(dir, "nodir.db"), "CREATE TABLE project (id text PRIMARY KEY, worktree text);"+
		"CREATE TABLE session (id text PRIMARY KEY, project_id text);"+
		"CREATE TABLE message (id text PRIMARY KEY, session_id text, data text);"+
		"CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, data text);")
	nodir.exec("INSERT INTO project VALUES ('p1', '/srv/app'), ('global', '/')")
	nodir.exec("INSERT INTO session VALUES ('ses_app', 'p1'), ('ses_global', 'global')")
	trs = ocList(t, nodir.path, ocEnv(nil))
	if trs["ses_app"].Project != "/srv/app" || trs["ses_global"].Project != "" {
		t.Errorf("projects from worktrees: %q, %q", trs["ses_app"].Project, trs["ses_global"].Project)
	}

	other := ocCreate(t, filepath.Join(dir, "state.db"), "CREATE TABLE sessions (id text); CREATE TABLE messages (id text, content text);")
	_, probs := Lookup(OpenCode).List(context.Background(), other.path, ocEnv(nil))
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), "not an OpenCode database") {
		t.Errorf("a database of another agent: problems %v", probs)
	}
	if _, probs := Lookup(OpenCode).List(context.Background(), d.path, Env{}); len(probs) != 1 {
		t.Errorf("without OpenDB: problems %v, want one", probs)
	}
}

// ocMigrate copies a storage/ tree into a new database the way OpenCode's
// JSON migration does (packages/opencode/src/storage/json-migration.ts):
// ids from file paths; data without id, sessionID and messageID.
func ocMigrate(t *testing.T, storage, dbPath string) *ocDB {
	t.Helper()
	d := ocCreate(t, dbPath, opencodeSchemaSQL)
	strip := func(file string, keys ...string) (map[string]any, string) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			delete(m, k)
		}
		out, _ := json.Marshal(m)
		return m, string(out)
	}
	files, _ := filepath.Glob(filepath.Join(storage, "session", "*", "*.json"))
	for _, f := range files {
		proj := filepath.Base(filepath.Dir(f))
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		s, _ := strip(f)
		tm := s["time"].(map[string]any)
		d.exec("INSERT OR IGNORE INTO project(id, worktree, time_created, time_updated, sandboxes) VALUES (?, '/', 0, 0, '[]')", proj)
		d.exec(`INSERT INTO session(id, project_id, slug, directory, title, version, time_created, time_updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, proj, s["slug"], s["directory"], s["title"], s["version"], tm["created"], tm["updated"])
		msgs, _ := filepath.Glob(filepath.Join(storage, "message", id, "*.json"))
		for _, mf := range msgs {
			mid := strings.TrimSuffix(filepath.Base(mf), ".json")
			m, data := strip(mf, "id", "sessionID")
			d.exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", mid, id, m["time"].(map[string]any)["created"], 0, data)
			parts, _ := filepath.Glob(filepath.Join(storage, "part", mid, "*.json"))
			for _, pf := range parts {
				_, data := strip(pf, "id", "sessionID", "messageID")
				d.exec("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", strings.TrimSuffix(filepath.Base(pf), ".json"), mid, id, data)
			}
		}
	}
	return d
}

func TestOpenCodeStorageTree(t *testing.T) {
	storage := filepath.Join("testdata", "opencode", "storage")
	env := ocEnv(nil)
	trs := ocList(t, storage, env)
	tr, ok := trs[ocNile]
	if len(trs) != 1 || !ok {
		t.Fatalf("storage: %d sessions, want %s", len(trs), ocNile)
	}
	if tr.Path != storage || tr.Project != "/home/ana/src/cairo" || tr.Session.Key != "agent:opencode:"+ocNile ||
		tr.Session.CreatedAt != 1759320000000 || tr.Gen == "" || tr.Events != 10 {
		t.Errorf("storage transcript %+v", tr)
	}
	fromFiles, bad := read(t, tr, -1)
	if len(bad) != 0 {
		t.Errorf("bad %v", bad)
	}
	path, searchable := activePath(t, fromFiles)
	if !reflect.DeepEqual(path, []string{
		"user: لماذا يفشل اختبار التاريخ الهجري؟",
		"assistant: الاختبار يفشل لأن التاريخ المتوقع محسوب بتوقيت UTC وليس بتوقيت القاهرة.",
		"toolResult: <file>\n00012| \twant := \"1447-04-09\"\n</file>",
	}) || !reflect.DeepEqual(searchable, []bool{true, true, false}) {
		t.Errorf("storage path %q %v", path, searchable)
	}
	if !strings.Contains(string(bytes.Join(fromFiles, nil)), `"thinking":"ควรเปิดไฟล์ทดสอบก่อน`) {
		t.Errorf("reasoning is not a thinking block")
	}

	// The same session copied into a database as OpenCode migrates it:
	// the same events, but for the kept parts' data (which the database
	// keeps without the ids).
	d := ocMigrate(t, storage, filepath.Join(t.TempDir(), "opencode.db"))
	fromDB, bad := read(t, ocList(t, d.path, env)[ocNile], -1)
	if len(bad) != 0 {
		t.Errorf("bad %v", bad)
	}
	if a, b := ocKinds(t, fromFiles), ocKinds(t, fromDB); !reflect.DeepEqual(a, b) {
		t.Errorf("kinds differ:\nfiles %q\n   db %q", a, b)
	}
	for i := range fromFiles {
		if !bytes.Contains(fromFiles[i], []byte(`"type":"opencode.`)) && !bytes.Equal(fromFiles[i], fromDB[i]) {
			t.Errorf("event %d:\nfiles %s\n   db %s", i, fromFiles[i], fromDB[i])
		}
	}

	// A path inside the tree lists its session (a session file) or the tree.
	if got := ocList(t, filepath.Join(storage, "session", "4f1c0e9a2b7d6c3e8a5f0b1d2c3e4f5a6b7c8d9e", ocNile+".json"), env); len(got) != 1 {
		t.Errorf("a session file lists %d sessions", len(got))
	}
}

// ocCopyTree copies a directory tree.
func ocCopyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenCodeDataDir(t *testing.T) {
	data := filepath.Join(t.TempDir(), "share", "opencode")
	storage := filepath.Join(data, "storage")
	ocCopyTree(t, filepath.Join("testdata", "opencode", "storage"), storage)
	// A session only the storage/ tree holds, with a bad message file.
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(storage, "session", "global"), 0o755))
	must(os.WriteFile(filepath.Join(storage, "session", "global", "ses_only.json"), []byte(`{"id":"ses_only","directory":"/tmp/x","parentID":"`+ocNile+`","time":{"created":1759320100000}}`), 0o644))
	must(os.MkdirAll(filepath.Join(storage, "message", "ses_only"), 0o755))
	must(os.WriteFile(filepath.Join(storage, "message", "ses_only", "msg_1.json"), []byte(`{"role":`), 0o644))
	ocMigrate(t, filepath.Join("testdata", "opencode", "storage"), filepath.Join(data, "opencode.db"))

	env := ocEnv(nil)
	trs := ocList(t, data, env)
	if len(trs) != 2 {
		t.Fatalf("data dir: %d sessions, want 2", len(trs))
	}
	if trs[ocNile].Path != filepath.Join(data, "opencode.db") {
		t.Errorf("a session in both the database and storage/ is read from %s, want the database", trs[ocNile].Path)
	}
	only := trs["ses_only"]
	if only.Path != storage || only.Session.SpawnedBy != "agent:opencode:"+ocNile || only.Project != "/tmp/x" {
		t.Errorf("storage-only session %+v", only)
	}
	_, bad := read(t, only, -1)
	if len(bad) != 1 || bad[0].Rec != "message msg_1" {
		t.Errorf("bad message file: %v", bad)
	}

	// Roots follow $XDG_DATA_HOME and $OPENCODE_DB.
	roots := func(vars map[string]string) []string { return Lookup(OpenCode).Roots(ocEnv(vars)) }
	for _, tt := range []struct {
		vars map[string]string
		want []string
	}{
		{nil, []string{"/home/ana/.local/share/opencode"}},
		{map[string]string{"XDG_DATA_HOME": "/data"}, []string{"/data/opencode"}},
		{map[string]string{"OPENCODE_DB": "opencode.db"}, []string{"/home/ana/.local/share/opencode"}},
		{map[string]string{"OPENCODE_DB": "work.sqlite"}, []string{"/home/ana/.local/share/opencode", "/home/ana/.local/share/opencode/work.sqlite"}},
		{map[string]string{"OPENCODE_DB": "/srv/oc.db"}, []string{"/home/ana/.local/share/opencode", "/srv/oc.db"}},
		{map[string]string{"OPENCODE_DB": ":memory:"}, []string{"/home/ana/.local/share/opencode"}},
	} {
		if got := roots(tt.vars); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Roots(%v) = %q, want %q", tt.vars, got, tt.want)
		}
	}
}

func TestOpenCodeClaims(t *testing.T) {
	dir := t.TempDir()
	d := opencodeFixtureDB(t, dir)
	renamed := filepath.Join(dir, "backup.sqlite")
	b, err := os.ReadFile(d.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	openclaw := ocCreate(t, filepath.Join(dir, "agent.sqlite"), "CREATE TABLE transcript_events (session_id text, seq integer, event_json text);")
	state := filepath.Join(dir, ".openclaw", "agents", "main", "sessions")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "s1.jsonl"), []byte(`{"type":"session","id":"s1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	claims := Lookup(OpenCode).Claims
	for path, want := range map[string]bool{
		d.path:                                true, // opencode.db
		filepath.Join(dir, "opencode-dev.db"): true,
		renamed:                               true, // a SQLite file with session, message and part
		filepath.Join("testdata", "opencode"): true,
		filepath.Join("testdata", "opencode", "storage"):         true,
		filepath.Join("testdata", "opencode", "storage", "part"): true,
		filepath.Join("/nowhere", ".local", "share", "opencode"): true, // a default root before first use
		openclaw.path:                      false,
		filepath.Join(dir, ".openclaw"):    false,
		state:                              false,
		filepath.Join(state, "s1.jsonl"):   false,
		filepath.Join("testdata"):          false,
		filepath.Join(dir, "opencode-.db"): false,
	} {
		if got := claims(path); got != want {
			t.Errorf("Claims(%s) = %v, want %v", path, got, want)
		}
	}
	// The other agents' fixtures are not OpenCode's.
	entries, _ := os.ReadDir("testdata")
	var others []string
	for _, e := range entries {
		if e.Name() != "opencode" && !strings.HasPrefix(e.Name(), "opencode-") { // opencode-<version>: the real program's
			others = append(others, filepath.Join("testdata", e.Name()))
		}
	}
	sort.Strings(others)
	for _, p := range others {
		_ = filepath.Walk(p, func(q string, fi os.FileInfo, err error) error {
			if err == nil && claims(q) {
				t.Errorf("Claims(%s) = true: another agent's fixture", q)
			}
			return nil
		})
	}
	if Claimed(filepath.Join("testdata", "opencode", "storage")) != Lookup(OpenCode) {
		t.Errorf("the storage fixture is not claimed by OpenCode alone")
	}
}

func TestOpenCodeNotAStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "opencode")
	if err := os.MkdirAll(filepath.Join(dir, "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	trs, probs := Lookup(OpenCode).List(context.Background(), dir, ocEnv(nil))
	if len(trs) != 0 || len(probs) != 1 || !strings.Contains(probs[0].Error(), "no OpenCode store here") {
		t.Errorf("an empty data dir: %d transcripts, problems %v", len(trs), probs)
	}
	if _, probs := Lookup(OpenCode).List(context.Background(), filepath.Join(dir, "missing.db"), ocEnv(nil)); len(probs) != 1 {
		t.Errorf("a missing path: problems %v, want one", probs)
	}
}

// BenchmarkOpenCodeGen measures the per-session fingerprint query over
// parts of 8 KiB (overflow pages) with octet_length, which Gen uses, and
// with length, which reads every value.
func BenchmarkOpenCodeGen(b *testing.B) {
	dir := b.TempDir()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "opencode.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(opencodeSchemaSQL); err != nil {
		b.Fatal(err)
	}
	tx, _ := db.Begin()
	text := strings.Repeat("étiquette 标签 ", 8192/len("étiquette 标签 "))
	data, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	for s := 0; s < 50; s++ {
		sid := fmt.Sprintf("ses_%04d", s)
		for m := 0; m < 20; m++ {
			mid := fmt.Sprintf("msg_%04d_%04d", s, m)
			if _, err := tx.Exec("INSERT INTO message VALUES (?, ?, ?, ?, '{\"role\":\"user\"}')", mid, sid, m, m); err != nil {
				b.Fatal(err)
			}
			for p := 0; p < 4; p++ {
				if _, err := tx.Exec("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", fmt.Sprintf("prt_%s_%d", mid, p), mid, sid, string(data)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, fn := range []string{"octet_length", "length"} {
		b.Run(fn, func(b *testing.B) {
			q := "SELECT session_id, count(*), total(" + fn + "(data)) FROM part GROUP BY session_id"
			for b.Loop() {
				rows, err := db.Query(q)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				rows.Close()
				if n != 50 {
					b.Fatalf("%d sessions", n)
				}
			}
		})
	}
}
