package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// history is what sessions_history gives for a session: all of it (limit
// 1000, texts cut to one character).
type history struct {
	ids   []string // oldest first
	roles map[string]int
}

func readHistory(t *testing.T, db *driver.DB, key string) history {
	t.Helper()
	h, err := db.History(t.Context(), key, driver.HistoryOptions{Options: operatorOptions(), Limit: 1000, MaxChars: 1, MaxBytes: 4 << 20})
	if err != nil {
		t.Fatalf("history of %s: %v", key, err)
	}
	if h.HasMore || h.SessionKey != key {
		t.Fatalf("history of %s: hasMore %v, key %q", key, h.HasMore, h.SessionKey)
	}
	out := history{roles: map[string]int{}}
	for _, m := range h.Messages {
		out.ids = append(out.ids, m.ID)
		out.roles[m.Role]++
	}
	return out
}

// checkHistory compares a session's history, the messages the store
// indexed, with the fixture's model.
func checkHistory(t *testing.T, db *driver.DB, key string, f fixture) history {
	t.Helper()
	h := readHistory(t, db, key)
	if want := f.searchable(); !reflect.DeepEqual(h.ids, want) {
		t.Errorf("%s: history has %d messages, the file's active path %d with text\n got %v\nwant %v", f.name, len(h.ids), len(want), h.ids, want)
	}
	if want := f.roleCounts(); !reflect.DeepEqual(h.roles, want) {
		t.Errorf("%s: indexed messages by role %v, want %v", f.name, h.roles, want)
	}
	return h
}

// searchJSON runs the binary's search --json and decodes the answer.
func searchJSON(t *testing.T, dbFile string, args ...string) driver.SearchResult {
	t.Helper()
	r := mustRun(t, append([]string{"search", "--db", dbFile, "--json", "--limit", "25"}, args...)...)
	var res driver.SearchResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("search %v: %v\n%s", args, err, r.stdout)
	}
	return res
}

