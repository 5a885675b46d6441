package transcript

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
)

// A replay of a big session keeps what it knows of each entry in temporary
// files instead of memory (Replay.Spill, docs/store.md S9), so that its
// memory no longer grows with the session. The files are read and written
// with pread and pwrite, not mapped, so what they hold is the kernel's page
// cache, not the process's memory; they are unlinked as soon as they are
// made, so nothing is left behind by a crash.

// SpillAbove is the size, in bytes, of ids and their bookkeeping (IDBytes)
// past which a replay is better spilled: about 200,000 entries with
// OpenClaw's 8-character ids.
const SpillAbove = 4 << 20

// IDBytes is about what a replay holds in memory for n entries whose ids
// take idBytes bytes: the ids, a 4-byte offset and 5.3 bytes of hash table
// an entry.
func IDBytes(n, idBytes int) int { return idBytes + n*4 + n*16/3 }

// spillBuffer is how many bytes of a log file are gathered before they are
// written; a variable so that the tests can make every read go to a file.
var spillBuffer = 64 << 10

// SpillDir is where a replay's temporary files go: $SQLITE_TMPDIR, as
// SQLite's own temporary files, else $TMPDIR, else /tmp.
func SpillDir() string {
	if d := os.Getenv("SQLITE_TMPDIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// spill holds the temporary files of one replay and the first error any
// of them met. After an error every read gives zeros and every write is
// dropped: the replay's answers are then meaningless, and Replay.Err says
// so.
type spill struct {
	dir    string
	files  []*os.File
	err    error
	buffer int // spillBuffer and wordWindow when the replay was spilled
	window int
}

// fail keeps the first error.
func (s *spill) fail(err error) {
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("transcript: replay's temporary file in %s: %w", s.dir, err)
	}
}

// create makes a new temporary file, already unlinked.
func (s *spill) create() *os.File {
	f, err := os.CreateTemp(s.dir, "sessionsearch-replay-*")
	if err != nil {
		s.fail(err)
		return nil
	}
	s.fail(os.Remove(f.Name()))
	s.files = append(s.files, f)
	return f
}

// drop closes f, a file the replay no longer needs.
func (s *spill) drop(f *os.File) {
	for i, g := range s.files {
		if g == f {
			s.files = append(s.files[:i], s.files[i+1:]...)
			break
		}
	}
	s.fail(f.Close())
}

// close closes every file.
func (s *spill) close() {
	for _, f := range s.files {
		s.fail(f.Close())
	}
	s.files = nil
}

// readAt fills p from f at off, with zeros after an error.
func (s *spill) readAt(f *os.File, p []byte, off int64) {
	if s.err == nil && f != nil {
		if _, err := f.ReadAt(p, off); err != nil {
			s.fail(err)
		}
	}
	if s.err != nil {
		clear(p)
	}
}

// writeAt writes p to f at off.
func (s *spill) writeAt(f *os.File, p []byte, off int64) {
	if s.err == nil && f != nil {
		_, err := f.WriteAt(p, off)
		s.fail(err)
	}
}

// A logFile is a temporary file that grows at its end, with its last bytes
// gathered in memory until they fill a buffer.
type logFile struct {
	s    *spill
	f    *os.File
	size int64  // bytes written to f
	buf  []byte // the bytes after them
}

func newLogFile(s *spill) logFile {
	return logFile{s: s, f: s.create(), buf: make([]byte, 0, s.buffer)}
}

func (l *logFile) length() int64 { return l.size + int64(len(l.buf)) }

func (l *logFile) flush() {
	l.s.writeAt(l.f, l.buf, l.size)
	l.size += int64(len(l.buf))
	l.buf = l.buf[:0]
}

func (l *logFile) append(p []byte) {
	if len(l.buf)+len(p) > cap(l.buf) {
		l.flush()
	}
	if len(p) > cap(l.buf) {
		l.s.writeAt(l.f, p, l.size)
		l.size += int64(len(p))
		return
	}
	l.buf = append(l.buf, p...)
}

// readAt fills p with the bytes at off, from the file or the buffer.
func (l *logFile) readAt(p []byte, off int64) {
	if off < 0 || off+int64(len(p)) > l.length() {
		l.s.fail(fmt.Errorf("read of %d bytes at %d past the end (%d)", len(p), off, l.length()))
		clear(p)
		return
	}
	n := 0
	if off < l.size {
		n = int(min(int64(len(p)), l.size-off))
		l.s.readAt(l.f, p[:n], off)
	}
	if n < len(p) {
		copy(p[n:], l.buf[off+int64(n)-l.size:])
	}
}

// uint64At and uint32At read one number of a log file of numbers.
func (l *logFile) uint64At(i int) uint64 {
	var b [8]byte
	l.readAt(b[:], int64(i)*8)
	return binary.LittleEndian.Uint64(b[:])
}

func (l *logFile) uint32At(i int) uint32 {
	var b [4]byte
	l.readAt(b[:], int64(i)*4)
	return binary.LittleEndian.Uint32(b[:])
}

func (l *logFile) appendUint64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	l.append(b[:])
}

