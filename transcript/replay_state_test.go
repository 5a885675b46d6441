package transcript

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// replayed is what a replay answers: the path and the leaf with its key.
type replayed struct {
	path []int
	leaf int
	key  string
}

// replayWith replays entries with the replay's compact state set up by
// setup (nil for the defaults), after every entry as well as at the end.
func replayWith(t *testing.T, entries []Entry, setup func(*Replay)) []replayed {
	r := NewReplay()
	defer r.Close()
	if setup != nil {
		setup(r)
	}
	var out []replayed
	for _, e := range entries {
		r.Append(e)
		leaf, key := r.Leaf()
		out = append(out, replayed{r.Path(), leaf, key})
	}
	// The PathSet of the whole session says the same as its Path.
	set, on := r.PathSet(), map[int]bool{}
	for _, i := range r.Path() {
		on[i] = true
	}
	for i := range entries {
		if set.Has(i) != on[i] {
			t.Fatalf("PathSet.Has(%d) = %v, but the path is %v", i, set.Has(i), r.Path())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// spilled returns a setup that spills the replay, announcing room for n
// entries.
func spilled(t *testing.T, n int, collide bool) func(*Replay) {
	return func(r *Replay) {
		r.ids.collide = collide
		if err := r.Spill(n); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplayStateIsExact checks that the compact state of a Replay (ids in
// one byte slice with a hash table of entry indexes, parents as one bit an
// entry) gives the same answers however it is laid out: with every id
// hashing alike, so that each lookup meets ids that are not the one it
// looks for; with the ids' offsets moved to 64 bits partway through; and
// with room announced by Grow or not; and spilled to temporary files
// (Spill), with room for the whole session or for one entry. Random sessions with few ids make
// duplicates, takeovers, dangling parents, rewinds and resets common; the
// real transcripts add the shape of OpenClaw's.
func TestReplayStateIsExact(t *testing.T) {
	var sessions [][]Entry
	r := rand.New(rand.NewSource(7))
	for len(sessions) < 1500 {
		var entries []Entry
		n := r.Intn(60)
		if len(sessions)%100 == 0 {
			n = r.Intn(1000) // many words of parent and path bits
		}
		for len(entries) < n {
			id := func() string { return fmt.Sprintf("i%d", r.Intn(12)) }
			e := Entry{Type: "message", ID: id(), Message: true}
			switch r.Intn(12) {
			case 0:
				e = Entry{Type: "leaf", ID: id(), TargetID: id()}
			case 1:
				e.Side = true
			case 2:
				e.ID = ""
			case 3:
				e = Entry{Type: "reset", ID: id()}
			case 4:
				e.ID = fmt.Sprintf("long-%d-%s", r.Intn(3), "0123456789abcdef0123456789abcdef")
			}
			switch r.Intn(5) {
			case 0: // follows the leaf
			case 1:
				e.HasParent = true // a new root
			case 2:
				if len(entries) > 0 { // the entry before: the common case
					e.HasParent, e.ParentID = true, entries[len(entries)-1].ID
				}
			default:
				e.HasParent, e.ParentID = true, id()
			}
			entries = append(entries, e)
		}
		sessions = append(sessions, entries)
	}
	for _, f := range fixtures.Files() {
		var entries []Entry
		for _, line := range f.Lines {
			e, err := Parse(line)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			entries = append(entries, e)
		}
		sessions = append(sessions, entries)
	}
	defaultMax := maxIDBytes
	defer func() { maxIDBytes = defaultMax }()
	defer func(c int) { mergeChunk = c }(mergeChunk)
	mergeChunk = 4 // a merge carries slots from chunk to chunk and past the table's end
	branched := 0
	for _, entries := range sessions {
		maxIDBytes = defaultMax
		want := replayWith(t, entries, nil)
		if n := len(want); n > 0 && len(want[n-1].path) < n {
			branched++
		}
		for name, setup := range map[string]func(*Replay){
			"every id hashing alike": func(r *Replay) { r.ids.collide = true },
			"grown first":            func(r *Replay) { r.Grow(len(entries), 3*len(entries)) },
			"colliding, grown first": func(r *Replay) { r.ids.collide = true; r.Grow(len(entries), 3*len(entries)) },
			"spilled":                spilled(t, len(entries), false),
			"spilled, colliding":     spilled(t, len(entries), true),
			"spilled, room for one":  spilled(t, 1, false),
			"spilled, tiny buffers": func(r *Replay) {
				defer func(b int) { spillBuffer = b }(spillBuffer)
				spillBuffer = 24 // smaller than the long ids: they are written past the buffer
				spilled(t, len(entries), false)(r)
			},
			"spilled, merged every 3 ids": func(r *Replay) {
				defer func(n int) { spillRecent = n }(spillRecent)
				spillRecent = 3
				spilled(t, len(entries), false)(r)
			},
			"spilled, windows of two words": func(r *Replay) {
				defer func(n int) { wordWindow = n }(wordWindow)
				wordWindow = 2
				spilled(t, len(entries), false)(r)
			},
			"spilled, merged every id, colliding, room for one": func(r *Replay) {
				defer func(n int) { spillRecent = n }(spillRecent)
				spillRecent = 1
				spilled(t, 1, true)(r)
			},
		} {
			if got := replayWith(t, entries, setup); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %v\nreplayed %v\nwant     %v", name, entries, got, want)
			}
		}
		maxIDBytes = 20 // the offsets go to 64 bits after a few ids
		if got := replayWith(t, entries, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("64-bit offsets: %v\nreplayed %v\nwant     %v", entries, got, want)
		}
	}
	if branched < 500 {
		t.Fatalf("only %d of %d sessions end off a linear path", branched, len(sessions))
	}
}

// TestReplayCollisionCases spells out what a hash collision must not do:
// make a lookup find an entry with another id, or an entry's id taken over
// by another id. Every id hashes alike here.
func TestReplayCollisionCases(t *testing.T) {
	leaf := func(id, target string) Entry { return Entry{Type: "leaf", ID: id, TargetID: target} }
	for _, c := range []struct {
		name    string
		entries []Entry
		path    []int
		key     string
	}{
		{"a parent is found past other ids", []Entry{msg("a", ""), msg("b", "a"), msg("c", "b"), msg("d", "a")}, []int{3, 0}, "d"},
		{"a dangling parent finds nothing", []Entry{msg("a", ""), msg("b", "a"), msg("x", "nope")}, []int{2, 1, 0}, "x"},
		{"a duplicate id takes over its own id only", []Entry{msg("a", ""), msg("b", "a"), msg("a", "b"), msg("c", "a")}, []int{3, 2, 1, 0}, "c"},
		{"a rewind finds its target past other ids", []Entry{msg("a", ""), msg("b", "a"), msg("c", "b"), leaf("L", "b")}, []int{1, 0}, "b"},
		{"the leaf key survives other ids", []Entry{msg("a", ""), msg("b", "a"), {Type: "custom", ID: "z", HasParent: true, ParentID: "a", Side: true}}, []int{1, 0}, "b"},
		{"the leaf key goes when its own id is taken", []Entry{msg("a", ""), msg("b", "a"), {Type: "custom", ID: "b", HasParent: true, ParentID: "a", Side: true}}, []int{1, 0}, ""},
	} {
		for _, spill := range []bool{false, true} {
			r := NewReplay()
			r.ids.collide = true
			if spill {
				spilled(t, 0, true)(r)
			}
			for _, e := range c.entries {
				r.Append(e)
			}
			_, key := r.Leaf()
			if got := r.Path(); !reflect.DeepEqual(got, c.path) || key != c.key || r.Err() != nil {
				t.Errorf("%s (spilled: %v): path %v, key %q, error %v; want %v, %q", c.name, spill, got, key, r.Err(), c.path, c.key)
			}
			r.Close()
		}
	}
}

// TestReplayBytesPerEntry holds a replay of a long linear transcript with
// OpenClaw's 8-character ids and counts the heap it keeps: its id bytes,
// a 4-byte offset, the hash table's slots at no more than three quarters
// full and a bit for the parent (docs/cli.md C19: what reconcile holds of
// the biggest session is what grows an import's memory).
func TestReplayBytesPerEntry(t *testing.T) {
	const n = 200000
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = msg(fmt.Sprintf("%08x", i), "")
		if i > 0 {
			entries[i].ParentID = entries[i-1].ID
		}
	}
	for _, c := range []struct {
		name  string
		grow  bool
		limit float64 // bytes an entry

	}{
		{"announced with Grow", true, 19},
		{"grown as it goes", false, 27},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := NewReplay()
		if c.grow {
			r.Grow(n, 8*n)
		}
		for _, e := range entries {
			r.Append(e)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perEntry := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
		if len(r.Path()) != n {
			t.Fatalf("%s: path of %d entries, want %d", c.name, len(r.Path()), n)
		}
		runtime.KeepAlive(r)
		t.Logf("%s: %.1f bytes an entry", c.name, perEntry)
		if perEntry > c.limit {
			t.Errorf("%s: the replay holds %.1f bytes an entry, more than %.1f", c.name, perEntry, c.limit)
		}
	}
}

// TestSpilledReplayIsFlat holds spilled replays (Spill) of 100,000 and
// 400,000 linear entries with 8-character ids and counts the heap each
// keeps: the same table of the newest ids and the same buffers, and a bit
// an entry for the parent, so that what a replay holds no longer grows
// with the session (docs/cli.md C19).
func TestSpilledReplayIsFlat(t *testing.T) {
	held := func(n int) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := NewReplay()
		spilled(t, n, false)(r)
		for i := range n {
			e := msg(fmt.Sprintf("%08x", i), "")
			if i > 0 {
				e.ParentID = fmt.Sprintf("%08x", i-1)
			}
			r.Append(e)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(r.Path()) != n || r.Err() != nil {
			t.Fatalf("path of %d entries, want %d (%v)", len(r.Path()), n, r.Err())
		}
		runtime.KeepAlive(r)
		r.Close()
		return float64(after.HeapAlloc) - float64(before.HeapAlloc)
	}
	small, big := held(100000), held(400000)
	perEntry := (big - small) / 300000
	t.Logf("spilled: %.0f KB for 100,000 entries, %.0f KB for 400,000: %.2f bytes an entry more", small/1024, big/1024, perEntry)
	if perEntry > 0.5 || big > 4<<20 {
		t.Errorf("a spilled replay holds %.0f bytes for 400,000 entries, %.2f an entry more than for 100,000", big, perEntry)
	}
}

// FuzzReplaySpilled: any sequence of entries (two bytes each: the kind of
// entry and its links, then its id and its parent's or target's id from a
// few) gives the same path, leaf and key spilled to files (with small
// tables, buffers and windows, so that every merge, carry and window move
// happens) as in memory.
func FuzzReplaySpilled(f *testing.F) {
	f.Add([]byte{0, 1, 9, 2, 3, 3, 4, 0x21, 6, 0x12})
	f.Add([]byte("a reset, a rewind and a long session of many words of bits"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var entries []Entry
		for k := 0; k+1 < len(data); k += 2 {
			kind, ids := data[k], data[k+1]
			id, other := fmt.Sprintf("i%d", ids&15), fmt.Sprintf("i%d", ids>>4)
			e := Entry{Type: "message", ID: id, Message: true}
			switch kind % 8 {
			case 0:
				e = Entry{Type: "leaf", ID: id, TargetID: other}
			case 1:
				e = Entry{Type: "reset", ID: id}
			case 2:
				e.Side = true
			case 3:
				e.ID = ""
			}
			switch kind / 8 % 4 {
			case 1:
				e.HasParent = true
			case 2:
				e.HasParent, e.ParentID = true, other
			case 3:
				if len(entries) > 0 {
					e.HasParent, e.ParentID = true, entries[len(entries)-1].ID
				}
			}
			entries = append(entries, e)
		}
		defer func(b, n, c, w int) { spillBuffer, spillRecent, mergeChunk, wordWindow = b, n, c, w }(spillBuffer, spillRecent, mergeChunk, wordWindow)
		spillBuffer, spillRecent, mergeChunk, wordWindow = 16, 3, 2, 1
		want := replayWith(t, entries, nil)
		if got := replayWith(t, entries, spilled(t, 1, false)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v\nspilled  %v\nin memory %v", entries, got, want)
		}
	})
}

// TestSpillWithoutADirectory: where no temporary file can be made, Spill
// says why and the replay stays in memory, with the same answers.
func TestSpillWithoutADirectory(t *testing.T) {
	t.Setenv("SQLITE_TMPDIR", t.TempDir()+"/missing")
	entries := []Entry{msg("a", ""), msg("b", "a"), msg("c", "a"), {Type: "leaf", ID: "L", TargetID: "b"}}
	r := NewReplay()
	err := r.Spill(len(entries))
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Spill into a missing directory: %v, want an error naming it", err)
	}
	for _, e := range entries {
		r.Append(e)
	}
	if got := r.Path(); !reflect.DeepEqual(got, []int{1, 0}) || r.Err() != nil || r.spill != nil {
		t.Fatalf("after a failed Spill: path %v, error %v, spilled %v; want [1 0] in memory", got, r.Err(), r.spill != nil)
	}
}
