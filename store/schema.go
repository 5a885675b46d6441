package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// SchemaVersion is what sessionsearch_migrate() returns. Version 1 kept each
// entry's state as a positional JSON array; version 2 keeps a Record, by
// name; version 3 keeps each of its facts once (docs/store.md S42).
const SchemaVersion = 3

// PathVersion identifies the active-path rule (package transcript): 2 since
// reset entries are boundaries (docs/store.md S6). Migrate replays the
// sessions the change affects.
const PathVersion = "2"

// IndexVersion identifies what the index holds: the tokenizer's tokens of
// the text masked by the redaction rules (textVersion), and the layout of
// its entries, the schema version. Another value in sessionsearch_meta
// means the index must be migrated before it is changed (docs/store.md
// S12): every write of a build checks it, so that a build older than the
// layout refuses to write entries it would misread (S43).
var IndexVersion = textVersion + "." + strconv.Itoa(SchemaVersion)

// textVersion is the part of IndexVersion that the index's tokens depend
// on: Migrate rebuilds the index when a store records another.
var textVersion = fmt.Sprintf("%d.%d", tokenizer.Version, redact.Version)

// builtText is the textVersion of a recorded index version, which before
// schema 3 had only that part.
func builtText(index string) string {
	parts := strings.SplitN(index, ".", 3)
	return strings.Join(parts[:min(2, len(parts))], ".")
}

// An object is one named part of the schema.
type object struct {
	kind string // "TABLE", "INDEX", "VIRTUAL TABLE", "VIEW" or "TRIGGER"
	name string
	def  string // what follows the name in CREATE
}

// metaTable records the store's versions; its creation is the first write
// of a migration (meta.writeLock).
var metaTable = object{"TABLE", "sessionsearch_meta", `(key TEXT PRIMARY KEY, value) WITHOUT ROWID`}

func (o object) create() string {
	return "CREATE " + o.kind + " IF NOT EXISTS " + o.name + " " + o.def
}

// The tables: the two the hosts write (docs/store.md S1), and the store's
// own.
var tables = []object{
	{"TABLE", "sessions", `(
		session_key        TEXT PRIMARY KEY,
		spawned_by         TEXT,
		parent_session_key TEXT,
		created_at         INTEGER)`},
	{"INDEX", "sessions_spawned_by", `ON sessions(spawned_by)`},
	{"INDEX", "sessions_parent_session_key", `ON sessions(parent_session_key)`},
	{"TABLE", "transcript_events", `(
		session_key TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE,
		seq         INTEGER NOT NULL,
		event       TEXT NOT NULL,
		PRIMARY KEY (session_key, seq))`},
	metaTable,
	// One row per session: its number and indexing state. rebuilt_seq:
	// NULL when every event has its entry; for events that predate the
	// store, the seq up to which Reconcile has read them.
	{"TABLE", "sessionsearch_sessions", `(
		sid         INTEGER PRIMARY KEY,
		session_key TEXT NOT NULL UNIQUE,
		pending     INTEGER NOT NULL DEFAULT 0,
		rebuilt_seq INTEGER)`},
	{"INDEX", "sessionsearch_sessions_pending", `ON sessionsearch_sessions(pending) WHERE pending`},
	entriesTable,
	{"VIRTUAL TABLE", "sessionsearch_fts", `USING fts5(text, tokenize='sessionsearch',
		content='sessionsearch_content', content_rowid='id')`},
	// The index's terms, where a search looks up the other forms of its
	// words (docs/search.md Q28); it holds no data of its own.
	{"VIRTUAL TABLE", "sessionsearch_vocab", `USING fts5vocab(sessionsearch_fts, row)`},
}