func (l *logFile) appendUint32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	l.append(b[:])
}

// diskIDs is an idTable in temporary files: the ids one after another, the
// end of each entry's id as 8 bytes, and an open-addressing hash table of
// 8-byte slots, each the top 32 bits of an id's hash above 1 + the latest
// entry with that id (0 for an empty slot). The hash bits tell most ids
// apart without reading them; ids whose bits agree are compared byte for
// byte, so a collision costs a read, never a wrong answer.
//
// The newest ids are slotted in a table of the same form in memory, of at
// most spillRecent ids (recent), which is merged into the file's when it is full:
// its slots sorted by where they go, the file's table read, filled and
// written back a chunk at a time. A slot read and written for each id would
// cost two system calls or more an entry; the merge costs a read and a
// write of the file's table for every spillRecent ids.
type diskIDs struct {
	s        *spill
	bytes    logFile
	ends     logFile
	file     *os.File // the table of the ids merged so far
	nslots   int      // its size
	fileUsed int      // its slots in use
	mem      []uint64 // the table of the ids since, recent*4/3+1 slots
	memUsed  int
	recent   int // spillRecent when the table was made
	n        int
	last     string // the newest entry's id: the common lookup reads no file
	hashOf   func(string) uint64
}

// spillRecent is how many ids the table in memory holds (1.4 MB of slots);
// a variable so that the tests can merge after every few ids.
var spillRecent = 1 << 17

// mergeChunk is how many slots of the file's table a merge reads at a
// time; a variable so that the tests can carry slots across chunks.
var mergeChunk = 8192

func newDiskIDs(s *spill, hashOf func(string) uint64, n int) *diskIDs {
	d := &diskIDs{s: s, bytes: newLogFile(s), ends: newLogFile(s), hashOf: hashOf}
	d.recent = spillRecent
	d.mem = make([]uint64, d.recent*4/3+1)
	d.growFile(n)
	return d
}

// bounds returns where entry i's id starts and ends in d.bytes.
func (d *diskIDs) bounds(i int) (start, end int64) {
	if i > 0 {
		start = int64(d.ends.uint64At(i - 1))
	}
	end = int64(d.ends.uint64At(i))
	if end < start {
		d.s.fail(fmt.Errorf("entry %d's id ends at %d, before its start %d", i, end, start))
		return 0, 0
	}
	return start, end
}

func (d *diskIDs) id(i int) string {
	if i == d.n-1 {
		return d.last
	}
	start, end := d.bounds(i)
	b := make([]byte, end-start)
	d.bytes.readAt(b, start)
	return string(b)
}

func (d *diskIDs) is(i int, id string) bool {
	if i == d.n-1 {
		return d.last == id
	}
	start, end := d.bounds(i)
	if end-start != int64(len(id)) {
		return false
	}
	return d.id(i) == id
}

// home is the slot where a table of size slots starts looking for tag.
func home(tag uint64, slots int) int { return int(tag * uint64(slots) >> 32) }

// entry is the entry index a slot's value names.
func entry(v uint64) int { return int(uint32(v)) - 1 }

