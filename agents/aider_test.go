package agents

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// aiderReal is a chat history aider wrote in its own repository
// (agents/testdata/REAL.md): its first 2705 lines, which hold text from
// before the first run header and ten runs, four of them with a
// conversation.
const aiderReal = "testdata/aider/" + aiderHistoryName

func aiderListT(t *testing.T, path string) []Transcript {
	t.Helper()
	trs, problems := aiderList(context.Background(), path, Env{})
	if len(problems) > 0 {
		t.Fatalf("%s: %v", path, problems)
	}
	return trs
}

// searchableTexts returns the text search finds in the events, one entry
// per searchable message on the active path.
func searchableTexts(t *testing.T, events [][]byte) []string {
	path, searchable := activePath(t, events)
	var out []string
	for _, p := range onPathSearchable(path, searchable) {
		_, text, _ := strings.Cut(p, ": ")
		out = append(out, text)
	}
	return out
}

// docs/agents/aider.md AA2-AA5 on the real file: each run with a
// conversation is one session keyed by its start and the file, in the
// directory of the file; what the user typed and the model answered is
// found once; aider's own output, multi-line or not, and the text before
// the first run are not.
func TestAiderRealHistory(t *testing.T) {
	trs := aiderListT(t, filepath.Dir(aiderReal))
	abs, _ := filepath.Abs(aiderReal)
	var keys []string
	for _, tr := range trs {
		keys = append(keys, tr.Session.Key)
		if tr.Project != filepath.Dir(abs) {
			t.Errorf("%s: project %q, want %q", tr.Session.Key, tr.Project, filepath.Dir(abs))
		}
	}
	digest := strings.TrimPrefix(trs[0].Unit, "20240805T193332-")
	want := []string{"20240805T193332", "20240805T203959", "20240805T204033", "20240806T084710"}
	if len(keys) != len(want) {
		t.Fatalf("sessions %v, want the 4 runs with a conversation %v", keys, want)
	}
	for i, w := range want {
		if keys[i] != "agent:aider:"+w+"-"+digest {
			t.Errorf("session %d: %s, want agent:aider:%s-%s", i, keys[i], w, digest)
		}
	}
	start, _ := time.ParseInLocation("2006-01-02 15:04:05", "2024-08-05 19:33:32", time.Local)
	if trs[0].Session.CreatedAt != start.UnixMilli() {
		t.Errorf("created %d, want the run header's local time %d", trs[0].Session.CreatedAt, start.UnixMilli())
	}

	var all []string
	counts := map[string]int{}
	for _, tr := range trs {
		events, bad := read(t, tr, -1)
		if len(bad) > 0 {
			t.Errorf("%s: bad records %v", tr.Session.Key, bad)
		}
		if !bytes.Contains(events[0], []byte(`"agent":"aider"`)) {
			t.Errorf("%s: header %s", tr.Session.Key, events[0])
		}
		texts := searchableTexts(t, events)
		for _, s := range texts {
			counts[s]++
		}
		all = append(all, texts...)
	}
	if got := strings.Join(searchableTexts(t, readAll(t, trs[0])), "|"); !strings.HasPrefix(got,
		"Use the Spinner instead of the inlined custom spinner|Certainly! I'll modify the `run_install` function") ||
		!strings.HasSuffix(got, "|/diff|/ex") {
		t.Errorf("first session's messages: %.300q", got)
	}
	if len(all) != 38 {
		t.Errorf("%d searchable messages, want 38 (user inputs and answers)", len(all))
	}
	for s, n := range counts {
		if n > 1 && !strings.HasPrefix(s, "/") && s != "hi" {
			t.Errorf("%q is searchable %d times", s, n)
		}
	}
	joined := strings.Join(all, "\n")
	for _, notFound := range []string{
		"Fix any errors below",          // before the first run
		"Tokens: 5,244 sent",            // aider's output
		"aider/args_formatter.py",       // the repo map, a multi-line output
		"test session starts",           // /test's output
		"Repo-map: using 1024 tokens",   // the banner
		"rootdir: /Users/gauthier",      // a later line of a multi-line output
		"You can use /undo to revert",   // a run's last outputs
		"collected 7 items",             // pytest's output after a line of spaces
		"# aider chat started at 2024-", // the headers
	} {
		if strings.Contains(joined, notFound) {
			t.Errorf("%q is searchable", notFound)
		}
	}
	for _, found := range []string{"don't use `IgnorantTemporaryDirectory` use GitTemporaryDirectory",
		"It seems like you want to change the greeting to be more casual."} {
		if !strings.Contains(joined, found) {
			t.Errorf("%q is not searchable", found)
		}
	}
	// The outputs are kept, as events of their own.
	events := readAll(t, trs[3])
	kept := 0
	for _, e := range events {
		if bytes.HasPrefix(e, []byte(`{"type":"aider.output"`)) {
			kept++
		}
	}
	if kept < 50 || !bytes.Contains(bytes.Join(events, nil), []byte("test session starts")) {
		t.Errorf("%d aider.output events; the outputs are not kept", kept)
	}
}

