// Package driver is sessionsearch for Go programs: it links the extension
// statically into github.com/mattn/go-sqlite3 (as an auto-extension, so
// every connection has the tokenizer and the functions) and registers the
// database/sql driver "sessionsearch". Build with -tags sqlite_fts5.
//
//	import _ "github.com/sessionsearch/sessionsearch/driver"
//	db, err := sql.Open("sessionsearch", "transcripts.db")
//
// or, for a ready database handle with WAL and a busy timeout:
//
//	db, err := driver.Open("transcripts.db")
package driver
