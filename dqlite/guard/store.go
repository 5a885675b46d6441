package guard

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// execQuerier is a *sql.DB, *sql.Conn or *sql.Tx.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Migrate creates or upgrades the transcript store through the exec path and
// returns the schema version it then reads (docs/cluster.md K2).
func Migrate(ctx context.Context, db execQuerier) (int, error) {
	if _, err := db.ExecContext(ctx, Wrapped("sessionsearch_migrate()")); err != nil {
		return 0, err
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT value FROM sessionsearch_meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sessionsearch_migrate: reading the schema version: %w", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("sessionsearch_migrate: schema_version %q is not a number", v)
	}
	return n, nil
}

// Reconcile runs sessions_reconcile(budget) through the exec path and
// reports the sessions still pending after it (docs/cluster.md K2).
func Reconcile(ctx context.Context, db execQuerier, budget time.Duration) (pending int, err error) {
	if _, err := db.ExecContext(ctx, Wrapped("sessions_reconcile(?1)"), budget.Milliseconds()); err != nil {
		return 0, err
	}
	var js string
	if err := db.QueryRowContext(ctx, `SELECT sessions_index_status()`).Scan(&js); err != nil {
		return 0, err
	}
	var st struct {
		PendingSessions int `json:"pendingSessions"`
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return 0, fmt.Errorf("sessions_index_status returned %q: %w", js, err)
	}
	return st.PendingSessions, nil
}
