//go:build sqlite_fts5

package driver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sessionsearch/sessionsearch/store"
)

// BusyTimeout is how long a connection of Open waits for another writer.
const BusyTimeout = 10 * time.Second

// DB is a database opened by Open or OpenReadOnly.
type DB struct {
	*sql.DB
	path string
}

// Open opens (creating it if needed) the SQLite database at path with
// write-ahead logging and a busy timeout, so that readers never block the
// writer and concurrent writers wait instead of failing at once. path is a
// file name, never a URI: "file:x?mode=ro" names a file of that name.
func Open(path string) (*DB, error) {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeout.Milliseconds()))
	q.Set("_txlock", "immediate")
	db, err := sql.Open(DriverName, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sessionsearch: open %s: %w", path, err)
	}
	return &DB{DB: db, path: path}, nil
}

// The errors of OpenReadOnly (and of CheckStore) say what the file is when
// it is not a sessionsearch database a program can read.
var (
	// ErrNotSQLite: the file is not an SQLite database at all.
	ErrNotSQLite = errors.New("not an SQLite database")
	// ErrCorrupt: the file is an SQLite database whose pages are damaged.
	ErrCorrupt = errors.New("a damaged SQLite database")
	// ErrLocked: another process holds an exclusive lock on the file.
	ErrLocked = errors.New("locked by another process")
)

// NotStoreError is an SQLite database that does not hold a sessionsearch
// store: empty, or another program's database.
type NotStoreError struct {
	Path   string
	Tables []string // its tables, in the order of sqlite_schema; none when it is empty
}

func (e *NotStoreError) Error() string {
	if len(e.Tables) == 0 {
		return fmt.Sprintf("%s is empty, not a sessionsearch database", e.Path)
	}
	shown := e.Tables
	more := ""
	if len(shown) > 6 {
		shown, more = shown[:6], fmt.Sprintf(" and %d more", len(e.Tables)-6)
	}
	return fmt.Sprintf("%s is an SQLite database of another program, not a sessionsearch database (its tables: %s%s)",
		e.Path, strings.Join(shown, ", "), more)
}

// SchemaError is a sessionsearch database whose schema this build cannot
// read as it is: written by a newer build, or older and not yet migrated.
type SchemaError struct {
	Path    string
	Version int // the schema version the file records
	Build   int // the schema version of this build
}

func (e *SchemaError) Error() string {
	if e.Version > e.Build {
		return fmt.Sprintf("%s has sessionsearch schema version %d, newer than this build's %d: use a newer sessionsearch", e.Path, e.Version, e.Build)
	}
	return fmt.Sprintf("%s has sessionsearch schema version %d, older than this build's %d: it needs SELECT sessionsearch_migrate() first", e.Path, e.Version, e.Build)
}

// OpenReadOnly opens the existing sessionsearch database at path for
// reading only. The connection is in SQLite's read-only mode, so nothing
// done through it can write the file (its journal mode included), and no
// file is created when there is none. The file is checked as CheckStore
// does; a missing file is an error wrapping fs.ErrNotExist.
func OpenReadOnly(path string) (*DB, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("no sessionsearch database at %s: %w", path, fs.ErrNotExist)
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a sessionsearch database", path)
	}
	if !exists(path+"-wal") && !exists(path+"-journal") {
		// Nothing is being written: look at the schema with the file
		// opened as immutable, so that a file that is not a sessionsearch
		// database gets no -wal and -shm files beside it (a reader of a
		// WAL database creates them otherwise). With a log or journal
		// beside it, the file must be read through them.
		if err := checkFile(path, url.Values{"mode": {"ro"}, "immutable": {"1"}}); err != nil {
			return nil, err
		}
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeout.Milliseconds()))
	db, err := sql.Open(DriverName, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	if err := CheckStore(context.Background(), db, path); err != nil {
		db.Close()
		return nil, err
	}
	return &DB{DB: db, path: path}, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// checkFile runs CheckStore on path opened with the URI parameters q.
func checkFile(path string, q url.Values) error {
	db, err := sql.Open(DriverName, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	return CheckStore(context.Background(), db, path)
}

// CheckStore reads db's schema, without writing, and returns nil when it
// holds a sessionsearch store of this build's schema version. Otherwise the
// error is ErrNotSQLite, ErrCorrupt or ErrLocked (wrapped, with path), a
// *NotStoreError, a *SchemaError or an *IndexError. path names the file in
// the errors.
func CheckStore(ctx context.Context, db *sql.DB, path string) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY rowid`)
	if err != nil {
		return fileError(path, err)
	}
	var tables []string
	hasStore := false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return fileError(path, err)
		}
		tables = append(tables, name)
		hasStore = hasStore || name == "sessionsearch_meta"
	}
	if err := rows.Close(); err != nil {
		return fileError(path, err)
	}
	if err := rows.Err(); err != nil {
		return fileError(path, err)
	}
	if !hasStore {
		return &NotStoreError{Path: path, Tables: tables}
	}
	var v string
	err = db.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'schema_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return &NotStoreError{Path: path, Tables: tables}
	}
	if err != nil {
		return fileError(path, err)
	}
	version, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%s: sessionsearch_meta has schema_version %q, not a number", path, v)
	}
	if version != store.SchemaVersion {
		return &SchemaError{Path: path, Version: version, Build: store.SchemaVersion}
	}
	var built string
	err = db.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'index_version'`).Scan(&built)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fileError(path, err)
	}
	if built != store.IndexVersion {
		return &IndexError{Path: path, Built: built, Build: store.IndexVersion}
	}
	return nil
}

// IndexError is a sessionsearch database whose search index was built by
// another version of the tokenizer or of redaction: its tokens, and the
// secrets it masked, are not this build's, so it must be rebuilt
// (sessionsearch_migrate does) before it is searched.
type IndexError struct {
	Path  string
	Built string // the index version the file records
	Build string // this build's
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("%s has a search index built by another version of sessionsearch (index version %q, this build %q): it needs SELECT sessionsearch_migrate() to rebuild it", e.Path, e.Built, e.Build)
}

// fileError names what SQLite's error says about the file.
func fileError(path string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB:
			return fmt.Errorf("%s is %w", path, ErrNotSQLite)
		case sqlite3.ErrCorrupt:
			return fmt.Errorf("%s is %w (%v)", path, ErrCorrupt, err)
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fmt.Errorf("%s is %w (%v)", path, ErrLocked, err)
		}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Path returns the file the database was opened from.
func (db *DB) Path() string { return db.path }

// escapePath keeps a file name with ? or # from being read as URI syntax.
func escapePath(path string) string {
	return (&url.URL{Path: path}).EscapedPath()
}
