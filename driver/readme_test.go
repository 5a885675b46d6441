package driver_test

import (
	"database/sql"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/extension"
)

// shownSearchSQL returns the single SELECT that a page shows between
// <!-- search-sql --> and <!-- /search-sql -->.
func shownSearchSQL(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "<!-- search-sql -->")
	end := strings.Index(s, "<!-- /search-sql -->")
	if start < 0 || end < start {
		t.Fatalf("%s has no <!-- search-sql --> block", page)
	}
	if strings.Count(s, "<!-- search-sql -->") != 1 {
		t.Fatalf("%s has more than one <!-- search-sql --> block", page)
	}
	block := s[start:end]
	open := strings.Index(block, "```sql")
	if open < 0 {
		t.Fatalf("%s: the <!-- search-sql --> block has no ```sql fence", page)
	}
	block = block[open+len("```sql") : strings.LastIndex(block, "```")]
	return strings.TrimSpace(block)
}

// The single SELECT that README.md and docs/search.md show is the statement
// sessions_search runs (docs/search.md Q17), and returns the same rows.
func TestReadmeSelect(t *testing.T) {
	var readme string
	for _, page := range []string{"../README.md", "../docs/search.md"} {
		shown := shownSearchSQL(t, page)
		if shown != strings.TrimSpace(extension.SearchSQL) {
			t.Fatalf("%s's SELECT differs from extension.SearchSQL:\n%s\n---\n%s", page, shown, extension.SearchSQL)
		}
		readme = shown
	}
	w := newWorld(t)
	w.session("agent:main:main", "", "the weather in 東京 today", "sunny weather tomorrow", "rain")
	w.session("agent:main:subagent:1", "agent:main:main", "weather report with key ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8")
	w.session("agent:main:other", "", "weather elsewhere")
	w.session("agent:ops:main", "", "weather for ops")
	for _, c := range []struct {
		query, caller, options string
		limit                  int
	}{
		{"weather", "agent:main:main", `{}`, 10},
		{"weather", "agent:main:subagent:1", `{}`, 10},
		{"weather", "agent:main:other", `{"visibility":"agent"}`, 2},
		{"東京", "agent:main:main", `{}`, 10},
		{"weather", "agent:ops:main", `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]}}`, 10},
	} {
		rows, err := w.db.Query(readme, sql.Named("query", c.query), sql.Named("prefix", 0), sql.Named("session", nil), sql.Named("after", nil), sql.Named("before", nil), sql.Named("role", nil), sql.Named("project", nil), sql.Named("project_dir", nil),
			sql.Named("caller", c.caller), sql.Named("options", c.options), sql.Named("limit", c.limit),
			sql.Named("snippet_chars", 300))
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			key, id, role, snippet string
			ts                     int64
			score                  float64
		}
		var got []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.key, &r.id, &r.role, &r.ts, &r.snippet, &r.score); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		rows.Close()
		opts := driver.SearchOptions{Options: driver.Options{Caller: c.caller}, Limit: c.limit}
		if strings.Contains(c.options, "agent\"") {
			opts.Visibility = "agent"
		}
		if strings.Contains(c.options, "all") {
			opts.Visibility = "all"
			opts.AgentToAgent = driver.AgentToAgent{Enabled: true, Allow: []string{"*"}}
		}
		res := w.search(c.query, opts)
		var want []row
		for _, r := range res.Results {
			want = append(want, row{r.SessionKey, r.MessageID, r.Role, r.Snippet, r.Timestamp, r.Score})
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q as %s: the README SELECT returns\n%v\nsessions_search returns\n%v", c.query, c.caller, got, want)
		}
	}
}
