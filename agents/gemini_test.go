package agents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/transcript"
)

const (
	geminiFixture   = "testdata/gemini"
	geminiLegacyID  = "3f1c2a9b-7d4e-4f5a-9b6c-1d2e3f4a5b6c"
	geminiLogID     = "8d2e4f61-5b7a-4c3e-9f10-2a6b7c8d9e01"
	geminiSubID     = "5c0e7d1a-2f3b-4a5c-8d9e-0f1a2b3c4d5e"
	geminiHashDir   = "8eace2e77b251aadcc91156f4c81fe5c9f11d7052fa82d8af1098ab851aca8c5"
	geminiTestID    = "abcdef12-0000-4000-8000-000000000000"
	geminiTestStart = `"startTime":"2026-01-05T08:00:00.000Z"`
)

// geminiList lists path with the Gemini format and fails on any problem.
func geminiListOK(t *testing.T, path string) map[string]Transcript {
	t.Helper()
	trs, problems := Lookup(Gemini).List(context.Background(), path, Env{})
	for _, p := range problems {
		t.Errorf("problem: %v", p)
	}
	out := map[string]Transcript{}
	for _, tr := range trs {
		if _, dup := out[tr.Session.Key]; dup {
			t.Fatalf("session %s listed twice", tr.Session.Key)
		}
		out[tr.Session.Key] = tr
	}
	return out
}

// geminiRead reads a whole transcript and returns its events, the records
// reported as bad and the active path.
func geminiRead(t *testing.T, tr Transcript) (events [][]byte, bad []Event, path []string, searchable []bool) {
	t.Helper()
	events, bad = read(t, tr, -1)
	if len(events) == 0 {
		t.Fatalf("%s: no events", tr.Path)
	}
	if e, _ := transcript.Parse(events[0]); e.Type != "session" || e.ID == "" {
		t.Fatalf("%s: event 0 is %s, want the session header", tr.Path, events[0])
	}
	path, searchable = activePath(t, events)
	return events, bad, path, searchable
}

// geminiTypes counts the events of each type.
func geminiTypes(t *testing.T, events [][]byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, ev := range events {
		e, err := transcript.Parse(ev)
		if err != nil {
			t.Fatal(err)
		}
		out[e.Type]++
	}
	return out
}

// geminiSearchable is every searchable text among the events, on the
// active path or not.
func geminiSearchable(events [][]byte) []string {
	var out []string
	for _, ev := range events {
		if text, ok := transcript.MessageText(ev); ok {
			out = append(out, text)
		}
	}
	return out
}

func TestGeminiListsEachSessionOfTheStore(t *testing.T) {
	trs := geminiListOK(t, geminiFixture)
	hashChats := filepath.Join(geminiFixture, "tmp", geminiHashDir, "chats")
	want := map[string]struct {
		path, project, spawnedBy string
		created                  int64
	}{
		Key(Gemini, geminiLegacyID): {filepath.Join(geminiFixture, "tmp/tienda/chats/session-2026-03-02T10-15-3f1c2a9b.json"),
			"/home/ana/src/tienda", "", Millis("2026-03-02T10:15:04.120Z")},
		Key(Gemini, geminiLogID): {filepath.Join(hashChats, "session-2026-08-10T09-00-8d2e4f61.jsonl"),
			"/home/ravi/code/pustak", "", Millis("2026-08-10T09:00:12.000Z")},
		Key(Gemini, geminiSubID): {filepath.Join(hashChats, geminiLogID, geminiSubID+".jsonl"),
			"/home/ravi/code/pustak", Key(Gemini, geminiLogID), Millis("2026-08-10T09:02:05.000Z")},
	}
	if len(trs) != len(want) {
		t.Fatalf("listed %d sessions, want %d: %v", len(trs), len(want), trs)
	}
	for key, w := range want {
		tr, ok := trs[key]
		if !ok {
			t.Errorf("session %s not listed", key)
			continue
		}
		wantSession := store.Session{Key: key, SpawnedBy: w.spawnedBy, CreatedAt: w.created}
		if tr.Path != w.path || tr.Project != w.project || tr.Session != wantSession || tr.Agent != Gemini || tr.Resumable || tr.Events <= 0 {
			t.Errorf("%s: got path %s project %q session %+v agent %s resumable %v events %d\nwant path %s project %q session %+v, not resumable",
				key, tr.Path, tr.Project, tr.Session, tr.Agent, tr.Resumable, tr.Events, w.path, w.project, wantSession)
		}
		events, _, _, _ := geminiRead(t, tr)
		if e, _ := transcript.Parse(events[0]); e.ID != strings.TrimPrefix(key, "agent:gemini:") || e.Timestamp != w.created {
			t.Errorf("%s: header %s", key, events[0])
		}
		if !bytes.Contains(events[0], []byte(`"cwd":"`+w.project+`"`)) {
			t.Errorf("%s: header %s has not the project %s as cwd", key, events[0], w.project)
		}
	}
	// A project dir, its chats dir, a sub-agent dir and a file list what
	// they hold.
	for path, keys := range map[string][]string{
		filepath.Join(geminiFixture, "tmp"):                {Key(Gemini, geminiLegacyID), Key(Gemini, geminiLogID), Key(Gemini, geminiSubID)},
		filepath.Join(geminiFixture, "tmp", geminiHashDir): {Key(Gemini, geminiLogID), Key(Gemini, geminiSubID)},
		filepath.Join(geminiFixture, "projects.json"):      {Key(Gemini, geminiLegacyID), Key(Gemini, geminiLogID), Key(Gemini, geminiSubID)},
		hashChats:                             {Key(Gemini, geminiLogID), Key(Gemini, geminiSubID)},
		filepath.Join(hashChats, geminiLogID): {Key(Gemini, geminiSubID)},
		want[Key(Gemini, geminiSubID)].path:   {Key(Gemini, geminiSubID)},
	} {
		got := geminiListOK(t, path)
		if len(got) != len(keys) {
			t.Errorf("List(%s) = %d sessions, want %v", path, len(got), keys)
		}
		for _, k := range keys {
			if got[k].Session != trs[k].Session || got[k].Project != trs[k].Project {
				t.Errorf("List(%s): %s is %+v %q, want %+v %q", path, k, got[k].Session, got[k].Project, trs[k].Session, trs[k].Project)
			}
		}
	}
}

