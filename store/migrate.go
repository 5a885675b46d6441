package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Migrate creates or upgrades the schema in c's database, atomically, and
// returns SchemaVersion (docs/store.md S11). A database that is up to date
// is only read.
func Migrate(c Conn) (int, error) {
	meta, err := readMeta(c)
	if err != nil {
		return 0, err
	}
	if meta.digest == schemaDigest[toolsIndex(meta.tools)] && meta.index == IndexVersion && meta.path == PathVersion {
		return SchemaVersion, nil
	}
	if v, err := strconv.Atoi(meta.schema); err == nil && v > SchemaVersion {
		return 0, fmt.Errorf("this database's transcript store has schema %d, written by a newer sessionsearch; this build knows schema %d and leaves it unchanged: use a newer build", v, SchemaVersion)
	}
	return SchemaVersion, atomically(c, meta, func() error { return migrate(c, meta) })
}

// meta is what sessionsearch_meta records; all "" before the store existed.
type meta struct {
	exists        bool // the store's tables exist
	metaTable     bool // sessionsearch_meta exists
	schema, index string
	digest        string
	path          string // the path rule's version (PathVersion)
	tools         bool   // the store keeps the tool index (S33)
}

// writeLock is a statement that takes the write lock and changes nothing:
// an update of no row of sessionsearch_meta, or, before that table exists,
// its creation, the first thing migrate would create (see atomically).
func (m meta) writeLock() string {
	if m.metaTable {
		return `UPDATE sessionsearch_meta SET value = value WHERE 0`
	}
	return metaTable.create()
}

