package store

import "github.com/sessionsearch/sessionsearch/transcript"

// The store's rules, as pure functions: what an append does to a session's
// tip, when a session is deferred, and which entries a replay turns on or
// off. docs/store.md S4-S8; the active path itself is package transcript's.

// A branch or a rewind is indexed in the same transaction while the
// session has at most MaxInlineEntries entries and MaxInlineMessages
// messages; a larger session is deferred (docs/store.md S7).
const (
	MaxInlineEntries  = 20000
	MaxInlineMessages = 10000
)

// MaxSeq is the highest seq: an entry's id keeps the seq in 32 bits.
const MaxSeq = 0xFFFFFFFF

// EntryID is the id of entry seq of session sid, which is also the FTS5
// rowid of a message.
func EntryID(sid, seq int64) int64 { return sid<<32 | seq }

// Deferred reports whether an append leaves its session pending: it was
// pending, or this connection defers indexing, or the event is not the one
// after the session's newest (newest is -1 for a session without entries).
func Deferred(pending, deferring bool, seq, newest int64) bool {
	return pending || deferring || seq != newest+1
}

// Appended is the record of entry e appended as seq to a session whose tip
// was prev. In a pending session nothing is active and the leaf is left to
// Reconcile. Otherwise the entry is active when it extends the path; when it
// may move the path instead, Moves asks for a replay, which sets the leaf;
// an entry that does neither may only take the leaf's id over.
func Appended(e transcript.Entry, seq int64, prev Tip, pending bool) Record {
	t := prev
	extends := !pending && transcript.Extends(e, t.Leaf >= 0, t.Key)
	if e.Message {
		t.Messages++
	}
	switch {
	case extends:
		t.Leaf, t.Key = seq, e.ID
	case pending || transcript.Moves(e):
		// A replay or Reconcile sets the leaf.
	default:
		t.Key = transcript.KeyAfter(e, t.Key)
	}
	r := NewRecord(e, t)
	r.ParentBefore = parentBefore(e.HasParent, e.ParentID, seq, prev)
	r.Active = extends
	r.Moves = !pending && !extends && transcript.Moves(e)
	return r
}

// A Replayer replays a session's records one at a time, in seq order, and
// tells which are on the active path and the session's tip; a caller
// reading a big session need not hold its records: what the path needs of
// each entry is kept in the transcript.Replay.
type Replayer struct {
	r        *transcript.Replay
	n        int
	messages int64
}

// Grow makes room for n more records whose ids take idBytes bytes.
func (p *Replayer) Grow(n, idBytes int) {
	if p.r == nil {
		p.r = transcript.NewReplay()
	}
	p.r.Grow(n, idBytes)
}

// Add replays the next record.
func (p *Replayer) Add(rec Record) {
	if p.r == nil {
		p.r = transcript.NewReplay()
	}
	p.r.Append(rec.Entry())
	p.n++
	if rec.Message {
		p.messages++
	}
}

// Spill makes an empty Replayer keep the ids of the n records it is about
// to replay in temporary files (transcript.Replay.Spill); on an error it
// stays in memory.
func (p *Replayer) Spill(n int) error {
	r := transcript.NewReplay()
	if err := r.Spill(n); err != nil {
		return err
	}
	p.r = r
	return nil
}

// Err returns the first error of a spilled Replayer's files: after one, its
// Result means nothing.
func (p *Replayer) Err() error {
	if p.r == nil {
		return nil
	}
	return p.r.Err()
}

// Close closes a spilled Replayer's files.
func (p *Replayer) Close() {
	if p.r != nil {
		p.r.Close()
	}
}

// Result returns which of the records added are on the active path, and
// the session's tip; seq gives the seq of the record added i-th. The path
// of a spilled Replayer is in its files: Close it when done with the path.
func (p *Replayer) Result(seq func(i int) int64) (path *transcript.PathSet, tip Tip) {
	tip = NoTip
	tip.Messages = p.messages
	if p.r == nil {
		p.r = transcript.NewReplay()
	}
	if leaf, key := p.r.Leaf(); leaf >= 0 {
		tip.Leaf, tip.Key = seq(leaf), key
	}
	return p.r.PathSet(), tip
}

// Change turns one entry on or off the active path.
type Change struct {
	Index  int  // into the records
	Active bool // its new state
}

// Diff returns the changes that make the records' active flags equal to
// onPath, in record order.
func Diff(records []Record, onPath []bool) []Change {
	var out []Change
	for i, rec := range records {
		if rec.Active != onPath[i] {
			out = append(out, Change{i, onPath[i]})
		}
	}
	return out
}
