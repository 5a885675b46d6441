package store

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// Repath is sessionsearch_repath(sid): it replays a session whose active
// path a new entry may have moved, and indexes the difference. The work in
// the writer's transaction is bounded (docs/store.md S7): a session with
// over MaxInlineEntries entries (the replay reads them all) or
// MaxInlineMessages messages (a replay may index them all) becomes pending
// instead, for Reconcile.
//
// The connection keeps the last session's replay (S7 "Moves in a row"):
// when the next Repath is for the same session and the database is as this
// one left it (the reconcile mark), only the entries appended since are
// read and replayed, so that a run of leaf moves costs each move its own
// entries and a pass over one byte an entry, not a reading of the session.
func (s *State) Repath(c Conn, sid int64) error { return s.repath(c, sid, nil) }

// repath is Repath with the index written through w (nil: by SQL).
func (s *State) repath(c Conn, sid int64, w indexWriter) error {
	var newest, messages int64 = -1, 0
	err := c.Query(`SELECT id, tip_messages FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1`,
		func(r Row) error { newest, messages = r.Int(0), r.Int(1); return nil }, EntryID(sid, 0), EntryID(sid, MaxSeq))
	if err != nil {
		return err
	}
	kept := s.moved
	s.moved = nil // kept again once this call has succeeded
	// A session that is not pending has every seq from 0: its newest seq
	// counts its entries.
	if newest&MaxSeq+1 > MaxInlineEntries || messages > MaxInlineMessages {
		return setPending(c, sid, true)
	}
	var rp *replay
	if kept != nil && kept.sid == sid {
		if rp, err = kept.catchUp(c, newest); err != nil {
			return err
		}
	}
	if rp == nil {
		if rp, err = loadReplay(c, sid, true); err != nil {
			return err
		}
	}
	rp.next = 0
	if _, err := applyReplay(c, s, rp, time.Time{}, w); err != nil {
		return err
	}
	s.moved = rp
	return nil
}

// catchUp brings a kept replay of Repath to the session's newest entry
// (row id newest): it returns nil, to read the session again, unless the
// database is as the replay's call left it and the session only grew
// since. The entries appended since are replayed on top, and every entry's
// place on the path is taken from the replay again.
func (rp *replay) catchUp(c Conn, newest int64) (*replay, error) {
	if rp.keep == nil || rp.n == 0 || newest < rp.newest() {
		return nil, nil
	}
	mark := ""
	if err := c.Query(`SELECT value FROM sessionsearch_meta WHERE key = ?1`, func(r Row) error { mark = r.Text(0); return nil }, markKey); err != nil || mark != rp.mark {
		return nil, err
	}
	from := rp.newest() + 1
	err := c.Query(`SELECT `+recordColumns+` FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id`,
		func(r Row) error { return rp.add(r) }, from, EntryID(rp.sid, MaxSeq))
	if err != nil {
		return nil, err
	}
	rp.place()
	return rp, nil
}