func readMeta(c Conn) (meta, error) {
	var m meta
	err := c.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('sessionsearch_sessions', 'sessionsearch_meta')`,
		func(r Row) error {
			m.exists = m.exists || r.Text(0) == "sessionsearch_sessions"
			m.metaTable = m.metaTable || r.Text(0) == "sessionsearch_meta"
			return nil
		})
	if err != nil || !m.exists {
		return m, err
	}
	err = c.Query(`SELECT key, value FROM sessionsearch_meta WHERE key IN ('schema_version', 'index_version', 'schema_digest', 'path_version', '`+toolIndexKey+`')`,
		func(r Row) error {
			switch r.Text(0) {
			case "schema_version":
				m.schema = r.Text(1)
			case "index_version":
				m.index = r.Text(1)
			case "schema_digest":
				m.digest = r.Text(1)
			case "path_version":
				m.path = r.Text(1)
			case toolIndexKey:
				m.tools = r.Text(1) == "1"
			}
			return nil
		})
	return m, err
}

func migrate(c Conn, m meta) error {
	if err := dropDerived(c); err != nil {
		return err
	}
	if m.exists && (m.schema == "1" || m.schema == "2") {
		if err := upgradeEntries(c, m.schema); err != nil {
			return fmt.Errorf("upgrading schema %s: %w", m.schema, err)
		}
	}
	objects := tables
	if m.tools {
		objects = append(slices.Clone(tables), toolTable)
	} else if err := c.Exec(`DROP TABLE IF EXISTS sessionsearch_tools`); err != nil {
		return err
	}
	for _, o := range objects {
		if err := c.Exec(o.create()); err != nil {
			return err
		}
	}
	for _, o := range derived[toolsIndex(m.tools)] {
		if err := c.Exec(o.create()); err != nil {
			return err
		}
	}
	if err := c.Exec(`INSERT INTO sessionsearch_meta(key, value) VALUES ('schema_version', ?1), ('index_version', ?2), ('schema_digest', ?3), ('path_version', ?4), (?5, randomblob(8))
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, SchemaVersion, IndexVersion, schemaDigest[toolsIndex(m.tools)], PathVersion, changeKey); err != nil {
		return err
	}
	if m.exists && m.path != PathVersion {
		// Path version 1 did not know reset entries: mark them, and let
		// Reconcile replay their sessions under today's rule.
		for _, sql := range []string{
			`UPDATE sessionsearch_entries SET info = json_set(info, '$.reset', 1) WHERE id IN (
				SELECT (s.sid << 32) | e.seq FROM transcript_events AS e JOIN sessionsearch_sessions AS s ON s.session_key = e.session_key
				WHERE json_valid(sessionsearch_event(e.event)) AND sessionsearch_event(e.event) ->> 'type' = 'reset')`,
			`UPDATE sessionsearch_sessions SET pending = 1 WHERE sid IN (
				SELECT DISTINCT id >> 32 FROM sessionsearch_entries WHERE info ->> 'reset')`,
		} {
			if err := c.Exec(sql); err != nil {
				return fmt.Errorf("path version %s: %w", PathVersion, err)
			}
		}
	}
	if !m.exists {
		// Sessions and events written before the store existed: the
		// sessions (created if only their events exist) are registered,
		// and those with events are indexed by Reconcile.
		for _, sql := range []string{
			`INSERT INTO sessions(session_key) SELECT DISTINCT session_key FROM transcript_events WHERE true
				ON CONFLICT(session_key) DO NOTHING`,
			`INSERT INTO sessionsearch_sessions(session_key, pending, rebuilt_seq)
				SELECT session_key, 1, -1 FROM sessions
				WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_key = sessions.session_key)
				ON CONFLICT(session_key) DO UPDATE SET pending = 1, rebuilt_seq = -1`,
			`INSERT INTO sessionsearch_sessions(session_key) SELECT session_key FROM sessions WHERE true
				ON CONFLICT(session_key) DO NOTHING`,
		} {
			if err := c.Exec(sql); err != nil {
				return err
			}
		}
	}
	if m.index != "" && builtText(m.index) != textVersion {
		// Tokens or masked text of another version: rebuild the index
		// from the content view.
		if err := c.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('rebuild')`); err != nil {
			return err
		}
	}
	if m.exists && m.tools {
		// The tool index (S33) is new to a store just switched to keep
		// it, and a build that does not know it leaves it behind as it
		// writes: rebuilt from its content view whenever the schema
		// changes.
		return c.Exec(`INSERT INTO sessionsearch_tools(sessionsearch_tools) VALUES ('rebuild')`)
	}
	return nil
}

// upgradeEntries rewrites the entries of schema 1, whose info was the
// array [id, hasParent, parentId, flags, role, timestamp, targetId, active,
// leaf, leafKey, messages] (flags: 1 message, 2 leaf entry, 4 side), or of
// schema 2, whose info repeated the id, role, timestamp and message flag of
// the row's columns and whose tip_key was NULL for no key, as this build
// writes them (docs/store.md S42). The entries keep their ids, so the FTS5
// index stays valid. Whether an entry's parent is the entry before it is
// decided as Appended decides it, from the tip of the row before.
func upgradeEntries(c Conn, schema string) error {
	if err := c.Exec(`ALTER TABLE sessionsearch_entries RENAME TO sessionsearch_entries_old`); err != nil {
		return err
	}
	if err := c.Exec(entriesTable.create()); err != nil {
		return err
	}
	insert, err := c.Prepare(insertEntry)
	if err != nil {
		return err
	}
	defer insert.Close()
	buf := make([]byte, 0, 256)
	var prevID int64 = -1
	var prevTip Tip
	write := func(id int64, rec Record) error {
		if seq := id & MaxSeq; seq > 0 && prevID == id-1 {
			rec.ParentBefore = parentBefore(rec.HasParent, rec.ParentID, seq, prevTip)
		}
		prevID, prevTip = id, rec.Tip
		return insert.Run(rec.columns(id, buf[:0])...)
	}
	if schema == "1" {
		err = c.Query(`SELECT id, info FROM sessionsearch_entries_old ORDER BY id`, func(r Row) error {
			rec, err := parseV1(r.Text(1))
			if err != nil {
				return fmt.Errorf("entry %d: %w", r.Int(0), err)
			}
			return write(r.Int(0), rec)
		})
	} else {
		err = c.Query(`SELECT `+recordColumns+`, tip_leaf, tip_key, tip_messages FROM sessionsearch_entries_old ORDER BY id`, func(r Row) error {
			rec, err := rowRecord(r, "")
			if err != nil {
				return fmt.Errorf("entry %d: %w", r.Int(0), err)
			}
			rec.Tip = Tip{Leaf: r.Int(7), Key: r.Text(8), Messages: r.Int(9)}
			return write(r.Int(0), rec)
		})
	}
	if err != nil {
		return err
	}
	return c.Exec(`DROP TABLE sessionsearch_entries_old`)
}

func parseV1(s string) (Record, error) {
	var v []json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil || len(v) != 11 {
		return Record{}, fmt.Errorf("bad schema 1 entry info %q", s)
	}
	var (
		id, parent, role, target, key string
		hasParent, flags, active      int
		ts, leaf, messages            int64
	)
	for i, dst := range []any{&id, &hasParent, &parent, &flags, &role, &ts, &target, &active, &leaf, &key, &messages} {
		if string(v[i]) != "null" {
			if err := json.Unmarshal(v[i], dst); err != nil {
				return Record{}, fmt.Errorf("bad schema 1 entry info %q: %v", s, err)
			}
		}
	}
	return Record{ID: id, HasParent: hasParent != 0, ParentID: parent, Role: role, Timestamp: ts, TargetID: target,
		Message: flags&1 != 0, Leaf: flags&2 != 0, Side: flags&4 != 0, Active: active != 0,
		Tip: Tip{Leaf: leaf, Key: key, Messages: messages}}, nil
}
