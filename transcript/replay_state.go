package transcript

import (
	"hash/maphash"
	"math"
	"math/bits"
	"sort"
)

// idTable keeps the id of each entry of a Replay and finds the latest entry
// with a given id, in a few bytes an entry instead of a string header and a
// map slot (a replay of a million entries is held whole in memory:
// docs/store.md S9, docs/performance.md). The ids are stored one after
// another in one byte slice; slots is an open-addressing hash table of
// entry indexes, keyed by the id's hash. Two ids with the same hash are
// told apart by comparing the ids themselves, so a collision costs a probe,
// never a wrong answer.
type idTable struct {
	bytes  []byte   // every entry's id, one after another
	ends   []uint32 // where entry i's id ends in bytes
	ends64 []uint64 // ends, once bytes has outgrown 32-bit offsets (then ends is nil)
	slots  []int32  // 1 + the latest entry with an id, 0 for an empty slot
	used   int      // slots in use
	seed   maphash.Seed
	// collide makes every id hash the same, for the tests of collisions.
	collide bool
	// disk, once the replay is spilled, holds all of the above instead.
	disk *diskIDs
}

// maxIDBytes is where ends switches to 64-bit offsets; a variable so that
// the switch can be tested without gigabytes of ids.
var maxIDBytes = math.MaxUint32

func newIDTable() idTable { return idTable{seed: maphash.MakeSeed()} }

// hash is id's hash; hashBytes the same of an id's bytes (maphash hashes a
// string and its bytes alike).
func (t *idTable) hash(id string) uint64 {
	if t.collide {
		return 0
	}
	return maphash.String(t.seed, id)
}

func (t *idTable) hashBytes(id []byte) uint64 {
	if t.collide {
		return 0
	}
	return maphash.Bytes(t.seed, id)
}

// len is how many entries the table has.
func (t *idTable) len() int {
	if t.disk != nil {
		return t.disk.n
	}
	if t.ends64 != nil {
		return len(t.ends64)
	}
	return len(t.ends)
}

// grow makes room for n more entries whose ids take idBytes bytes.
func (t *idTable) grow(n, idBytes int) {
	if n <= 0 {
		return
	}
	if t.disk != nil {
		t.disk.grow(n)
		return
	}
	if t.ends64 == nil && cap(t.ends)-len(t.ends) < n {
		e := make([]uint32, len(t.ends), len(t.ends)+n)
		copy(e, t.ends)
		t.ends = e
	}
	if idBytes > 0 && cap(t.bytes)-len(t.bytes) < idBytes {
		b := make([]byte, len(t.bytes), len(t.bytes)+idBytes)
		copy(b, t.bytes)
		t.bytes = b
	}
	t.rehash(t.used + n)
}

// bounds returns where entry i's id starts and ends in t.bytes.
func (t *idTable) bounds(i int) (start, end int) {
	if t.ends64 != nil {
		if i > 0 {
			start = int(t.ends64[i-1])
		}
		return start, int(t.ends64[i])
	}
	if i > 0 {
		start = int(t.ends[i-1])
	}
	return start, int(t.ends[i])
}

// id returns entry i's id ("" for an entry without one).
func (t *idTable) id(i int) string {
	if t.disk != nil {
		return t.disk.id(i)
	}
	start, end := t.bounds(i)
	return string(t.bytes[start:end])
}

// is reports whether entry i's id is id, without copying it.
func (t *idTable) is(i int, id string) bool {
	if t.disk != nil {
		return t.disk.is(i, id)
	}
	start, end := t.bounds(i)
	return string(t.bytes[start:end]) == id
}

