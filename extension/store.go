package extension

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"time"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/tokenizer"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// The transcript store. Hosts write `sessions` and `transcript_events` with
// plain SQL; triggers keep the search index equal to the user and assistant
// text on each session's active path, in the same transaction:
//
//   - An appended event that extends the active path (the common case) is
//     indexed by the trigger's own SQL, compiled once with the INSERT.
//   - Any other change of the path (a leaf entry, a branch, a duplicate id)
//     calls sessionsearch_repath, which replays the session's entries with
//     the rules of package transcript and applies the difference. Sessions
//     over maxInlineMessages messages are deferred instead.
//   - Bulk loading (sessions_defer_indexing), events that predate the schema
//     or arrive out of order mark the session pending: it is left out of
//     search until sessions_reconcile has rebuilt it.
//
// Internal tables are prefixed sessionsearch_. The FTS5 rowid of a message,
// like the id of every entry, is sid<<32 | seq, so a session's rows form one
// rowid range and its visibility can be read off the rowid.

// SchemaVersion is what sessionsearch_migrate() returns.
const SchemaVersion = 1

// maxInlineMessages is the size up to which a branch or rewind is indexed in
// the same transaction (contract: sessions over 10,000 messages may defer).
const maxInlineMessages = 10000

// Entry flags, stored in the entry's info.
const (
	flagMessage = 1 // a user or assistant message with text
	flagLeaf    = 2 // a leaf entry
	flagSide    = 4 // appendMode side
)