func readAll(t *testing.T, tr Transcript) [][]byte {
	t.Helper()
	events, _ := read(t, tr, -1)
	return events
}

// docs/agents/aider.md AA5: the reasoning aider writes at the head of an
// answer, between its thinking-content tags (as aider 0.86 does), is kept
// as thinking and not searchable; lint requests aider writes as the
// user's are not the user's words.
func TestAiderThinkingAndInjected(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, aiderHistoryName)
	const tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
	data := "\n# aider chat started at 2026-04-25 21:44:09\n\n" +
		"> /home/ana/.local/bin/aider --message สวัสดี\n\nสร้างไฟล์ --model x  \n> Aider v0.86.2 \xff  \n\n" +
		"#### สร้างไฟล์ hello.txt  \n####   \n#### 次の行に done と書いて  \n\n" +
		"<" + tag + ">\n\n\n*   Goal: ज़ेफ़िर\n\n</" + tag + ">\n\nhello.txt\n```\nhello\n```\ndone\n\n" +
		"> Tokens: 788 sent, 225 received.  \n> Applied edit to hello.txt  \n\n" +
		"#### # Fix any errors below, if possible.  \n####   \n#### hello.txt:1:1: E999  \n\n" +
		"<think>\nनिर्णय अधूरा\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	trs := aiderListT(t, path)
	if len(trs) != 1 {
		t.Fatalf("%d sessions, want 1", len(trs))
	}
	events := readAll(t, trs[0])
	path2, searchable := activePath(t, events)
	want := []string{
		"user: สร้างไฟล์ hello.txt\n\n次の行に done と書いて",
		"assistant: hello.txt\n```\nhello\n```\ndone",
		"system: # Fix any errors below, if possible.\n\nhello.txt:1:1: E999",
		"assistant: ",
	}
	wantSearchable := []bool{true, true, false, false}
	if strings.Join(path2, "|") != strings.Join(want, "|") {
		t.Fatalf("path %q, want %q", path2, want)
	}
	for i := range want {
		if searchable[i] != wantSearchable[i] {
			t.Errorf("%q: searchable %v, want %v", path2[i], searchable[i], wantSearchable[i])
		}
	}
	all := string(bytes.Join(events, nil))
	for _, kept := range []string{`"thinking":"*   Goal: ज़ेफ़िर"`, `"thinking":"निर्णय अधूरा"`, `"data":"/home/ana/.local/bin/aider --message สวัสดี\n\nสร้างไฟล์ --model x"`} {
		if !strings.Contains(all, kept) {
			t.Errorf("%s is not kept in %s", kept, all)
		}
	}
}

