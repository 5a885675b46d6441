package guard

import (
	"errors"
	"testing"
)

// TestCheck is the table of docs/cluster.md K1, K2, K4 and K10: which statements
// each path refuses, by which rule, naming what.
func TestCheck(t *testing.T) {
	tests := []struct {
		path      Path
		statement string
		rule      string // "" when allowed
		name      string
	}{
		// K1: a query never writes.
		{Query, `SELECT sessionsearch_migrate()`, "K1", "sessionsearch_migrate"},
		{Query, `select SESSIONS_RECONCILE(50)`, "K1", "sessions_reconcile"},
		{Query, `SELECT "sessions_defer_indexing"(1)`, "K1", "sessions_defer_indexing"},
		{Query, `SELECT sessionsearch_tool_index(1)`, "K1", "sessionsearch_tool_index"},
		{Query, `SELECT x FROM t WHERE (SELECT sessions_reconcile(1)) IS NULL`, "K1", "sessions_reconcile"},
		{Query, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?) RETURNING seq`, "K1", "INSERT"},
		{Query, `  -- a comment
			DELETE FROM sessions WHERE session_key = ?`, "K1", "DELETE"},
		{Query, `WITH k(v) AS (SELECT 1) UPDATE t SET a = (SELECT v FROM k)`, "K1", "UPDATE"},
		{Query, `CREATE TABLE t(a)`, "K1", "CREATE"},
		{Query, `PRAGMA user_version = 3`, "K1", "user_version"},
		{Query, `PRAGMA main.user_version(3)`, "K1", "user_version"},
		{Query, `SELECT sessions_search(?, ?)`, "", ""},
		{Query, `SELECT replace(event, 'a', 'b') FROM transcript_events`, "", ""},
		{Query, `SELECT 'sessionsearch_migrate()' AS text, "insert" FROM t -- sessions_reconcile(1)`, "", ""},
		{Query, `SELECT /* sessionsearch_migrate() */ 1`, "", ""},
		{Query, `WITH k(v) AS (SELECT 1) SELECT v FROM k`, "", ""},
		{Query, `SELECT sessions_reconcile FROM t`, "", ""}, // a column, not a call
		{Query, `PRAGMA integrity_check`, "", ""},
		{Query, `PRAGMA table_info(sessions)`, "", ""},
		{Query, `SELECT count(*) FROM sessions`, "", ""},
		// K2: an exec returns no row.
		{Exec, `SELECT sessionsearch_migrate()`, "K2", "sessionsearch_migrate"},
		{Exec, `SELECT 1, sessions_reconcile(50) AS r`, "K2", "sessions_reconcile"},
		{Exec, `SELECT (SELECT sessions_defer_indexing(1))`, "K2", "sessions_defer_indexing"},
		{Exec, `INSERT INTO t(a) VALUES (1) RETURNING a`, "K2", "RETURNING"},
		{Exec, `SELECT 1 WHERE sessionsearch_migrate() IS NOT NULL`, "K2", "sessionsearch_migrate"},
		{Exec, `SELECT (SELECT 1 WHERE sessions_reconcile(5) IS NULL)`, "K2", "sessions_reconcile"},
		{Exec, Wrapped("sessionsearch_migrate()"), "", ""},
		{Exec, Wrapped("sessions_reconcile(?1)"), "", ""},
		{Exec, Wrapped("sessionsearch_tool_index(1)"), "", ""},
		{Exec, `SELECT 1 WHERE (SELECT sessions_defer_indexing(0)) IS NULL`, "", ""},
		{Exec, `INSERT INTO t(a) VALUES ('returning')`, "", ""},
		{Exec, `DELETE FROM sessions WHERE session_key = ?1`, "", ""},
		{Exec, `PRAGMA foreign_keys = ON`, "", ""},
		// K4: checkpoints and the journal belong to dqlite.
		{Exec, `PRAGMA wal_checkpoint(TRUNCATE)`, "K4", "wal_checkpoint"},
		{Query, `pragma main.wal_checkpoint`, "K4", "wal_checkpoint"},
		{Exec, `PRAGMA journal_mode = DELETE`, "K4", "journal_mode"},
		{Exec, ``, "", ""},
		// K10: the guard runs the transactions.
		{Exec, `BEGIN`, "K10", "BEGIN"},
		{Exec, `begin immediate transaction`, "K10", "BEGIN"},
		{Exec, `COMMIT`, "K10", "COMMIT"},
		{Exec, `END TRANSACTION`, "K10", "END"},
		{Exec, `ROLLBACK`, "K10", "ROLLBACK"},
		{Exec, `SAVEPOINT s1`, "K10", "SAVEPOINT"},
		{Exec, `RELEASE s1`, "K10", "RELEASE"},
		{Query, `BEGIN`, "K10", "BEGIN"},
		{Exec, `INSERT INTO t(a) VALUES ('begin')`, "", ""},
	}
	for _, tt := range tests {
		err := Check(tt.path, tt.statement)
		if tt.rule == "" {
			if err != nil {
				t.Errorf("Check(%s, %q) = %v, want it allowed", tt.path, tt.statement, err)
			}
			continue
		}
		var ge *Error
		if !errors.As(err, &ge) {
			t.Errorf("Check(%s, %q) = %v, want a refusal by %s", tt.path, tt.statement, err, tt.rule)
			continue
		}
		if ge.Rule != tt.rule || ge.Name != tt.name || ge.Path != tt.path {
			t.Errorf("Check(%s, %q) refused by %s naming %q, want %s naming %q (%v)", tt.path, tt.statement, ge.Rule, ge.Name, tt.rule, tt.name, err)
		}
	}
}
