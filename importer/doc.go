// Package importer reads OpenClaw's transcripts (session JSONL files, whole
// state directories and per-agent SQLite databases) and hands them, one
// transcript at a time, to a Sink. It owns every decision about what an
// OpenClaw file means: which files are transcripts, which session key each
// one gets, how older format versions are brought up to date, and which
// problems skip a line and which fail a transcript. It knows nothing of the
// search index: SQLSink stores transcripts with the plain SQL of the
// transcript store (sessions and transcript_events), and the store indexes
// them.
//
// # Sources (read in openclaw/openclaw and badlogic/pi-mono; no code copied)
//
// Session files are JSONL: a header {"type":"session","version":N,"id",
// "timestamp","cwd"} and one entry per line
// (badlogic/pi-mono packages/coding-agent/src/core/session-manager.ts
// @0507789f). Versions:
//
//   - 1 (no "version" in the header): entries have no id or parentId, and a
//     compaction names its first kept entry by index (firstKeptEntryIndex).
//   - 2: entries carry id and parentId; hook messages have role
//     "hookMessage".
//   - 3: role "hookMessage" became "custom" (customType "hook" when unset;
//     openclaw/openclaw src/agents/sessions/session-manager-codec.ts
//     @14b4d3be).
//   - 4: new sessions only; entries are read as written, like version 3
//     (CURRENT_SESSION_VERSION 4, MIN_READABLE_SESSION_VERSION 3 in
//     src/config/sessions/version.ts, seen in the fork
//     zeroaltitude/openclaw @56408ac6).
//
// State directories hold agents/<agentId>/sessions/ with sessions.json (a
// JSON object from session key to entry: sessionId, sessionFile, spawnedBy,
// parentSessionKey, sessionStartedAt, usageFamilySessionIds; openclaw/openclaw
// src/config/sessions/types.ts @005a4316) and transcript files named by
// src/config/sessions/artifacts.ts @08495516: <sessionId>.jsonl (live),
// <file>.reset.<ts>, <file>.deleted.<ts> and <file>.bak.<ts> archives
// (ts = ISO 8601 UTC with ":" written "-"), <sessionId>.checkpoint.<uuid>.jsonl
// pre-compaction copies, and *.trajectory.jsonl runtime logs.
//
// Agent databases are agents/<agentId>/agent/openclaw-agent.sqlite
// (docs/reference/database-schemas/layout.md @26bb0906). session_nodes has
// one row per session key, whose current_session_id names its live
// transcript generation; session_windows one row per generation
// (session_id, session_key, parent_session_key, spawned_by, created_at);
// transcript_events (session_id, seq, event_json) the events
// (src/state/openclaw-agent-schema.sql @0b03f834). An event is one JSONL
// line, the session header included. Since agent schema 23 an event of
// 1 KiB to 4 MiB may instead be a zstd frame in event_zstd, with its
// decoded length in event_utf8_bytes and event_json NULL
// (src/config/sessions/transcript-payload.ts @252fccdb, which also keeps
// headers as events;
// docs/reference/database-schemas/agent-schema-history.md @26bb0906).
//
// # Decisions
//
// One transcript generation is one session of the store, written in one
// transaction, so an import that is killed loses at most the transcript it
// was writing, and running it again finishes the job.
//
// Session keys. A live transcript whose session id sessions.json (or the
// database's session_nodes) maps to a key K gets K; a key without the
// "agent:" prefix is read in its agent's store and becomes
// "agent:<agentId>:<K>". Every other transcript (no sessions.json entry, an
// archived generation, a database window that is not its key's current one)
// gets the derived key "agent:<agentId>:session:<sessionId>", where the
// session id is the header's id, else the file name's. Copies of one
// generation (a .reset file and the same generation in a database) therefore
// share a key: importing the second adds only what the first lacked, and a
// copy that disagrees is reported as a conflict. When the key K that a
// generation belonged to is known (usageFamilySessionIds in sessions.json,
// session_windows.session_key in a database), the derived session links to
// K through parent_session_key, so K sees its own earlier generations under
// "tree" visibility. If K is incognito, the derived key's last part starts
// with "incognito-" too ("agent:<agentId>:session:incognito-<sessionId>"),
// so an archived generation is as private as the session it came from.
//
// Archives. .reset files are imported (they are the history before /reset).
// .deleted files are skipped unless IncludeDeleted is set. .bak files,
// checkpoint copies and trajectory logs are skipped: they repeat a
// transcript that is imported anyway or are not transcripts. In a state
// directory, a JSONL file whose session id is in the same agent's database is
// skipped, because the database holds the same generation and is newer.
// A file named on the command line is always imported, whatever its suffix.
//
// Versions. Version 3 and 4 lines are stored as written. Version 1 and 2
// entries are migrated as OpenClaw migrates them when it loads the file,
// except that version 1 entry ids are not random: entry number n of the file
// (the header is 0) gets the id "v1-<n>" and its predecessor as parentId, so
// importing twice gives the same events. A transcript without a header is
// stored as written. A migrated entry is re-encoded, so its keys are sorted.
//
// Problems. A line that is not a JSON object with a string "type", or is
// longer than MaxLineBytes, is reported with its file and line and skipped;
// the rest of the file is imported, numbered without it. A write that the
// store refuses, or an event that differs from the one already stored at the
// same position (another copy of the transcript was imported first, or the
// file was rewritten), rolls the transcript back and reports it.
package importer