func TestGeminiLegacySession(t *testing.T) {
	tr := geminiListOK(t, geminiFixture)[Key(Gemini, geminiLegacyID)]
	events, bad, path, searchable := geminiRead(t, tr)
	if len(bad) != 0 {
		t.Errorf("bad records: %v", bad)
	}
	want := []struct {
		line       string
		searchable bool
	}{
		{"system: <session_context>\nThis is the Gemini CLI. Today's date is lunes, 2 de marzo de 2026. My operating system is: linux\n</session_context>", false},
		{"user: ¿Por qué falla el cálculo del IVA? Revisa @src/iva.ts", true},
		{"assistant: El redondeo se hace antes de sumar el IVA; por eso la factura difiere en un céntimo.", true},
		{"toolResult: 12:  return Math.round(neto * 100) / 100;", false},
		{"user: اشرح لي خطأ ضريبة القيمة المضافة بالعربية من فضلك", true},
		{"assistant: الخطأ في تقريب المبلغ قبل إضافة الضريبة، لذلك يختلف المجموع بسنت واحد.", true},
		{"toolResult: Command exited with code 1: 1 failing", false},
		{"system: Se detectó un bucle potencial; la herramienta se canceló.", false},
		{"system: Chat guardado con la etiqueta iva-redondeo.", false},
	}
	if len(path) != len(want) {
		t.Fatalf("active path:\n%s\nwant %d messages", strings.Join(path, "\n"), len(want))
	}
	for i, w := range want {
		if path[i] != w.line || searchable[i] != w.searchable {
			t.Errorf("message %d: %q searchable %v, want %q %v", i, path[i], searchable[i], w.line, w.searchable)
		}
	}
	// Every message is on the path once: the searchable texts are those.
	if got, want := geminiSearchable(events), 4; len(got) != want {
		t.Errorf("searchable texts %q, want %d", got, want)
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, s := range []string{
		"tasaReducida",                         // the referenced file's content, shown as the typed @src/iva.ts
		"Math.round se aplica",                 // a thought
		`"command":"grep -n round src/iva.ts"`, // a tool call's arguments
	} {
		for _, text := range geminiSearchable(events) {
			if strings.Contains(text, s) {
				t.Errorf("%q is searchable in %q", s, text)
			}
		}
		if s != "tasaReducida" && !strings.Contains(all, s) {
			t.Errorf("%q is not kept in the events", s)
		}
	}
	if !strings.Contains(all, `"thinking":"**Revisando el redondeo** Math.round se aplica a cada línea antes del impuesto."`) {
		t.Errorf("the thought is not a thinking block:\n%s", all)
	}
	if !strings.Contains(all, `"toolCallId":"run_shell_command-1772446630000-1b7c","toolName":"run_shell_command","isError":true`) {
		t.Errorf("the failed tool call's result is not an error result:\n%s", all)
	}
	if n := geminiTypes(t, events)["gemini.session"]; n != 1 {
		t.Errorf("%d kept session records, want 1", n)
	}
}

func TestGeminiEventLogSession(t *testing.T) {
	tr := geminiListOK(t, geminiFixture)[Key(Gemini, geminiLogID)]
	events, bad, path, searchable := geminiRead(t, tr)
	want := []struct {
		line       string
		searchable bool
	}{
		{"user: इस फ़ंक्शन में बग कहाँ है? parse_fecha falla con «3 de marzo de 2026»", true},
		{"assistant: ", false}, // thoughts and a tool call only
		{"toolResult: def parse_fecha(s):\n    return datetime.strptime(s, '%d de %B de %Y')", false},
		{"assistant: बग यह है कि %B स्थानीय भाषा पर निर्भर है; usa un diccionario de meses en español.", true},
		// u2 and g3 were rewound ($rewindTo u2).
		{"user: मुझे pytest के साथ एक परीक्षण चाहिए", true},
		{"system: [API Error: Quota exceeded for gemini-2.5-pro]", false},
		// g4 was upserted: its second version.
		{"assistant: Listo: test_fecha.py cubre enero y diciembre; सभी परीक्षण पास हुए।", true},
		{"toolResult: parse_fecha se usa en cli.py y en informes.py", false},
	}
	if len(path) != len(want) {
		t.Fatalf("active path:\n%s\nwant %d messages", strings.Join(path, "\n"), len(want))
	}
	for i, w := range want {
		if path[i] != w.line || searchable[i] != w.searchable {
			t.Errorf("message %d: %q searchable %v, want %q %v", i, path[i], searchable[i], w.line, w.searchable)
		}
	}
	// The rewound messages and g4's first version are kept, off the path.
	all := geminiSearchable(events)
	for _, off := range []string{"ahora borra el archivo de pruebas viejo", "He borrado tests/viejo_test.py por completo.", "Listo: test_fecha.py"} {
		n := 0
		for _, s := range all {
			if s == off {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q is in %d events, want 1 (off the path)", off, n)
		}
	}
	for _, on := range onPathSearchable(path, searchable) {
		for _, off := range []string{"borra", "borrado"} {
			if strings.Contains(on, off) {
				t.Errorf("rewound text %q on the active path: %q", off, on)
			}
		}
	}
	// Upserts that change nothing the store keeps (g2's tokens, g1's main
	// entry when its result arrives) append nothing.
	ids := map[string]int{}
	for _, ev := range events {
		e, _ := transcript.Parse(ev)
		if e.ID != "" {
			ids[e.ID]++
		}
	}
	for id, n := range map[string]int{"g1-7c2e": 1, "g1-7c2e:tool:read_file-1786352431000-a1": 1, "g2-91ab": 1, "g4-c5d3": 2, "rewind-11": 1} {
		if ids[id] != n {
			t.Errorf("%d entries with id %s, want %d", ids[id], id, n)
		}
	}
	types := geminiTypes(t, events)
	for typ, n := range map[string]int{"session": 1, "gemini.session": 1, "gemini.set": 3, "gemini.$patch": 1, "leaf": 1} {
		if types[typ] != n {
			t.Errorf("%d events of type %s, want %d (all: %v)", types[typ], typ, n, types)
		}
	}
	if len(bad) != 1 || bad[0].Rec != "line 15" || !strings.Contains(bad[0].Bad.Error(), "not a JSON object") {
		t.Errorf("bad records %v, want line 15 (not JSON)", bad)
	}
	// Every event of a line carries the offset after the line.
	data, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	err = tr.Read(context.Background(), -1, func(e Event) error {
		if e.Pos < last || e.Pos > int64(len(data)) || (e.Pos > 0 && data[e.Pos-1] != '\n') {
			t.Errorf("event %s at %d after %d", e.JSON, e.Pos, last)
		}
		last = e.Pos
		return nil
	})
	if err != nil || last != int64(len(data)) {
		t.Errorf("read ended at %d (%v), want %d", last, err, len(data))
	}
}

func TestGeminiSubagentSession(t *testing.T) {
	tr := geminiListOK(t, geminiFixture)[Key(Gemini, geminiSubID)]
	_, bad, path, searchable := geminiRead(t, tr)
	want := []string{
		"user: Busca los usos de parse_fecha en el repositorio",
		"assistant: ",
		"toolResult: cli.py:3: from fecha import parse_fecha\ninformes.py:8: parse_fecha(fila[0])",
		"assistant: parse_fecha aparece en cli.py e informes.py.",
	}
	if !reflect.DeepEqual(path, want) || !reflect.DeepEqual(searchable, []bool{true, false, false, true}) || len(bad) != 0 {
		t.Errorf("active path %q %v (bad %v), want %q", path, searchable, bad, want)
	}
	if tr.Session.SpawnedBy != Key(Gemini, geminiLogID) {
		t.Errorf("spawned by %q", tr.Session.SpawnedBy)
	}
}

func TestGeminiReadingTwiceGivesTheSameEvents(t *testing.T) {
	first := geminiListOK(t, geminiFixture)
	second := geminiListOK(t, geminiFixture)
	for key, tr := range first {
		a, _ := read(t, tr, -1)
		b, _ := read(t, second[key], -1)
		c, _ := read(t, tr, -1)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
			t.Errorf("%s: reading again gave other events", key)
		}
		if tr.Session != second[key].Session || tr.Project != second[key].Project || tr.Path != second[key].Path {
			t.Errorf("%s: listing again gave %+v, want %+v", key, second[key], tr)
		}
	}
}

// geminiLog writes a session log (the metadata line, then lines) in a
// project temp dir of a fresh .gemini and returns its transcript.
func geminiLogFile(t *testing.T, lines ...string) Transcript {
	t.Helper()
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	head := `{"sessionId":"` + geminiTestID + `","projectHash":"00",` + geminiTestStart + `}`
	path := filepath.Join(chats, "session-2026-01-05T08-00-abcdef12.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(append([]string{head}, lines...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trs, problems := Lookup(Gemini).List(context.Background(), path, Env{})
	if len(trs) != 1 || len(problems) != 0 {
		t.Fatalf("List(%s) = %v %v", path, trs, problems)
	}
	return trs[0]
}

// geminiResumeCall is a gemini message "g" with a thought and a tool call
// with its result, and content as given.
func geminiResumeCall(content string) string {
	return `{"id":"g","type":"gemini","content":` + content + `,"thoughts":[{"subject":"Plan","description":"mirar"}],` +
		`"toolCalls":[{"id":"t1","name":"ls","args":{"dir":"."},"status":"success",` +
		`"result":[{"functionResponse":{"id":"t1","name":"ls","response":{"output":"go.mod"}}}]}]}`
}

func TestGeminiLogOperations(t *testing.T) {
	const (
		a  = `{"id":"a","type":"user","content":"uno"}`
		b  = `{"id":"b","type":"gemini","content":"dos"}`
		b2 = `{"id":"b","type":"gemini","content":"dos bis"}`
		c  = `{"id":"c","type":"user","content":[{"text":"tres"}]}`
	)
	tests := []struct {
		name    string
		lines   []string
		path    []string
		entries int // events after the header but the kept metadata records
		bad     int
	}{
		{"messages in order", []string{a, b, c}, []string{"user: uno", "assistant: dos", "user: tres"}, 3, 0},
		{"an upsert in the middle keeps the messages after it on the path",
			[]string{a, b, c, b2}, []string{"user: uno", "assistant: dos bis", "user: tres"}, 5, 0},
		{"an upsert that changes nothing appends nothing",
			[]string{a, `{"id":"a","type":"user","content":"uno","tokens":null}`}, []string{"user: uno"}, 1, 0},
		{"a rewind to the first message empties the path", []string{a, b, `{"$rewindTo":"a"}`}, nil, 3, 0},
		{"a message after a rewind hangs from the header", []string{a, b, `{"$rewindTo":"a"}`, c}, []string{"user: tres"}, 4, 0},
		{"a rewind to a message not in the log drops every message", []string{a, b, `{"$rewindTo":"zz"}`}, nil, 3, 0},
		{"a rewind keeps the messages before its target", []string{a, b, c, `{"$rewindTo":"c"}`, b2},
			[]string{"user: uno", "assistant: dos bis"}, 5, 0},
		{"a checkpoint adds the messages the log lacks; those it holds or leaves out stay",
			[]string{a, b, c, `{"$set":{"messages":[` + a + `,` + b2 + `,{"id":"x","type":"user","content":"resumen"}],"lastUpdated":"2026-01-05T08:05:00.000Z"}}`},
			[]string{"user: uno", "assistant: dos", "user: tres", "user: resumen"}, 4, 0},
		{"a tool result recorded again as a user message adds nothing",
			[]string{`{"id":"u","type":"user","content":"hola"}`, geminiResumeCall(`""`),
				`{"id":"r","type":"user","content":[{"functionResponse":{"id":"t1","name":"ls","response":{"output":"go.mod"}}}]}`},
			[]string{"user: hola", "assistant: ", "toolResult: go.mod"}, 3, 0},
		{"a checkpoint of the same messages changes nothing",
			[]string{a, b, `{"$set":{"messages":[` + a + `,` + b + `]}}`}, []string{"user: uno", "assistant: dos"}, 2, 0},
		{"a checkpoint puts its new messages at the end",
			[]string{a, b, `{"$set":{"messages":[{"id":"x","type":"user","content":"resumen"},` + a + `,` + b + `]}}`},
			[]string{"user: uno", "assistant: dos", "user: resumen"}, 3, 0},
		{"the checkpoint of a resume (model parts in content, echoed tool results, no notices) changes nothing",
			[]string{`{"id":"u","type":"user","content":"hola"}`, geminiResumeCall(`"respuesta"`), `{"id":"i","type":"info","content":"aviso"}`,
				`{"$set":{"messages":[{"id":"u","type":"user","content":[{"text":"hola"}]},` +
					geminiResumeCall(`[{"text":"**Plan** mirar","thought":true},{"text":"respuesta"},{"functionCall":{"id":"t1","name":"ls","args":{"dir":"."}}}]`) +
					`,{"id":"g_response","type":"user","content":[{"functionResponse":{"id":"t1","name":"ls","response":{"output":"go.mod"}}}]}]}}`},
			[]string{"user: hola", "assistant: respuesta", "toolResult: go.mod", "system: aviso"}, 4, 0},
		{"function responses on a user message are tool results",
			[]string{a, `{"id":"m","type":"gemini","content":[{"functionCall":{"id":"t1","name":"ls","args":{"dir":"."}}}]}`,
				`{"id":"r","type":"user","content":[{"functionResponse":{"id":"t1","name":"ls","response":{"output":"go.mod"}}},{"text":"nota del sistema"}]}`},
			[]string{"user: uno", "assistant: ", "toolResult: go.mod\nnota del sistema"}, 3, 0},
		{"thought parts are thinking, not text",
			[]string{`{"id":"m","type":"gemini","content":[{"text":"plan secreto","thought":true},{"text":"respuesta"}]}`},
			[]string{"assistant: respuesta"}, 1, 0},
		{"a message of an unknown type is kept in its place",
			[]string{a, `{"id":"k","type":"compression","content":"resumen"}`, b}, []string{"user: uno", "assistant: dos"}, 3, 0},
		{"a rewind to a kept message drops it and what follows",
			[]string{a, `{"id":"k","type":"compression"}`, b, `{"$rewindTo":"k"}`}, []string{"user: uno"}, 4, 0},
		{"a message whose fields have other types is kept in its place",
			[]string{a, `{"id":"x","type":"gemini","toolCalls":"oops"}`, c}, []string{"user: uno", "user: tres"}, 3, 0},
		{"a whole record on one line upserts its messages",
			[]string{`{"sessionId":"` + geminiTestID + `","projectHash":"00","messages":[` + a + `,` + b + `]}`},
			[]string{"user: uno", "assistant: dos"}, 2, 0},
		{"injected context is a system message", []string{`{"id":"h","type":"user","content":"<hook_context>x</hook_context>"}`},
			[]string{"system: <hook_context>x</hook_context>"}, 1, 0},
		{"unknown operations and shapes are kept", []string{a, `{"$patch":{"id":"a"}}`, `{"foo":1}`, `[1,2]`},
			[]string{"user: uno"}, 3, 1},
		{"a line that is not JSON is reported, the rest is read", []string{a, `{"id":"b",`, c},
			[]string{"user: uno", "user: tres"}, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := geminiLogFile(t, tt.lines...)
			events, bad, path, _ := geminiRead(t, tr)
			types := geminiTypes(t, events)
			entries := len(events) - 1 - types["gemini.session"] - types["gemini.set"]
			if !reflect.DeepEqual(path, tt.path) || entries != tt.entries || len(bad) != tt.bad {
				t.Errorf("path %q, %d entries, bad %v\nwant %q, %d entries, %d bad\n%s",
					path, entries, bad, tt.path, tt.entries, tt.bad, bytes.Join(events, []byte("\n")))
			}
		})
	}
}

func TestGeminiProject(t *testing.T) {
	sum := sha256.Sum256([]byte("/home/u/hashed"))
	hash := hex.EncodeToString(sum[:])
	tests := []struct {
		name, dir, root, registry, hash, want string
	}{
		{"the .project_root file", "app", "/home/u/app\n", `{"projects":{"/elsewhere":"app"}}`, hash, "/home/u/app"},
		{"the registry's entry for the short id", "web-2", "", `{"projects":{"/home/u/web":"web","/srv/web":"web-2"}}`, "", "/srv/web"},
		{"the registered directory of the project hash", hash, "", `{"projects":{"/home/u/hashed":"hashed"}}`, hash, "/home/u/hashed"},
		{"unknown", "lost", "", `{"projects":{}}`, "ff", ""},
		{"no registry", "lost", "", "", "ff", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), ".gemini")
			proj := filepath.Join(home, "tmp", tt.dir)
			geminiWriteFile(t, filepath.Join(proj, "chats", "session-2026-01-05T08-00-abcdef12.jsonl"),
				`{"sessionId":"`+geminiTestID+`","projectHash":"`+tt.hash+`"}`+"\n")
			if tt.root != "" {
				geminiWriteFile(t, filepath.Join(proj, ".project_root"), tt.root)
			}
			if tt.registry != "" {
				geminiWriteFile(t, filepath.Join(home, "projects.json"), tt.registry)
			}
			tr := geminiListOK(t, home)[Key(Gemini, geminiTestID)]
			events, _ := read(t, tr, -1)
			if tr.Project != tt.want || !bytes.Equal(events[0], Header(Gemini, geminiTestID, 0, tt.want)) {
				t.Errorf("project %q, header %s; want %q", tr.Project, events[0], tt.want)
			}
		})
	}
}

func geminiWriteFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGeminiMigratedAndDuplicateSessions(t *testing.T) {
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "proj", "chats")
	legacy := `{"sessionId":"` + geminiTestID + `","projectHash":"00",` + geminiTestStart + `,"messages":[{"id":"a","type":"user","content":"viejo"}]}`
	log := `{"sessionId":"` + geminiTestID + `","projectHash":"00",` + geminiTestStart + "}\n" +
		`{"id":"a","type":"user","content":"viejo"}` + "\n" + `{"id":"b","type":"gemini","content":"nuevo"}` + "\n"
	geminiWriteFile(t, filepath.Join(chats, "session-2026-01-05T08-00-abcdef12.json"), legacy)
	geminiWriteFile(t, filepath.Join(chats, "session-2026-01-05T08-00-abcdef12.jsonl"), log)

	// Resuming the legacy file wrote the .jsonl: only the .jsonl is read.
	trs := geminiListOK(t, chats)
	tr, ok := trs[Key(Gemini, geminiTestID)]
	if len(trs) != 1 || !ok || !strings.HasSuffix(tr.Path, ".jsonl") {
		t.Fatalf("listed %v, want the .jsonl only", trs)
	}
	if _, _, path, _ := geminiRead(t, tr); !reflect.DeepEqual(path, []string{"user: viejo", "assistant: nuevo"}) {
		t.Errorf("path %q", path)
	}

	// Another file with the same session id is a problem, never a second
	// transcript of the same session.
	copyPath := filepath.Join(chats, "session-2026-01-06T09-00-abcdef12.jsonl")
	geminiWriteFile(t, copyPath, log)
	got, problems := Lookup(Gemini).List(context.Background(), chats, Env{})
	if len(got) != 1 || len(problems) != 1 || problems[0].Path != copyPath ||
		!strings.Contains(problems[0].Error(), "is also in "+tr.Path) {
		t.Errorf("listed %d, problems %v; want 1 and a problem naming %s", len(got), problems, copyPath)
	}
}

