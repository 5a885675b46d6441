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
//     indexed by the trigger's own SQL, compiled once with the INSERT. Ids
//     are resolved at append time (package transcript), so deciding this
//     needs only the session's tip (its leaf, and whether the leaf's id
//     still names it), which the session's newest entry carries: no lookup
//     by id, and no other row to write.
//   - Any other change of the path (a leaf entry, a branch) calls
//     sessionsearch_repath, which replays the session's entries with the
//     rules of package transcript and applies the difference. Sessions over
//     maxInlineMessages messages are deferred instead.
//   - Bulk loading (sessions_defer_indexing), events that predate the schema
//     or arrive out of order mark the session pending: it is left out of
//     search until sessions_reconcile has rebuilt it.
//
// Internal tables are prefixed sessionsearch_. The FTS5 rowid of a message,
// like the id of every entry, is sid<<32 | seq, so a session's rows form one
// rowid range and its visibility can be read off the rowid.
//
// The index is an external-content FTS5 table over the view
// sessionsearch_content, which reads each active message's text from its
// event: the text is stored once, in transcript_events. Index rows are
// therefore removed while their entry is still active, since FTS5 reads the
// view to know which tokens to remove.

// SchemaVersion is what sessionsearch_migrate() returns.
const SchemaVersion = 1

// maxInlineMessages is the size up to which a branch or rewind is indexed in
// the same transaction (contract: sessions over 10,000 messages may defer).
const maxInlineMessages = 10000

