package transcript

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
)

// A replay of a big session keeps its ids and its resets in temporary files
// instead of memory (Replay.Spill, docs/store.md S9): what the rules need
// of an entry is then a bit for its parent in memory, and the replay's
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
	dir   string
	files []*os.File
	err   error
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
	return logFile{s: s, f: s.create(), buf: make([]byte, 0, spillBuffer)}
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
type diskIDs struct {
	s      *spill
	bytes  logFile
	ends   logFile
	slots  *os.File
	nslots int
	used   int
	n      int
	last   string // the newest entry's id: the common lookup reads no file
	hashOf func(string) uint64
}

func newDiskIDs(s *spill, hashOf func(string) uint64, n int) *diskIDs {
	d := &diskIDs{s: s, bytes: newLogFile(s), ends: newLogFile(s), hashOf: hashOf}
	d.rehash(n)
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

func (d *diskIDs) slot(tag uint64) int { return int(tag * uint64(d.nslots) >> 32) }

func (d *diskIDs) readSlot(f *os.File, s int) uint64 {
	var b [8]byte
	d.s.readAt(f, b[:], int64(s)*8)
	return binary.LittleEndian.Uint64(b[:])
}

func (d *diskIDs) writeSlot(f *os.File, s int, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	d.s.writeAt(f, b[:], int64(s)*8)
}

// find returns the slot that holds id and its value, or the empty slot
// where id goes and 0.
func (d *diskIDs) find(id string) (int, uint64) {
	tag := d.hashOf(id) >> 32
	s := d.slot(tag)
	for range d.nslots {
		v := d.readSlot(d.slots, s)
		if v == 0 || (v>>32 == tag && d.is(int(uint32(v))-1, id)) {
			return s, v
		}
		if s++; s == d.nslots {
			s = 0
		}
	}
	d.s.fail(errors.New("hash table full"))
	return 0, 0
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
	if (d.used+1)*4 > d.nslots*3 {
		d.rehash(d.used + 1)
	}
	s, v := d.find(id)
	if v == 0 {
		d.used++
	}
	d.writeSlot(d.slots, s, d.hashOf(id)>>32<<32|uint64(i+1))
	return i
}

func (d *diskIDs) latest(id string) int {
	if id == "" || d.used == 0 {
		return -1
	}
	_, v := d.find(id)
	return int(uint32(v)) - 1
}

// rehash sizes the slots for n ids at a load of at most three quarters, as
// idTable.rehash does, moving each slot by its hash bits.
func (d *diskIDs) rehash(n int) {
	if n*4 <= d.nslots*3 && d.slots != nil {
		return
	}
	size := max(8, n*4/3+1, 2*d.nslots)
	old, oldSize := d.slots, d.nslots
	d.slots, d.nslots = d.s.create(), size
	if d.slots != nil {
		d.s.fail(d.slots.Truncate(int64(size) * 8))
	}
	if old == nil {
		return
	}
	buf := make([]byte, 8*min(oldSize, 8192))
	for from := 0; from < oldSize; from += len(buf) / 8 {
		chunk := buf[:8*min(len(buf)/8, oldSize-from)]
		d.s.readAt(old, chunk, int64(from)*8)
		for k := 0; k < len(chunk); k += 8 {
			v := binary.LittleEndian.Uint64(chunk[k:])
			if v == 0 {
				continue
			}
			s := d.slot(v >> 32)
			for range size {
				if d.readSlot(d.slots, s) == 0 {
					break
				}
				if s++; s == size {
					s = 0
				}
			}
			d.writeSlot(d.slots, s, v)
		}
	}
	d.s.drop(old)
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

// Spill makes an empty replay keep its ids, and its resets once it has
// one, in temporary files in SpillDir, sized for n entries: for a session
// whose IDBytes pass SpillAbove. The replay's answers stay the same; each
// entry then costs a few reads and writes of the files. Close removes them
// (they are removed anyway once the replay is garbage). When no file can
// be made, Spill returns the error and the replay stays in memory.
func (r *Replay) Spill(n int) error {
	if r.parents.n > 0 || r.spill != nil {
		return errors.New("transcript: Spill on a replay that has entries or is spilled")
	}
	s := &spill{dir: SpillDir()}
	ids := newDiskIDs(s, r.ids.hash, n)
	if s.err != nil {
		s.close()
		return s.err
	}
	r.spill, r.ids.disk = s, ids
	r.ids.bytes, r.ids.ends, r.ids.ends64, r.ids.slots = nil, nil, nil, nil
	r.parents.grow(n)
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