// entriesTable has one row per event, its Record with each fact once
// (docs/store.md S42): what SQL reads in columns of their own, the rest in
// info (for Go), and the tip's key NULL where it is the row's entry_id
// (tipKeySQL).
var entriesTable = object{"TABLE", "sessionsearch_entries", `(
		id           INTEGER PRIMARY KEY,
		info         TEXT NOT NULL, -- parent, target and flags (Record.AppendInfo)
		message      INTEGER NOT NULL DEFAULT 0,
		active       INTEGER NOT NULL DEFAULT 0,
		entry_id     TEXT,
		role         TEXT,
		ts           INTEGER NOT NULL DEFAULT 0,
		tip_leaf     INTEGER NOT NULL DEFAULT -1,
		tip_key      TEXT,
		tip_messages INTEGER NOT NULL DEFAULT 0,
		sid          INTEGER AS (id >> 32) VIRTUAL)`}

// The views and triggers, without (derived[0]) and with (derived[1]) the
// tool index's (toolObjects).
var derived = [2][]object{derivedObjects(false), derivedObjects(true)}

func derivedObjects(tools bool) []object {
	// only is sql when the store keeps the tool index, else nothing: the
	// schema of a store without it is the one before the tool index.
	only := func(sql string) string {
		if tools {
			return sql
		}
		return ""
	}
	objects := []object{
		// What the index holds: the masked text of each active message.
		{"VIEW", "sessionsearch_content", `(id, text) AS
		SELECT e.id, sessionsearch_message_text(s.session_key, e.id & 4294967295, t.event)
		FROM sessionsearch_entries AS e
		JOIN sessionsearch_sessions AS s ON s.sid = e.id >> 32
		JOIN transcript_events AS t ON t.session_key = s.session_key AND t.seq = e.id & 4294967295
		WHERE e.active AND e.message`},
		// The searchable messages, by FTS5 rowid, for queries such as the
		// single SELECT of docs/search.md.
		{"VIEW", "sessionsearch_messages", `AS
		SELECT e.id AS rowid, s.session_key, e.entry_id AS message_id, e.role, e.ts AS timestamp, s.pending
		FROM sessionsearch_entries AS e JOIN sessionsearch_sessions AS s ON s.sid = e.sid
		WHERE e.active AND e.message`},

		// Keys are text (KeyProblem), checked before the row is written.
		{"TRIGGER", "sessionsearch_session_check", `BEFORE INSERT ON sessions BEGIN
		SELECT sessionsearch_refuse('sessions', p, NEW.session_key, NULL)
			FROM (SELECT sessionsearch_key_problem(NEW.session_key, NEW.spawned_by, NEW.parent_session_key) AS p LIMIT -1 OFFSET 0) WHERE p IS NOT NULL;
	END`},
		{"TRIGGER", "sessionsearch_session_check_links", `BEFORE UPDATE OF spawned_by, parent_session_key ON sessions BEGIN
		SELECT sessionsearch_refuse('sessions', p, NEW.session_key, NULL)
			FROM (SELECT sessionsearch_key_problem(NEW.session_key, NEW.spawned_by, NEW.parent_session_key) AS p LIMIT -1 OFFSET 0) WHERE p IS NOT NULL;
		` + renewChangeSQL + `;
	END`},
		{"TRIGGER", "sessionsearch_session_insert", `AFTER INSERT ON sessions BEGIN
		INSERT INTO sessionsearch_sessions(session_key) VALUES (NEW.session_key)
			ON CONFLICT(session_key) DO NOTHING;
		` + renewChangeSQL + `;
	END`},
		{"TRIGGER", "sessionsearch_session_rename", `BEFORE UPDATE OF session_key ON sessions
		WHEN OLD.session_key IS NOT NEW.session_key BEGIN
		SELECT sessionsearch_refuse('sessions', 'session_key cannot change: insert the session under its new key', OLD.session_key, NULL);
	END`},
		// Before the row goes, so that deleting its events (here, or by a
		// foreign-key cascade) is not refused as an edit of a live transcript;
		// index rows first, while the content view still shows their text.
		{"TRIGGER", "sessionsearch_session_delete", `BEFORE DELETE ON sessions BEGIN
		SELECT sessionsearch_refuse('sessions', '` + replaceRefused + `', OLD.session_key, NULL)
			WHERE sessionsearch_replacing();
		SELECT sessionsearch_refuse('sessions', '` + staleIndex + `', OLD.session_key, NULL)
			WHERE (SELECT value FROM sessionsearch_meta WHERE key = 'index_version') IS NOT sessionsearch_index_version();
		DELETE FROM sessionsearch_fts WHERE rowid BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;` + only(`
		DELETE FROM sessionsearch_tools WHERE rowid BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;`) + `
		DELETE FROM sessionsearch_entries WHERE id BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;
		DELETE FROM sessionsearch_sessions WHERE session_key = OLD.session_key;
		DELETE FROM transcript_events WHERE session_key = OLD.session_key;
		` + forgetMarkSQL + `;
		` + renewChangeSQL + `;
	END`},
		{"TRIGGER", "sessionsearch_event_update", `BEFORE UPDATE ON transcript_events BEGIN
		SELECT sessionsearch_refuse('transcript_events', 'events are append-only: delete the session and insert it again', OLD.session_key, OLD.seq);
	END`},
		{"TRIGGER", "sessionsearch_event_delete", `BEFORE DELETE ON transcript_events
		WHEN EXISTS (SELECT 1 FROM sessionsearch_sessions WHERE session_key = OLD.session_key) BEGIN
		SELECT sessionsearch_refuse('sessions', '` + replaceRefused + `', OLD.session_key, NULL)
			WHERE sessionsearch_replacing();
		SELECT sessionsearch_refuse('transcript_events', 'events are append-only: delete the whole session from sessions', OLD.session_key, OLD.seq);
	END`},
		// Not while a bulk load writes the rows itself (Load).
		{"TRIGGER", "sessionsearch_event_insert", `AFTER INSERT ON transcript_events WHEN NOT sessionsearch_loading() BEGIN
		-- The entry's Record, from the event and the session's newest
		-- entry (its tip). sessionsearch_entry refuses unknown sessions,
		-- bad events, a seq stored before (INSERT OR REPLACE) and an index
		-- of another version; it marks the session pending when the event
		-- is out of order or this connection defers indexing.
		-- The result r is split into the row's columns (store.Record).
		INSERT INTO sessionsearch_entries(` + entryColumns + `)
			SELECT id, r -> 'info', r ->> 'message', r ->> 'active', r ->> 'id', r ->> 'role',
				r ->> 'ts', r ->> '$.tip.leaf', ` + tipKeySQL(`r ->> '$.tip.key'`, `r ->> 'id'`) + `, r ->> '$.tip.messages'
			FROM (SELECT (s.sid << 32) | NEW.seq AS id,
					sessionsearch_entry(NEW.session_key, NEW.seq, NEW.event, s.sid, s.pending,
						EXISTS (SELECT 1 FROM sessionsearch_entries e WHERE e.id = (s.sid << 32) | NEW.seq),
						(SELECT value FROM sessionsearch_meta WHERE key = 'index_version'),
						t.id, t.tip_leaf, ` + tipKeyOf("t") + `, t.tip_messages) AS r
				FROM (SELECT 1) LEFT JOIN sessionsearch_sessions s ON s.session_key = NEW.session_key
					LEFT JOIN sessionsearch_entries t ON t.id = (SELECT l.id FROM sessionsearch_entries l
						WHERE l.id BETWEEN s.sid << 32 AND (s.sid << 32) | 4294967295 ORDER BY l.id DESC LIMIT 1)
				-- OFFSET keeps SQLite from flattening the subquery, which
				-- would call sessionsearch_entry once for each use of r.
				LIMIT -1 OFFSET 0);
		-- The common case: the entry extends the active path.
		INSERT INTO sessionsearch_fts(rowid, text)
			SELECT id, sessionsearch_message_text(NEW.session_key, NEW.seq, NEW.event) FROM sessionsearch_entries
			WHERE id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND active AND message;` + only(`
		-- Its tool text, in the tool index (S30, S33).
		INSERT INTO sessionsearch_tools(rowid, text)
			SELECT e.id, sessionsearch_tool_text(NEW.event) FROM sessionsearch_entries AS e
			WHERE e.id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND e.active AND `+toolRolesSQL+`;`) + `
		-- A leaf entry or a branch: replay the session.
		SELECT sessionsearch_repath(e.sid) FROM sessionsearch_entries e
			WHERE e.id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND e.info ->> 'moves';
	END`},
	}
	if tools {
		objects = append(objects, toolViews...)
	}
	return objects
}