// maxSeq is the highest seq: an entry's id keeps the seq in 32 bits.
const maxSeq = 0xFFFFFFFF

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
	// One row per session: its number and indexing state. rebuilt_seq:
	// NULL when every event has its entry; for events that predate the
	// store, the seq up to which sessions_reconcile has read them.
	`CREATE TABLE IF NOT EXISTS sessionsearch_sessions(
		sid         INTEGER PRIMARY KEY,
		session_key TEXT NOT NULL UNIQUE,
		pending     INTEGER NOT NULL DEFAULT 0,
		rebuilt_seq INTEGER)`,
	`CREATE INDEX IF NOT EXISTS sessionsearch_sessions_pending ON sessionsearch_sessions(pending) WHERE pending`,
	// One row per event: info is the JSON array [id, hasParent, parentId,
	// flags, role, timestamp, targetId, active, leaf, leafKey, messages].
	// The last three are the session's tip after the entry, valid in its
	// newest entry: the seq of the leaf (-1 for none), the leaf's id while
	// that id names it, and the number of message entries.
	`CREATE TABLE IF NOT EXISTS sessionsearch_entries(
		id       INTEGER PRIMARY KEY,
		info     TEXT NOT NULL,
		flags    INTEGER AS (info ->> 3) STORED,
		active   INTEGER AS (info ->> 7) STORED,
		sid      INTEGER AS (id >> 32) VIRTUAL,
		entry_id TEXT AS (info ->> 0) VIRTUAL,
		ts       INTEGER AS (info ->> 5) VIRTUAL)`,
	// What the index holds: the masked text of each active message.
	`CREATE VIEW IF NOT EXISTS sessionsearch_content(id, text) AS
		SELECT e.id, sessionsearch_message_text(s.session_key, e.id & 4294967295, t.event)
		FROM sessionsearch_entries AS e
		JOIN sessionsearch_sessions AS s ON s.sid = e.id >> 32
		JOIN transcript_events AS t ON t.session_key = s.session_key AND t.seq = e.id & 4294967295
		WHERE e.active AND e.flags & 1`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS sessionsearch_fts USING fts5(text, tokenize='sessionsearch',
		content='sessionsearch_content', content_rowid='id')`,
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
	// foreign-key cascade) is not refused as an edit of a live transcript;
	// index rows first, while the content view still shows their text.
	`CREATE TRIGGER IF NOT EXISTS sessionsearch_session_delete BEFORE DELETE ON sessions BEGIN
		SELECT sessionsearch_refuse('sessions', 'the search index was built by another version of sessionsearch: run SELECT sessionsearch_migrate() first', OLD.session_key, NULL)
			WHERE (SELECT value FROM sessionsearch_meta WHERE key = 'index_version') IS NOT sessionsearch_index_version();
		DELETE FROM sessionsearch_fts WHERE rowid BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;
		DELETE FROM sessionsearch_entries WHERE id BETWEEN
			(SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32 AND
			((SELECT sid FROM sessionsearch_sessions WHERE session_key = OLD.session_key) << 32) | 4294967295;
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
		-- The entry, from the event and the session's newest entry (its
		-- tip). sessionsearch_entry refuses unknown sessions, bad events, a
		-- seq stored before (INSERT OR REPLACE) and an index of another
		-- version; it marks the session pending when the event is out of
		-- order or this connection defers indexing.
		INSERT INTO sessionsearch_entries(id, info)
			SELECT (s.sid << 32) | NEW.seq, sessionsearch_entry(NEW.session_key, NEW.seq, NEW.event, s.sid, s.pending,
					EXISTS (SELECT 1 FROM sessionsearch_entries e WHERE e.id = (s.sid << 32) | NEW.seq),
					(SELECT value FROM sessionsearch_meta WHERE key = 'index_version'),
					t.id, t.info ->> 8, t.info ->> 9, t.info ->> 10)
			FROM (SELECT 1) LEFT JOIN sessionsearch_sessions s ON s.session_key = NEW.session_key
				LEFT JOIN sessionsearch_entries t ON t.id = (SELECT l.id FROM sessionsearch_entries l
					WHERE l.id BETWEEN s.sid << 32 AND (s.sid << 32) | 4294967295 ORDER BY l.id DESC LIMIT 1);
		-- The common case: the entry extends the active path.
		INSERT INTO sessionsearch_fts(rowid, text)
			SELECT id, sessionsearch_message_text(NEW.session_key, NEW.seq, NEW.event) FROM sessionsearch_entries
			WHERE id = ((SELECT sid FROM sessionsearch_sessions WHERE session_key = NEW.session_key) << 32) | NEW.seq
				AND active AND flags & 1;
		-- A leaf entry or a branch: replay the session.
		SELECT sessionsearch_repath(s.sid) FROM sessionsearch_sessions s JOIN sessionsearch_entries e ON e.id = (s.sid << 32) | NEW.seq
			WHERE s.session_key = NEW.session_key AND NOT s.pending AND NOT e.active
				AND (e.flags & 2 OR (e.entry_id IS NOT NULL AND e.flags & 4 = 0));
	END`,
}

// connState is the extension's state for one connection.
type connState struct {
	// deferIndexing is set by sessions_defer_indexing: inserts only mark
	// their sessions pending.
	deferIndexing bool
	// last is the message text sessionsearch_entry read (unmasked), for
	// the sessionsearch_message_text call that follows it in the trigger
	// when the message is indexed.
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
	fresh := false
	err := db.query(`SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'sessionsearch_sessions')`,
		func(*stmt) error { fresh = true; return nil })
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	for _, ddl := range schema {
		if err := db.exec(ddl); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	built, err := builtIndexVersion(db)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	steps := []string{
		fmt.Sprintf(`INSERT INTO sessionsearch_meta(key, value) VALUES ('schema_version', %d), ('index_version', '%s')
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, SchemaVersion, indexVersion),
	}
	if fresh {
		// Sessions and events written before the store existed: the
		// sessions (created if only their events exist) are registered,
		// and those with events are indexed by sessions_reconcile.
		steps = append(steps,
			`INSERT INTO sessions(session_key) SELECT DISTINCT session_key FROM transcript_events WHERE true
				ON CONFLICT(session_key) DO NOTHING`,
			`INSERT INTO sessionsearch_sessions(session_key, pending, rebuilt_seq)
				SELECT session_key, 1, -1 FROM sessions
				WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_key = sessions.session_key)
				ON CONFLICT(session_key) DO UPDATE SET pending = 1, rebuilt_seq = -1`,
			`INSERT INTO sessionsearch_sessions(session_key) SELECT session_key FROM sessions WHERE true
				ON CONFLICT(session_key) DO NOTHING`)
	}
	if built != "" && built != indexVersion {
		// Tokens or masked text of another version: rebuild the index
		// from the content view.
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

// indexVersion identifies what the index holds: the tokenizer's tokens of
// the text masked by the redaction rules. Another value in
// sessionsearch_meta means the index must be rebuilt before it is changed.
var indexVersion = fmt.Sprintf("%d.%d", tokenizer.Version, sqlfuncs.RedactionVersion)

// builtIndexVersion returns the index version sessionsearch_meta records,
// "" when there is none.
func builtIndexVersion(db conn) (string, error) {
	built := ""
	err := db.query(`SELECT value FROM sessionsearch_meta WHERE key = 'index_version'`,
		func(s *stmt) error { built = s.text(0); return nil })
	return built, err
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
		return refusef("%s: %s (session %q)", c.text(0), c.text(1), c.text(2))
	}
	seq, _ := c.int(3, "seq")
	return refusef("%s: %s (session %q, seq %d)", c.text(0), c.text(1), c.text(2), seq)
}