var schema = []string{
	`CREATE TABLE IF NOT EXISTS sessions(
		session_key        TEXT PRIMARY KEY,
		spawned_by         TEXT,
		parent_session_key TEXT,
		created_at         INTEGER)`,
	`CREATE INDEX IF NOT EXISTS sessions_spawned_by ON sessions(spawned_by)`,
	`CREATE INDEX IF NOT EXISTS sessions_parent_session_key ON sessions(parent_session_key)`,
	`CREATE TABLE IF NOT EXISTS transcript_events(
		session_key TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE,
		seq         INTEGER NOT NULL,
		event       TEXT NOT NULL,
		PRIMARY KEY (session_key, seq))`,
	`CREATE TABLE IF NOT EXISTS sessionsearch_meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID`,
	// One row per session: its number, leaf, size and indexing state.
	// last_seq: the highest seq appended. rebuilt_seq: NULL when every event
	// has its entry; for events that predate the store, the seq up to which
	// sessions_reconcile has read them.
	`CREATE TABLE IF NOT EXISTS sessionsearch_sessions(
		sid         INTEGER PRIMARY KEY,
		session_key TEXT NOT NULL UNIQUE,
		leaf_id     TEXT,
		messages    INTEGER NOT NULL DEFAULT 0,
		pending     INTEGER NOT NULL DEFAULT 0,
		last_seq    INTEGER NOT NULL DEFAULT -1,
		rebuilt_seq INTEGER)`,
	`CREATE INDEX IF NOT EXISTS sessionsearch_sessions_pending ON sessionsearch_sessions(pending) WHERE pending`,
	// One row per event: info is sessionsearch_entry()'s JSON array
	// [id, hasParent, parentId, flags, role, timestamp, targetId, extends];
	// extends is 1 when, at append time, the entry continued the active path.
	`CREATE TABLE IF NOT EXISTS sessionsearch_entries(
		id       INTEGER PRIMARY KEY,
		info     TEXT NOT NULL,
		active   INTEGER NOT NULL DEFAULT 0,
		sid      INTEGER AS (id >> 32) STORED,
		entry_id TEXT AS (info ->> 0) STORED,
		flags    INTEGER AS (info ->> 3) STORED,
		ts       INTEGER AS (info ->> 5) VIRTUAL)`,
	`CREATE INDEX IF NOT EXISTS sessionsearch_entries_by_id ON sessionsearch_entries(sid, entry_id)`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS sessionsearch_fts USING fts5(text, tokenize='sessionsearch')`,
	// The searchable messages, by FTS5 rowid, for queries such as the
	// README's single SELECT.
	`CREATE VIEW IF NOT EXISTS sessionsearch_messages AS
		SELECT e.id AS rowid, s.session_key, e.entry_id AS message_id, e.info ->> 4 AS role, e.ts AS timestamp, s.pending
		FROM sessionsearch_entries AS e JOIN sessionsearch_sessions AS s ON s.sid = e.sid
		WHERE e.active AND e.flags & 1`,

	`CREATE TRIGGER IF NOT EXISTS sessionsearch_session_insert AFTER INSERT ON sessions BEGIN
		INSERT INTO sessionsearch_sessions(session_key) VALUES (NEW.session_key)
			ON CONFLICT(session_key) DO NOTHING;
	END`,
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_session_rename BEFORE UPDATE OF session_key ON sessions
		WHEN OLD.session_key IS NOT NEW.session_key BEGIN
		SELECT sessionsearch_refuse('sessions', 'session_key cannot change: insert the session under its new key', OLD.session_key, NULL);
	END`,
	// Before the row goes, so that deleting its events (here, or by a
	// foreign-key cascade) is not refused as an edit of a live transcript.
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_session_delete BEFORE DELETE ON sessions BEGIN
		DELETE FROM sessionsearch_fts WHERE rowid BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;
		DELETE FROM sessionsearch_entries WHERE sid = (SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key);
		DELETE FROM sessionsearch_sessions WHERE session_key = OLD.session_key;
		DELETE FROM transcript_events WHERE session_key = OLD.session_key;
	END`,
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_event_update BEFORE UPDATE ON transcript_events BEGIN
		SELECT sessionsearch_refuse('transcript_events', 'events are append-only: delete the session and insert it again', OLD.session_key, OLD.seq);
	END`,
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_event_delete BEFORE DELETE ON transcript_events
		WHEN EXISTS (SELECT 1 FROM sessionsearch_sessions WHERE session_key = OLD.session_key) BEGIN
		SELECT sessionsearch_refuse('transcript_events', 'events are append-only: delete the whole session from sessions', OLD.session_key, OLD.seq);
	END`,
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_event_insert AFTER INSERT ON transcript_events BEGIN
		-- Events out of order, bulk loading on this connection: the session
		-- waits for sessions_reconcile.
		UPDATE sessionsearch_sessions SET pending = 1
			WHERE session_key = NEW.session_key AND NOT pending
				AND (NEW.seq <> last_seq + 1 OR sessionsearch_deferring());
		-- The entry; sessionsearch_entry refuses unknown sessions, bad events
		-- and a seq stored before (INSERT OR REPLACE).
		INSERT INTO sessionsearch_entries(id, info)
			SELECT (s.sid << 32) | NEW.seq, sessionsearch_entry(NEW.session_key, NEW.seq, NEW.event, s.sid, s.leaf_id, s.pending,
					EXISTS (SELECT 1 FROM sessionsearch_entries e WHERE e.id = (s.sid << 32) | NEW.seq))
			FROM (SELECT 1) LEFT JOIN sessionsearch_sessions s ON s.session_key = NEW.session_key;
		-- The common case: the entry extends the active path.
		UPDATE sessionsearch_entries SET active = 1
			WHERE id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND info ->> 7
				AND NOT EXISTS (SELECT 1 FROM sessionsearch_entries d WHERE d.sid = sessionsearch_entries.sid
					AND d.entry_id = sessionsearch_entries.entry_id AND d.id <> sessionsearch_entries.id);
		INSERT INTO sessionsearch_fts(rowid, text)
			SELECT id, sessionsearch_message_text(NEW.session_key, NEW.seq, NEW.event) FROM sessionsearch_entries
			WHERE id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND active AND flags & 1;
		UPDATE sessionsearch_sessions SET
				leaf_id = coalesce((SELECT e.entry_id FROM sessionsearch_entries e
					WHERE e.id = (sessionsearch_sessions.sid << 32) | NEW.seq AND e.active), leaf_id),
				messages = messages + (SELECT e.flags & 1 FROM sessionsearch_entries e
					WHERE e.id = (sessionsearch_sessions.sid << 32) | NEW.seq),
				last_seq = max(last_seq, NEW.seq)
			WHERE session_key = NEW.session_key;
		-- Anything else that can move the path: replay the session.
		SELECT sessionsearch_repath(s.sid) FROM sessionsearch_sessions s JOIN sessionsearch_entries e ON e.id = (s.sid << 32) | NEW.seq
			WHERE s.session_key = NEW.session_key AND NOT s.pending AND NOT e.active
				AND (e.flags & 2 OR (e.entry_id IS NOT NULL AND e.flags & 4 = 0)
					OR EXISTS (SELECT 1 FROM sessionsearch_entries d WHERE d.sid = e.sid AND d.entry_id = e.entry_id AND d.id <> e.id));
	END`,
}

