// Package openclawtest plays an OpenClaw gateway for tests: it creates a
// state directory with per-agent databases of OpenClaw's schema
// (schema.sql) and changes them the way a gateway does, one transaction per
// operation: appends (events as TEXT, or as zstd frames when large),
// rewinds, resets, forks, compactions, key renames, cold archival, reset
// archives and deletion.
package openclawtest

import (
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/sessionsearch/sessionsearch/importer"
)

//go:embed schema.sql
var Schema string

// Gateway is the writer of one agent database.
type Gateway struct {
	StateDir, Agent, Path string
	DB                    *sql.DB
	// PlainColdArchives: cold archives hold the window's events as plain
	// lines, not in OpenClaw's record envelope (importer.ColdArchiveEvent).
	PlainColdArchives bool
	clock             int64
	enc               *zstd.Encoder
}

// New creates agents/<agent>/agent/openclaw-agent.sqlite under stateDir in
// WAL mode, as a gateway does, opened with driverName (a plain SQLite
// driver: the gateway does not load sessionsearch).
func New(driverName, stateDir, agent string) (*Gateway, error) {
	dir := filepath.Join(stateDir, "agents", agent, "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(stateDir, "agents", agent, "sessions", "cold"), 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "openclaw-agent.sqlite")
	db, err := sql.Open(driverName, "file:"+(&url.URL{Path: path}).EscapedPath()+"?_journal_mode=WAL&_foreign_keys=1&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(Schema); err != nil {
		db.Close()
		return nil, err
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	g := &Gateway{StateDir: stateDir, Agent: agent, Path: path, DB: db, clock: 1_780_000_000_000, enc: enc}
	_, err = db.Exec(`INSERT INTO schema_meta VALUES ('primary', 'agent', 23, ?, '2026.9.6', ?, ?)`, agent, g.clock, g.clock)
	return g, err
}

// Close closes the database as a gateway does at shutdown.
func (g *Gateway) Close() error { return g.DB.Close() }

func (g *Gateway) tick() int64 { g.clock += 1000; return g.clock }

// Key is the full key of a key of this agent ("main" -> "agent:<agent>:main").
func (g *Gateway) Key(k string) string { return "agent:" + g.Agent + ":" + k }

// Link is how a session relates to others.
type Link struct{ Parent, SpawnedBy string }

// Create starts session key with its first window id (reason initial): a
// node, a window and the session header, in one transaction.
func (g *Gateway) Create(key, id string, l Link) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at, created_at, parent_session_key, spawned_by)
			VALUES (?, ?, '{}', ?, ?, ?, ?)`, key, id, now, now, null(l.Parent), null(l.SpawnedBy)); err != nil {
			return err
		}
		return g.window(tx, key, id, "", "initial", l, now)
	})
}

func (g *Gateway) window(tx *sql.Tx, key, id, previous, reason string, l Link, now int64) error {
	if _, err := tx.Exec(`INSERT INTO session_windows(session_id, session_key, previous_session_id, reason, created_at, updated_at, parent_session_key, spawned_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, key, null(previous), reason, now, now, null(l.Parent), null(l.SpawnedBy)); err != nil {
		return err
	}
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":"/work"}`, id, time.UnixMilli(now).UTC().Format(time.RFC3339Nano))
	return g.insert(tx, id, 0, header, now)
}

// insert stores one event as OpenClaw does since schema 23: TEXT, or a
// level-1 zstd frame with a checksum when the event is 1 KiB..4 MiB and the
// frame saves at least 64 bytes and 10 percent.
func (g *Gateway) insert(tx *sql.Tx, id string, seq int64, event string, now int64) error {
	if n := len(event); n >= 1024 && n <= 4<<20 {
		frame := g.enc.EncodeAll([]byte(event), nil)
		if len(frame)+64 <= n && len(frame) <= n*9/10 {
			_, err := tx.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json)
				VALUES (?, ?, NULL, ?, ?, ?, '{"version":1}')`, id, seq, now, frame, n)
			return err
		}
	}
	_, err := tx.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)`, id, seq, event, now)
	return err
}

// Append appends events (JSON objects) to window id, in one transaction.
func (g *Gateway) Append(id string, events ...string) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		var next int64
		if err := tx.QueryRow(`SELECT coalesce(max(seq), -1) + 1 FROM transcript_events WHERE session_id = ?`, id).Scan(&next); err != nil {
			return err
		}
		for i, e := range events {
			if err := g.insert(tx, id, next+int64(i), e, now); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`UPDATE session_windows SET transcript_updated_at = ?, updated_at = ? WHERE session_id = ?`, now, now, id)
		return err
	})
}

// Message is a message entry.
func Message(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	content, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-11-01T10:00:00Z","message":{"role":%q,"content":%s}}`, id, p, role, content)
}

