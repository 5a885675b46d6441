package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// TestRebuildFromTokenizerVersion2 opens a store written by tokenizer
// version 2 (tokenizer/testdata/index-v2.db, made by the build before
// version 3, commit 228f914, in the sqlite3 shell: sessionsearch_migrate()
// and two messages, "Which GITHUB repository holds
// parse_session_key?" and "The archive of ۱۳۷۹ is in پروندهٔ قدیمی."). Its
// index holds version-2 tokens, so the searches that version 3 adds find
// nothing and writes are refused until sessionsearch_migrate() rebuilds it;
// then they find the messages (docs/tokenizer.md T5, T7, T12, T13).
func TestRebuildFromTokenizerVersion2(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "index-v2.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v2.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := driver.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var built string
	if err := db.QueryRow(`SELECT value FROM sessionsearch_meta WHERE key = 'index_version'`).Scan(&built); err != nil || !strings.HasPrefix(built, "2.") {
		t.Fatalf("fixture index_version %q, %v: want a version-2 index", built, err)
	}
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}}
	search := func(q string) int {
		t.Helper()
		res, err := db.Search(ctx, q, opts)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return len(res.Results)
	}
	// What version 3 finds that a version-2 index cannot: native digits,
	// the Persian ezafe, a camelCase query for underscore-joined words. (A
	// query word with a capital inside, GitHub, is one token in version 3
	// and finds GITHUB in either index.)
	queries := []string{"1379", "پرونده", "sessionKey"}
	for _, q := range queries {
		if n := search(q); n != 0 {
			t.Errorf("before the rebuild, %q found %d messages in a version-2 index", q, n)
		}
	}
	_, err = db.Append(ctx, "agent:main:main", message("a3", "a2", "user", "thanks", 3))
	if err == nil || !strings.Contains(err.Error(), "sessionsearch_migrate()") {
		t.Fatalf("append to a version-2 index: %v, want a refusal that names sessionsearch_migrate()", err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if err := db.QueryRow(`SELECT value FROM sessionsearch_meta WHERE key = 'index_version'`).Scan(&built); err != nil || strings.HasPrefix(built, "2.") {
		t.Fatalf("after migrate, index_version %q, %v", built, err)
	}
	for _, q := range append(queries, "GitHub") {
		if n := search(q); n != 1 {
			t.Errorf("after the rebuild, %q found %d messages, want 1", q, n)
		}
	}
	if _, err := db.Append(ctx, "agent:main:main", message("a3", "a2", "user", "thanks for ParseSessionKey", 3)); err != nil {
		t.Fatalf("append after the rebuild: %v", err)
	}
	if n := search("parse_session_key"); n != 2 {
		t.Errorf("after an append, parse_session_key found %d messages, want 2", n)
	}
}
