package driver_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// readerText is the searchable text of an event as a reader of the file
// would find it, following docs/store.md S3: user and assistant messages; the
// string content, else message.text, else the text, input_text and
// output_text blocks joined by newlines.
func readerText(line []byte) (role, text string, searchable bool) {
	var ev struct {
		Type    string `json:"type"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Text    *string         `json:"text"`
		} `json:"message"`
	}
	json.Unmarshal(line, &ev)
	role = ev.Message.Role
	if ev.Type != "message" || (role != "user" && role != "assistant") {
		return role, "", false
	}
	var s string
	if json.Unmarshal(ev.Message.Content, &s) == nil {
		s = strings.TrimSpace(s)
		return role, s, s != ""
	}
	if ev.Message.Text != nil {
		s = strings.TrimSpace(*ev.Message.Text)
		return role, s, s != ""
	}
	var blocks []map[string]any
	json.Unmarshal(ev.Message.Content, &blocks)
	var parts []string
	for _, b := range blocks {
		t, _ := b["text"].(string)
		switch b["type"] {
		case "text", "input_text", "output_text":
			if strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
		}
	}
	s = strings.Join(parts, "\n")
	return role, s, s != ""
}

// TestFixtureTranscripts loads the real transcripts through plain SQL and
// checks what is indexed against a reading of each file: the searchable
// messages of the active path, with abandoned branches, thinking and tool
// output left out (see internal/fixtures/transcripts/SOURCES.md).
func TestFixtureTranscripts(t *testing.T) {
	abandoned := map[string]string{
		"en-telegram-rewind-fad751fa.jsonl":          "84d25333",
		"zh-en-heartbeat-compactions-8d0416c9.jsonl": "71dae493",
		"zh-feishu-images-d23482cc.jsonl":            "97feba7a",
	}
	db, ctx := openStore(t)
	for _, f := range fixtures.Files() {
		name, lines := f.Name, f.Lines
		key := "agent:main:" + strings.TrimSuffix(name, ".jsonl")
		if _, err := db.Exec(`INSERT INTO sessions(session_key) VALUES (?1)`, key); err != nil {
			t.Fatal(err)
		}
		tx, _ := db.BeginTx(ctx, nil)
		for seq, line := range lines {
			if _, err := tx.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, key, seq, string(line)); err != nil {
				t.Fatalf("%s line %d: %v", name, seq+1, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		// The reader's expectation: the model's path over the file's events.
		var evs []modelEvent
		ids := map[int]string{}
		for seq, line := range lines {
			e, err := parseModelEvent(string(line))
			if err != nil {
				t.Fatal(err)
			}
			_, text, ok := readerText(line)
			e.text = text
			if !ok {
				e.role = "not searchable"
			}
			evs = append(evs, e)
			ids[seq] = e.id
		}
		want := modelSearchable(evs)
		// The text of each indexed message, through the content view; FTS5's
		// integrity-check (below) shows the index holds exactly its tokens.
		got := map[int]string{}
		rows, err := db.Query(`SELECT f.rowid & 4294967295, f.text FROM sessionsearch_fts f
			JOIN sessionsearch_sessions s ON s.sid = f.rowid >> 32 WHERE s.session_key = ?1`, key)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var seq int
			var text string
			rows.Scan(&seq, &text)
			got[seq] = text
		}
		rows.Close()
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d messages indexed, the file has %d searchable on its path", name, len(got), len(want))
			for seq := range lines {
				if got[seq] != want[seq] {
					t.Errorf("  seq %d: indexed %.60q, expected %.60q", seq, got[seq], want[seq])
				}
			}
		}
		if id, ok := abandoned[name]; ok {
			for seq, e := range evs {
				if e.id == id {
					if _, indexed := got[seq]; indexed {
						t.Errorf("%s: the abandoned branch %s is searchable", name, id)
					}
				}
			}
		}
		t.Logf("%s: %d of %d lines searchable", name, len(got), len(lines))
	}
	if _, err := db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("the index does not hold the tokens of the indexed texts: %v", err)
	}

	// Words that appear only in thinking blocks or tool results are found by
	// no search; words of each file's messages are.
	for _, c := range []struct {
		query string
		found bool
	}{
		{"Arnomad", true},     // the English file's user
		{"天気", false},         // not in any file
		{"retrieving", false}, // only in thinking blocks
		{"lockoutMs", false},  // only in tool results
		{"用户248287", true},    // the Feishu user's display name, in user text
		{"Телеграм", false},   // not in the files
		{"\"fetch failed\"", false},
	} {
		var n int
		db.QueryRow(`SELECT count(*) FROM sessionsearch_fts WHERE sessionsearch_fts MATCH sessions_match(?1)`, c.query).Scan(&n)
		if (n > 0) != c.found {
			t.Errorf("search %s: %d messages, want found=%v", c.query, n, c.found)
		}
	}
}