// changeKey is the sessionsearch_meta row of the change token: a random
// value that the store renews at every change of what visibility decisions
// read (the sessions, their links, their indexing state), and only then, so
// that a connection keeps its decisions across appends (docs/search.md
// Q21). The session triggers renew it, and setPending. Random, not
// counted: a rolled-back change must not bring back a value that a
// decision was kept under. Not a trigger on sessionsearch_sessions: a
// trigger would give each of the store's own updates of that table a
// statement savepoint, where FTS5 writes its pending terms out.
const changeKey = "sessions_change"

// renewChangeSQL gives the change token a new value.
const renewChangeSQL = `UPDATE sessionsearch_meta SET value = randomblob(8) WHERE key = '` + changeKey + `'`

// setPending sets the indexing state of session sid, and renews the change
// token.
func setPending(c Conn, sid int64, pending bool) error {
	if err := c.Exec(`UPDATE sessionsearch_sessions SET pending = ?2 WHERE sid = ?1`, sid, pending); err != nil {
		return err
	}
	return c.Exec(renewChangeSQL)
}

// ChangeSQL returns one row: the change token while the database has this
// build's schema (its digest is this build's, so its triggers keep the
// token), NULL otherwise, when a connection's visibility decisions are kept
// only while the database is unchanged. Stepped and not reset, it holds a
// read transaction.
var ChangeSQL = `SELECT (SELECT value FROM sessionsearch_meta WHERE key = '` + changeKey + `'
	AND (SELECT value FROM sessionsearch_meta WHERE key = 'schema_digest') IN ('` + schemaDigest[0] + `', '` + schemaDigest[1] + `'))`

