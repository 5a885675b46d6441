//go:build !sqlite_fts5

package driver

// The driver links SQLite from github.com/mattn/go-sqlite3, which leaves
// FTS5 out unless the build tag sqlite_fts5 is set. Building without it
// stops here, at compile time, with the fix in the name below.
var _ = build_with_tags_sqlite_fts5__go_build_or_test_needs_dash_tags_sqlite_fts5