// Leaf is a leaf control moving the active leaf to target (a rewind).
func Leaf(id, parent, target string) string {
	return fmt.Sprintf(`{"type":"leaf","id":%q,"parentId":%q,"targetId":%q}`, id, parent, target)
}

// Compaction is a compaction summary entry.
func Compaction(id, parent, firstKept string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%s,"summary":"earlier turns summarized","firstKeptEntryId":%q,"tokensBefore":9000}`, id, p, firstKept)
}

// Rollover starts a new window newID for key (a daily reset, a fork's
// child, a compaction rewrite) and makes it current, in one transaction.
func (g *Gateway) Rollover(key, newID, reason string, events ...string) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		var prev string
		var l Link
		var parent, spawned sql.NullString
		if err := tx.QueryRow(`SELECT current_session_id, parent_session_key, spawned_by FROM session_nodes WHERE session_key = ?`, key).Scan(&prev, &parent, &spawned); err != nil {
			return err
		}
		l = Link{Parent: parent.String, SpawnedBy: spawned.String}
		if err := g.window(tx, key, newID, prev, reason, l, now); err != nil {
			return err
		}
		for i, e := range events {
			if err := g.insert(tx, newID, int64(i+1), e, now); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`UPDATE session_nodes SET current_session_id = ?, updated_at = ? WHERE session_key = ?`, newID, now, key)
		return err
	})
}

// Fork creates session key whose first window id copies events of the
// parent (a message fork), with the parent key as parent_session_key.
func (g *Gateway) Fork(parentKey, key, id string, events ...string) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at, created_at, parent_session_key, fork_source_session_key)
			VALUES (?, ?, '{}', ?, ?, ?, ?)`, key, id, now, now, parentKey, parentKey); err != nil {
			return err
		}
		if err := g.window(tx, key, id, "", "fork", Link{Parent: parentKey}, now); err != nil {
			return err
		}
		for i, e := range events {
			if err := g.insert(tx, id, int64(i+1), e, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rename moves session key old to new: the node and its windows.
func (g *Gateway) Rename(oldKey, newKey string) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE session_nodes SET session_key = ?, updated_at = ? WHERE session_key = ?`, newKey, now, oldKey); err != nil {
			return err
		}
		_, err := tx.Exec(`UPDATE session_windows SET session_key = ? WHERE session_key = ?`, newKey, oldKey)
		return err
	})
}

// Archive sets archived_at: the session leaves normal listings, its
// transcript stays.
func (g *Gateway) Archive(key string) error {
	now := g.tick()
	return g.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE session_nodes SET archived_at = ?, pinned_at = NULL WHERE session_key = ?`, now, key)
		return err
	})
}

// jsonl returns the events of window id as JSONL, in seq order.
func jsonl(tx *sql.Tx, id string, dec *zstd.Decoder) ([]byte, int64, int64, error) {
	rows, err := tx.Query(`SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	var out []byte
	var n, last int64
	for rows.Next() {
		var text, frame []byte
		if err := rows.Scan(&last, &text, &frame); err != nil {
			return nil, 0, 0, err
		}
		if text == nil {
			if text, err = dec.DecodeAll(frame, nil); err != nil {
				return nil, 0, 0, err
			}
		}
		out = append(append(out, text...), '\n')
		n++
	}
	return out, n, last, rows.Err()
}

// coldEnvelope is a window's events as OpenClaw's cold archive writer
// records them (src/config/sessions/session-cold-storage-worker.ts
// @9e1d904f): a header record, an event record per event, then records of
// the window's derived rows, of which one index record is written here.
func coldEnvelope(id, generation string, raw []byte, last, now int64) ([]byte, error) {
	type row struct {
		Seq       int64  `json:"seq"`
		EventJSON string `json:"event_json"`
		CreatedAt int64  `json:"created_at"`
	}
	var out []byte
	add := func(v any) error {
		b, err := json.Marshal(v)
		out = append(append(out, b...), '\n')
		return err
	}
	if err := add(map[string]any{"kind": "header", "version": 1, "sessionId": id, "generation": generation}); err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	first := last - int64(len(lines)) + 1
	for i, l := range lines {
		if err := add(map[string]any{"kind": "event", "row": row{first + int64(i), l, now}}); err != nil {
			return nil, err
		}
	}
	if err := add(map[string]any{"kind": "index", "row": map[string]any{"indexed_seq": last, "needs_rebuild": 0, "updated_at": now}}); err != nil {
		return nil, err
	}
	return out, nil
}

func (g *Gateway) decoder() *zstd.Decoder {
	d, _ := zstd.NewReader(nil)
	return d
}

// ColdArchive moves window id's events to sessions/cold/<sha256>.jsonl.zst
// (written and synced first), records it and deletes the rows, in one
// transaction.
func (g *Gateway) ColdArchive(id string) error {
	now := g.tick()
	dec := g.decoder()
	defer dec.Close()
	return g.tx(func(tx *sql.Tx) error {
		raw, n, last, err := jsonl(tx, id, dec)
		if err != nil {
			return err
		}
		content := raw
		if !g.PlainColdArchives {
			if content, err = coldEnvelope(id, fmt.Sprint("cold-", now), raw, last, now); err != nil {
				return err
			}
		}
		frame := g.enc.EncodeAll(content, nil)
		sum := sha256.Sum256(frame)
		name := hex.EncodeToString(sum[:]) + ".jsonl.zst"
		if err := writeSynced(filepath.Join(g.StateDir, "agents", g.Agent, "sessions", "cold", name), frame); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO session_transcript_cold_archives(session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'file')`, id, fmt.Sprint("cold-", now), name, hex.EncodeToString(sum[:]), n, len(raw), len(frame), last, now); err != nil {
			return err
		}
		_, err = tx.Exec(`DELETE FROM transcript_events WHERE session_id = ?`, id)
		return err
	})
}

