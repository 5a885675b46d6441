package store

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// docs/store.md S22: a Pipe hands the writer every item in order, ends a
// call of Load exactly at each cut and at its close, and never holds more
// than its bound (one item at least), whatever the sizes.
func TestPipe(t *testing.T) {
	for _, max := range []int{1, 300, 4 << 10, 1 << 20} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(max), 3))
			var loaded []string
			p := NewPipe(max, func(tag any, events int64, err error) {
				loaded = append(loaded, fmt.Sprintf("%v:%d", tag, events))
			})
			type want struct {
				kind string // begin, event, end, abort, cut
				n    int
			}
			var script []want
			for i := range 300 {
				script = append(script, want{"begin", i})
				for j := range r.IntN(20) {
					script = append(script, want{"event", 1 + r.IntN(3000)*(j%2)})
				}
				if r.IntN(9) == 0 {
					script = append(script, want{"abort", i})
				} else {
					script = append(script, want{"end", i})
				}
				if r.IntN(7) == 0 {
					script = append(script, want{"cut", 0})
				}
			}
			go func() {
				for _, w := range script {
					switch w.kind {
					case "begin":
						p.Begin(Session{Key: fmt.Sprint("agent:main:", w.n)}, w.n)
					case "event":
						p.Event([]byte(`{"type":"message","message":{"role":"user","content":"` + strings.Repeat("x", w.n) + `"}}`))
					case "end":
						p.End()
					case "abort":
						p.Abort(fmt.Errorf("abort %d", w.n))
					case "cut":
						p.Cut()
					}
				}
				p.Close()
			}()
			var got []want
			calls := 1
			for {
				p.mu.Lock()
				held, sized := p.bytes, 0
				for _, h := range p.queue[p.head:] {
					if h.size > 0 {
						sized++
					}
				}
				p.mu.Unlock()
				if held > max && sized > 1 {
					t.Fatalf("holds %d bytes in %d items, bound %d", held, sized, max)
				}
				item, ok := p.Next()
				if !ok {
					if p.Done() {
						break
					}
					got = append(got, want{"cut", 0})
					calls++
					continue
				}
				switch {
				case item.Begin != nil:
					got = append(got, want{"begin", item.Begin.Tag.(int)})
				case item.Event != nil:
					if item.Event.Err != nil {
						t.Fatal(item.Event.Err)
					}
					got = append(got, want{"event", len(item.Event.Text.Text)})
				case item.End:
					got = append(got, want{"end", 0})
				case item.Abort != nil:
					got = append(got, want{"abort", 0})
				}
			}
			var expect []want
			for _, w := range script {
				switch w.kind {
				case "end", "abort":
					w.n = 0
				}
				expect = append(expect, w)
			}
			if expect[len(expect)-1].kind == "cut" {
				expect = expect[:len(expect)-1] // a cut at the end is the close's
			}
			if fmt.Sprint(got) != fmt.Sprint(expect) {
				for i := range min(len(got), len(expect)) {
					if got[i] != expect[i] {
						t.Fatalf("item %d: got %v, want %v", i, got[i], expect[i])
					}
				}
				t.Fatalf("got %d items, want %d", len(got), len(expect))
			}
			if calls < 2 {
				t.Fatal("no cut ended a call")
			}
		})
	}
}

// docs/store.md S41: what a pipe keeps does not grow with what passes
// through it. A reader that keeps its writer busy never lets the queue
// empty; the queue still holds only about what waits in it, not every
// item handed on since it last emptied.
func TestPipeKeepsWhatWaits(t *testing.T) {
	const max, events = 4 << 10, 50_000
	p := NewPipe(max, func(any, int64, error) {})
	go func() {
		p.Begin(Session{Key: "agent:main:long"}, 0)
		e := p.Prepare([]byte(`{"type":"message","message":{"role":"user","content":"x"}}`))
		for range events {
			p.Prepared(&e)
		}
		p.End()
		p.Close()
	}()
	// What waits is bounded in bytes, and every event counts at least
	// 128 (Prepared.Size): the queue is room for that twice over, and the
	// run of taken items it moves the rest after.
	bound := 2*(max/128+2) + compactItems
	n := 0
	for {
		if _, ok := p.Next(); !ok {
			break
		}
		n++
		// The writer stores slower than the reader reads.
		for start := time.Now(); time.Since(start) < 5*time.Microsecond; {
		}
		p.mu.Lock()
		c := cap(p.queue)
		p.mu.Unlock()
		if c > bound {
			t.Fatalf("after %d items the queue has room for %d, bound %d", n, c, bound)
		}
	}
	if n != events+2 {
		t.Fatalf("took %d items, want %d", n, events+2)
	}
}
