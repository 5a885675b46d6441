package driver_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// The extension is linked statically: a plain database/sql connection of
// the "sessionsearch" driver has the tokenizer and the functions.
func TestStaticExtension(t *testing.T) {
	db, err := sql.Open(driver.DriverName, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version, debug string
	if err := db.QueryRow(`SELECT sessionsearch_version(), sessionsearch_debug()`).Scan(&version, &debug); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "v") || !strings.Contains(debug, "sqlite=3.") {
		t.Fatalf("version %q, debug %q", version, debug)
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize='sessionsearch')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO t VALUES ('東京都庁に行きました'), ('大阪')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH '東京'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("東京 found %d rows, err %v", n, err)
	}
}

func TestOpenUsesWAL(t *testing.T) {
	db, err := driver.Open(filepath.Join(t.TempDir(), "x?y#z.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q, err %v", mode, err)
	}
	var timeout int
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != int(driver.BusyTimeout.Milliseconds()) {
		t.Fatalf("busy_timeout %d, err %v", timeout, err)
	}
}

// Any bytes index: invalid UTF-8, NUL and a 16 MiB document insert and
// are searchable around the damage, and a document inserted after the big
// one still indexes and is found.
func TestHostileDocuments(t *testing.T) {
	db, err := sql.Open(driver.DriverName, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize='sessionsearch')`); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("filler 東京 \xff\xfe text ", (16<<20)/24) + " needle"
	docs := []string{"bad \xc3\x28 utf8 apple", "nul\x00byte apple", big, "after the Big one: apple"}
	for _, d := range docs {
		if _, err := db.Exec(`INSERT INTO t(body) VALUES (CAST(?1 AS TEXT))`, []byte(d)); err != nil {
			t.Fatalf("insert %d bytes: %v", len(d), err)
		}
	}
	for q, want := range map[string]int{"apple": 3, "utf8": 1, "needle": 1, "東京": 1, "big": 1} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH ?1`, q).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d", q, n, err, want)
		}
	}
	if _, err := db.Exec(`INSERT INTO t(t) VALUES ('integrity-check')`); err != nil {
		t.Fatal(err)
	}
}
