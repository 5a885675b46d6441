package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// binary is bin/sessionsearch of this tree, built once by TestMain: the
// harness imports with it as `make bench-quality` does.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quality-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sessionsearch")
	build := exec.Command("go", "build", "-C", repoRoot, "-tags", "sqlite_fts5", "-o", binary, "./cmd/sessionsearch")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building sessionsearch:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestContentWords(t *testing.T) {
	for _, c := range []struct {
		question string
		want     []string
	}{
		{"What is Caroline's identity?", []string{"caroline", "identity"}},
		{"When did Melanie paint a sunrise?", []string{"melanie", "paint", "sunrise"}},
		{"What did Tim do in 2022, and why did Tim do it?", []string{"tim", "2022"}},
		{"Would Melanie go to an LGBTQ+ event?", []string{"would", "melanie", "lgbtq", "event"}},
		{"What did she do with him?", nil},
		{"Où est allé Jean-Pierre ?", []string{"est", "allé", "jean", "pierre"}},
	} {
		if got := ContentWords(c.question); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ContentWords(%q) = %q, want %q", c.question, got, c.want)
		}
	}
}

// A question whose evidence is D1:3 and D2:5, answered in three ways the
// numbers can be checked by hand.
func TestScoreAnswer(t *testing.T) {
	q := Question{Conversation: "26", Category: 1, Evidence: []TurnID{{1, 3}, {2, 5}}}
	turn := func(s, n int) TurnRef { return TurnRef{"26", TurnID{s, n}} }
	sess := func(n int) SessionRef { return SessionRef{"26", n} }
	for _, c := range []struct {
		name string
		r    Ranked
		want Score
	}{
		{
			name: "second message, evidence session second",
			r: Ranked{
				Turns:    []TurnRef{turn(3, 1), turn(1, 3), turn(1, 4), turn(4, 2), turn(4, 3), turn(2, 5), turn(2, 5)},
				Sessions: []SessionRef{sess(3), sess(1), sess(4), sess(2)},
				Bytes:    900,
			},
			want: Score{Recall5: 0.5, Recall10: 1, Session5: true, First: 2, Bytes: 900},
		},
		{
			name: "first message, in another conversation's session first",
			r: Ranked{
				Turns:    []TurnRef{turn(2, 5), {"30", TurnID{1, 3}}},
				Sessions: []SessionRef{{"30", 2}, sess(2)},
				Bytes:    400,
			},
			want: Score{Hit1: true, Recall5: 0.5, Recall10: 0.5, Session5: true, First: 1, Bytes: 400},
		},
		{
			name: "the evidence session, sixth",
			r: Ranked{
				Sessions: []SessionRef{sess(3), sess(4), sess(5), sess(6), sess(7), sess(1)},
				Bytes:    100,
			},
			want: Score{Bytes: 100},
		},
		{
			name: "an evidence session first, no message",
			r:    Ranked{Sessions: []SessionRef{sess(1)}},
			want: Score{Session1: true, Session5: true},
		},
		{name: "nothing", want: Score{Empty: true}},
	} {
		if got := ScoreAnswer(q, c.r); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	got := Summarize([]Score{
		{Hit1: true, Recall5: 1, Recall10: 1, Session1: true, Session5: true, First: 1, Bytes: 300},
		{Recall5: 0.5, Recall10: 1, Session5: true, First: 4, Bytes: 100},
		{Empty: true, Bytes: 50},
		{Recall5: 0, Recall10: 0.5, Bytes: 1000},
	})
	want := Summary{N: 4, Hit1: 25, Recall5: 37.5, Recall10: 62.5, Session1: 25, Session5: 50, Empty: 25, MeanBytes: 362.5, MedianBytes: 300}
	if got != want {
		t.Errorf("Summarize = %+v, want %+v", got, want)
	}
	if got := Summarize(nil); got != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v", got)
	}
}

// The flat answer of docs/search.md Q13 and an answer grouped by session
// read the same.
func TestReadSearchAnswer(t *testing.T) {
	flat := `{"results":[
		{"sessionKey":"agent:claude-code:s2","messageId":"m5","role":"user","timestamp":1,"snippet":"…","score":3.5},
		{"sessionKey":"agent:claude-code:s1","messageId":"m1","role":"assistant","timestamp":2,"snippet":"…","score":2},
		{"sessionKey":"agent:claude-code:s2","messageId":"m7","role":"user","timestamp":3,"snippet":"…","score":1}],
		"indexing":false,"truncated":false}`
	grouped := `{"sessions":[
		{"hits":[{"messageId":"m5","snippet":"…"},{"messageId":"m7"}],"sessionKey":"agent:claude-code:s2","score":9},
		{"sessionKey":"agent:claude-code:s1","hits":[{"messageId":"m1"}]}],"truncated":false}`
	wantMessages := []Returned{{"agent:claude-code:s2", "m5"}, {"agent:claude-code:s1", "m1"}, {"agent:claude-code:s2", "m7"}}
	wantGrouped := []Returned{wantMessages[0], wantMessages[2], wantMessages[1]}
	wantSessions := []string{"agent:claude-code:s2", "agent:claude-code:s1"}
	for _, c := range []struct {
		name, js string
		want     []Returned
	}{{"flat", flat, wantMessages}, {"grouped", grouped, wantGrouped}} {
		a, err := ReadSearchAnswer([]byte(c.js))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(a.Messages, c.want) || !reflect.DeepEqual(a.Sessions, wantSessions) || a.Bytes != len(c.js) {
			t.Errorf("%s: got %+v", c.name, a)
		}
	}
	for _, bad := range []string{`{"results":[`, `{} {}`, ``} {
		if _, err := ReadSearchAnswer([]byte(bad)); err == nil {
			t.Errorf("ReadSearchAnswer(%q): no error", bad)
		}
	}
}