// same reports whether slot values v and w name entries with the same id.
func (d *diskIDs) same(v, w uint64) bool {
	return v>>32 == w>>32 && d.is(entry(v), d.id(entry(w)))
}

// memFind returns the slot of the table in memory that holds id (tag its
// hash bits) and its value, or the empty slot where id goes and 0.
func (d *diskIDs) memFind(id string, tag uint64) (int, uint64) {
	for s := home(tag, len(d.mem)); ; s++ {
		if s == len(d.mem) {
			s = 0
		}
		if v := d.mem[s]; v == 0 || (v>>32 == tag && d.is(entry(v), id)) {
			return s, v
		}
	}
}

// fileFind returns the value of the file's slot that holds id, or 0.
func (d *diskIDs) fileFind(id string, tag uint64) uint64 {
	var b [64]byte
	s := home(tag, d.nslots)
	for probed := 0; probed < d.nslots; {
		k := min(len(b)/8, d.nslots-s)
		d.s.readAt(d.file, b[:8*k], int64(s)*8)
		for j := range k {
			v := binary.LittleEndian.Uint64(b[8*j:])
			if v == 0 || (v>>32 == tag && d.is(entry(v), id)) {
				return v
			}
		}
		probed += k
		if s += k; s == d.nslots {
			s = 0
		}
	}
	d.s.fail(errors.New("hash table full"))
	return 0
}

func (d *diskIDs) add(id string) int {
	i := d.n
	d.bytes.append([]byte(id))
	d.ends.appendUint64(uint64(d.bytes.length()))
	d.n++
	d.last = id
	if id == "" {
		return i
	}
	tag := d.hashOf(id) >> 32
	s, v := d.memFind(id, tag)
	if v == 0 {
		if d.memUsed >= d.recent {
			d.merge()
			s, _ = d.memFind(id, tag)
		}
		d.memUsed++
	}
	d.mem[s] = tag<<32 | uint64(i+1)
	return i
}

func (d *diskIDs) latest(id string) int {
	if id == "" || d.fileUsed+d.memUsed == 0 {
		return -1
	}
	tag := d.hashOf(id) >> 32
	if _, v := d.memFind(id, tag); v != 0 {
		return entry(v) // newer than any in the file
	}
	return entry(d.fileFind(id, tag))
}

// grow makes room for n more ids.
func (d *diskIDs) grow(n int) { d.growFile(d.fileUsed + d.memUsed + n) }

// merge moves the table in memory into the file's.
func (d *diskIDs) merge() {
	items := make([]uint64, 0, d.memUsed)
	for _, v := range d.mem {
		if v != 0 {
			items = append(items, v)
		}
	}
	d.growFile(d.fileUsed + len(items))
	d.fileUsed += d.mergeInto(d.file, d.nslots, items)
	clear(d.mem)
	d.memUsed = 0
}

// growFile sizes the file's table for n ids at a load of at most three
// quarters, as idTable.rehash does, merging the old table's slots into the
// new one in batches.
func (d *diskIDs) growFile(n int) {
	if n*4 <= d.nslots*3 && d.file != nil {
		return
	}
	size := max(8, n*4/3+1, 2*d.nslots)
	old, oldSize := d.file, d.nslots
	d.file, d.nslots = d.s.create(), size
	if d.file != nil {
		d.s.fail(d.file.Truncate(int64(size) * 8))
	}
	if old == nil {
		return
	}
	buf := make([]byte, 8*mergeChunk)
	batch := make([]uint64, 0, d.recent)
	for from := 0; from < oldSize; from += mergeChunk {
		chunk := buf[:8*min(mergeChunk, oldSize-from)]
		d.s.readAt(old, chunk, int64(from)*8)
		for k := 0; k < len(chunk); k += 8 {
			if v := binary.LittleEndian.Uint64(chunk[k:]); v != 0 {
				batch = append(batch, v)
			}
			if len(batch) == cap(batch) {
				d.mergeInto(d.file, size, batch)
				batch = batch[:0]
			}
		}
	}
	d.mergeInto(d.file, size, batch)
	d.s.drop(old)
}

