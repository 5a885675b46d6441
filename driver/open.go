//go:build sqlite_fts5

package driver

import (
	"database/sql"
	"fmt"
	"net/url"
	"time"
)

// BusyTimeout is how long a connection of Open waits for another writer.
const BusyTimeout = 10 * time.Second

// DB is a database opened by Open.
type DB struct {
	*sql.DB
	path string
}

// Open opens (creating it if needed) the SQLite database at path with
// write-ahead logging and a busy timeout, so that readers never block the
// writer and concurrent writers wait instead of failing at once.
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

// Path returns the file the database was opened from.
func (db *DB) Path() string { return db.path }

// escapePath keeps a file name with ? or # from being read as URI syntax.
func escapePath(path string) string {
	return (&url.URL{Path: path}).EscapedPath()
}
