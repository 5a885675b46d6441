// Package foreigndb holds what every reader of another program's SQLite
// database (OpenClaw's agent databases, OpenCode's, Hermes') needs to read
// whichever version of the schema it finds: the columns a table has.
package foreigndb

import (
	"context"
	"database/sql"
)

// Querier is a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Columns returns the columns of table, none when it does not exist: a
// reader reads the columns the database's version has.
func Columns(ctx context.Context, q Querier, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}