// mergeInto puts the slot values items (of distinct ids, none of them yet
// in the table unless under an older entry, which it replaces) into the
// table of size slots in f, and returns how many slots it filled. Each
// item goes to the first slot from its home that is empty or has its id,
// as one at a time would: in order of home, a chunk of the table at a
// time, an item whose slot is past its chunk's end carried to the next
// (past the table's end, to its start).
func (d *diskIDs) mergeInto(f *os.File, slots int, items []uint64) (filled int) {
	if len(items) == 0 {
		return 0
	}
	slices.SortFunc(items, func(a, b uint64) int { return home(a>>32, slots) - home(b>>32, slots) })
	buf := make([]byte, 8*mergeChunk)
	chunk := make([]uint64, mergeChunk)
	var carry, next []uint64
	k, wrapped := 0, false
	for c0 := 0; k < len(items) || len(carry) > 0; c0 += mergeChunk {
		if c0 >= slots {
			if wrapped {
				d.s.fail(errors.New("hash table full"))
				return filled
			}
			c0, wrapped = 0, true // what is carried past the end goes on at the start
		}
		c1 := min(c0+mergeChunk, slots)
		if len(carry) == 0 && home(items[k]>>32, slots) >= c1 {
			continue
		}
		b, c := buf[:8*(c1-c0)], chunk[:c1-c0]
		d.s.readAt(f, b, int64(c0)*8)
		for j := range c {
			c[j] = binary.LittleEndian.Uint64(b[8*j:])
		}
		place := func(x uint64, from int) bool {
			for p := from; p < c1; p++ {
				v := c[p-c0]
				if v == 0 {
					filled++
				} else if !d.same(v, x) {
					continue
				}
				c[p-c0] = x
				return true
			}
			return false
		}
		next = next[:0]
		for _, x := range carry {
			if !place(x, c0) {
				next = append(next, x)
			}
		}
		for ; k < len(items) && home(items[k]>>32, slots) < c1; k++ {
			if x := items[k]; !place(x, home(x>>32, slots)) {
				next = append(next, x)
			}
		}
		carry, next = next, carry
		for j, v := range c {
			binary.LittleEndian.PutUint64(b[8*j:], v)
		}
		d.s.writeAt(f, b, int64(c0)*8)
		if d.s.err != nil {
			return filled
		}
	}
	return filled
}

// diskWords is a file of 64-bit words that grows at its end, read through
// a window of the words around the last one read: a walk up the path reads
// them in order, backwards.
type diskWords struct {
	log   logFile
	n     int
	win   []uint64
	start int // the word win[0] is
}

// wordWindow is how many words diskWords reads at a time (4 KB); a
// variable so that the tests can move the window every few words.
var wordWindow = 512

func (d *diskWords) add(v uint64) {
	d.log.appendUint64(v)
	d.n++
}

func (d *diskWords) at(w int) uint64 {
	if w < d.start || w >= d.start+len(d.win) {
		window := d.log.s.window
		if w < d.start {
			d.start = max(0, w-window+1) // going backwards
		} else {
			d.start = w
		}
		k := min(window, d.n-d.start)
		b := make([]byte, 8*k)
		d.log.readAt(b, int64(d.start)*8)
		d.win = d.win[:0]
		for j := range k {
			d.win = append(d.win, binary.LittleEndian.Uint64(b[8*j:]))
		}
	}
	return d.win[w-d.start]
}

// diskResets is the nearest reset of each entry's path (Replay.resets) in
// a temporary file, with the newest kept in memory.
type diskResets struct {
	log  logFile
	n    int
	last int32
}

func (r *diskResets) add(v int32) {
	r.log.appendUint32(uint32(v))
	r.n++
	r.last = v
}

func (r *diskResets) at(i int) int32 {
	if i == r.n-1 {
		return r.last
	}
	return int32(r.log.uint32At(i))
}

