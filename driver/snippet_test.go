package driver_test

import (
	"math/rand"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// docs/search.md Q14: sessions_snippet, which finds the query's matches
// from the tokens, gives the snippet that sessionsearch_snippet gives from
// FTS5's phrase instances, for every message of the fixtures that a query
// finds: words, parts of words, prefixes, two-word queries, phrases with
// punctuation, camelCase words and runs of CJK, Thai and other scripts, at
// several window sizes.
func TestSnippetMatchesFTS5(t *testing.T) {
	db, ctx := openStore(t)
	var texts []string
	for _, f := range fixtures.Files() {
		key := "agent:main:" + strings.TrimSuffix(f.Name, ".jsonl")
		if _, err := db.ExecContext(ctx, `INSERT INTO sessions(session_key) VALUES (?1)`, key); err != nil {
			t.Fatal(err)
		}
		for seq, line := range f.Lines {
			if _, err := db.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, key, seq, string(line)); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT text FROM sessionsearch_content`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		texts = append(texts, s)
	}
	rows.Close()
	if len(texts) < 100 {
		t.Fatalf("only %d indexed messages in the fixtures", len(texts))
	}
	r := rand.New(rand.NewSource(5))
	query := func() string {
		text := texts[r.Intn(len(texts))]
		fields := strings.Fields(text)
		if len(fields) == 0 {
			return "x"
		}
		w := fields[r.Intn(len(fields))]
		switch r.Intn(6) {
		case 0: // two words
			return w + " " + fields[r.Intn(len(fields))]
		case 1: // a piece of a word, in characters
			rs := []rune(w)
			i := r.Intn(len(rs))
			return string(rs[i:min(len(rs), i+1+r.Intn(4))])
		case 2: // a word with the punctuation around it
			return w
		case 3: // letters only
			return strings.TrimFunc(w, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
		case 4: // a run of three words, as one phrase-like query
			i := r.Intn(len(fields))
			return strings.Join(fields[i:min(len(fields), i+3)], " ")
		}
		return strings.ToUpper(w)
	}
	stmt, err := db.PrepareContext(ctx, `SELECT c.text, sessionsearch_snippet(sessionsearch_fts, ?3), sessions_snippet(c.text, ?1, ?2, ?3)
		FROM sessionsearch_fts JOIN sessionsearch_content AS c ON c.id = sessionsearch_fts.rowid
		WHERE sessionsearch_fts MATCH sessions_match(?1, ?2)`)
	if err != nil {
		t.Fatal(err)
	}
	compared, queries := 0, 0
	for range 1500 {
		q := query()
		if strings.TrimSpace(q) == "" || utf8.RuneCountInString(q) > 200 {
			continue
		}
		prefix := r.Intn(3) == 0
		window := []int{12, 30, 60, 120}[r.Intn(4)]
		rows, err := stmt.QueryContext(ctx, q, prefix, window)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		found := false
		for rows.Next() {
			var text, fromFTS5, ours string
			if err := rows.Scan(&text, &fromFTS5, &ours); err != nil {
				t.Fatal(err)
			}
			if fromFTS5 != ours {
				t.Fatalf("query %q prefix %v window %d in %q:\nsessionsearch_snippet %q\nsessions_snippet      %q", q, prefix, window, text, fromFTS5, ours)
			}
			compared++
			found = true
		}
		rows.Close()
		if found {
			queries++
		}
	}
	if queries < 1000 || compared < 10000 {
		t.Fatalf("compared %d snippets of %d queries: too few", compared, queries)
	}
	t.Logf("%d snippets of %d queries agree", compared, queries)
}