// testConversation is a conversation in LoCoMo's format: two sessions,
// and questions whose evidence strings have the quirks of the real data.
const testConversation = `{
 "speaker_a": "Ana", "speaker_b": "Ben",
 "session_1_date_time": "1:56 pm on 8 May, 2023",
 "session_1": [
  {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopt greyhound rescues; this one is called Pixel."},
  {"speaker": "Ben", "dia_id": "D1:2", "text": "Congratulations! How is Pixel settling in?"},
  {"speaker": "Ana", "dia_id": "D1:3", "text": "She sleeps all day on the sofa."}],
 "session_2_date_time": "10:04 am on 2 June, 2023",
 "session_2": [
  {"speaker": "Ben", "dia_id": "D2:1", "text": "I finally finished the marathon in Lisbon."},
  {"speaker": "Ana", "dia_id": "D2:2", "text": "Amazing, what was your time?", "img_url": ["x"], "blip_caption": "a photo"}],
 "session_3_date_time": "", "session_3": [],
 "events_session_1": [], "session_1_summary": "Ana adopted a dog.",
 "qa": [
  {"question": "What greyhound is called Pixel?", "answer": "a rescue", "evidence": ["D1:1"], "category": 4},
  {"question": "Where did Ben ride the zeppelin?", "evidence": ["D2:01; D1:9"], "category": 5, "adversarial_answer": "Paris"},
  {"question": "Which quasar did the nebula orbit?", "evidence": ["D1:3 D1:1", "D"], "category": 1},
  {"question": "Is Ana a runner?", "evidence": [], "category": 3}]
}`

// testZip writes a LoCoMo zip holding the conversation files named.
func testZip(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create("data/multimodal_dialog/locomo10_v2/"); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		w, err := zw.Create("data/multimodal_dialog/locomo10_v2/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "locomo10.zip")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadLoCoMo(t *testing.T) {
	convs, err := ReadLoCoMo(testZip(t, map[string]string{"77.json": testConversation}))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("%d conversations", len(convs))
	}
	c := convs[0]
	if c.ID != "77" || c.SpeakerA != "Ana" || c.SpeakerB != "Ben" || len(c.Sessions) != 2 {
		t.Fatalf("conversation %s %s/%s with %d sessions", c.ID, c.SpeakerA, c.SpeakerB, len(c.Sessions))
	}
	if s := c.Sessions[1]; s.N != 2 || !s.Start.Equal(time.Date(2023, 6, 2, 10, 4, 0, 0, time.UTC)) || len(s.Turns) != 2 ||
		s.Turns[1] != (Turn{TurnID{2, 2}, "Ana", "Amazing, what was your time?"}) {
		t.Errorf("session 2: %+v", s)
	}
	// Asked at the last turn of the last session: 10:04 and a minute.
	asked := time.Date(2023, 6, 2, 10, 5, 0, 0, time.UTC)
	want := []Question{
		{"77", 0, "What greyhound is called Pixel?", 4, []TurnID{{1, 1}}, asked},
		{"77", 1, "Where did Ben ride the zeppelin?", 5, []TurnID{{2, 1}}, asked},
		{"77", 2, "Which quasar did the nebula orbit?", 1, []TurnID{{1, 3}, {1, 1}}, asked},
	}
	if got := Evaluable(convs); !reflect.DeepEqual(got, want) {
		t.Errorf("Evaluable = %+v\nwant %+v", got, want)
	}
	for _, bad := range []struct{ body, message string }{
		{strings.Replace(testConversation, "1:56 pm on 8 May, 2023", "8 May 2023", 1), "session_1_date_time"},
		{strings.Replace(testConversation, `"speaker": "Ben", "dia_id": "D1:2"`, `"speaker": "Cy", "dia_id": "D1:2"`, 1), `speaker "Cy"`},
		{strings.Replace(testConversation, `"dia_id": "D1:3"`, `"dia_id": "D2:3"`, 1), `dia_id "D2:3"`},
		{strings.Replace(testConversation, `"category": 3`, `"category": 6`, 1), "category 6"},
	} {
		_, err := ReadLoCoMo(testZip(t, map[string]string{"77.json": bad.body}))
		if err == nil || !strings.Contains(err.Error(), bad.message) || !strings.Contains(err.Error(), "77.json") {
			t.Errorf("want an error naming 77.json and %q, got %v", bad.message, err)
		}
	}
	if _, err := ReadLoCoMo(testZip(t, nil)); err == nil || !strings.Contains(err.Error(), "no conversation") {
		t.Errorf("an empty zip: %v", err)
	}
}

