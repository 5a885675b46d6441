package driver_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// writeFile writes data at path and returns it, for a byte-for-byte check
// afterwards.
func writeFile(t *testing.T, path string, data []byte) []byte {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// foreignDB writes an SQLite database of another program (two tables;
// rollback journal unless pragmas say otherwise) and returns its bytes.
func foreignDB(t *testing.T, path string, pragmas ...string) []byte {
	t.Helper()
	db, err := sql.Open(driver.DriverName, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(pragmas,
		`CREATE TABLE session_nodes(session_key TEXT PRIMARY KEY, entry_json TEXT)`,
		`CREATE TABLE transcript_events(session_id TEXT, seq INTEGER, event_json TEXT, PRIMARY KEY (session_id, seq))`,
		`INSERT INTO transcript_events VALUES ('s1', 1, '{"type":"session"}')`,
	) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// OpenReadOnly names what a file is when it is not a sessionsearch
// database, and leaves it byte for byte as it was, creating nothing.
func TestOpenReadOnlyRefuses(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "sub", "missing.db")
	_, err := driver.OpenReadOnly(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no sessionsearch database at "+missing) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("opening a missing file created its directory: %v", err)
	}
	uri := filepath.Join(dir, "file:x.db?mode=ro")
	if _, err := driver.OpenReadOnly(uri); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a URI-looking name: %v", err)
	}

	text := filepath.Join(dir, "notes.jsonl")
	empty := filepath.Join(dir, "empty.jsonl")
	foreign := filepath.Join(dir, "agent.sqlite")
	walForeign := filepath.Join(dir, "wal.sqlite")
	files := map[string][]byte{
		text:       writeFile(t, text, []byte(`{"type":"session","id":"x"}`+"\n"+strings.Repeat("more text ", 1000))),
		empty:      writeFile(t, empty, nil),
		foreign:    foreignDB(t, foreign),
		walForeign: foreignDB(t, walForeign, `PRAGMA journal_mode = WAL`),
	}
	if _, err := driver.OpenReadOnly(text); !errors.Is(err, driver.ErrNotSQLite) || err.Error() != text+" is not an SQLite database" {
		t.Errorf("a text file: %v", err)
	}
	var ns *driver.NotStoreError
	if _, err := driver.OpenReadOnly(empty); !errors.As(err, &ns) || len(ns.Tables) != 0 || err.Error() != empty+" is empty, not a sessionsearch database" {
		t.Errorf("an empty file: %v", err)
	}
	_, err = driver.OpenReadOnly(foreign)
	if !errors.As(err, &ns) || !reflect.DeepEqual(ns.Tables, []string{"session_nodes", "transcript_events"}) ||
		!strings.Contains(err.Error(), "an SQLite database of another program, not a sessionsearch database (its tables: session_nodes, transcript_events)") {
		t.Errorf("another program's database: %v", err)
	}
	if _, err := driver.OpenReadOnly(walForeign); !errors.As(err, &ns) {
		t.Errorf("another program's database in WAL mode: %v", err)
	}
	if _, err := driver.OpenReadOnly(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	for path, want := range files {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s changed (%v)", path, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// No -wal or -shm file appears beside the WAL database.
	if want := []string{"agent.sqlite", "empty.jsonl", "notes.jsonl", "wal.sqlite"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files after the refusals: %v, want %v", names, want)
	}
}

// A sessionsearch database opens read-only: search works, every write is
// refused, and the journal mode is the one the writer chose.
func TestOpenReadOnlyStore(t *testing.T) {
	w, ctx := openStore(t)
	path := w.Path()
	if err := w.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "agent:main:main", []byte(`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"quetzal feathers"}}`)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, _ := os.ReadFile(path)

	db, err := driver.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Search(ctx, "quetzal", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("search: %+v, %v", res, err)
	}
	if _, err := db.Append(ctx, "agent:main:main", []byte(`{"type":"message","id":"m2","message":{"role":"user","content":"x"}}`)); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("append through a read-only handle: %v", err)
	}
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:other"}); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("add a session through a read-only handle: %v", err)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v", mode, err)
	}
	db.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the read-only open changed the database")
	}
}

// A store of another schema or index version, and a damaged file, are
// named as such.
func TestOpenReadOnlySchemaAndDamage(t *testing.T) {
	w, _ := openStore(t)
	path := w.Path()
	if _, err := w.Exec(`UPDATE sessionsearch_meta SET value = '0.9' WHERE key = 'index_version'`); err != nil {
		t.Fatal(err)
	}
	var ie *driver.IndexError
	if _, err := driver.OpenReadOnly(path); !errors.As(err, &ie) || ie.Built != "0.9" || !strings.Contains(err.Error(), "search index built by another version") {
		t.Errorf("an index of another version: %v", err)
	}
	if _, err := w.Exec(`UPDATE sessionsearch_meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`PRAGMA journal_mode = DELETE`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var se *driver.SchemaError
	if _, err := driver.OpenReadOnly(path); !errors.As(err, &se) || se.Version != 99 || !strings.Contains(err.Error(), "schema version 99, newer than this build's") {
		t.Errorf("newer schema: %v", err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[100:400], bytes.Repeat([]byte{0xA5}, 300)) // page 1's b-tree: the schema table
	writeFile(t, path, data)
	if _, err := driver.OpenReadOnly(path); !errors.Is(err, driver.ErrCorrupt) || !strings.HasPrefix(err.Error(), path+" is a damaged SQLite database") {
		t.Errorf("damaged file: %v", err)
	}
}

// Open takes a file name: a name that looks like a SQLite URI is a file of
// that name, so no directory "file:" appears.
func TestOpenURILookingName(t *testing.T) {
	dir := t.TempDir()
	name := "file:x.db?mode=ro"
	db, err := driver.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t(x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name || entries[0].IsDir() {
		t.Errorf("files: %v", entries)
	}
}

// A file another connection holds an exclusive lock on is named as locked.
func TestOpenReadOnlyLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	w, err := driver.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	conn, err := w.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{`PRAGMA journal_mode = DELETE`, `PRAGMA locking_mode = EXCLUSIVE`, `BEGIN EXCLUSIVE`, `INSERT INTO sessions(session_key) VALUES ('agent:main:main')`} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, err = driver.OpenReadOnly(path)
	if !errors.Is(err, driver.ErrLocked) || !strings.HasPrefix(err.Error(), path+" is locked by another process") {
		t.Errorf("locked file: %v", err)
	}
	conn.ExecContext(context.Background(), `ROLLBACK`)
}
