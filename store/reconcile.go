package store

import (
	"fmt"
	"time"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// Repath is sessionsearch_repath(sid): it replays a session whose active
// path a new entry may have moved, and indexes the difference; a session
// over MaxInlineMessages messages becomes pending instead (docs/store.md S7).
func Repath(c Conn, sid int64) error {
	messages, err := queryInt(c, 0, `SELECT tip_messages FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1`,
		EntryID(sid, 0), EntryID(sid, MaxSeq))
	if err != nil {
		return err
	}
	if messages > MaxInlineMessages {
		return c.Exec(`UPDATE sessionsearch_sessions SET pending = 1 WHERE sid = ?1`, sid)
	}
	_, err = applyPath(c, sid, time.Time{})
	return err
}

// applyPath replays session sid from its entries, makes the index match its
// active path and writes its tip. With a non-zero deadline it stops when the
// deadline has passed (checking every reconcileChunk changes) and reports
// done=false; a later call goes on where it stopped.
func applyPath(c Conn, sid int64, deadline time.Time) (done bool, err error) {
	var ids []int64
	var records []Record
	err = c.Query(`SELECT id, info, active FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id`, func(r Row) error {
		rec, err := ParseRecord(r.Text(1), r.Int(2) != 0)
		if err != nil {
			return err
		}
		ids = append(ids, r.Int(0))
		records = append(records, rec)
		return nil
	}, EntryID(sid, 0), EntryID(sid, MaxSeq))
	if err != nil || len(records) == 0 {
		return err == nil, err
	}
	seqs := make([]int64, len(ids))
	for i, id := range ids {
		seqs[i] = id & MaxSeq
	}
	onPath, tip := Replayed(records, seqs)
	// The text goes both ways through the content view, which defines it:
	// FTS5 reads the view to unindex a row, and readText reads it once the
	// entry is active. (INSERT ... SELECT would be shorter, but FTS5 flushes
	// its pending terms at the statement savepoint a multi-row INSERT opens:
	// a segment per row, measured 2.2x slower.)
	stmts, err := prepareAll(c,
		`UPDATE sessionsearch_entries SET active = ?2 WHERE id = ?1`,
		`DELETE FROM sessionsearch_fts WHERE rowid = ?1`,
		`SELECT text FROM sessionsearch_content WHERE id = ?1`,
		`INSERT INTO sessionsearch_fts(rowid, text) VALUES (?1, ?2)`)
	if err != nil {
		return false, err
	}
	defer closeAll(stmts)
	setActive, unindex, readText, index := stmts[0], stmts[1], stmts[2], stmts[3]
	for n, ch := range Diff(records, onPath) {
		if n > 0 && n%reconcileChunk == 0 && !deadline.IsZero() && !time.Now().Before(deadline) {
			return false, nil
		}
		id, message := ids[ch.Index], records[ch.Index].Message
		if !ch.Active {
			// FTS5 reads the text to unindex from the content view: while
			// the entry is still active.
			if message {
				if err := unindex.Run(id); err != nil {
					return false, err
				}
			}
			if err := setActive.Run(id, 0); err != nil {
				return false, err
			}
			continue
		}
		if err := setActive.Run(id, 1); err != nil {
			return false, err
		}
		if !message {
			continue
		}
		var text string
		found := false
		if err := readText.Query(func(r Row) error { text, found = r.Text(0), true; return nil }, id); err != nil {
			return false, err
		}
		if !found {
			return false, fmt.Errorf("entry %d: active message not in sessionsearch_content", id)
		}
		if err := index.Run(id, text); err != nil {
			return false, err
		}
	}
	key := any(nil)
	if tip.Key != "" {
		key = tip.Key
	}
	return true, c.Exec(`UPDATE sessionsearch_entries SET tip_leaf = ?2, tip_key = ?3, tip_messages = ?4 WHERE id = ?1`,
		ids[len(ids)-1], tip.Leaf, key, tip.Messages)
}

// reconcileChunk is how many events or index changes one step of
// Reconcile handles before it looks at the clock again.
const reconcileChunk = 500

// ReconcileResult is what sessions_reconcile reports: the sessions still
// pending and those this call finished.
type ReconcileResult struct {
	Pending int64 `json:"pending"`
	Indexed int64 `json:"indexed"`
}

// Reconcile indexes pending sessions until the deadline (after at least one
// chunk of work), atomically, resuming where the last call stopped
// (docs/store.md S9).
func Reconcile(c Conn, deadline time.Time) (ReconcileResult, error) {
	var res ReconcileResult
	m, err := readMeta(c)
	if err != nil {
		return res, err
	}
	if !m.exists {
		return res, fmt.Errorf("no transcript store in this database (run SELECT sessionsearch_migrate() first)")
	}
	if m.index != IndexVersion {
		return res, fmt.Errorf("the search index was built by another version of sessionsearch (index version %q, this build %q): run SELECT sessionsearch_migrate() first",
			m.index, IndexVersion)
	}
	err = atomically(c, func() error {
		for {
			var sid int64 = -1
			var key string
			rebuilt := int64(-2) // no events without entries
			if err := c.Query(`SELECT sid, session_key, rebuilt_seq FROM sessionsearch_sessions WHERE pending ORDER BY sid LIMIT 1`,
				func(r Row) error {
					sid, key = r.Int(0), r.Text(1)
					if !r.IsNull(2) {
						rebuilt = r.Int(2)
					}
					return nil
				}); err != nil {
				return err
			}
			if sid < 0 {
				break
			}
			done, err := reconcileSession(c, sid, key, rebuilt, deadline)
			if err != nil {
				return fmt.Errorf("session %q: %w", key, err)
			}
			if !done {
				break
			}
			res.Indexed++
			if !time.Now().Before(deadline) {
				break
			}
		}
		res.Pending, err = PendingSessions(c)
		return err
	})
	return res, err
}

// reconcileSession advances the rebuild of one pending session until it is
// done or the deadline passes (after at least one chunk). rebuilt is the
// session's rebuilt_seq, or -2 when it is NULL.
func reconcileSession(c Conn, sid int64, key string, rebuilt int64, deadline time.Time) (bool, error) {
	insert, err := c.Prepare(insertEntry)
	if err != nil {
		return false, err
	}
	defer insert.Close()
	buf := make([]byte, 0, 256)
	for rebuilt >= -1 {
		// Entries for events that predate the store, a chunk at a time
		// (those appended since have theirs).
		n := 0
		err := c.Query(`SELECT seq, event FROM transcript_events WHERE session_key = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3`,
			func(r Row) error {
				seq := r.Int(0)
				e, err := transcript.Parse([]byte(r.Text(1)))
				if err != nil {
					// Stored before the store refused such events.
					e = transcript.Entry{Type: "invalid"}
				}
				rebuilt = seq
				n++
				if seq < 0 || seq > MaxSeq {
					return nil // stored before the store refused such seqs
				}
				return insert.Run(NewRecord(e, NoTip).columns(EntryID(sid, seq), buf[:0])...)
			}, key, rebuilt, reconcileChunk)
		if err != nil {
			return false, err
		}
		next := any(rebuilt)
		if n < reconcileChunk {
			next, rebuilt = nil, -2 // every event has its entry
		}
		if err := c.Exec(`UPDATE sessionsearch_sessions SET rebuilt_seq = ?2 WHERE sid = ?1`, sid, next); err != nil {
			return false, err
		}
		if rebuilt >= -1 && !time.Now().Before(deadline) {
			return false, nil
		}
	}
	// Every entry exists: bring the index to the active path.
	done, err := applyPath(c, sid, deadline)
	if err != nil || !done {
		return false, err
	}
	return true, c.Exec(`UPDATE sessionsearch_sessions SET pending = 0 WHERE sid = ?1`, sid)
}

// PendingSessions counts the sessions waiting for Reconcile.
func PendingSessions(c Conn) (int64, error) {
	return queryInt(c, 0, `SELECT count(*) FROM sessionsearch_sessions WHERE pending`)
}
