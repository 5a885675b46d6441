package transcript

// The active path of a session (contract, "The transcript store"):
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
// Defined behaviour for malformed trees:
//   - Duplicate ids: a parentId, targetId or leaf refers to the entry with
//     that id appended last.
//   - A leaf entry whose target is not an id appended before it leaves the
//     leaf where it is.
//   - A cycle of parentId links ends the path where it would repeat an entry.
//   - A parentId that names no entry ends the path there.

// Replay computes the leaf and the active path of a session from its
// entries in append order.
type Replay struct {
	entries []Entry
	parents []string       // resolved parent of each entry, "" for a root
	byID    map[string]int // latest entry with each id
	leaf    string         // "" before any entry has set it
}

// NewReplay returns an empty replay.
func NewReplay() *Replay { return &Replay{byID: map[string]int{}} }

// Leaf returns the id of the current leaf ("" when there is none).
func (r *Replay) Leaf() string { return r.leaf }

// ResolveParent returns the parent an entry appended now would have.
func ResolveParent(e Entry, leaf string) string {
	if e.HasParent {
		return e.ParentID
	}
	return leaf
}

// NextLeaf returns the leaf after appending e when the leaf is leaf; known
// reports whether an id has been appended before.
func NextLeaf(e Entry, leaf string, known func(id string) bool) string {
	switch {
	case e.Leaf():
		if e.TargetID != "" && known(e.TargetID) {
			return e.TargetID
		}
		return leaf
	case e.Side || e.ID == "":
		return leaf
	}
	return e.ID
}

// Append adds the next entry.
func (r *Replay) Append(e Entry) {
	r.parents = append(r.parents, ResolveParent(e, r.leaf))
	r.leaf = NextLeaf(e, r.leaf, func(id string) bool { _, ok := r.byID[id]; return ok })
	if e.ID != "" {
		r.byID[e.ID] = len(r.entries)
	}
	r.entries = append(r.entries, e)
}

// Path returns the indexes (in append order) of the entries on the active
// path, from the leaf up to the root.
func (r *Replay) Path() []int {
	var path []int
	seen := map[int]bool{}
	id := r.leaf
	for id != "" {
		i, ok := r.byID[id]
		if !ok || seen[i] {
			break
		}
		seen[i] = true
		path = append(path, i)
		id = r.parents[i]
	}
	return path
}
