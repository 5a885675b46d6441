package store

import "errors"

// Conn runs SQL on the connection that called one of the store's
// functions, inside its transaction. Arguments bind to ?1, ?2, ... and may
// be nil, string, []byte (bound as text), Blob, int, int64, float64 or
// bool. Its errors from SQLite have a method Code() int, SQLite's result
// code.
type Conn interface {
	// Exec runs sql to completion.
	Exec(sql string, args ...any) error
	// Query runs sql and calls row for each result row.
	Query(sql string, row func(Row) error, args ...any) error
	// Prepare compiles sql for repeated use; the caller closes it.
	Prepare(sql string) (Stmt, error)
}

// Blob is bound as a BLOB.
type Blob []byte

// Refused reports whether err is a refusal of a row, by the store's rules
// or a constraint (SQLITE_ERROR raised by a trigger, SQLITE_CONSTRAINT),
// rather than a failure of the database.
func Refused(err error) bool {
	var r *Refusal
	if errors.As(err, &r) {
		return true
	}
	var c interface{ Code() int }
	if !errors.As(err, &c) {
		return false
	}
	code := c.Code() & 0xff
	return code == 1 || code == 19
}

// Row is the current result row of a query.
type Row interface {
	Int(i int) int64
	Text(i int) string
	IsNull(i int) bool
}

// Stmt is a prepared statement.
type Stmt interface {
	// Run binds args and runs the statement to completion.
	Run(args ...any) error
	// Query binds args and calls row for each result row.
	Query(row func(Row) error, args ...any) error
	Close()
}

// atomically runs fn inside a savepoint: its writes all happen or, when it
// fails, none. A function called from a SELECT has no statement transaction
// of its own to roll back.
//
// The savepoint's first statement takes the write lock (m.writeLock): a
// function called in autocommit mode from a SELECT that reads no table
// (SELECT sessions_reconcile(100)) has no transaction yet, and SQLite then
// waits for the lock under the connection's busy timeout, as BEGIN
// IMMEDIATE does. Were its first statement a read, the later write would
// have to turn a read transaction into a write one, which SQLite never
// waits for: "database is locked" at once whenever another connection
// writes (docs/store.md S16).
func atomically(c Conn, m meta, fn func() error) error {
	if err := c.Exec(`SAVEPOINT sessionsearch`); err != nil {
		return err
	}
	if err := c.Exec(m.writeLock()); err != nil {
		c.Exec(`ROLLBACK TO sessionsearch`)
		c.Exec(`RELEASE sessionsearch`)
		return err
	}
	if err := fn(); err != nil {
		c.Exec(`ROLLBACK TO sessionsearch`)
		c.Exec(`RELEASE sessionsearch`)
		return err
	}
	return c.Exec(`RELEASE sessionsearch`)
}

// queryInt returns the integer in the first column of the first row of
// sql, or def when there is no row or it is NULL.
func queryInt(c Conn, def int64, sql string, args ...any) (int64, error) {
	v := def
	err := c.Query(sql, func(r Row) error {
		if !r.IsNull(0) {
			v = r.Int(0)
		}
		return nil
	}, args...)
	return v, err
}

func prepareAll(c Conn, sqls ...string) ([]Stmt, error) {
	var out []Stmt
	for _, sql := range sqls {
		s, err := c.Prepare(sql)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func closeAll(ss []Stmt) {
	for _, s := range ss {
		s.Close()
	}
}