// docs/agents/aider.md AA6, AA7: reading twice gives the same events; the
// file cut after any complete line gives, for each of its runs, a prefix
// of the events the whole file gives, or a last event that a later line
// completes; a run's Gen changes only when its bytes do; a file that is not
// a chat history is reported, and a run cut short is read as far as it goes.
func TestAiderAppendsExtendTheEvents(t *testing.T) {
	whole, err := os.ReadFile(aiderReal)
	if err != nil {
		t.Fatal(err)
	}
	full := aiderListT(t, aiderReal)
	fullEvents := map[string][][]byte{}
	for _, tr := range full {
		a, b := readAll(t, tr), readAll(t, tr)
		if !bytes.Equal(bytes.Join(a, []byte("\n")), bytes.Join(b, []byte("\n"))) {
			t.Fatalf("%s: two reads differ", tr.Session.Key)
		}
		fullEvents[tr.Unit] = a
	}
	dir := t.TempDir()
	path := filepath.Join(dir, aiderHistoryName)
	lines := strings.SplitAfter(string(whole), "\n")
	cuts := 0
	for n := 95; n < len(lines); n += 37 {
		cuts++
		if err := os.WriteFile(path, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tr := range aiderListT(t, path) {
			unit := strings.Split(tr.Unit, "-")[0]
			var want [][]byte
			for u, ev := range fullEvents {
				if strings.HasPrefix(u, unit+"-") {
					want = ev
				}
			}
			got := readAll(t, tr)
			if len(got) > len(want) {
				t.Fatalf("cut at line %d: %s has %d events, the whole file %d", n, unit, len(got), len(want))
			}
			for i := range got {
				if i == len(got)-1 && !bytes.Equal(got[i], want[i]) {
					break // the last block may go on in the lines cut off
				}
				if i > 0 && !bytes.Equal(got[i], want[i]) {
					t.Fatalf("cut at line %d: %s event %d\n%s\nwant\n%s", n, unit, i, got[i], want[i])
				}
			}
		}
	}
	if cuts < 50 {
		t.Fatalf("only %d cuts", cuts)
	}

	// Gen: appending to the last run changes its Gen only.
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	before := aiderListT(t, path)
	if err := os.WriteFile(path, append(append([]byte{}, whole...), "\n#### one more  \n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	after := aiderListT(t, path)
	for i := range before {
		if changed := before[i].Gen != after[i].Gen; changed != (i == len(before)-1) {
			t.Errorf("%s: Gen %s then %s", before[i].Unit, before[i].Gen, after[i].Gen)
		}
	}

	// Not a chat history: a problem, no session.
	if err := os.WriteFile(path, []byte("\x00\x01garbage\n{\"type\":\"user\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trs, problems := aiderList(context.Background(), path, Env{})
	if len(trs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "not an aider chat history") {
		t.Errorf("garbage: %d sessions, problems %v", len(trs), problems)
	}
	// An empty file, or none: nothing, and no problem.
	for _, p := range []string{filepath.Join(dir, "none", aiderHistoryName), filepath.Join(t.TempDir(), aiderHistoryName)} {
		if strings.Contains(p, "none") == false {
			os.WriteFile(p, nil, 0o644)
		}
		if trs, problems := aiderList(context.Background(), p, Env{}); len(trs)+len(problems) != 0 {
			t.Errorf("%s: %d sessions, problems %v", p, len(trs), problems)
		}
	}
}

// docs/agents/aider.md AA1.
func TestAiderClaimsAndRoots(t *testing.T) {
	dir := t.TempDir()
	if aiderClaims(dir) {
		t.Errorf("%s without a history is claimed", dir)
	}
	os.WriteFile(filepath.Join(dir, aiderHistoryName), []byte("\n# aider chat started at 2024-08-05 19:33:02\n"), 0o644)
	other := filepath.Join(dir, "chat.md") // a --chat-history-file of its own
	os.WriteFile(other, []byte("\n# aider chat started at 2024-08-05 19:33:02\n"), 0o644)
	for path, want := range map[string]bool{
		dir:                                  true,
		filepath.Join(dir, aiderHistoryName): true,
		"/nowhere/" + aiderHistoryName:       true,
		filepath.Join(dir, ".aider.input.history"): false,
		"/home/ana/notes.md":                       false,
		other:                                      true,
	} {
		if got := aiderClaims(path); got != want {
			t.Errorf("aiderClaims(%s) = %v, want %v", path, got, want)
		}
	}
	env := func(v string) Env {
		return Env{Home: "/home/ana", Getenv: func(k string) string {
			if k == "AIDER_CHAT_HISTORY_FILE" {
				return v
			}
			return ""
		}}
	}
	if r := aiderRoots(env("")); len(r) != 0 {
		t.Errorf("roots %v, want none: aider keeps its history in each repository", r)
	}
	if r := aiderRoots(env("/home/ana/.aider.history.md")); len(r) != 1 || r[0] != "/home/ana/.aider.history.md" {
		t.Errorf("roots %v", r)
	}
	if r := aiderRoots(env("relative.md")); len(r) != 0 {
		t.Errorf("roots %v: a relative file is relative to each repository", r)
	}
}
