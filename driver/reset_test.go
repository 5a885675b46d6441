package driver_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// resetSession appends a conversation with an in-window reset, then an entry
// that OpenClaw wrote with a stale parent (before the reset), and returns
// the words that must stay searchable.
func resetSession(t *testing.T, db *driver.DB, ctx context.Context, key string) []string {
	t.Helper()
	if err := db.AddSession(ctx, driver.Session{Key: key}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"alpha before the reset"}}`,
		`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"bravo before the reset"}}`,
		`{"type":"reset","id":"R","parentId":"b"}`,
		`{"type":"message","id":"c","parentId":"R","message":{"role":"user","content":"charlie after the reset"}}`,
		`{"type":"message","id":"d","parentId":"a","message":{"role":"assistant","content":"delta written with a stale parent"}}`,
	} {
		if _, err := db.Append(ctx, key, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"alpha", "bravo", "charlie", "delta"}
}

// findable returns which of words a search of key's session finds.
func findable(t *testing.T, db *driver.DB, ctx context.Context, key string, words []string) []string {
	t.Helper()
	var found []string
	for _, w := range words {
		res, err := db.Search(ctx, w, driver.SearchOptions{Options: driver.Options{Caller: key}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) > 0 {
			found = append(found, w)
		}
	}
	return found
}

// A reset entry is a boundary later entries do not cross (docs/store.md
// S6): an entry whose parent lies before it hangs from the leaf, so nothing
// after the reset drops out of search, and a rewind to before the reset is
// ignored, as OpenClaw reads its transcripts.
func TestResetIsABoundary(t *testing.T) {
	db, ctx := openStore(t)
	const key = "agent:main:main"
	words := resetSession(t, db, ctx, key)
	if got := findable(t, db, ctx, key, words); !slices.Equal(got, words) {
		t.Fatalf("after a stale parent: %v searchable, want %v", got, words)
	}
	if _, err := db.MoveLeaf(ctx, key, "a"); err != nil {
		t.Fatal(err)
	}
	if got := findable(t, db, ctx, key, words); !slices.Equal(got, words) {
		t.Errorf("after a rewind to before the reset: %v searchable, want %v", got, words)
	}
	if _, err := db.MoveLeaf(ctx, key, "c"); err != nil {
		t.Fatal(err)
	}
	if got, want := findable(t, db, ctx, key, words), []string{"alpha", "bravo", "charlie"}; !slices.Equal(got, want) {
		t.Errorf("after a rewind to c, past the reset: %v searchable, want %v", got, want)
	}
}

// A database whose entries were written by path version 1, which did not
// know resets: Migrate marks the reset entries and the sessions pending, and
// after Reconcile a replay of the session (here, by a rewind) keeps the
// reset a boundary.
func TestMigratePathVersion(t *testing.T) {
	db, ctx := openStore(t)
	const key = "agent:main:main"
	words := resetSession(t, db, ctx, key)
	// What version 1 left: no reset flag in the entries, no path_version.
	for _, q := range []string{
		`UPDATE sessionsearch_entries SET info = json_remove(info, '$.reset')`,
		`DELETE FROM sessionsearch_meta WHERE key = 'path_version'`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var pending, flagged int
	db.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_sessions WHERE pending`).Scan(&pending)
	db.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_entries WHERE info ->> 'reset'`).Scan(&flagged)
	if pending != 1 || flagged != 1 {
		t.Fatalf("after migrate: %d pending sessions, %d reset entries flagged; want 1 and 1", pending, flagged)
	}
	conn, _ := db.Conn(ctx)
	defer conn.Close()
	reconcileAll(t, ctx, conn, time.Minute)
	if _, err := db.MoveLeaf(ctx, key, "a"); err != nil {
		t.Fatal(err)
	}
	if got := findable(t, db, ctx, key, words); !slices.Equal(got, words) {
		t.Errorf("after migrate, reconcile and a rewind to before the reset: %v searchable, want %v", got, words)
	}
	var version string
	db.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'path_version'`).Scan(&version)
	if version != fmt.Sprint(2) {
		t.Errorf("path_version %q after migrate, want 2", version)
	}
}