func TestGeminiProblems(t *testing.T) {
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "proj", "chats")
	noMeta := filepath.Join(chats, "session-2026-01-05T08-00-11111111.jsonl")
	notJSON := filepath.Join(chats, "session-2026-01-05T08-00-22222222.json")
	noID := filepath.Join(chats, "session-2026-01-05T08-00-33333333.json")
	good := filepath.Join(chats, "session-2026-01-05T08-00-abcdef12.jsonl")
	geminiWriteFile(t, noMeta, `{"id":"a","type":"user","content":"hola"}`+"\n")
	geminiWriteFile(t, notJSON, `{"sessionId": "x", "projectHash": `)
	geminiWriteFile(t, noID, `{"projectHash":"00","messages":[]}`)
	geminiWriteFile(t, good, `{"sessionId":"`+geminiTestID+`","projectHash":"00"}`+"\n"+`{"id":"a","type":"user","content":"hola"}`+"\n")
	trs, problems := Lookup(Gemini).List(context.Background(), chats, Env{})
	if len(trs) != 1 || trs[0].Path != good {
		t.Errorf("listed %v, want %s only", trs, good)
	}
	want := map[string]string{noMeta: "no metadata line", notJSON: "not a JSON ConversationRecord", noID: `no "sessionId"`}
	if len(problems) != len(want) {
		t.Errorf("problems %v, want one for each of %v", problems, want)
	}
	for _, p := range problems {
		if w, ok := want[p.Path]; !ok || !strings.Contains(p.Error(), w) || !strings.HasPrefix(p.Error(), p.Path+": ") {
			t.Errorf("problem %q, want %q", p.Error(), w)
		}
	}
	missing := filepath.Join(chats, "nope")
	if trs, problems := Lookup(Gemini).List(context.Background(), missing, Env{}); len(trs) != 0 || len(problems) != 1 || problems[0].Path != missing {
		t.Errorf("List(missing) = %v %v", trs, problems)
	}
}