// Importing every fixture transcript: each becomes a session whose
// searchable messages, by id and role, are the ones docs/store.md S3-S6
// give for the file (as SOURCES.md describes its branches), and whose text
// is found, while thinking, tool results and abandoned branches are not.
func TestImportFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	dbFile := filepath.Join(t.TempDir(), "s.db")
	r := mustRun(t, "import", "--db", dbFile, fixtureDir)
	if !strings.Contains(r.stdout, "imported 6 transcripts from 6 files") {
		t.Fatalf("import said %q", r.stdout)
	}
	db := openDB(t, dbFile)

	// SOURCES.md's branch points, checked against the model of the path.
	branches := map[string]struct{ abandoned, active string }{
		"en-telegram-rewind-fad751fa.jsonl":          {"84d25333", "84400643"},
		"zh-en-heartbeat-compactions-8d0416c9.jsonl": {"71dae493", "d55aa47a"},
		"zh-feishu-images-d23482cc.jsonl":            {"97feba7a", "0f929b68"},
	}
	for _, f := range fixtures {
		if b, ok := branches[f.name]; ok {
			if _, on := f.entry(b.abandoned); on {
				t.Errorf("%s: %s is on the modelled path, SOURCES.md says abandoned", f.name, b.abandoned)
			}
			if _, on := f.entry(b.active); !on {
				t.Errorf("%s: %s is off the modelled path, SOURCES.md says active", f.name, b.active)
			}
		}
		h := checkHistory(t, db, f.key, f)
		t.Logf("%s: indexed %d user, %d assistant messages", f.name, h.roles["user"], h.roles["assistant"])
	}

	// Text from each file is found in that file's session; every hit is an
	// indexed message of its file that has the text.
	byKey := map[string]fixture{}
	for _, f := range fixtures {
		byKey[f.key] = f
	}
	found := map[string]string{
		"en-telegram-rewind-fad751fa.jsonl":           "tailscale",
		"ja-desktop-tui-8555a0a4.jsonl":               "はくあ",
		"pt-ollama-errors-compactions-052a5793.jsonl": "hecario",
		"uk-telegram-cb02dfb1.jsonl":                  "репозиторій",
		"zh-en-heartbeat-compactions-8d0416c9.jsonl":  "通义千问",
		"zh-feishu-images-d23482cc.jsonl":             "授权码",
	}
	for _, f := range fixtures {
		q := found[f.name]
		res := searchJSON(t, dbFile, q)
		if res.Indexing || !slices.ContainsFunc(res.Results, func(r driver.SearchHit) bool { return r.SessionKey == f.key }) {
			t.Fatalf("%s: %q not found in %s (indexing %v): %+v", f.name, q, f.key, res.Indexing, res.Results)
		}
		for _, hit := range res.Results {
			e, on := byKey[hit.SessionKey].entry(hit.MessageID)
			if !on || !e.isSearchable() || !strings.Contains(strings.ToLower(e.text()), strings.ToLower(q)) {
				t.Errorf("%s: %q found %s %s, not an indexed message containing it", f.name, q, hit.SessionKey, hit.MessageID)
			}
		}
	}

	// Words only in thinking blocks or tool results: present in the files,
	// absent from every user and assistant text, and not found.
	all := allMessageText(fixtures)
	for _, w := range []struct{ file, word, where string }{
		{"en-telegram-rewind-fad751fa.jsonl", "allowlists", `"type":"thinking"`},
		{"zh-en-heartbeat-compactions-8d0416c9.jsonl", "searching", `"type":"thinking"`},
		{"en-telegram-rewind-fad751fa.jsonl", "githubcli", `"role":"toolResult"`},
		{"ja-desktop-tui-8555a0a4.jsonl", "Manifestation", `"role":"toolResult"`},
		{"uk-telegram-cb02dfb1.jsonl", "embeddings", `"role":"toolResult"`},
		{"zh-feishu-images-d23482cc.jsonl", "soupsieve", `"role":"toolResult"`},
	} {
		f := loadFixture(t, w.file)
		if !linesContainBoth(f.raw, w.word, w.where) || strings.Contains(all, strings.ToLower(w.word)) {
			t.Fatalf("%s: %q is not a word of %s only", w.file, w.word, w.where)
		}
		if res := searchJSON(t, dbFile, "--match", "all", w.word); len(res.Results) != 0 {
			t.Errorf("%q (%s) found: %+v", w.word, w.where, res.Results)
		}
	}

	// Abandoned branches: their messages are never a hit and not in the
	// history, although their text has the query.
	for _, a := range []struct{ file, id, query string }{
		{"en-telegram-rewind-fad751fa.jsonl", "84d25333", "configured persona"},
		{"zh-en-heartbeat-compactions-8d0416c9.jsonl", "71dae493", "kimi-k2.5"},
		{"zh-feishu-images-d23482cc.jsonl", "97feba7a", "原型图"},
	} {
		f := loadFixture(t, a.file)
		e, on := f.entry(a.id)
		if on || !e.isSearchable() || !strings.Contains(e.text(), a.query) {
			t.Fatalf("%s: %s is not an abandoned message with %q", a.file, a.id, a.query)
		}
		for _, hit := range searchJSON(t, dbFile, "--session", f.key, a.query).Results {
			if hit.MessageID == a.id {
				t.Errorf("%s: abandoned message %s found by %q", a.file, a.id, a.query)
			}
		}
		if slices.Contains(readHistory(t, db, f.key).ids, a.id) {
			t.Errorf("%s: abandoned message %s in the history", a.file, a.id)
		}
	}
}

// linesContainBoth reports whether one line of text has both substrings.
func linesContainBoth(text, a, b string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, a) && strings.Contains(line, b) {
			return true
		}
	}
	return false
}

// Importing the same files again changes nothing: same rows, same hash.
func TestReimportIsNoOp(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	db := openDB(t, dbFile).DB
	before, sessions, events := contentHash(t, db)
	r := mustRun(t, "import", "--db", dbFile, fixtureDir)
	if !strings.Contains(r.stdout, "0 new events, 660 already there") {
		t.Errorf("second import said %q", r.stdout)
	}
	after, sessions2, events2 := contentHash(t, db)
	if before != after || sessions != sessions2 || events != events2 || sessions != 6 || events != 660 {
		t.Fatalf("re-import changed the database: %d/%d sessions, %d/%d events, hash %s -> %s", sessions, sessions2, events, events2, before, after)
	}
}
