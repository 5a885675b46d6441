-- The tables of an OpenClaw per-agent database (agent schema 23) that hold
-- sessions and transcripts, written for sessionsearch's tests from
-- OpenClaw's documentation (docs/reference/database-schemas/layout.md,
-- agent-schema-history.md: schema 14 session nodes and windows, 20 cold
-- archives, 22/23 FTS row map and compressed events) and the column lists
-- of src/state/openclaw-agent-schema.sql in openclaw/openclaw. Only what a
-- gateway writes for transcripts is here; STRICT as in OpenClaw since
-- schema 9.
PRAGMA user_version = 23;

CREATE TABLE schema_meta (
  meta_key       TEXT NOT NULL PRIMARY KEY,
  role           TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  agent_id       TEXT,
  app_version    TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
) STRICT;

CREATE TABLE session_nodes (
  session_key        TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json         TEXT NOT NULL,
  entry_valid        INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at         INTEGER NOT NULL,
  created_at         INTEGER,
  parent_session_key TEXT,
  spawned_by         TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id  TEXT,
  fork_source_entry_id    TEXT,
  label              TEXT,
  pinned_at          INTEGER,
  archived_at        INTEGER,
  last_activity_at   INTEGER
) STRICT;

CREATE TABLE session_windows (
  session_id          TEXT NOT NULL PRIMARY KEY,
  session_key         TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  parent_session_key    TEXT,
  spawned_by            TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE
) STRICT;
CREATE INDEX idx_agent_session_windows_session_key ON session_windows(session_key, updated_at DESC, session_id);

CREATE TABLE transcript_events (
  session_id       TEXT NOT NULL,
  seq              INTEGER NOT NULL,
  event_json       TEXT,
  created_at       INTEGER NOT NULL,
  event_zstd       BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json  TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE,
  CHECK ((event_json IS NOT NULL AND event_zstd IS NULL)
      OR (event_json IS NULL AND event_zstd IS NOT NULL AND event_utf8_bytes BETWEEN 1 AND 4194304
          AND length(event_zstd) BETWEEN 1 AND 4194304 AND navigation_json IS NOT NULL))
) STRICT;

CREATE TABLE transcript_rewrite_watermarks (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE session_transcript_archives (
  session_id     TEXT NOT NULL,
  generation     TEXT NOT NULL,
  session_key    TEXT NOT NULL,
  reason         TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')),
  encoding       TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob   BLOB NOT NULL,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  archive_name   TEXT NOT NULL UNIQUE,
  created_at     INTEGER NOT NULL,
  published_at   INTEGER,
  PRIMARY KEY (session_id, generation),
  CHECK (archive_name NOT LIKE '%/%')
) STRICT;

CREATE TABLE session_transcript_cold_archives (
  session_id     TEXT NOT NULL PRIMARY KEY,
  generation     TEXT NOT NULL,
  archive_name   TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  event_count    INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes      INTEGER NOT NULL CHECK (raw_bytes >= 0),
  archive_bytes  INTEGER NOT NULL CHECK (archive_bytes >= 0),
  last_seq       INTEGER NOT NULL,
  archived_at    INTEGER NOT NULL,
  storage        TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')),
  archive_blob   BLOB,
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE,
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR (storage = 'sqlite' AND archive_blob IS NOT NULL))
) STRICT;

-- OpenClaw's own search index (schema 23), kept here so the database looks
-- like a gateway's; sync never reads it.
CREATE TABLE session_transcript_index_state (
  session_id    TEXT NOT NULL PRIMARY KEY,
  indexed_seq   INTEGER NOT NULL,
  leaf_event_id TEXT,
  needs_rebuild INTEGER NOT NULL DEFAULT 0,
  updated_at    INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;
CREATE VIRTUAL TABLE session_transcript_fts USING fts5(
  text, session_id UNINDEXED, message_id UNINDEXED, role UNINDEXED, timestamp UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE session_transcript_fts_rows (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  message_id TEXT
) STRICT;