func TestGeminiRoots(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "/home/ana/.gemini/tmp"},
		{map[string]string{"GEMINI_CLI_HOME": "/srv/gemini-home"}, "/srv/gemini-home/.gemini/tmp"},
	} {
		env := Env{Home: "/home/ana", Getenv: func(k string) string { return tt.env[k] }}
		if got := Lookup(Gemini).Roots(env); !reflect.DeepEqual(got, []string{tt.want}) {
			t.Errorf("Roots with %v = %v, want %s", tt.env, got, tt.want)
		}
	}
}

func TestGeminiClaims(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "ana", ".gemini")
	geminiWriteFile(t, filepath.Join(home, "tmp", "app", ".project_root"), "/home/ana/app")
	if err := os.MkdirAll(filepath.Join(home, "tmp", "app", "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	workspace := filepath.Join(dir, "src", "app", ".gemini")
	geminiWriteFile(t, filepath.Join(workspace, "settings.json"), `{"theme":"dark"}`)
	notes := filepath.Join(dir, "notes", "projects.json")
	geminiWriteFile(t, notes, `{"projects":{}}`)
	openclaw := filepath.Join(dir, ".openclaw")
	geminiWriteFile(t, filepath.Join(openclaw, "agents", "main", "sessions", "s1.jsonl"), `{"type":"session","id":"s1"}`+"\n")
	stray := filepath.Join(dir, "chats", "session-x.json")
	geminiWriteFile(t, stray, `{"hello":"world"}`)
	outside := filepath.Join(dir, "notes", "session-y.json")
	geminiWriteFile(t, outside, `{"sessionId":"y","projectHash":"00"}`)

	hashChats := filepath.Join(geminiFixture, "tmp", geminiHashDir, "chats")
	tests := map[string]bool{
		geminiFixture:                                          true,
		filepath.Join(geminiFixture, "tmp"):                    true,
		filepath.Join(geminiFixture, "tmp", "tienda"):          true,
		filepath.Join(geminiFixture, "tmp", "tienda", "chats"): true,
		filepath.Join(geminiFixture, "tmp/tienda/chats/session-2026-03-02T10-15-3f1c2a9b.json"): true,
		hashChats:                             true,
		filepath.Join(hashChats, geminiLogID): true,
		filepath.Join(hashChats, geminiLogID, geminiSubID+".jsonl"):         true,
		filepath.Join(hashChats, "session-2026-08-10T09-00-8d2e4f61.jsonl"): true,
		home:                              true, // no session yet
		filepath.Join(home, "tmp"):        true,
		filepath.Join(home, "tmp", "app"): true,
		filepath.Join(geminiFixture, "projects.json"): true, // it stands for its .gemini
		notes:     false,
		workspace: false, // a project's own .gemini settings
		openclaw:  false,
		filepath.Join(openclaw, "agents", "main", "sessions", "s1.jsonl"): false,
		stray:                         false,
		outside:                       false,
		filepath.Join(dir, "missing"): false,
	}
	// The other agents' fixtures are theirs.
	others, _ := filepath.Glob("testdata/*")
	for _, o := range others {
		if filepath.Base(o) != "gemini" {
			tests[o] = false
		}
	}
	for path, want := range tests {
		if got := Lookup(Gemini).Claims(path); got != want {
			t.Errorf("Claims(%s) = %v, want %v", path, got, want)
		}
	}
}

// BenchmarkGeminiRead reads a log of n exchanges (a user message, then a
// gemini message with a tool call written again when its result arrives),
// against reading the same lines without converting them: the ratio of the
// two stays flat as n grows when replaying the log is linear.
func BenchmarkGeminiRead(b *testing.B) {
	for _, n := range []int{500, 2000} {
		dir := filepath.Join(b.TempDir(), "chats")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		buf.WriteString(`{"sessionId":"` + geminiTestID + `","projectHash":"00"}` + "\n")
		for i := range n {
			id := strconv.Itoa(i)
			call := `"toolCalls":[{"id":"c` + id + `","name":"read_file","args":{"path":"f` + id + `.go"},"status":"executing"}]`
			buf.WriteString(`{"id":"u` + id + `","type":"user","content":"pregunta número ` + id + `"}` + "\n")
			buf.WriteString(`{"id":"g` + id + `","type":"gemini","content":"respuesta ` + id + `",` + call + `}` + "\n")
			buf.WriteString(`{"id":"g` + id + `","type":"gemini","content":"respuesta ` + id + `",` +
				strings.Replace(call, `"status":"executing"`, `"status":"success","result":"package main"`, 1) + `}` + "\n")
			buf.WriteString(`{"$set":{"lastUpdated":"2026-01-05T08:00:00.000Z"}}` + "\n")
		}
		path := filepath.Join(dir, "session-2026-01-05T08-00-abcdef12.jsonl")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		trs, _ := Lookup(Gemini).List(context.Background(), path, Env{})
		b.Run("lines/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				_ = Lines(context.Background(), path, -1, func(line []byte, _ int64, _ string, _ error) error {
					var rec map[string]json.RawMessage
					return json.Unmarshal(line, &rec)
				})
			}
		})
		b.Run("events/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				_ = trs[0].Read(context.Background(), -1, func(Event) error { return nil })
			}
		})
	}
}