// tip is a session's state for appends, after one of its entries: the seq
// of its leaf (-1 for none), the leaf's key (its id while that id names
// it, else "") and how many message entries the session has.
type tip struct {
	leaf     int64
	key      string
	messages int64
}

var noTip = tip{leaf: -1}

// info is the stored form of a transcript.Entry, whether it is on the
// active path, and the session's tip after it.
func info(e transcript.Entry, active bool, t tip) []byte {
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
	b := make([]byte, 0, 80+len(e.ID)+len(e.ParentID)+len(e.TargetID)+len(t.key))
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
	b = strconv.AppendInt(b, boolInt(active), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.leaf, 10)
	b = append(b, ',')
	b = appendJSONString(b, t.key)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.messages, 10)
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
	if err := json.Unmarshal([]byte(s), &v); err != nil || len(v) != 11 {
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

// fnEntry: sessionsearch_entry(session_key, seq, event, sid, pending,
// exists, index_version, newest_id, leaf, leaf_key, messages) reads an
// event for the store, or refuses it with an error that names session and
// seq: an unknown session (sid NULL), an event that is not a JSON object
// with a type, a seq that was stored before (exists), an index built by
// another version. The last four arguments are the id and tip of the
// session's newest entry (NULL when it has none). It returns the entry's
// info: whether it extends the active path, and the session's next tip. An
// event out of order, or any event while this connection defers indexing,
// makes the session pending.
func fnEntry(c *call) error {
	key, event := c.text(0), c.textBytes(2)
	seq, err := c.int(1, "seq")
	if err != nil {
		return refusef("transcript_events: seq must be an integer (session %q, seq %s)", key, c.describe(1))
	}
	if c.isNull(3) {
		return refusef("transcript_events: unknown session: insert it into sessions first (session %q, seq %d)", key, seq)
	}
	if exists, _ := c.int(5, "exists"); exists != 0 {
		return refusef("transcript_events: an event with this session and seq was stored before: use INSERT OR IGNORE (session %q, seq %d)", key, seq)
	}
	if seq < 0 || seq > maxSeq {
		return refusef("transcript_events: seq must be 0..%d (session %q, seq %d)", maxSeq, key, seq)
	}
	if v := c.text(6); v != indexVersion {
		return refusef("transcript_events: the search index was built by another version of sessionsearch (index version %q, this build %q): run SELECT sessionsearch_migrate() first (session %q, seq %d)",
			v, indexVersion, key, seq)
	}
	e, text, err := transcript.Read(event)
	if err != nil {
		return refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
	}
	sid, _ := c.int(3, "sid")
	pending, _ := c.int(4, "pending")
	t, newest := noTip, int64(-1)
	if !c.isNull(7) {
		newest, _ = c.int(7, "newest")
		newest &= maxSeq
		t.leaf, _ = c.int(8, "leaf")
		t.key = c.text(9)
		t.messages, _ = c.int(10, "messages")
	}
	if pending == 0 && (c.state.deferIndexing || seq != newest+1) {
		pending = 1
		if err := c.conn().exec(`UPDATE sessionsearch_sessions SET pending = 1 WHERE sid = ?1`, sid); err != nil {
			return refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
		}
	}
	extends := pending == 0 && transcript.Extends(e, t.leaf >= 0, t.key)
	if e.Message {
		t.messages++
	}
	switch {
	case extends:
		t.leaf, t.key = seq, e.ID
	case pending != 0 || transcript.Moves(e):
		// sessionsearch_repath or sessions_reconcile sets the leaf.
	default:
		t.key = transcript.KeyAfter(e, t.key)
	}
	last := &c.state.last
	last.key, last.seq, last.hash, last.text = key, seq, maphash.Bytes(eventHashSeed, event), ""
	if e.Message {
		last.text = text // masked by sessionsearch_message_text, if it is indexed
	}
	c.resultBytes(info(e, extends, t))
	return nil
}

// fnIndexVersion: sessionsearch_index_version() is indexVersion, for the
// store's triggers.
func fnIndexVersion(c *call) error {
	c.resultText(indexVersion)
	return nil
}

// fnMessageText: sessionsearch_message_text(session_key, seq, event).
func fnMessageText(c *call) error {
	key, event := c.text(0), c.textBytes(2)
	seq, _ := c.int(1, "seq")
	last := &c.state.last
	var text string
	if last.key == key && last.seq == seq && last.hash == maphash.Bytes(eventHashSeed, event) {
		text = last.text
	} else {
		text, _ = transcript.MessageText(event)
	}
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
	if err := db.query(`SELECT info ->> 10 FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1`,
		func(s *stmt) error { messages = s.int(0); return nil }, sid<<32, sid<<32|maxSeq); err != nil {
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

// applyPath replays session sid from its entries, makes the index match
// its active path and writes its tip. With a non-zero deadline it stops
// when the deadline has passed (checking every reconcileChunk changes) and
// reports done=false; a later call goes on where it stopped.
func applyPath(db conn, sid int64, deadline time.Time) (done bool, err error) {
	type row struct {
		id     int64
		active bool
		entry  transcript.Entry
	}
	var rows []row
	err = db.query(`SELECT id, info, active FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id`, func(s *stmt) error {
		e, err := parseInfo(s.text(1))
		if err != nil {
			return err
		}
		rows = append(rows, row{s.int(0), s.int(2) != 0, e})
		return nil
	}, sid<<32, sid<<32|maxSeq)
	if err != nil {
		return false, err
	}
	r := transcript.NewReplay()
	next := noTip
	for _, rw := range rows {
		r.Append(rw.entry)
		if rw.entry.Message {
			next.messages++
		}
	}
	onPath := make([]bool, len(rows))
	for _, i := range r.Path() {
		onPath[i] = true
	}
	// The text goes both ways through the content view, which defines it:
	// FTS5 reads the view to unindex a row, and readText reads it once the
	// entry is active. (INSERT ... SELECT would be shorter, but FTS5 flushes
	// its pending terms at the statement savepoint a multi-row INSERT opens:
	// a segment per row, measured 2.2x slower.)
	stmts, err := db.prepareAll(
		`UPDATE sessionsearch_entries SET info = json_replace(info, '$[7]', ?2) WHERE id = ?1`,
		`DELETE FROM sessionsearch_fts WHERE rowid = ?1`,
		`SELECT text FROM sessionsearch_content WHERE id = ?1`,
		`INSERT INTO sessionsearch_fts(rowid, text) VALUES (?1, ?2)`)
	if err != nil {
		return false, err
	}
	defer finalizeAll(stmts)
	setActive, unindex, readText, index := stmts[0], stmts[1], stmts[2], stmts[3]
	changes := 0
	for i, rw := range rows {
		if rw.active == onPath[i] {
			continue
		}
		if changes++; !deadline.IsZero() && changes%reconcileChunk == 0 && !time.Now().Before(deadline) {
			return false, nil
		}
		if !onPath[i] {
			// FTS5 reads the text to unindex from the content view: while
			// the entry is still active.
			if rw.entry.Message {
				if err := unindex.run(rw.id); err != nil {
					return false, err
				}
			}
			if err := setActive.run(rw.id, 0); err != nil {
				return false, err
			}
			continue
		}
		if err := setActive.run(rw.id, 1); err != nil {
			return false, err
		}
		if !rw.entry.Message {
			continue
		}
		if err := readText.bind(rw.id); err != nil {
			return false, err
		}
		found, err := readText.step()
		if err != nil || !found {
			readText.reset()
			return false, fmt.Errorf("entry %d: active message not in sessionsearch_content: %v", rw.id, err)
		}
		text := readText.text(0)
		readText.reset()
		if err := index.run(rw.id, text); err != nil {
			return false, err
		}
	}
	if len(rows) == 0 {
		return true, nil
	}
	leaf, leafKey := r.Leaf()
	if leaf >= 0 {
		next.leaf, next.key = rows[leaf].id&maxSeq, leafKey
	}
	keyArg := any(nil)
	if next.key != "" {
		keyArg = next.key
	}
	return true, db.exec(`UPDATE sessionsearch_entries SET info = json_replace(info, '$[8]', ?2, '$[9]', ?3, '$[10]', ?4) WHERE id = ?1`,
		rows[len(rows)-1].id, next.leaf, keyArg, next.messages)
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
	built, err := builtIndexVersion(db)
	if err != nil {
		return fmt.Errorf("%s: %w (run SELECT sessionsearch_migrate() first)", c.name, err)
	}
	if built != indexVersion {
		return fmt.Errorf("%s: the search index was built by another version of sessionsearch (index version %q, this build %q): run SELECT sessionsearch_migrate() first",
			c.name, built, indexVersion)
	}
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
				if seq < 0 || seq > maxSeq {
					return nil // stored before the store refused such seqs
				}
				return insert.run(sid<<32|seq, info(e, false, noTip))
			}, key, rebuilt, reconcileChunk)
		if err != nil {
			return false, err
		}
		next := any(rebuilt)
		if n < reconcileChunk {
			next, rebuilt = nil, -2 // every event has its entry
		}
		if err := db.exec(`UPDATE sessionsearch_sessions SET rebuilt_seq = ?2 WHERE sid = ?1`, sid, next); err != nil {
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