// writeMark records a call's mark in the transaction of its changes.
func writeMark(c Conn, mark string) error {
	return c.Exec(`INSERT INTO sessionsearch_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		markKey, mark)
}

// replay is a session's replay, kept between the calls of Reconcile that
// bring one big session to its active path, so that each call does only
// its share of the work instead of reading the whole session again. It
// keeps a byte and a bit an entry (four bytes more for a session whose
// seqs have gaps); a spilled replay only the four bytes, if any, since its
// path is in a file and its states are read from the table
// (docs/store.md S9).
type replay struct {
	sid   int64
	mark  string       // written to sessionsearch_meta with the last call's changes
	seqs  []uint32     // the seq of each entry; nil while entry i has seq i
	state []entryState // as the last call left them; nil when spilled
	n     int          // the entries
	path  *transcript.PathSet
	tip   Tip
	next  int // entries before it are on the index as the path says
	// lastID is the id of the last entry added, the parent of the next
	// when its info says "prev" (Record.ParentBefore).
	lastID string
	// keep, for Repath's replay (at most MaxInlineEntries entries), is the
	// replay itself, which the entries appended since are added to; nil for
	// Reconcile's, which may be of any size.
	keep *Replayer
	// spilled: the replay's ids and path are in temporary files, and the
	// entries' states are read from sessionsearch_entries as they are
	// applied.
	spilled bool
}

// entryState is what applying a path needs of an entry: its Record's Active
// and Message, and whether its role may hold tool text (S30), in one byte
// where the Record would take a hundred or more.
type entryState uint8

const (
	entryActive entryState = 1 << iota
	entryMessage
	entryTool
)

func (e entryState) active() bool  { return e&entryActive != 0 }
func (e entryState) message() bool { return e&entryMessage != 0 }
func (e entryState) tool() bool    { return e&entryTool != 0 }

// close closes the files of a spilled replay; a replay in memory has none.
func (rp *replay) close() {
	if rp != nil && rp.path != nil {
		rp.path.Close()
	}
}

// states fills buf with the states of the entries from from on and
// returns how many it filled: from the replay's own, or for a spilled
// replay from the table, where each row's id must be the one the replay
// read there.
func (rp *replay) states(c Conn, from int, buf []entryState) (int, error) {
	if !rp.spilled {
		return copy(buf, rp.state[from:]), nil
	}
	k := 0
	err := c.Query(`SELECT id, active, message, coalesce(role, '') FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id LIMIT ?3`,
		func(r Row) error {
			if id := r.Int(0); id != rp.id(from+k) {
				return fmt.Errorf("entry %d: found %d where the replay read %d: the session changed under its reconcile", from+k, id, rp.id(from+k))
			}
			var st entryState
			if r.Int(1) != 0 {
				st |= entryActive
			}
			if r.Int(2) != 0 {
				st |= entryMessage
			}
			if transcript.ToolRole(r.Text(3)) {
				st |= entryTool
			}
			buf[k] = st
			k++
			return nil
		}, rp.id(from), EntryID(rp.sid, MaxSeq), min(len(buf), rp.n-from))
	return k, err
}

// setActive records entry i's new active state.
func (rp *replay) setActive(i int, active bool) {
	switch {
	case rp.spilled:
	case active:
		rp.state[i] |= entryActive
	default:
		rp.state[i] &^= entryActive
	}
}

// seq is the seq of entry i.
func (rp *replay) seq(i int) int64 {
	if rp.seqs == nil {
		return int64(i)
	}
	return int64(rp.seqs[i])
}

// id is the row id of entry i.
func (rp *replay) id(i int) int64 { return EntryID(rp.sid, rp.seq(i)) }

// newest is the row id of the newest entry of a replay that has one.
func (rp *replay) newest() int64 { return rp.id(rp.n - 1) }

// The reconcile mark tells a connection that the database is as its last
// Reconcile call left it: the call wrote it in the same transaction, a
// rollback takes it back, another connection's call writes its own, and
// deleting a session removes it. An append changes the session's newest
// entry, which is checked too.
const markKey = "reconcile_mark"

// forgetMarkSQL deletes the reconcile mark, so that no kept replay is taken
// as current: deleting a session does, and an event stored into a gap of a
// pending session.
const forgetMarkSQL = `DELETE FROM sessionsearch_meta WHERE key = '` + markKey + `'`

var markSeed = time.Now().UnixNano()

func (s *State) nextMark() string {
	s.marks++
	return fmt.Sprintf("%x.%p.%d", markSeed, s, s.marks)
}

// current reports whether the kept replay rp still describes session sid.
func (rp *replay) current(c Conn, sid int64) (bool, error) {
	if rp == nil || rp.sid != sid {
		return false, nil
	}
	mark, newest := "", int64(-1)
	err := c.Query(`SELECT (SELECT value FROM sessionsearch_meta WHERE key = ?1),
			(SELECT max(id) FROM sessionsearch_entries WHERE id BETWEEN ?2 AND ?3)`,
		func(r Row) error { mark, newest = r.Text(0), r.Int(1); return nil }, markKey, EntryID(sid, 0), EntryID(sid, MaxSeq))
	return err == nil && rp.n > 0 && mark == rp.mark && newest == rp.newest(), err
}

// ReplayGCPercent, when above 0, is the garbage collector's percentage
// (GOGC) while Reconcile reads a session into its replay. The replay is
// then most of the heap, and nothing of it is freed until it is complete,
// so the default of 100 lets the heap grow to twice the replay before a
// collection; the replay holds no pointers, so collecting more often costs
// little. It changes the whole process's collector, so only a program that
// owns its process sets it (the CLI's import, docs/cli.md C19); 0 leaves
// the collector alone. Set it before the connection is used.
var ReplayGCPercent int

// SpillAbove is the size of a replay's ids (transcript.IDBytes) past which
// Reconcile and a pending session's history replay it in temporary files
// instead of memory (transcript.Replay.Spill), and hold nothing for most
// entries (docs/store.md S9). A variable so that the tests can spill every
// replay.
var SpillAbove = transcript.SpillAbove

// replayCollectEntries is the size of replay that Reconcile collects as
// soon as it is done with it, when ReplayGCPercent is set: a collection
// costs about a millisecond, a replay of this size about 2 MB.
const replayCollectEntries = 100000

// loadReplay reads session sid's entries and replays them. What it holds
// while it reads is what a Replay keeps of each entry and one byte; the
// records themselves are dropped as they are read. keep keeps the Replayer
// with the replay (Repath's, which catchUp extends).
func loadReplay(c Conn, sid int64, keep bool) (*replay, error) {
	rp := &replay{sid: sid}
	// The entries and the bytes of their ids (the entry_id column holds
	// the info's id), to size the replay once.
	var n, idBytes int64
	err := c.Query(`SELECT count(*), coalesce(sum(length(CAST(entry_id AS BLOB))), 0) FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2`,
		func(r Row) error { n, idBytes = r.Int(0), r.Int(1); return nil }, EntryID(sid, 0), EntryID(sid, MaxSeq))
	if err != nil {
		return nil, err
	}
	if n > transcript.MaxReplayEntries {
		return nil, fmt.Errorf("%d entries: more than one replay holds (%d)", n, transcript.MaxReplayEntries)
	}
	if ReplayGCPercent > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(ReplayGCPercent))
	}
	p := &Replayer{}
	rp.keep = p
	// A big session's ids go to temporary files; where none can be made,
	// they stay in memory.
	rp.spilled = !keep && transcript.IDBytes(int(n), int(idBytes)) > SpillAbove && p.Spill(int(n)) == nil
	if !rp.spilled {
		p.Grow(int(n), int(idBytes))
		rp.state = make([]entryState, 0, n)
	}
	err = c.Query(`SELECT `+recordColumns+` FROM sessionsearch_entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id`,
		func(r Row) error { return rp.add(r) }, EntryID(sid, 0), EntryID(sid, MaxSeq))
	if err == nil {
		err = p.Err()
	}
	if err == nil {
		rp.place()
		err = p.Err()
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	if !keep {
		rp.keep = nil // the path is all that is needed of it
		if ReplayGCPercent > 0 && n >= replayCollectEntries {
			// The replay is garbage now, and most of the heap: collect it
			// before the percentage goes back, which would let the heap
			// grow to twice its size first.
			runtime.GC()
		}
	}
	return rp, nil
}

// recordColumns are what a replay reads of a row of sessionsearch_entries:
// its id, and its Record (rowRecord).
const recordColumns = `id, info, active, message, entry_id, role, ts`

// rowRecord is the Record of a row of recordColumns; before is the id of
// the entry before it.
func rowRecord(r Row, before string) (Record, error) {
	return ParseRecord(r.Text(1), Record{Active: r.Int(2) != 0, Message: r.Int(3) != 0, ID: r.Text(4), Role: r.Text(5), Timestamp: r.Int(6)}, before)
}

// add replays the next entry, a row of recordColumns.
func (rp *replay) add(r Row) error {
	rec, err := rowRecord(r, rp.lastID)
	if err != nil {
		return err
	}
	rp.lastID = rec.ID
	i, seq := rp.n, r.Int(0)&MaxSeq
	if rp.seqs == nil && seq != int64(i) {
		rp.seqs = make([]uint32, i, max(i+1, cap(rp.state)))
		for j := range rp.seqs {
			rp.seqs[j] = uint32(j)
		}
	}
	if rp.seqs != nil {
		rp.seqs = append(rp.seqs, uint32(seq))
	}
	rp.keep.Add(rec)
	rp.n++
	if rp.spilled {
		return nil
	}
	var st entryState
	if rec.Active {
		st |= entryActive
	}
	if rec.Message {
		st |= entryMessage
	}
	if transcript.ToolRole(rec.Role) {
		st |= entryTool
	}
	rp.state = append(rp.state, st)
	return nil
}

// place takes the entries the replay puts on the path, and its tip.
func (rp *replay) place() {
	rp.path, rp.tip = rp.keep.Result(rp.seq)
}

// applyPath makes the index of session sid match its active path and writes
// its tip. With a non-zero deadline it stops when the deadline has passed
// (checking every reconcileChunk changes) and reports done=false; s then
// keeps the replay so that the next call on the connection goes on where
// this one stopped without reading the session again.
func applyPath(c Conn, s *State, sid int64, deadline time.Time) (done bool, err error) {
	var rp *replay
	if ok, err := s.replay.current(c, sid); err != nil {
		return false, err
	} else if ok {
		rp = s.replay
	}
	if rp == nil {
		s.replay.close() // one that no longer describes the database
	}
	s.replay = nil // kept again only when this call stops early and cleanly
	if rp == nil {
		if rp, err = loadReplay(c, sid, false); err != nil {
			return false, err
		}
	}
	done, err = applyReplay(c, s, rp, deadline, nil)
	if s.replay != rp {
		rp.close()
	}
	return done, err
}

// indexWriter is how a replay's changes reach the index: by SQL (sqlIndex),
// or through a bulk load, which holds its rows for a while (loader). tools
// names the tool index (S30) rather than the messages'.
type indexWriter interface {
	// unindex removes entry id's row; the entry is still active, so that
	// the content view shows its text.
	unindex(id int64, tools bool) error
	// index adds entry id's row, once the entry is active.
	index(id int64, tools bool) error
	// indexesTools reports whether the store keeps the tool index (S33):
	// when not, a replay does no tool work.
	indexesTools() bool
}

// sqlIndex writes the index by SQL. The text goes both ways through the
// content view, which defines it: FTS5 reads the view to unindex a row, and
// readText reads it once the entry is active. (INSERT ... SELECT would be
// shorter, but FTS5 flushes its pending terms at the statement savepoint a
// multi-row INSERT opens: a segment per row, measured 2.2x slower.)
// The statements of sqlIndex, for each index (messages, tools) and as
// sqlIndex's stmts hold them: unindex a row, read a row's text from the
// content view, index a row.
var sqlIndexSQL = [2][3]string{{
	`DELETE FROM sessionsearch_fts WHERE rowid = ?1`,
	`SELECT text FROM sessionsearch_content WHERE id = ?1`,
	`INSERT INTO sessionsearch_fts(rowid, text) VALUES (?1, ?2)`,
}, {
	`DELETE FROM sessionsearch_tools WHERE rowid = ?1`,
	`SELECT text FROM sessionsearch_tool_content WHERE id = ?1`,
	`INSERT INTO sessionsearch_tools(rowid, text) VALUES (?1, ?2)`,
}}

type sqlIndex struct {
	stmts [2][3]Stmt
	tools bool // the store keeps the tool index (S33): stmts[1] are prepared
}

// newSQLIndex prepares the statements of the indexes the store keeps.
func newSQLIndex(c Conn) (*sqlIndex, error) {
	tools, err := ToolIndexOn(c)
	if err != nil {
		return nil, err
	}
	sqls := sqlIndexSQL[0][:]
	if tools {
		sqls = append(sqls, sqlIndexSQL[1][:]...)
	}
	stmts, err := prepareAll(c, sqls...)
	if err != nil {
		return nil, err
	}
	x := &sqlIndex{tools: tools}
	copy(x.stmts[0][:], stmts[:3])
	copy(x.stmts[1][:], stmts[3:])
	return x, nil
}

func (x *sqlIndex) close() {
	n := 3
	if x.tools {
		n = 6
	}
	closeAll(append(x.stmts[0][:], x.stmts[1][:]...)[:n])
}

func (x *sqlIndex) indexesTools() bool { return x.tools }

func (x *sqlIndex) unindex(id int64, tools bool) error { return x.stmts[toolsIndex(tools)][0].Run(id) }

func (x *sqlIndex) index(id int64, tools bool) error {
	text, err := x.text(id, tools)
	if err != nil {
		return err
	}
	return x.stmts[toolsIndex(tools)][2].Run(id, text)
}

// text is the content view's text of active entry id.
func (x *sqlIndex) text(id int64, tools bool) (string, error) {
	var text string
	found := false
	if err := x.stmts[toolsIndex(tools)][1].Query(func(r Row) error { text, found = r.Text(0), true; return nil }, id); err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("entry %d: active entry not in the content view of %s", id, sqlIndexSQL[toolsIndex(tools)][1])
	}
	return text, nil
}

// applyReplay is applyPath with the session's replay read; w writes the
// index, nil by SQL.
func applyReplay(c Conn, s *State, rp *replay, deadline time.Time, w indexWriter) (done bool, err error) {
	if rp.n == 0 {
		return true, nil
	}
	setActive, err := c.Prepare(`UPDATE sessionsearch_entries SET active = ?2 WHERE id = ?1`)
	if err != nil {
		return false, err
	}
	defer setActive.Close()
	if w == nil {
		x, err := newSQLIndex(c)
		if err != nil {
			return false, err
		}
		defer x.close()
		w = x
	}
	tools := w.indexesTools()
	changes := 0
	buf := make([]entryState, reconcileChunk)
	for i := rp.next; i < rp.n; {
		k, err := rp.states(c, i, buf)
		if err != nil {
			return false, err
		}
		if k == 0 {
			return false, fmt.Errorf("entry %d: not in sessionsearch_entries: the session changed under its reconcile", rp.id(i))
		}
		for _, st := range buf[:k] {
			i++
			on := rp.path.Has(i - 1)
			if st.active() == on {
				continue
			}
			if changes++; changes > reconcileChunk && changes%reconcileChunk == 1 && !deadline.IsZero() && !time.Now().Before(deadline) {
				if err := rp.path.Err(); err != nil {
					return false, err
				}
				rp.next = i - 1
				rp.mark = s.nextMark()
				if err := writeMark(c, rp.mark); err != nil {
					return false, err
				}
				s.replay = rp
				return false, nil
			}
			id := rp.id(i - 1)
			if !on {
				// FTS5 reads the text to unindex from the content view:
				// while the entry is still active.
				if st.message() {
					if err := w.unindex(id, false); err != nil {
						return false, err
					}
				}
				if st.tool() && tools {
					if err := w.unindex(id, true); err != nil {
						return false, err
					}
				}
				if err := setActive.Run(id, 0); err != nil {
					return false, err
				}
				rp.setActive(i-1, false)
				continue
			}
			if err := setActive.Run(id, 1); err != nil {
				return false, err
			}
			rp.setActive(i-1, true)
			if st.message() {
				if err := w.index(id, false); err != nil {
					return false, err
				}
			}
			if st.tool() && tools {
				if err := w.index(id, true); err != nil {
					return false, err
				}
			}
		}
	}
	if err := rp.path.Err(); err != nil {
		return false, err
	}
	if err := c.Exec(`UPDATE sessionsearch_entries SET tip_leaf = ?2, tip_key = `+tipKeySQL("?3", "entry_id")+`, tip_messages = ?4 WHERE id = ?1`,
		rp.newest(), rp.tip.Leaf, rp.tip.Key, rp.tip.Messages); err != nil {
		return false, err
	}
	// Any change of active entries, by any connection, writes a new mark:
	// a replay kept with an older one no longer describes the database.
	rp.mark = s.nextMark()
	return true, writeMark(c, rp.mark)
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
// chunk of work), atomically, resuming where the last call on this
// connection stopped, so that the calls of a big session add up to about
// the work of one (docs/store.md S9).
func (s *State) Reconcile(c Conn, deadline time.Time) (ReconcileResult, error) {
	var res ReconcileResult
	m, err := writable(c)
	if err != nil {
		return res, err
	}
	// Nothing pending, nothing to write: no write lock to wait for, and a
	// database that this connection may only read stays unwritten.
	if res.Pending, err = PendingSessions(c); err != nil || res.Pending == 0 {
		return res, err
	}
	err = atomically(c, m, func() error {
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
			done, err := reconcileSession(c, s, sid, key, rebuilt, deadline)
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
		var err error
		res.Pending, err = PendingSessions(c)
		return err
	})
	return res, err
}

// writable checks that c's database has a store whose index this build
// may change (docs/store.md S12), and returns what its meta table says.
func writable(c Conn) (meta, error) {
	m, err := readMeta(c)
	if err != nil {
		return m, err
	}
	if !m.exists {
		return m, fmt.Errorf("no transcript store in this database (run SELECT sessionsearch_migrate() first)")
	}
	if m.index != IndexVersion {
		return m, fmt.Errorf("the search index was built by another version of sessionsearch (index version %q, this build %q): run SELECT sessionsearch_migrate() first",
			m.index, IndexVersion)
	}
	return m, nil
}

// reconcileSession advances the rebuild of one pending session until it is
// done or the deadline passes (after at least one chunk). rebuilt is the
// session's rebuilt_seq, or -2 when it is NULL.
func reconcileSession(c Conn, s *State, sid int64, key string, rebuilt int64, deadline time.Time) (bool, error) {
	insert, err := c.Prepare(insertEntry)
	if err != nil {
		return false, err
	}
	defer insert.Close()
	buf := make([]byte, 0, 256)
	var frame []byte
	for rebuilt >= -1 {
		// Entries for events that predate the store, a chunk at a time
		// (those appended since have theirs).
		n := 0
		err := c.Query(`SELECT seq, event FROM transcript_events WHERE session_key = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3`,
			func(r Row) error {
				seq := r.Int(0)
				var e transcript.Entry
				var err error
				e, _, frame, err = ReadEvent([]byte(r.Text(1)), frame)
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
	done, err := applyPath(c, s, sid, deadline)
	if err != nil || !done {
		return false, err
	}
	return true, setPending(c, sid, false)
}

// PendingSessions counts the sessions waiting for Reconcile.
func PendingSessions(c Conn) (int64, error) {
	return queryInt(c, 0, `SELECT count(*) FROM sessionsearch_sessions WHERE pending`)
}