// connState is the extension's state for one connection.
type connState struct {
	// deferIndexing is set by sessions_defer_indexing: inserts only mark
	// their sessions pending.
	deferIndexing bool
	// last is the text sessionsearch_entry read, for the
	// sessionsearch_message_text call that follows it in the trigger.
	last struct {
		key  string
		seq  int64
		hash uint64
		text string
	}
	// visible is the last caller's visibility, valid while the database
	// is unchanged.
	visible struct {
		caller, options string
		version         [2]int64
		fn              func(string) bool
	}
}

var eventHashSeed = maphash.MakeSeed()

func fnMigrate(c *call) error {
	return c.conn().atomically(func() error { return migrate(c) })
}

func migrate(c *call) error {
	db := c.conn()
	var hadEvents bool
	err := db.query(`SELECT 1 FROM sqlite_schema WHERE name = 'transcript_events' AND type = 'table'
		AND NOT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'sessionsearch_sessions')`,
		func(*stmt) error { hadEvents = true; return nil })
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	for _, ddl := range schema {
		if err := db.exec(ddl); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	var tokVersion int64 = -1
	if err := db.query(`SELECT value FROM sessionsearch_meta WHERE key = 'tokenizer_version'`,
		func(s *stmt) error { tokVersion = s.int(0); return nil }); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	steps := []string{
		fmt.Sprintf(`INSERT INTO sessionsearch_meta(key, value) VALUES ('schema_version', %d), ('tokenizer_version', %d)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, SchemaVersion, tokenizer.Version),
	}
	if hadEvents {
		// Events written before the store existed: their sessions (created
		// if only their events exist) are indexed by sessions_reconcile.
		steps = append(steps,
			`INSERT INTO sessions(session_key) SELECT DISTINCT session_key FROM transcript_events WHERE true
				ON CONFLICT(session_key) DO NOTHING`,
			`INSERT INTO sessionsearch_sessions(session_key, pending, rebuilt_seq, last_seq)
				SELECT session_key, 1, -1, coalesce((SELECT max(seq) FROM transcript_events e WHERE e.session_key = sessions.session_key), -1)
				FROM sessions WHERE true
				ON CONFLICT(session_key) DO UPDATE SET pending = 1, rebuilt_seq = -1, last_seq = excluded.last_seq`)
	}
	if tokVersion >= 0 && tokVersion != tokenizer.Version {
		// A new tokenizer version: tokens in the index are stale.
		steps = append(steps, `INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('rebuild')`)
	}
	for _, sql := range steps {
		if err := db.exec(sql); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	c.resultInt(SchemaVersion)
	return nil
}

func fnDeferIndexing(c *call) error {
	v, err := c.int(0, "on")
	if err != nil {
		return err
	}
	was := c.state.deferIndexing
	c.state.deferIndexing = v != 0
	c.resultInt(boolInt(was))
	return nil
}

func fnDeferring(c *call) error {
	c.resultInt(boolInt(c.state.deferIndexing))
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// fnRefuse makes the statement fail: sessionsearch_refuse(table, reason,
// session_key, seq).
func fnRefuse(c *call) error {
	if c.isNull(3) {
		return fmt.Errorf("%s: %s (session %q)", c.text(0), c.text(1), c.text(2))
	}
	seq, _ := c.int(3, "seq")
	return fmt.Errorf("%s: %s (session %q, seq %d)", c.text(0), c.text(1), c.text(2), seq)
}

// info is the stored form of a transcript.Entry; extends records that it
// continued the active path when it was appended.
func info(e transcript.Entry, extends bool) []byte {
	flags := 0
	if e.Message {
		flags |= flagMessage
	}
	if e.Leaf() {
		flags |= flagLeaf
	}
	if e.Side {
		flags |= flagSide
	}
	b := make([]byte, 0, 64+len(e.ID)+len(e.ParentID)+len(e.TargetID))
	b = append(b, '[')
	b = appendJSONString(b, e.ID)
	b = append(b, ',')
	b = strconv.AppendInt(b, boolInt(e.HasParent), 10)
	b = append(b, ',')
	b = appendJSONString(b, e.ParentID)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(flags), 10)
	b = append(b, ',')
	b = appendJSONString(b, e.Role)
	b = append(b, ',')
	b = strconv.AppendInt(b, e.Timestamp, 10)
	b = append(b, ',')
	b = appendJSONString(b, e.TargetID)
	b = append(b, ',')
	b = strconv.AppendInt(b, boolInt(extends), 10)
	return append(b, ']')
}

// appendJSONString appends s as a JSON string, or null when it is empty.
func appendJSONString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func parseInfo(s string) (transcript.Entry, error) {
	var v []json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil || len(v) != 8 {
		return transcript.Entry{}, fmt.Errorf("bad entry info %q", s)
	}
	str := func(raw json.RawMessage) string {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	var hasParent, flags int
	var ts int64
	json.Unmarshal(v[1], &hasParent)
	json.Unmarshal(v[3], &flags)
	json.Unmarshal(v[5], &ts)
	e := transcript.Entry{ID: str(v[0]), HasParent: hasParent != 0, ParentID: str(v[2]), Role: str(v[4]),
		Timestamp: ts, TargetID: str(v[6]), Side: flags&flagSide != 0, Message: flags&flagMessage != 0}
	if flags&flagLeaf != 0 {
		e.Type = "leaf"
	}
	return e, nil
}

// fnEntry: sessionsearch_entry(session_key, seq, event, sid, leaf_id,
// pending, exists) reads an event for the store, or refuses it with an error
// that names session and seq: an unknown session (sid NULL), an event that
// is not a JSON object with a type, a seq that was stored before (exists).
// It records whether the entry extends the active path: it has an id, moves
// the leaf, and hangs from the current leaf.
func fnEntry(c *call) error {
	key, event := c.text(0), c.textBytes(2)
	seq, err := c.int(1, "seq")
	if err != nil {
		return fmt.Errorf("transcript_events: seq must be an integer (session %q, seq %s)", key, c.describe(1))
	}
	if c.isNull(3) {
		return fmt.Errorf("transcript_events: unknown session: insert it into sessions first (session %q, seq %d)", key, seq)
	}
	if exists, _ := c.int(6, "exists"); exists != 0 {
		return fmt.Errorf("transcript_events: an event with this session and seq was stored before: use INSERT OR IGNORE (session %q, seq %d)", key, seq)
	}
	if seq < 0 || seq > 0xFFFFFFFF {
		return fmt.Errorf("transcript_events: seq must be 0..4294967295 (session %q, seq %d)", key, seq)
	}
	e, text, err := transcript.Read(event)
	if err != nil {
		return fmt.Errorf("transcript_events: %v (session %q, seq %d)", err, key, seq)
	}
	pending, _ := c.int(5, "pending")
	leaf := c.text(4)
	extends := pending == 0 && e.ID != "" && !e.Leaf() && !e.Side && transcript.ResolveParent(e, leaf) == leaf
	last := &c.state.last
	last.key, last.seq, last.hash, last.text = key, seq, maphash.Bytes(eventHashSeed, event), ""
	if e.Message {
		last.text = indexText(text)
	}
	c.resultBytes(info(e, extends))
	return nil
}

// fnMessageText: sessionsearch_message_text(session_key, seq, event).
func fnMessageText(c *call) error {
	key, event := c.text(0), c.textBytes(2)
	seq, _ := c.int(1, "seq")
	last := &c.state.last
	if last.key == key && last.seq == seq && last.hash == maphash.Bytes(eventHashSeed, event) {
		c.resultText(last.text)
		return nil
	}
	text, _ := transcript.MessageText(event)
	c.resultText(indexText(text))
	return nil
}

// indexText is what the index keeps of a message's text: the text with its
// secrets masked, so that a search cannot find a secret, nor confirm a guess
// one character at a time. The transcript itself keeps the original.
func indexText(text string) string {
	out, _ := sqlfuncs.Redact(text)
	return out
}

// fnRepath: sessionsearch_repath(sid) replays a session whose active path a
// new entry may have moved, and indexes the difference; a session over
// maxInlineMessages messages becomes pending instead.
func fnRepath(c *call) error {
	sid, err := c.int(0, "sid")
	if err != nil {
		return err
	}
	db := c.conn()
	var messages int64
	if err := db.query(`SELECT messages FROM sessionsearch_sessions WHERE sid = ?1`,
		func(s *stmt) error { messages = s.int(0); return nil }, sid); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	if messages > maxInlineMessages {
		return db.exec(`UPDATE sessionsearch_sessions SET pending = 1 WHERE sid = ?1`, sid)
	}
	if _, err := applyPath(db, sid, time.Time{}); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// applyPath replays session sid from its entries and makes the index match
// its active path. With a non-zero deadline it stops when the deadline has
// passed (checking every reconcileChunk changes) and reports done=false; a
// later call goes on where it stopped.
func applyPath(db conn, sid int64, deadline time.Time) (done bool, err error) {
	type row struct {
		id     int64
		active bool
		entry  transcript.Entry
	}
	var rows []row
	err = db.query(`SELECT id, info, active FROM sessionsearch_entries WHERE sid = ?1 ORDER BY id`, func(s *stmt) error {
		e, err := parseInfo(s.text(1))
		if err != nil {
			return err
		}
		rows = append(rows, row{s.int(0), s.int(2) != 0, e})
		return nil
	}, sid)
	if err != nil {
		return false, err
	}
	r := transcript.NewReplay()
	for _, rw := range rows {
		r.Append(rw.entry)
	}
	onPath := make([]bool, len(rows))
	for _, i := range r.Path() {
		onPath[i] = true
	}
	var key string
	if err := db.query(`SELECT session_key FROM sessionsearch_sessions WHERE sid = ?1`,
		func(s *stmt) error { key = s.text(0); return nil }, sid); err != nil {
		return false, err
	}
	stmts, err := db.prepareAll(
		`UPDATE sessionsearch_entries SET active = ?2 WHERE id = ?1`,
		`DELETE FROM sessionsearch_fts WHERE rowid = ?1`,
		`SELECT event FROM transcript_events WHERE session_key = ?1 AND seq = ?2`,
		`INSERT INTO sessionsearch_fts(rowid, text) VALUES (?1, ?2)`)
	if err != nil {
		return false, err
	}
	defer finalizeAll(stmts)
	setActive, unindex, readEvent, index := stmts[0], stmts[1], stmts[2], stmts[3]
	changes := 0
	for i, rw := range rows {
		if rw.active == onPath[i] {
			continue
		}
		if changes++; !deadline.IsZero() && changes%reconcileChunk == 0 && !time.Now().Before(deadline) {
			return false, nil
		}
		if err := setActive.run(rw.id, boolInt(onPath[i])); err != nil {
			return false, err
		}
		if !rw.entry.Message {
			continue
		}
		if !onPath[i] {
			if err := unindex.run(rw.id); err != nil {
				return false, err
			}
			continue
		}
		if err := readEvent.bind(key, rw.id&0xFFFFFFFF); err != nil {
			return false, err
		}
		found, err := readEvent.step()
		if err != nil {
			return false, err
		}
		var text string
		if found {
			text, _ = transcript.MessageText([]byte(readEvent.text(0)))
			text = indexText(text)
		}
		readEvent.reset()
		if err := index.run(rw.id, text); err != nil {
			return false, err
		}
	}
	leaf := any(nil)
	if r.Leaf() != "" {
		leaf = r.Leaf()
	}
	return true, db.exec(`UPDATE sessionsearch_sessions SET leaf_id = ?2 WHERE sid = ?1`, sid, leaf)
}

// reconcileChunk is how many events or index changes one step of
// sessions_reconcile handles before it looks at the clock again.
const reconcileChunk = 500

// fnReconcile: sessions_reconcile([budget_ms]) indexes pending sessions for
// about budget_ms (default 100) and reports {"pending":N,"indexed":N}: the
// sessions still pending and those finished by this call. Work is done in
// chunks and resumes where the last call stopped.
func fnReconcile(c *call) error {
	if err := c.argCount(0, 1, "([budget_ms])"); err != nil {
		return err
	}
	budget := int64(100)
	if len(c.args) == 1 {
		var err error
		if budget, err = c.int(0, "budget_ms"); err != nil {
			return err
		}
		if budget < 0 {
			return fmt.Errorf("%s: budget_ms must be at least 0, got %d", c.name, budget)
		}
	}
	deadline := time.Now().Add(time.Duration(budget) * time.Millisecond)
	db := c.conn()
	return db.atomically(func() error { return reconcile(c, db, deadline) })
}

func reconcile(c *call, db conn, deadline time.Time) error {
	indexed := 0
	for {
		var sid int64 = -1
		var key string
		rebuilt := int64(-2) // no events without entries
		if err := db.query(`SELECT sid, session_key, rebuilt_seq FROM sessionsearch_sessions WHERE pending ORDER BY sid LIMIT 1`,
			func(s *stmt) error {
				sid, key = s.int(0), s.text(1)
				if !s.isNull(2) {
					rebuilt = s.int(2)
				}
				return nil
			}); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if sid < 0 {
			break
		}
		done, err := reconcileSession(db, sid, key, rebuilt, deadline)
		if err != nil {
			return fmt.Errorf("%s: session %q: %w", c.name, key, err)
		}
		if !done {
			break
		}
		indexed++
		if !time.Now().Before(deadline) {
			break
		}
	}
	var pending int64
	if err := db.query(`SELECT count(*) FROM sessionsearch_sessions WHERE pending`,
		func(s *stmt) error { pending = s.int(0); return nil }); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	c.resultText(fmt.Sprintf(`{"pending":%d,"indexed":%d}`, pending, indexed))
	return nil
}

// reconcileSession advances the rebuild of one pending session until it is
// done or the deadline passes (after at least one chunk). rebuilt is the
// session's rebuilt_seq, or -2 when it is NULL.
func reconcileSession(db conn, sid int64, key string, rebuilt int64, deadline time.Time) (bool, error) {
	insert, err := db.prepare(`INSERT OR IGNORE INTO sessionsearch_entries(id, info) VALUES (?1, ?2)`)
	if err != nil {
		return false, err
	}
	defer insert.finalize()
	for rebuilt >= -1 {
		// Entries for events that predate the store, a chunk at a time
		// (those appended since have theirs).
		n := 0
		var messages int64
		err := db.query(`SELECT seq, event FROM transcript_events WHERE session_key = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3`,
			func(s *stmt) error {
				seq := s.int(0)
				e, err := transcript.Parse([]byte(s.text(1)))
				if err != nil {
					// Stored before the store refused such events.
					e = transcript.Entry{Type: "invalid"}
				}
				rebuilt = seq
				n++
				if err := insert.run(sid<<32|seq, info(e, false)); err != nil {
					return err
				}
				if e.Message && db.changes() > 0 {
					messages++
				}
				return nil
			}, key, rebuilt, reconcileChunk)
		if err != nil {
			return false, err
		}
		next := any(rebuilt)
		if n < reconcileChunk {
			next, rebuilt = nil, -2 // every event has its entry
		}
		if err := db.exec(`UPDATE sessionsearch_sessions SET rebuilt_seq = ?2, messages = messages + ?3 WHERE sid = ?1`,
			sid, next, messages); err != nil {
			return false, err
		}
		if rebuilt >= -1 && !time.Now().Before(deadline) {
			return false, nil
		}
	}
	// Every entry exists: bring the index to the active path.
	done, err := applyPath(db, sid, deadline)
	if err != nil || !done {
		return false, err
	}
	return true, db.exec(`UPDATE sessionsearch_sessions SET pending = 0 WHERE sid = ?1`, sid)
}

func fnIndexStatus(c *call) error {
	var pending int64
	err := c.conn().query(`SELECT count(*) FROM sessionsearch_sessions WHERE pending`,
		func(s *stmt) error { pending = s.int(0); return nil })
	if err != nil {
		var se *sqliteErr
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %s (run SELECT sessionsearch_migrate() first)", c.name, se.msg)
		}
		return err
	}
	c.resultText(fmt.Sprintf(`{"pendingSessions":%d}`, pending))
	return nil
}
