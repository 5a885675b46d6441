package store

import (
	"errors"
	"math/rand/v2"
	"sync"

	"github.com/sessionsearch/sessionsearch/tokenizer"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// A bulk load (docs/store.md S20-S23): a trusted caller in this process
// (import, sync, the service's append) hands the store whole new
// transcripts, read and prepared beside the writer (Prepare), and Load
// writes their rows with prepared statements inside the caller's
// transaction. It applies the rules the append trigger applies, through the
// same functions: Appended gives each entry's Record and the tip after it,
// Repath replays a session whose path an entry moved, IndexedText is the
// text the index keeps; so the database it leaves is the one inserting the
// same rows through the trigger leaves. What it saves is the trigger's
// work per event: the event read once, beside the writer, the entry
// computed in Go instead of split out of JSON by SQL, and the index rows
// written in runs rather than one statement savepoint (and so one FTS5
// segment) apart.

// Prepared is one event of a bulk load, read beside the writer.
type Prepared struct {
	Stored []byte           // what transcript_events keeps (StoredEvent)
	Frame  bool             // Stored is a zstd frame, bound as a BLOB
	Entry  transcript.Entry // as transcript.Read reads the event
	Text   Tokenized        // IndexedText, and its tokens
	Tool   Tokenized        // ToolIndexedText's text, and its tokens (S30), when tooled
	tooled bool             // Tool is prepared: the Preparer's Tools was set
	Err    error            // why the append trigger would refuse the event
}

// A Preparer prepares events for Load, on one goroutine (its scratch).
// Tools: the store keeps the tool index (S33), whose text it prepares too.
type Preparer struct {
	out   tokenizer.Output
	Tools bool
}

// Prepare reads the event at seq of a transcript for Load: its entry, the
// text the index keeps and its tokens, and the form transcript_events
// keeps. It does all the reading, masking, tokenizing and compressing, so
// that the writer does none; it copies what it keeps of event.
func (r *Preparer) Prepare(seq int64, event []byte) Prepared {
	e, text, err := transcript.ReadIndexed(event)
	if err != nil {
		return Prepared{Err: err}
	}
	p := Prepared{Entry: e, Text: tokenized(IndexedText(e, text), &r.out)}
	if r.Tools && transcript.ToolRole(e.Role) {
		_, tool := ToolIndexedText(event)
		p.Tool, p.tooled = tokenized(tool, &r.out), true
	}
	stored, frame := StoredEvent(seq, event, nil)
	if !frame {
		stored = append([]byte(nil), event...)
	}
	p.Stored, p.Frame = stored, frame
	return p
}

// Size is what a prepared event holds in memory, about.
func (p *Prepared) Size() int {
	return len(p.Stored) + p.Text.size() + p.Tool.size() + len(p.Entry.ID) + len(p.Entry.ParentID) + 128
}

// LoadItem is one step of a bulk load: exactly one of its fields is set.
// A transcript is a Begin, its events in seq order from 0, then End or
// Abort.
type LoadItem struct {
	Begin *LoadTranscript
	Event *Prepared
	// End: the transcript is complete.
	End bool
	// Abort: the transcript failed where it is read; what Load stored of
	// it goes.
	Abort error
	cut   bool // Pipe's end of a call
}

// LoadTranscript is a transcript a bulk load creates: a session that has
// no events yet. Its row is added, or the links it lacks filled in
// (AddSessionSQL).
type LoadTranscript struct {
	Session Session
	Tag     any // the caller's, handed back to Loaded
}

// LoadFeed hands Load its items, in order.
type LoadFeed interface {
	// Next returns the next item; false ends this call of Load, between
	// two transcripts (the caller commits, and may call it again).
	Next() (LoadItem, bool)
	// Loaded reports each transcript once its End or Abort is read: the
	// events stored, or the error that left none of it stored (the
	// Abort's, or the store's refusal, naming the session and seq). The
	// rows are the caller's transaction's: stored once it commits.
	Loaded(tag any, events int64, err error)
}

// AddSessionSQL adds a session, or fills in the links and creation time
// that its stored row lacks; ?1..?4 are Session.Values.
const AddSessionSQL = `INSERT INTO sessions(session_key, spawned_by, parent_session_key, created_at)
VALUES (?1, ?2, ?3, ?4)
ON CONFLICT(session_key) DO UPDATE SET
  spawned_by = coalesce(sessions.spawned_by, excluded.spawned_by),
  parent_session_key = coalesce(sessions.parent_session_key, excluded.parent_session_key),
  created_at = coalesce(sessions.created_at, excluded.created_at)
WHERE (sessions.spawned_by IS NULL AND excluded.spawned_by IS NOT NULL)
   OR (sessions.parent_session_key IS NULL AND excluded.parent_session_key IS NOT NULL)
   OR (sessions.created_at IS NULL AND excluded.created_at IS NOT NULL)`

// loadIndexRun is how much text Load keeps before it writes the index rows
// it holds: each run of index rows is one FTS5 segment, since the next
// insert of an event opens a statement savepoint, where FTS5 writes its
// pending terms out.
const loadIndexRun = 2 << 20

// LoadResult is what one call of Load did.
type LoadResult struct {
	Transcripts int64 `json:"transcripts"` // ended: stored, refused or aborted
	Events      int64 `json:"events"`      // stored
}

// Load stores the transcripts f hands it (docs/store.md S20). It fails
// only when the database does (the caller rolls back); a refused or
// aborted transcript leaves nothing and is reported to f.Loaded.
func (s *State) Load(c Conn, f LoadFeed) (LoadResult, error) {
	var res LoadResult
	if _, err := writable(c); err != nil {
		return res, err
	}
	l := &loader{s: s, c: c, f: f, res: &res}
	if err := l.prepare(); err != nil {
		return res, err
	}
	if p, ok := f.(*Pipe); ok {
		// Its reader prepares the tool text from now on (an event it
		// prepared before without it gets it here: toolText).
		p.tools.Store(l.tools)
	}
	defer closeAll(l.stmts)
	defer func() {
		if l.sql != nil {
			l.sql.close()
		}
	}()
	s.loading = true
	defer func() { s.loading = false }()
	err := l.run()
	if err == nil {
		err = l.flush()
	}
	if err != nil && l.t != nil {
		f.Loaded(l.t.tag, 0, err)
	}
	return res, err
}

// loader is one call of Load.
type loader struct {
	s     *State
	c     Conn
	f     LoadFeed
	res   *LoadResult
	stmts []Stmt
	// The prepared statements.
	addSession, sessionRow, hasEvents, insertEvent, insertEntry, insertText, insertTool, tipAfter Stmt
	tools                                                                                         bool // the store keeps the tool index (S33)
	out                                                                                           tokenizer.Output
	sql                                                                                           *sqlIndex // for the rows it does not hold
	moving                                                                                        *Prepared // the event whose move Repath applies
	movingID                                                                                      int64
	t                                                                                             *loading
	texts                                                                                         []indexRow
	textBytes                                                                                     int
	buf                                                                                           []byte
}

// loading is the transcript a loader is storing.
type loading struct {
	tag     any
	key     string
	sid     int64
	pending bool
	tip     Tip
	seq     int64 // of the next event
	existed bool  // its session row was there before: undone by a savepoint
	failed  error // refused: its rows are undone, the rest of its events skipped
}

// indexRow is an index row Load holds until it writes a run of them: of
// the tool index when tools is set.
type indexRow struct {
	id    int64
	tools bool
	text  Tokenized
}

func (l *loader) prepare() error {
	var err error
	l.stmts, err = prepareAll(l.c,
		AddSessionSQL,
		`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`,
		`SELECT EXISTS (SELECT 1 FROM transcript_events WHERE session_key = ?1)`,
		`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`,
		insertEntry,
		sqlIndexSQL[0][2],
		`SELECT e.tip_leaf, `+tipKeyOf("e")+`, e.tip_messages, s.pending FROM sessionsearch_entries AS e, sessionsearch_sessions AS s
			WHERE e.id = ?1 AND s.sid = ?2`)
	if err != nil {
		return err
	}
	l.addSession, l.sessionRow, l.hasEvents, l.insertEvent, l.insertEntry, l.insertText, l.tipAfter =
		l.stmts[0], l.stmts[1], l.stmts[2], l.stmts[3], l.stmts[4], l.stmts[5], l.stmts[6]
	if l.sql, err = newSQLIndex(l.c); err != nil {
		return err
	}
	if l.tools = l.sql.tools; l.tools {
		l.insertTool = l.sql.stmts[1][2]
	}
	return nil
}

// errLoadOrder is a feed that breaks the order of items.
var errLoadOrder = errors.New("bulk load: items out of order (an event or an end without its transcript's begin)")

func (l *loader) run() error {
	for {
		item, ok := l.f.Next()
		if !ok {
			if l.t != nil {
				return errors.New("bulk load: the feed ended a call inside a transcript")
			}
			return nil
		}
		switch {
		case item.Begin != nil:
			if l.t != nil {
				return errLoadOrder
			}
			if err := l.begin(item.Begin); err != nil {
				return err
			}
		case l.t == nil:
			return errLoadOrder
		case item.Event != nil:
			if err := l.event(item.Event); err != nil {
				return err
			}
		case item.Abort != nil:
			if err := l.end(item.Abort); err != nil {
				return err
			}
		case item.End:
			if err := l.end(nil); err != nil {
				return err
			}
		}
	}
}

// begin starts a transcript: its session row, which must have no events.
func (l *loader) begin(b *LoadTranscript) error {
	key := b.Session.Key
	l.t = &loading{tag: b.Tag, key: key, tip: NoTip, sid: -1}
	if err := l.sessionRowOf(key); err != nil {
		return err
	}
	if l.t.sid >= 0 {
		var has int64
		if err := l.hasEvents.Query(func(r Row) error { has = r.Int(0); return nil }, key); err != nil {
			return err
		}
		if has != 0 {
			l.t.failed = refusef("transcript_events: session %q already has events: a bulk load only creates transcripts", key)
			return nil
		}
		// Undone by a savepoint, which makes FTS5 write what it holds:
		// the held rows go first, to be in the index it keeps.
		if err := l.flush(); err != nil {
			return err
		}
		if err := l.c.Exec(`SAVEPOINT sessionsearch_load`); err != nil {
			return err
		}
		l.t.existed = true
	}
	if err := l.addSession.Run(b.Session.Values()...); err != nil {
		return l.refuse(err)
	}
	if l.t.sid < 0 {
		return l.sessionRowOf(key)
	}
	return nil
}

func (l *loader) sessionRowOf(key string) error {
	return l.sessionRow.Query(func(r Row) error {
		l.t.sid, l.t.pending = r.Int(0), r.Int(1) != 0
		return nil
	}, key)
}

// event stores the next event of the transcript: the rules of Append for
// an event whose seq follows the session's newest (docs/store.md S7, S8).
func (l *loader) event(p *Prepared) error {
	t := l.t
	if t.failed != nil {
		return nil
	}
	seq := t.seq
	switch {
	case seq > MaxSeq:
		return l.refuse(refusef("transcript_events: seq must be 0..%d (session %q, seq %d)", MaxSeq, t.key, seq))
	case p.Err != nil:
		return l.refuse(refusef("transcript_events: %v (session %q, seq %d)", p.Err, t.key, seq))
	}
	if !t.pending && Deferred(false, l.s.DeferIndexing, seq, seq-1) {
		// This connection defers indexing, as the trigger would see it.
		if err := setPending(l.c, t.sid, true); err != nil {
			return err
		}
		t.pending = true
	}
	rec := Appended(p.Entry, seq, t.tip, t.pending)
	stored := any(p.Stored)
	if p.Frame {
		stored = Blob(p.Stored)
	}
	if err := l.insertEvent.Run(t.key, seq, stored); err != nil {
		return l.refuse(err)
	}
	id := EntryID(t.sid, seq)
	cols := rec.columns(id, l.buf[:0])
	l.buf = cols[1].([]byte)
	if err := l.insertEntry.Run(cols...); err != nil {
		return err
	}
	t.seq++
	t.tip = rec.Tip
	if rec.Active && rec.Message {
		l.hold(indexRow{id, false, p.Text})
	}
	if l.tools && rec.Active && transcript.ToolRole(rec.Role) {
		tool, err := l.toolText(p)
		if err != nil {
			return err
		}
		l.hold(indexRow{id, true, tool})
	}
	if l.textBytes >= loadIndexRun {
		if err := l.flush(); err != nil {
			return err
		}
	}
	if rec.Moves {
		// A leaf entry or a branch: the replay's changes of the index come
		// back to the loader (unindex, index), which holds its rows.
		l.moving, l.movingID = p, id
		err := l.s.repath(l.c, t.sid, l)
		l.moving = nil
		if err != nil {
			return err
		}
		return l.tipAfter.Query(func(r Row) error {
			t.tip = Tip{Leaf: r.Int(0), Key: r.Text(1), Messages: r.Int(2)}
			t.pending = r.Int(3) != 0
			return nil
		}, id, t.sid)
	}
	return nil
}

// refuse ends the transcript with err: a refusal undoes its rows, an
// error of the database fails the load.
func (l *loader) refuse(err error) error {
	if !Refused(err) {
		return err
	}
	l.t.failed = err
	return l.undo()
}

// undo removes what the transcript stored.
func (l *loader) undo() error {
	t := l.t
	if t.existed {
		l.dropTexts(t.sid)
		if err := l.c.Exec(`ROLLBACK TO sessionsearch_load`); err != nil {
			return err
		}
		t.existed = false
		return l.c.Exec(`RELEASE sessionsearch_load`)
	}
	if t.sid < 0 {
		return nil
	}
	// The session's delete trigger unindexes its rows through the content
	// view: the held ones go in first.
	if err := l.flush(); err != nil {
		return err
	}
	return l.c.Exec(`DELETE FROM sessions WHERE session_key = ?1`, t.key)
}

// dropTexts forgets the held index rows of session sid, whose rows a
// rollback takes back.
func (l *loader) dropTexts(sid int64) {
	kept := l.texts[:0]
	for _, r := range l.texts {
		if r.id>>32 != sid {
			kept = append(kept, r)
		}
	}
	clear(l.texts[len(kept):])
	l.texts = kept
}

// end ends the transcript, aborted when abort is set.
func (l *loader) end(abort error) error {
	t := l.t
	err := t.failed
	if err == nil && abort != nil {
		err = abort
		if uerr := l.undo(); uerr != nil {
			return uerr
		}
	}
	if t.existed {
		if rerr := l.c.Exec(`RELEASE sessionsearch_load`); rerr != nil {
			return rerr
		}
	}
	l.t = nil
	l.res.Transcripts++
	n := t.seq
	if err != nil {
		n = 0
	} else {
		l.res.Events += n
	}
	l.f.Loaded(t.tag, n, err)
	return nil
}

// toolText is the tool index's text of a prepared event, and its tokens:
// prepared by the reader, or here for an event the reader prepared before
// the load told it the store keeps the tool index.
func (l *loader) toolText(p *Prepared) (Tokenized, error) {
	if p.tooled {
		return p.Tool, nil
	}
	json, err := EventJSON(p.Stored, nil)
	if err != nil {
		return Tokenized{}, err
	}
	_, text := ToolIndexedText(json)
	p.Tool, p.tooled = tokenized(text, &l.out), true
	return p.Tool, nil
}

// indexesTools is the indexWriter's.
func (l *loader) indexesTools() bool { return l.tools }

// hold keeps an index row until the next flush.
func (l *loader) hold(r indexRow) {
	l.texts = append(l.texts, r)
	l.textBytes += r.text.size() + 64
}

// unindex is the indexWriter's, for a replay Repath does: a row the
// loader holds is dropped (marked with id -1), any other unindexed by SQL.
func (l *loader) unindex(id int64, tools bool) error {
	for i := range l.texts {
		if l.texts[i].id == id && l.texts[i].tools == tools {
			l.texts[i] = indexRow{id: -1}
			return nil
		}
	}
	return l.sql.unindex(id, tools)
}

// index is the indexWriter's: the row is held, with its tokens when it is
// the event being stored, else with the content view's text.
func (l *loader) index(id int64, tools bool) error {
	row := indexRow{id: id, tools: tools}
	switch {
	case l.moving != nil && l.movingID == id && tools:
		text, err := l.toolText(l.moving)
		if err != nil {
			return err
		}
		row.text = text
	case l.moving != nil && l.movingID == id:
		row.text = l.moving.Text
	default:
		text, err := l.sql.text(id, tools)
		if err != nil {
			return err
		}
		row.text = Tokenized{Text: text}
	}
	l.hold(row)
	return nil
}

// flush writes the index rows held, each with its tokens handed to the
// tokenizer (TakeTokens).
func (l *loader) flush() error {
	for i := range l.texts {
		r := &l.texts[i]
		if r.id < 0 {
			continue
		}
		insert := l.insertText
		if r.tools {
			insert = l.insertTool
		}
		handoff.Store(&r.text)
		err := insert.Run(r.id, r.text.Text)
		handoff.CompareAndSwap(&r.text, nil)
		if err != nil {
			return err
		}
		l.texts[i] = indexRow{}
	}
	l.texts, l.textBytes = l.texts[:0], 0
	return nil
}

// Feeds are found by a token, so that only code of this process, which
// registered the feed, can start a load (sessionsearch_load).
var feeds = struct {
	sync.Mutex
	m map[int64]LoadFeed
}{m: map[int64]LoadFeed{}}

// RegisterFeed makes f the feed of sessionsearch_load(token) until release
// is called.
func RegisterFeed(f LoadFeed) (token int64, release func()) {
	feeds.Lock()
	defer feeds.Unlock()
	for {
		token = rand.Int64()
		if _, taken := feeds.m[token]; !taken && token != 0 {
			break
		}
	}
	feeds.m[token] = f
	return token, func() {
		feeds.Lock()
		delete(feeds.m, token)
		feeds.Unlock()
	}
}

// FeedOf returns the feed registered under token, nil when there is none.
func FeedOf(token int64) LoadFeed {
	feeds.Lock()
	defer feeds.Unlock()
	return feeds.m[token]
}

// Loading reports whether a bulk load is writing on the connection: the
// append trigger then leaves the event to it (sessionsearch_loading).
func (s *State) Loading() bool { return s.loading }