// add appends the next entry's id and makes it the latest entry with that
// id; it returns the entry's index.
func (t *idTable) add(id string) int {
	if t.disk != nil {
		return t.disk.add(id)
	}
	i := t.len()
	if t.ends64 == nil && len(t.bytes)+len(id) > maxIDBytes {
		t.ends64 = make([]uint64, len(t.ends), len(t.ends)+1)
		for j, e := range t.ends {
			t.ends64[j] = uint64(e)
		}
		t.ends = nil
	}
	t.bytes = append(t.bytes, id...)
	if t.ends64 != nil {
		t.ends64 = append(t.ends64, uint64(len(t.bytes)))
	} else {
		t.ends = append(t.ends, uint32(len(t.bytes)))
	}
	if id == "" {
		return i
	}
	if (t.used+1)*4 > len(t.slots)*3 {
		t.rehash(t.used + 1)
	}
	s := t.find(id)
	if t.slots[s] == 0 {
		t.used++
	}
	t.slots[s] = int32(i + 1)
	return i
}

// latest returns the latest entry with id, or -1 when none has it.
func (t *idTable) latest(id string) int {
	if t.disk != nil {
		return t.disk.latest(id)
	}
	if id == "" || t.used == 0 {
		return -1
	}
	return int(t.slots[t.find(id)]) - 1
}

// slot maps a hash to a slot: the high word of hash times the number of
// slots, so that the table needs no power-of-two size.
func (t *idTable) slot(hash uint64) int {
	hi, _ := bits.Mul64(hash, uint64(len(t.slots)))
	return int(hi)
}

// find returns the slot that holds id, or the empty slot where it goes.
func (t *idTable) find(id string) int {
	for s := t.slot(t.hash(id)); ; s++ {
		if s == len(t.slots) {
			s = 0
		}
		if e := t.slots[s]; e == 0 || t.is(int(e-1), id) {
			return s
		}
	}
}

// rehash sizes the slots for n ids at a load of at most three quarters:
// exactly that for a size a caller announced (grow), twice the old size
// when ids come unannounced.
func (t *idTable) rehash(n int) {
	size := max(8, n*4/3+1, 2*len(t.slots))
	if n*4 <= len(t.slots)*3 {
		return
	}
	old := t.slots
	t.slots = make([]int32, size)
	for _, e := range old {
		if e == 0 {
			continue
		}
		start, end := t.bounds(int(e - 1))
		s := t.slot(t.hashBytes(t.bytes[start:end]))
		for t.slots[s] != 0 {
			if s++; s == len(t.slots) {
				s = 0
			}
		}
		t.slots[s] = e
	}
}

// parentList keeps the parent of each entry of a Replay. Nearly every
// entry of a transcript hangs from the entry before it, so that is one bit
// an entry; the others (roots, branches, entries after a rewind) are kept
// apart, in append order. In a spilled replay the bits go to a file, 64 at
// a time, and only the newest 64 stay in memory.
type parentList struct {
	follows []uint64 // bit i: entry i's parent is entry i-1 (-1 for entry 0)
	n       int
	others  []int32 // the entries whose parent is another one, ascending
	parents []int32 // their parents
	disk    *diskWords
}

// grow makes room for n more entries.
func (l *parentList) grow(n int) {
	if l.disk != nil {
		return
	}
	words := (l.n + n + 63) / 64
	if words > cap(l.follows) {
		f := make([]uint64, len(l.follows), words)
		copy(f, l.follows)
		l.follows = f
	}
}

// add appends the next entry, whose parent is parent.
func (l *parentList) add(parent int) {
	i := l.n
	if i%64 == 0 {
		if l.disk != nil && i > 0 {
			l.disk.add(l.follows[0])
			l.follows = l.follows[:0]
		}
		l.follows = append(l.follows, 0)
	}
	if parent == i-1 {
		l.follows[len(l.follows)-1] |= 1 << (i % 64)
	} else {
		l.others = append(l.others, int32(i))
		l.parents = append(l.parents, int32(parent))
	}
	l.n++
}

// word returns the bits of entries 64w to 64w+63.
func (l *parentList) word(w int) uint64 {
	if l.disk == nil {
		return l.follows[w]
	}
	if w == (l.n-1)/64 {
		return l.follows[0]
	}
	return l.disk.at(w)
}

// get returns the parent of entry i.
func (l *parentList) get(i int) int {
	if l.word(i/64)&(1<<(i%64)) != 0 {
		return i - 1
	}
	k := sort.Search(len(l.others), func(k int) bool { return int(l.others[k]) >= i })
	return int(l.parents[k])
}
