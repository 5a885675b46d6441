package store

import "testing"

func TestReplacesSessions(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		want bool
	}{
		{"INSERT OR REPLACE INTO sessions(session_key) VALUES ('k')", true},
		{"REPLACE INTO sessions VALUES ('k', NULL, NULL, 1)", true},
		{"insert or replace into Sessions(session_key) values (?)", true},
		{"  -- keep it fresh\n /* upsert */ INSERT\tOR REPLACE INTO main.sessions(session_key) VALUES (?)", true},
		{`INSERT OR REPLACE INTO "sessions"(session_key) VALUES (?)`, true},
		{"INSERT OR REPLACE INTO [main].[sessions] VALUES (?)", true},
		{"INSERT OR REPLACE INTO `sessions` VALUES (?)", true},
		{`REPLACE INTO "main" . "SESSIONS" VALUES (?)`, true},
		{"INSERT INTO sessions(session_key) VALUES (?)", false},
		{"INSERT INTO sessions(session_key) VALUES (?) ON CONFLICT(session_key) DO UPDATE SET created_at = excluded.created_at", false},
		{"INSERT OR IGNORE INTO sessions(session_key) VALUES (?)", false},
		{"INSERT OR REPLACE INTO sessions_archive VALUES (?)", false},
		{"INSERT OR REPLACE INTO transcript_events VALUES (?, ?, ?)", false},
		{`INSERT OR REPLACE INTO "sessions x" VALUES (?)`, false},
		{"DELETE FROM sessions WHERE session_key = ?", false},
		{"UPDATE OR REPLACE sessions SET created_at = 1", false},
		{"SELECT 'INSERT OR REPLACE INTO sessions'", false},
		{"-- INSERT OR REPLACE INTO sessions\nDELETE FROM sessions", false},
		{"/* unterminated", false},
		{"", false},
	} {
		if got := ReplacesSessions(tt.sql); got != tt.want {
			t.Errorf("ReplacesSessions(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}