// Restore brings window id's cold events back into the database.
func (g *Gateway) Restore(id string) error {
	now := g.tick()
	dec := g.decoder()
	defer dec.Close()
	return g.tx(func(tx *sql.Tx) error {
		var name string
		var last int64
		if err := tx.QueryRow(`SELECT archive_name, last_seq FROM session_transcript_cold_archives WHERE session_id = ?`, id).Scan(&name, &last); err != nil {
			return err
		}
		frame, err := os.ReadFile(filepath.Join(g.StateDir, "agents", g.Agent, "sessions", "cold", name))
		if err != nil {
			return err
		}
		raw, err := dec.DecodeAll(frame, nil)
		if err != nil {
			return err
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
			event, ok, err := importer.ColdArchiveEvent([]byte(l))
			if err != nil {
				return err
			}
			if ok {
				lines = append(lines, string(event))
			}
		}
		first := last - int64(len(lines)) + 1
		for i, l := range lines {
			if err := g.insert(tx, id, first+int64(i), l, now); err != nil {
				return err
			}
		}
		_, err = tx.Exec(`DELETE FROM session_transcript_cold_archives WHERE session_id = ?`, id)
		return err
	})
}

// archiveName is <id>.jsonl.<reason>.<ts>.zst, ts in OpenClaw's file form.
func archiveName(id, reason string, now int64) string {
	ts := time.UnixMilli(now).UTC().Format("2006-01-02T15-04-05.000Z")
	return id + ".jsonl." + reason + "." + ts + ".zst"
}

// ResetArchive reclaims historical window id (disk-budget cleanup): its
// transcript becomes a compressed reset archive in the database and a file
// in the sessions directory, and the window goes, in one transaction.
func (g *Gateway) ResetArchive(id string) error { return g.archive(id, "reset", false) }

// Delete deletes session key: its current window's transcript becomes a
// deletion archive (row and .deleted file) and the node, its windows and
// events go, in one transaction.
func (g *Gateway) Delete(key string) error {
	var id string
	if err := g.DB.QueryRow(`SELECT current_session_id FROM session_nodes WHERE session_key = ?`, key).Scan(&id); err != nil {
		return err
	}
	return g.archive(id, "deleted", true)
}

func (g *Gateway) archive(id, reason string, wholeKey bool) error {
	now := g.tick()
	dec := g.decoder()
	defer dec.Close()
	return g.tx(func(tx *sql.Tx) error {
		var key string
		if err := tx.QueryRow(`SELECT session_key FROM session_windows WHERE session_id = ?`, id).Scan(&key); err != nil {
			return err
		}
		raw, _, _, err := jsonl(tx, id, dec)
		if err != nil {
			return err
		}
		blob := g.enc.EncodeAll(raw, nil)
		sum := sha256.Sum256(blob)
		name := archiveName(id, reason, now)
		if _, err := tx.Exec(`INSERT INTO session_transcript_archives(session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at, published_at)
			VALUES (?, ?, ?, ?, 'zstd', ?, ?, ?, ?, ?)`, id, fmt.Sprint("gen-", now), key, reason, blob, hex.EncodeToString(sum[:]), name, now, now); err != nil {
			return err
		}
		if wholeKey {
			_, err = tx.Exec(`DELETE FROM session_nodes WHERE session_key = ?`, key)
		} else {
			_, err = tx.Exec(`DELETE FROM session_windows WHERE session_id = ?`, id)
		}
		if err != nil {
			return err
		}
		return writeSynced(filepath.Join(g.StateDir, "agents", g.Agent, "sessions", name), blob)
	})
}

func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (g *Gateway) tx(fn func(*sql.Tx) error) error {
	tx, err := g.DB.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}