// replaceRefused is the refusal of an INSERT OR REPLACE into sessions that
// would delete the row it replaces (ReplacesSessions, docs/store.md S18).
const replaceRefused = `INSERT OR REPLACE would delete the session and its transcript: update the row with INSERT INTO sessions ... ON CONFLICT(session_key) DO UPDATE SET ... instead`

// staleIndex is the refusal of a write to an index built by another
// version.
const staleIndex = `the search index was built by another version of sessionsearch: run SELECT sessionsearch_migrate() first`

// schemaDigest identifies this build's schema, without and with the tool
// index: Migrate creates the views and triggers again when the database
// records another one.
var schemaDigest = [2]string{digestOf(false), digestOf(true)}

func digestOf(tools bool) string {
	h := sha256.New()
	objects := append(slices.Clone(tables), derived[toolsIndex(tools)]...)
	if tools {
		objects = append(objects, toolTable)
	}
	for _, o := range objects {
		fmt.Fprintf(h, "%s\x00", o.create())
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// toolsIndex is the index of schemaDigest and derived for a store that
// keeps the tool index or not.
func toolsIndex(tools bool) int {
	if tools {
		return 1
	}
	return 0
}

// dropDerived drops the views and triggers of every schema version, which
// hold no data of their own: Migrate creates this build's again.
func dropDerived(c Conn) error {
	var drops []string
	err := c.Query(`SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'trigger') AND name LIKE 'sessionsearch\_%' ESCAPE '\'`,
		func(r Row) error {
			drops = append(drops, "DROP "+strings.ToUpper(r.Text(0))+" IF EXISTS "+r.Text(1))
			return nil
		})
	if err != nil {
		return err
	}
	for _, d := range drops {
		if err := c.Exec(d); err != nil {
			return err
		}
	}
	return nil
}