// Spill makes an empty replay keep its ids, its parent bits, its resets
// once it has one and its PathSet in temporary files in SpillDir, sized
// for n entries: for a session whose IDBytes pass SpillAbove. The replay's
// answers stay the same, at about the same speed (the newest ids are kept
// in memory and merged into the files in chunks). Close removes them (they
// are removed anyway once the replay and its PathSet are garbage). When no
// file can be made, Spill returns the error and the replay stays in
// memory.
func (r *Replay) Spill(n int) error {
	if r.parents.n > 0 || r.spill != nil {
		return errors.New("transcript: Spill on a replay that has entries or is spilled")
	}
	s := &spill{dir: SpillDir(), buffer: spillBuffer, window: wordWindow}
	ids := newDiskIDs(s, r.ids.hash, n)
	if s.err != nil {
		s.close()
		return s.err
	}
	r.spill, r.ids.disk = s, ids
	r.ids.bytes, r.ids.ends, r.ids.ends64, r.ids.slots = nil, nil, nil, nil
	r.parents.disk, r.parents.follows = &diskWords{log: newLogFile(s)}, nil
	runtime.AddCleanup(r, func(s *spill) { s.close() }, s)
	return nil
}

// Err returns the first error of a spilled replay's files: after one, its
// answers mean nothing.
func (r *Replay) Err() error {
	if r.spill == nil {
		return nil
	}
	return r.spill.err
}

// Close closes a spilled replay's files; the replay is of no use after it.
// It does nothing to a replay in memory.
func (r *Replay) Close() {
	if r.spill != nil {
		r.spill.close()
	}
}

// A PathSet tells which entries of a replay are on its active path: a bit
// an entry, in memory, or for a spilled replay in a temporary file, read
// through a window (Replay.PathSet).
type PathSet struct {
	words []uint64
	disk  *diskWords
	owner *Replay // a spilled replay, whose files hold the path
}

// Err returns the first error of the files of a spilled replay's path: after
// one, Has means nothing.
func (p *PathSet) Err() error {
	if p.owner == nil {
		return nil
	}
	return p.owner.Err()
}

// Close closes the files of a spilled replay's path (and of the replay).
func (p *PathSet) Close() {
	if p.owner != nil {
		p.owner.Close()
	}
}

// Has reports whether entry i is on the path.
func (p *PathSet) Has(i int) bool {
	w := uint64(0)
	switch {
	case p.disk != nil:
		w = p.disk.at(i / 64)
	case i/64 < len(p.words):
		w = p.words[i/64]
	}
	return w&(1<<(i%64)) != 0
}

// PathSet returns the entries on the active path. A spilled replay writes
// it to a file as the walk up the path goes, a window of words at a time:
// the walk only goes backwards, so a word is complete once it is left.
func (r *Replay) PathSet() *PathSet {
	n := r.parents.n
	if r.spill == nil {
		p := &PathSet{words: make([]uint64, (n+63)/64)}
		r.Walk(func(i int) { p.words[i/64] |= 1 << (i % 64) })
		return p
	}
	// A file of all its words at once, zeros where the walk sets no bit;
	// nothing is appended to it, so it needs no buffer.
	words := (n + 63) / 64
	d := &diskWords{log: logFile{s: r.spill, f: r.spill.create(), size: int64(words) * 8}, n: words}
	if d.log.f != nil {
		r.spill.fail(d.log.f.Truncate(d.log.size))
	}
	window := r.spill.window
	win := make([]uint64, window)
	base, end := -1, d.n // the words win holds: base (-1 before the first) up to end
	write := func() {
		if base < 0 {
			return
		}
		k := min(window, end-base)
		b := make([]byte, 8*k)
		for j := range k {
			binary.LittleEndian.PutUint64(b[8*j:], win[j])
		}
		r.spill.writeAt(d.log.f, b, int64(base)*8)
		clear(win)
	}
	r.Walk(func(i int) {
		w := i / 64
		if base < 0 || w < base {
			write()
			if base >= 0 {
				end = base // the words above are written: the window must not reach them
			}
			base = max(0, w-window+1)
		}
		win[w-base] |= 1 << (i % 64)
	})
	write()
	return &PathSet{disk: d, owner: r}
}
