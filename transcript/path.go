package transcript

import "math"

// The active path of a session (docs/store.md S4-S6):
//
//   - Each appended entry that has an id becomes the leaf, except a leaf
//     entry, which moves the leaf to its targetId, and an entry with
//     appendMode "side", which leaves it where it is.
//   - The active path is the leaf and its parentId ancestors, through entries
//     of every type. Only user and assistant messages on it are searchable.
//   - An entry without a parentId field follows the entry before it: it
//     hangs from the leaf at the time it is appended (after a rewind, the
//     rewind's target; a side entry is never the leaf, so nothing follows it
//     implicitly). parentId null makes a new root.
//
// Ids are resolved when an entry is appended: a parentId or targetId names
// the entry with that id appended last before it. This defines malformed
// trees too:
//   - Duplicate ids: a later entry with the same id takes over the id for
//     the entries appended after it; earlier links stay where they were.
//   - A parent always precedes its child, so parentId links cannot form a
//     cycle. A parentId that names no earlier entry (none, or one appended
//     later: in practice, a line lost to damage) is read as no parentId:
//     the entry hangs from the leaf at the time it is appended, so one lost
//     line does not hide the transcript before it (docs/store.md S6).
//   - A leaf entry whose target names no earlier entry leaves the leaf
//     where it is.
//
// A reset entry (OpenClaw's in-window /reset) is a boundary, as OpenClaw's
// own reader (transcript-tree.ts scanSessionTranscriptTree) makes it: once a
// reset entry with an id is appended, an entry with a parentId (null
// included) whose parent's path does not pass through the latest reset
// hangs from the leaf instead, unless it is a side entry; and a leaf entry
// whose target's path does not pass through it leaves the leaf where it is.
// So a late write with a stale parent cannot hide the conversation after a
// reset; the messages before it stay on the path, as the reset's ancestors.
//
// Resolving at append time is what lets the store extend the index with
// each append without looking ids up: an entry extends the active path
// exactly when Extends says so.

// Replay computes the leaf and the active path of a session from its
// entries in append order. It keeps what the rules need of each entry in a
// few bytes: its parent as an index and its id in an idTable, and the
// nearest reset only once a session has one (docs/performance.md gives the
// bytes an entry).
type Replay struct {
	parents parentList  // parent of each entry: an earlier index, or -1
	ids     idTable     // id of each entry, and the latest entry with each id
	resets  []int32     // the nearest reset entry on each entry's path (itself included), or -1; nil before the first reset
	spill   *spill      // the temporary files of a spilled replay (Spill), else nil
	dresets *diskResets // resets, in a spilled replay once it has one
	leaf    int         // -1 before any entry has set it
	reset   int         // the latest reset entry with an id, -1 before one
}

// MaxReplayEntries is how many entries one Replay holds: indexes are kept
// in 32 bits.
const MaxReplayEntries = math.MaxInt32

// NewReplay returns an empty replay.
func NewReplay() *Replay { return &Replay{ids: newIDTable(), leaf: -1, reset: -1} }

// Grow makes room for n more entries whose ids take idBytes bytes, so that
// a caller that knows what it will append does not make the replay grow in
// steps (each step copies what it holds).
func (r *Replay) Grow(n, idBytes int) {
	if n <= 0 {
		return
	}
	r.parents.grow(n)
	r.ids.grow(n, idBytes)
}

// through reports whether the path of entry i passes through the latest
// reset: parents precede their children, so a reset on the path after the
// latest one cannot exist, and the nearest reset on the path is the latest
// exactly when the path has it.
func (r *Replay) through(i int) bool { return i >= 0 && int(r.resetAt(i)) == r.reset }

// resetAt returns the nearest reset on entry i's path.
func (r *Replay) resetAt(i int) int32 {
	if r.dresets != nil {
		return r.dresets.at(i)
	}
	return r.resets[i]
}

// hasResets reports whether the replay keeps each entry's nearest reset:
// from its first reset on.
func (r *Replay) hasResets() bool { return r.resets != nil || r.dresets != nil }

// startResets begins the nearest resets when the first reset is entry i:
// the entries before it have none on their path.
func (r *Replay) startResets(i int) {
	if r.spill != nil {
		r.dresets = &diskResets{log: newLogFile(r.spill)}
		for range i {
			r.dresets.add(-1)
		}
		return
	}
	r.resets = make([]int32, i, max(i+1, cap(r.parents.follows)*64))
	for j := range r.resets {
		r.resets[j] = -1
	}
}

