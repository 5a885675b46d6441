package store

import (
	"sync"
	"sync/atomic"
)

// Pipe is a LoadFeed filled from another goroutine: a reader begins
// transcripts and hands their events to it, which it prepares there
// (Prepare: reading, masking, compressing), while Load, on the writer's
// goroutine, stores what it prepared before. What it holds is bounded in
// bytes, so memory does not grow with the input (docs/store.md S22).
type Pipe struct {
	mu      sync.Mutex
	ready   sync.Cond // the writer waits for a run of items, a cut or the end
	room    sync.Cond // the reader waits for room
	queue   []held    // queue[head:] are waiting
	head    int
	bytes   int // held
	max     int
	cuts    int  // cuts queued: each ends a call of Load
	closed  bool // no more items
	blocked bool // the reader waits for room
	seq     int64
	prep    Preparer    // the reader's
	tools   atomic.Bool // Load found the store keeps the tool index (S33)
	loaded  func(tag any, events int64, err error)
}

// NewPipe returns a pipe that holds up to maxBytes of prepared events
// (always at least one) and reports each transcript's outcome to loaded,
// on the writer's goroutine.
func NewPipe(maxBytes int, loaded func(tag any, events int64, err error)) *Pipe {
	p := &Pipe{max: maxBytes, loaded: loaded}
	p.ready.L, p.room.L = &p.mu, &p.mu
	return p
}

// wakeItems and wakeBytes are the run of items that wakes a waiting
// writer: one wake-up per run rather than per event.
const (
	wakeItems = 64
	wakeBytes = 256 << 10
)

// Begin starts a transcript.
func (p *Pipe) Begin(s Session, tag any) {
	p.seq = 0
	p.put(LoadItem{Begin: &LoadTranscript{Session: s, Tag: tag}}, 64)
}

// Event prepares the transcript's next event, on the caller's goroutine,
// and hands it on.
func (p *Pipe) Event(event []byte) {
	e := p.Prepare(event)
	p.Prepared(&e)
}

// Prepare prepares what would be the transcript's next event, for a
// caller that looks at it before it hands it on (Prepared).
func (p *Pipe) Prepare(event []byte) Prepared {
	p.prep.Tools = p.tools.Load()
	return p.prep.Prepare(p.seq, event)
}

// Prepared hands on the transcript's next event, prepared by Prepare.
func (p *Pipe) Prepared(e *Prepared) {
	p.seq++
	p.put(LoadItem{Event: e}, e.Size())
}

// End completes the transcript; Abort drops it, for err.
func (p *Pipe) End()            { p.put(LoadItem{End: true}, 0) }
func (p *Pipe) Abort(err error) { p.put(LoadItem{Abort: err}, 0) }

// Cut ends the current call of Load after the items handed on so far.
func (p *Pipe) Cut() {
	p.mu.Lock()
	p.queue = append(p.queue, held{item: LoadItem{cut: true}})
	p.cuts++
	p.ready.Signal()
	p.mu.Unlock()
}

// Close ends the feed: Load returns once it has stored what is held.
func (p *Pipe) Close() {
	p.mu.Lock()
	p.closed = true
	p.ready.Signal()
	p.mu.Unlock()
}

// Wait waits until an item is handed on or the pipe is closed, and
// reports whether there is an item: a writer begins its transaction only
// then, so that it holds no lock while its reader reads.
func (p *Pipe) Wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) == p.head && !p.closed {
		p.ready.Wait()
	}
	return len(p.queue) > p.head
}

// Done reports whether the pipe is closed and everything handed on was
// taken.
func (p *Pipe) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed && len(p.queue) == p.head
}

func (p *Pipe) put(item LoadItem, size int) {
	p.mu.Lock()
	for p.bytes > 0 && p.bytes+size > p.max {
		p.blocked = true
		p.ready.Signal()
		p.room.Wait()
	}
	p.blocked = false
	p.queue = append(p.queue, held{item, size})
	p.bytes += size
	if !p.waiting() || len(p.queue)-p.head == 1 {
		p.ready.Signal()
	}
	p.mu.Unlock()
}

// Next is LoadFeed's: the next item, false at a cut or the end.
func (p *Pipe) Next() (LoadItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) == p.head && !p.closed || p.waiting() {
		p.ready.Wait()
	}
	if len(p.queue) == p.head {
		return LoadItem{}, false // closed
	}
	item, size := p.queue[p.head].item, p.queue[p.head].size
	p.queue[p.head] = held{}
	p.head++
	p.compact()
	p.bytes -= size
	p.room.Signal()
	if item.cut {
		p.cuts--
		return LoadItem{}, false
	}
	return item, true
}

// held is an item waiting in the pipe, and its size.
type held struct {
	item LoadItem
	size int
}

// compact moves the waiting items to the front of the queue once at least
// as many were taken: a reader that keeps the writer busy never lets the
// queue empty, and appending behind items taken would grow it with every
// item that passes (16 MB of queue for a 1 GB import), not with what it
// holds. Each item is moved at most once for each item taken
// (docs/store.md S41).
func (p *Pipe) compact() {
	if p.head < len(p.queue) && (p.head < compactItems || p.head*2 < len(p.queue)) {
		return
	}
	n := copy(p.queue, p.queue[p.head:])
	clear(p.queue[n:])
	p.queue, p.head = p.queue[:n], 0
}

// compactItems is the least run of taken items compact moves the rest
// for.
const compactItems = 256

// waiting reports whether the writer should wait for a longer run: the
// items queued are few and small, and no cut or end follows them.
func (p *Pipe) waiting() bool {
	n := len(p.queue) - p.head
	return n > 0 && n < wakeItems && p.bytes < wakeBytes && p.cuts == 0 && !p.closed && !p.blocked
}

// Loaded is LoadFeed's.
func (p *Pipe) Loaded(tag any, events int64, err error) { p.loaded(tag, events, err) }
