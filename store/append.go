package store

import (
	"fmt"
	"hash/maphash"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// Refusal is an error about a row of the store's tables, raised by a
// trigger: its message names the table, the session and the seq rather than
// the function the trigger happened to call.
type Refusal struct{ msg string }

func (r *Refusal) Error() string { return r.msg }

// Refusef is a Refusal with a formatted message.
func Refusef(format string, args ...any) error { return &Refusal{fmt.Sprintf(format, args...)} }

func refusef(format string, args ...any) error { return Refusef(format, args...) }

// Refuse is sessionsearch_refuse(table, reason, session_key[, seq]): the
// triggers' way to make a statement fail. seq < 0 means none.
func Refuse(table, reason, key string, seq int64) error {
	if seq < 0 {
		return refusef("%s: %s (session %q)", table, reason, key)
	}
	return refusef("%s: %s (session %q, seq %d)", table, reason, key, seq)
}

// State is the store's state for one connection.
type State struct {
	// DeferIndexing is set by sessions_defer_indexing: appends only mark
	// their sessions pending.
	DeferIndexing bool
	// last is the message text Append read (unmasked), for the
	// sessionsearch_message_text call that follows it in the trigger when
	// the message is indexed.
	last struct {
		key     string
		seq     int64
		hash    uint64
		message bool
		text    string
	}
	buf     []byte
	frame   []byte  // scratch for the JSON of a stored frame
	replay  *replay // of the session Reconcile stopped in
	moved   *replay // of the session Repath last replayed, with its Replayer
	marks   int64
	visible visibilityCache
	loading bool // a bulk load is writing (Load)
}

var eventHashSeed = maphash.MakeSeed()

// Appending is what the append trigger knows of an event when it calls
// sessionsearch_entry: the event, its session's row in
// sessionsearch_sessions and the session's newest entry.
type Appending struct {
	SessionKey string
	Seq        int64
	Event      []byte
	Known      bool  // the session has a row (SID and Pending are valid)
	SID        int64 // the session's number
	Pending    bool
	Exists     bool   // an entry with this seq exists: INSERT OR REPLACE
	BuiltIndex string // the index version sessionsearch_meta records
	HasNewest  bool   // the session has entries: Newest and Tip are valid
	Newest     int64  // the seq of its newest entry
	Tip        Tip    // the session's tip after it
}

// Append reads an appended event and returns the Record to store, or
// refuses it with an error that names session and seq: an unknown session,
// an event that is not a JSON object with a type, a seq that was stored
// before, a seq out of range, an index built by another version. An event
// out of order, or any event while this connection defers indexing, marks
// the session pending (docs/store.md S8, S10, S12).
func (s *State) Append(c Conn, a Appending) ([]byte, error) {
	key, seq := a.SessionKey, a.Seq
	switch {
	case !a.Known:
		return nil, refusef("transcript_events: unknown session: insert it into sessions first (session %q, seq %d)", key, seq)
	case seq < 0 || seq > MaxSeq:
		// Before Exists: a seq past MaxSeq would name another session's entry.
		return nil, refusef("transcript_events: seq must be 0..%d (session %q, seq %d)", MaxSeq, key, seq)
	case a.Exists:
		return nil, refusef("transcript_events: an event with this session and seq was stored before: use INSERT OR IGNORE (session %q, seq %d)", key, seq)
	case a.BuiltIndex != IndexVersion:
		return nil, refusef("transcript_events: the search index was built by another version of sessionsearch (index version %q, this build %q): run SELECT sessionsearch_migrate() first (session %q, seq %d)",
			a.BuiltIndex, IndexVersion, key, seq)
	}
	prev, newest := NoTip, int64(-1)
	if a.HasNewest {
		prev, newest = a.Tip, a.Newest
	}
	deferred := !a.Pending && Deferred(false, s.DeferIndexing, seq, newest)
	pending := a.Pending || deferred
	event, err := EventJSON(a.Event, s.frame)
	if err != nil {
		return nil, refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
	}
	if IsFrame(a.Event) {
		s.frame = event
		if seq == 0 {
			return nil, refusef("transcript_events: the event at seq 0 is stored as JSON text, not as a zstd frame: search reads it with SQL's JSON functions (session %q, seq %d)", key, seq)
		}
	}
	// The text is read now only for a message the trigger may index at
	// once; a pending session's are indexed by Reconcile, which reads them
	// again.
	var e transcript.Entry
	var text string
	if pending {
		e, err = transcript.ReadEntry(event)
	} else {
		e, text, err = transcript.ReadIndexed(event)
	}
	if err != nil {
		return nil, refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
	}
	if deferred {
		if err := setPending(c, a.SID, true); err != nil {
			return nil, refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
		}
	}
	if a.Pending && seq < newest {
		// Into a gap of a pending session: a replay that a reconcile in
		// steps keeps no longer describes it (its check of the newest
		// entry does not see this one), so the mark it was kept under goes.
		if err := c.Exec(forgetMarkSQL); err != nil {
			return nil, refusef("transcript_events: %v (session %q, seq %d)", err, key, seq)
		}
	}
	rec := Appended(e, seq, prev, pending)
	last := &s.last
	if pending {
		last.key = "" // no text read: MessageText reads it
	} else {
		// Masked by MessageText, if it is indexed.
		last.key, last.seq, last.hash, last.message, last.text = key, seq, maphash.Bytes(eventHashSeed, a.Event), e.Message, text
	}
	s.buf = rec.AppendResult(s.buf[:0])
	return s.buf, nil
}

// MessageText is sessionsearch_message_text(session_key, seq, event): what
// the index keeps of a message, its text with secrets masked, so that a
// search can neither find a secret nor confirm a guess of one character at a
// time (docs/store.md S3). The transcript keeps the original.
func (s *State) MessageText(key string, seq int64, event []byte) string {
	last := &s.last
	if last.key == key && last.seq == seq && last.hash == maphash.Bytes(eventHashSeed, event) {
		return IndexedText(transcript.Entry{Message: last.message}, last.text)
	}
	json, err := EventJSON(event, s.frame)
	if err != nil {
		return ""
	}
	if IsFrame(event) {
		s.frame = json
	}
	e, text, err := transcript.ReadIndexed(json)
	if err != nil {
		return ""
	}
	return IndexedText(e, text)
}