// The written sessions, imported by the real `sessionsearch import` and
// read back through sessions_history, are the conversation's turns: the
// speakers' roles, the texts, the ids the corpus maps and the dates.
func TestWrittenSessionsReadBack(t *testing.T) {
	ctx := context.Background()
	convs, err := ReadLoCoMo(testZip(t, map[string]string{"77.json": testConversation}))
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := WriteClaudeCode(filepath.Join(t.TempDir(), "home"), convs)
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "s.db")
	if err := ImportSessionsearch(ctx, binary, dbPath, corpus); err != nil {
		t.Fatal(err)
	}
	db, err := driver.OpenReadOnly(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(corpus.Sessions) != 2 {
		t.Fatalf("%d sessions written", len(corpus.Sessions))
	}
	for id, ref := range corpus.Sessions {
		h, err := db.History(ctx, sessionKeyPrefix+id, driver.HistoryOptions{Options: driver.Options{Caller: sessionKeyPrefix + id}})
		if err != nil {
			t.Fatal(err)
		}
		s := convs[0].Sessions[ref.Session-1]
		if len(h.Messages) != len(s.Turns) {
			t.Fatalf("session %d: %d messages read back, %d turns", ref.Session, len(h.Messages), len(s.Turns))
		}
		for i, m := range h.Messages {
			turn := s.Turns[i]
			role := map[string]string{"Ana": "user", "Ben": "assistant"}[turn.Speaker]
			at := s.Start.Add(time.Duration(i) * time.Minute).UnixMilli()
			if corpus.Messages[m.ID] != (TurnRef{"77", turn.ID}) || m.Role != role || m.Text != turn.Text || m.Timestamp != at {
				t.Errorf("session %d message %d: %+v, want %s %s %q at %d", ref.Session, i, m, turn.ID, role, turn.Text, at)
			}
		}
	}
}

// The whole run on a conversation small enough to know its answers, as
// any engine that finds a message holding every word of a query first
// must: the content words of the first question are all in its evidence
// turn (and one of them in another turn), those of the other two are
// nowhere. The question form's figures are the engine's to change.
func TestRun(t *testing.T) {
	zipPath := testZip(t, map[string]string{"77.json": testConversation})
	jsonOut := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-locomo", zipPath, "-sessionsearch", binary, "-json", jsonOut,
		"-variants", `{"plain":{},"ten":{"limit":10}}`}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var res Results
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Questions != 3 || res.Sessions != 2 || len(res.Rows) != 4 || len(res.PerQuestion) != 12 {
		t.Fatalf("%d questions, %d sessions, %d rows, %d records", res.Questions, res.Sessions, len(res.Rows), len(res.PerQuestion))
	}
	content := res.Rows[1]
	if content.System != "sessionsearch plain" || content.Form != FormContent {
		t.Fatalf("row 1 is %s, %s", content.System, content.Form)
	}
	want := Summary{N: 3, Hit1: 100.0 / 3, Recall5: 100.0 / 3, Recall10: 100.0 / 3, Session1: 100.0 / 3, Session5: 100.0 / 3, Empty: 200.0 / 3}
	got := content.All
	got.MeanBytes, got.MedianBytes = 0, 0
	if fmt.Sprintf("%+.3v", got) != fmt.Sprintf("%+.3v", want) {
		t.Errorf("content words: %+v, want %+v", got, want)
	}
	if s := content.ByCategory["single-hop"]; s.N != 1 || s.Hit1 != 100 {
		t.Errorf("single-hop: %+v", s)
	}
	for _, line := range []string{
		"LoCoMo: 3 questions with evidence over 2 sessions, 25 results per query.",
		"| sessionsearch plain | content words | 33.3 | 33.3 | 33.3 | 33.3 | 33.3 | 66.7% |",
		"| sessionsearch ten | question | 4 single-hop | 1 |",
	} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("the table has no line with %q:\n%s", line, stdout.String())
		}
	}
	err = run(context.Background(), []string{"-locomo", zipPath, "-sessionsearch", binary, "-json", jsonOut, "-variants", `{"bad":{"colour":"red"}}`}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `unknown option "colour"`) || !strings.Contains(err.Error(), "sessionsearch bad") {
		t.Errorf("an unknown option: %v", err)
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-locomo", "data/l.zip", "-deja", "/opt/deja", "-variants", `{"a":{"limit":5},"b":{}}`}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.locomo != filepath.Join(repoRoot, "data/l.zip") || c.deja != "/opt/deja" || c.agentsview != "" || len(c.variants) != 2 || c.variants[0].Name != "a" {
		t.Errorf("config %+v", c)
	}
	for _, bad := range [][]string{{"-variants", `[]`}, {"extra"}, {"-variants", `{"a":1}`}} {
		if _, err := parseFlags(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
	if vs, _ := benchenv.ParseVariants(""); len(vs) != 1 || vs[0].Name != "default" {
		t.Errorf("no variants: %+v", vs)
	}
}