// addReset appends the next entry's nearest reset.
func (r *Replay) addReset(v int32) {
	if r.dresets != nil {
		r.dresets.add(v)
		return
	}
	r.resets = append(r.resets, v)
}

// Leaf returns the index of the leaf (-1 when there is none) and its key:
// the leaf's id while that id still names it, else "" (a later entry took
// the id over, or the leaf has no id).
func (r *Replay) Leaf() (index int, key string) {
	if r.leaf < 0 {
		return -1, ""
	}
	id := r.ids.id(r.leaf)
	if id == "" || r.ids.latest(id) != r.leaf {
		return r.leaf, ""
	}
	return r.leaf, id
}

// lookup returns the latest entry with id, or -1: the entry just appended
// when it has that id, the common case of a linear transcript, without
// hashing.
func (r *Replay) lookup(id string) int {
	if n := r.parents.n; n > 0 && id != "" && r.ids.is(n-1, id) {
		return n - 1
	}
	return r.ids.latest(id)
}

// Append adds the next entry. It panics past MaxReplayEntries entries;
// callers that read a session of unknown size check its count first.
func (r *Replay) Append(e Entry) {
	i := r.parents.n
	if i >= MaxReplayEntries {
		panic("transcript: more than MaxReplayEntries entries in one replay")
	}
	parent := r.leaf
	if e.HasParent {
		parent = -1
		if e.ParentID != "" {
			parent = r.leaf // dangling: as if it had no parentId
			if p := r.lookup(e.ParentID); p >= 0 {
				parent = p
			}
		}
		if r.reset >= 0 && !e.Leaf() && !e.Side && !r.through(parent) {
			parent = r.leaf // it would cross the latest reset
		}
	}
	target := -1
	if e.Leaf() && e.TargetID != "" {
		target = r.lookup(e.TargetID)
	}
	isReset := e.Reset() && e.ID != ""
	if isReset && !r.hasResets() {
		r.startResets(i)
	}
	if r.hasResets() {
		nearest := int32(-1)
		switch {
		case isReset:
			nearest = int32(i)
		case parent >= 0:
			nearest = r.resetAt(parent)
		}
		r.addReset(nearest)
	}
	r.parents.add(parent)
	r.ids.add(e.ID)
	switch {
	case e.Leaf():
		if target >= 0 && (r.reset < 0 || r.through(target)) {
			r.leaf = target
		}
	case e.Side || e.ID == "":
	default:
		r.leaf = i
	}
	if isReset {
		r.reset = i
	}
}

// Walk calls fn with the index of each entry on the active path, from the
// leaf up to the root, without building a slice of them.
func (r *Replay) Walk(fn func(i int)) {
	for i := r.leaf; i >= 0; i = r.parents.get(i) {
		fn(i)
	}
}

// Path returns the indexes (in append order) of the entries on the active
// path, from the leaf up to the root.
func (r *Replay) Path() []int {
	var path []int
	r.Walk(func(i int) { path = append(path, i) })
	return path
}

// Extends reports whether appending e to a session makes e the leaf with
// the current active path as its ancestors, so that the new path is the
// old one plus e. hasLeaf and leafKey describe the session before e, as
// Replay.Leaf does. Every other entry either leaves the path as it is
// (Moves is false) or needs a replay.
func Extends(e Entry, hasLeaf bool, leafKey string) bool {
	switch {
	case e.ID == "" || e.Leaf() || e.Side:
		return false
	case !e.HasParent:
		return true
	case e.ParentID == "":
		return !hasLeaf
	}
	return e.ParentID == leafKey
}

// Moves reports whether appending e can change the active path in a way
// Extends does not cover: a leaf entry, or an entry with an id that becomes
// the leaf. Side entries and entries without id never change the path (a
// side entry may take over the leaf's id: see KeyAfter).
func Moves(e Entry) bool {
	return e.Leaf() || (e.ID != "" && !e.Side)
}

// KeyAfter returns the leaf key after appending e when e neither extends
// nor moves the path: a side entry with the leaf's id takes the id over.
func KeyAfter(e Entry, leafKey string) string {
	if e.ID != "" && e.ID == leafKey {
		return ""
	}
	return leafKey
}
