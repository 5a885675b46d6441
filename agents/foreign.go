package agents

// Reading other programs' SQLite databases: telling them apart by the
// schema text on their first pages, and opening them through the caller's
// read-only opener with the tables a reader needs.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/foreigndb"
)

// sqliteScanBytes bounds how much of a file a Claims reads: the schema of
// a SQLite database is on its first pages.
const sqliteScanBytes = 1 << 20

// sqliteHead returns the first sqliteScanBytes of path when it is a
// regular file that starts as a SQLite database, nil otherwise.
func sqliteHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, sqliteScanBytes))
	if err != nil || !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		return nil
	}
	return b
}

// foreignSchema reports whether path is a SQLite database whose schema
// text holds every one of marks, and that is not a sessionsearch store.
func foreignSchema(path string, marks ...string) bool {
	b := sqliteHead(path)
	if b == nil || bytes.Contains(b, []byte("sessionsearch_meta")) {
		return false
	}
	for _, m := range marks {
		if !bytes.Contains(b, []byte(m)) {
			return false
		}
	}
	return true
}

// openForeign opens path through env's read-only opener and returns the
// columns of each table of need, which must have the columns need names;
// errors name the agent and what the database is not ("a Hermes
// state.db").
func openForeign(ctx context.Context, path string, env Env, agent, what string, need map[string][]string) (*sql.DB, map[string]map[string]bool, error) {
	if env.OpenDB == nil {
		return nil, nil, fmt.Errorf("%s: databases cannot be read here (no read-only opener)", agent)
	}
	db, err := env.OpenDB(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: opening the database: %w", agent, err)
	}
	cols := map[string]map[string]bool{}
	var missing []string
	for table, names := range need {
		c, err := foreigndb.Columns(ctx, db, table)
		if err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("%s: not a readable SQLite database: %w", agent, err)
		}
		for _, n := range names {
			if !c[n] {
				missing = append(missing, table+"."+n)
			}
		}
		cols[table] = c
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		db.Close()
		return nil, nil, errors.New(agent + ": not " + what + ": it lacks " + strings.Join(missing, ", "))
	}
	return db, cols, nil
}
