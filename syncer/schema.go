package syncer

import (
	"context"
	"database/sql"
)

// The watermark tables (docs/sync.md Y9). A unit is one transcript
// generation of a source: a window or archive of an agent database, or a
// JSONL file; it fills exactly one store session.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS sessionsearch_sync_sources(
		path       TEXT PRIMARY KEY,
		stamp      TEXT NOT NULL,
		checked_at INTEGER NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS sessionsearch_sync_units(
		source             TEXT NOT NULL,
		unit               TEXT NOT NULL,
		session_key        TEXT NOT NULL,
		kind               TEXT NOT NULL,
		session_id         TEXT NOT NULL,
		generation         TEXT NOT NULL,
		position           INTEGER NOT NULL,
		next_seq           INTEGER NOT NULL,
		tail_hash          INTEGER,
		resumable          INTEGER NOT NULL,
		spawned_by         TEXT,
		parent_session_key TEXT,
		created_at         INTEGER,
		PRIMARY KEY (source, unit)) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS sessionsearch_sync_units_key ON sessionsearch_sync_units(session_key)`,
	// Which store sessions are archives, for SQL users (docs/sync.md Y7).
	`CREATE VIEW IF NOT EXISTS sessionsearch_sync_archives(session_key, kind, session_id, source) AS
		SELECT session_key, kind, session_id, source FROM sessionsearch_sync_units
		WHERE kind IN ('cold', 'reset', 'deleted')`,
}

func ensureSchema(ctx context.Context, conn *sql.Conn) error {
	for _, stmt := range schema {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
