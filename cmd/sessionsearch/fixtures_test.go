package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What a reader of each fixture transcript expects to be searchable,
// computed here from the JSONL with the rules of docs/store.md S3-S6,
// independently of the store:
//
//   - The active leaf: each entry with an id becomes the leaf, except a
//     leaf entry (the leaf moves to its targetId) and an appendMode "side"
//     entry (the leaf stays).
//   - The active path: the leaf and its parentId ancestors through entries
//     of every type; an entry without a parentId field follows the entry
//     before it.
//   - Searchable: user and assistant messages with an id on the path, whose
//     text (the string content, else message.text, else the text,
//     input_text and output_text blocks joined by newlines) is not blank.

const fixtureDir = "../../internal/fixtures/transcripts"

type fixtureEntry struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	ParentID   json.RawMessage `json:"parentId"` // nil when the field is absent
	TargetID   string          `json:"targetId"`
	AppendMode string          `json:"appendMode"`
	Message    *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Text    *string         `json:"text"`
	} `json:"message"`
}

type fixture struct {
	name    string
	raw     string
	entries []fixtureEntry
	key     string // the key import derives: agent:main:session:<header id>
	onPath  []bool
}

func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{name: name, raw: string(raw)}
	sc := bufio.NewScanner(strings.NewReader(f.raw))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e fixtureEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.entries = append(f.entries, e)
	}
	if f.entries[0].Type != "session" {
		t.Fatalf("%s: no session header", name)
	}
	f.key = "agent:main:session:" + f.entries[0].ID
	f.onPath = activePath(f.entries)
	return f
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(fixtureDir, "*.jsonl"))
	if err != nil || len(names) != 6 {
		t.Fatalf("fixtures: %v, %d files", err, len(names))
	}
	var fs []fixture
	for _, n := range names {
		fs = append(fs, loadFixture(t, filepath.Base(n)))
	}
	return fs
}

// activePath marks the entries on the active path.
func activePath(entries []fixtureEntry) []bool {
	byID := map[string]int{}
	leaf := -1
	for i, e := range entries {
		switch {
		case e.Type == "leaf":
			if j, ok := byID[e.TargetID]; ok {
				leaf = j
			}
		case e.AppendMode == "side":
		case e.ID != "":
			leaf = i
		}
		if e.ID != "" {
			byID[e.ID] = i
		}
	}
	on := make([]bool, len(entries))
	for i := leaf; i >= 0 && !on[i]; {
		on[i] = true
		e := entries[i]
		switch {
		case e.ParentID == nil:
			i--
		case string(e.ParentID) == "null":
			i = -1
		default:
			var parent string
			json.Unmarshal(e.ParentID, &parent)
			j, ok := byID[parent]
			if !ok {
				j = -1
			}
			i = j
		}
	}
	return on
}

// text is a message's searchable text.
func (e fixtureEntry) text() string {
	m := e.Message
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return strings.TrimSpace(s)
	}
	if m.Text != nil {
		return *m.Text
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(m.Content, &blocks)
	var parts []string
	for _, b := range blocks {
		if (b.Type == "text" || b.Type == "input_text" || b.Type == "output_text") && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// isMessage reports whether e is a user or assistant message with an id.
func (e fixtureEntry) isMessage() bool {
	return e.Type == "message" && e.ID != "" && e.Message != nil && (e.Message.Role == "user" || e.Message.Role == "assistant")
}

// isSearchable reports whether e is a message with text to index.
func (e fixtureEntry) isSearchable() bool { return e.isMessage() && strings.TrimSpace(e.text()) != "" }

// searchable returns the ids of the path's messages that have text: what
// is indexed, and what sessions_history shows.
func (f fixture) searchable() []string {
	var ids []string
	for i, e := range f.entries {
		if f.onPath[i] && e.isSearchable() {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

func (f fixture) entry(id string) (fixtureEntry, bool) {
	i := slices.IndexFunc(f.entries, func(e fixtureEntry) bool { return e.ID == id })
	if i < 0 {
		return fixtureEntry{}, false
	}
	return f.entries[i], f.onPath[i]
}

// roleCounts counts the indexed (searchable) messages by role.
func (f fixture) roleCounts() map[string]int {
	counts := map[string]int{}
	for _, id := range f.searchable() {
		e, _ := f.entry(id)
		counts[e.Message.Role]++
	}
	return counts
}

// allMessageText is every user and assistant text of the fixtures, on a
// path or not, in lower case.
func allMessageText(fs []fixture) string {
	var b strings.Builder
	for _, f := range fs {
		for _, e := range f.entries {
			if e.Type == "message" && e.Message != nil && (e.Message.Role == "user" || e.Message.Role == "assistant") {
				b.WriteString(strings.ToLower(e.text()))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}
