package driver_test

import (
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// docs/store.md S13: with PRAGMA trusted_schema=OFF (a host that distrusts
// the database's schema), searching and reading history still work, and an
// append is refused whole: the store's functions that write are not
// innocuous, so a hostile schema cannot call them behind a reader's back,
// and FTS5 refuses writes from triggers anyway.
func TestTrustedSchemaOff(t *testing.T) {
	db, ctx := openStore(t)
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, "agent:main:main", message("a", "", "user", "trusted words", 1)); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA trusted_schema=OFF`); err != nil {
		t.Fatal(err)
	}
	var res, hist string
	if err := conn.QueryRowContext(ctx, `SELECT sessions_search('trusted', '{"caller":"agent:main:main"}')`).Scan(&res); err != nil {
		t.Fatalf("search with trusted_schema=OFF: %v", err)
	}
	if !strings.Contains(res, `"messageId":"a"`) {
		t.Fatalf("search with trusted_schema=OFF found nothing: %s", res)
	}
	if err := conn.QueryRowContext(ctx, `SELECT sessions_history('agent:main:main', '{"caller":"agent:main:main"}')`).Scan(&hist); err != nil || !strings.Contains(hist, "trusted words") {
		t.Fatalf("history with trusted_schema=OFF: %s, %v", hist, err)
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO transcript_events VALUES ('agent:main:main', 1, ?1)`, string(message("b", "a", "assistant", "untrusted", 2)))
	if err == nil || !strings.Contains(err.Error(), "unsafe use of") {
		t.Fatalf("append with trusted_schema=OFF: %v, want SQLite's refusal of an unsafe use", err)
	}
	var events int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events`).Scan(&events); err != nil || events != 1 {
		t.Fatalf("%d events after the refused append (%v), want 1", events, err)
	}
	// A schema that calls a writing function from a view is refused too.
	if _, err := conn.ExecContext(ctx, `CREATE VIEW hostile AS SELECT sessionsearch_repath(1) AS x`); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT x FROM hostile`).Scan(new(any)); err == nil || !strings.Contains(err.Error(), "unsafe use of sessionsearch_repath") {
		t.Fatalf("a view calling sessionsearch_repath with trusted_schema=OFF: %v", err)
	}
}
