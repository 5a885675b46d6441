package foreigndb

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

func TestColumns(t *testing.T) {
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, "session id" TEXT, role)`); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string][]string{"messages": {"id", "session id", "role"}, "missing": nil} {
		cols, err := Columns(context.Background(), db, table)
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) != len(want) {
			t.Errorf("%s: %v, want %v", table, cols, want)
		}
		for _, c := range want {
			if !cols[c] {
				t.Errorf("%s: %v lacks %q", table, cols, c)
			}
		}
	}
}