// geminiReal is a ~/.gemini that Gemini CLI 0.61.0 wrote, driven by
// tests/agents (make test-agents) against a scripted model: a turn that
// reads a file, then a resume (gemini --resume latest) in the same minute
// or in a later one (agents/testdata/REAL.md).
func geminiReal(t *testing.T, name string) (dir, file string) {
	t.Helper()
	dir = filepath.Join("testdata", "gemini-cli-0.61.0", name)
	files, _ := filepath.Glob(filepath.Join(dir, "tmp", "proj", "chats", "session-*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("%s: no session file", dir)
	}
	return dir, files[0] // the first: the one turn 1 was written to
}

// TestGeminiRealResumes reads what Gemini CLI 0.61.0 wrote for a turn and
// a resume: one transcript (the file a resume in a later minute leaves
// behind is not read, and is no problem), each message once on the active
// path, turn 1 at the time it was said, each tool result once, and the
// events of the file as it was after turn 1 a prefix of those after the
// resume (AG7, AG12, AG13; docs/agents.md A8).
func TestGeminiRealResumes(t *testing.T) {
	want := []string{
		"user: alphaprompt มะละกอ 紫陽花 पुस्तकालय",
		"assistant: ",
		"toolResult: ledger quokkasecret ความลับ 秘密の鍵 गुप्त\n",
		"assistant: bravoanswer มังคุด 向日葵 बगीचा",
		"user: charlieprompt ลำไย 朝顔 पहाड़",
		"assistant: deltaanswer เงาะ 桜餅 नदी",
	}
	tests := []struct {
		name      string
		turn1Time string // when the user's first message was recorded
		turn1     int    // the lines Gemini CLI had written after turn 1
	}{
		{"same-minute", "2026-12-07T04:32:14.329Z", 11},
		{"later-minute", "2026-12-07T04:27:27.760Z", 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, file := geminiReal(t, tt.name)
			trs := geminiListOK(t, dir)
			if len(trs) != 1 {
				t.Fatalf("listed %d transcripts, want 1", len(trs))
			}
			var tr Transcript
			for _, tr = range trs {
			}
			if tr.Path != file {
				t.Errorf("reads %s, want %s", tr.Path, file)
			}
			events, bad, path, searchable := geminiRead(t, tr)
			if len(bad) != 0 {
				t.Errorf("bad records: %v", bad)
			}
			if len(path) == 0 || !strings.HasPrefix(path[0], "system: <session_context>") || searchable[0] {
				t.Fatalf("the path starts with %.60q, want the injected context, not searchable", path)
			}
			if !reflect.DeepEqual(path[1:], want) {
				t.Errorf("active path\n%q\nwant\n%q", path[1:], want)
			}
			said := geminiSearchable(events)
			for _, word := range []string{"alphaprompt", "bravoanswer", "charlieprompt", "deltaanswer"} {
				n := 0
				for _, text := range said {
					n += strings.Count(text, word)
				}
				if n != 1 {
					t.Errorf("%s is in %d searchable texts among all events, want 1", word, n)
				}
			}
			results := 0
			for _, ev := range events {
				if e, text, _ := transcript.Read(ev); e.Role == "toolResult" && strings.Contains(text, "quokkasecret") {
					results++
				}
				if e, text, _ := transcript.Read(ev); e.Role == "user" && strings.Contains(text, "alphaprompt") {
					if got := isoTime(e.Timestamp); got != tt.turn1Time {
						t.Errorf("turn 1 is at %s, want %s, when it was said", got, tt.turn1Time)
					}
				}
			}
			if results != 1 {
				t.Errorf("the tool result is %d events, want 1", results)
			}

			// The file as it was after turn 1 gives a prefix of these events.
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			early := filepath.Join(t.TempDir(), ".gemini", "tmp", "proj", "chats", filepath.Base(file))
			geminiWriteFile(t, filepath.Join(filepath.Dir(filepath.Dir(early)), ".project_root"), tr.Project)
			geminiWriteFile(t, early, strings.Join(lines[:tt.turn1], ""))
			before := geminiListOK(t, early)
			first, _ := read(t, before[tr.Session.Key], -1)
			if len(first) < 5 || len(first) >= len(events) || !reflect.DeepEqual(events[:len(first)], first) {
				t.Errorf("the %d events after turn 1 are not the first of the %d after the resume", len(first), len(events))
			}
		})
	}
}
