// Package extension is sessionsearch's SQLite extension: the FTS5 tokenizer
// `sessionsearch`, the auxiliary function `sessionsearch_snippet`, and the
// SQL functions of the registration table in functions.go. It is the only
// package with cgo: bridge.c talks to SQLite, and the exported Go functions
// here hand each call to the pure-Go packages (tokenizer, sqlfuncs, store).
//
// The same code is linked two ways: as the loadable extension
// dist/sessionsearch.so (extension/loadable) and statically into Go programs
// through the driver package, which registers the C function
// sessionsearch_init_db as an auto-extension.
package extension

/*
#cgo CFLAGS: -O2 -std=gnu11 -Wall -Wno-unused-function
#cgo noescape ss_tokens_reserve
#cgo nocallback ss_tokens_reserve
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// Build information, stamped by the Makefile with -ldflags -X.
var (
	Version   = "v0.1.0-dev"
	Commit    = "unknown"
	BuildDate = "unknown"
)

const (
	sqliteOK    = 0
	sqliteError = 1
	sqliteBusy  = 5
	sqliteNoMem = 7
)

// panicError turns a recovered panic into an SQLite error code: a Go panic
// must never unwind into C, where it would kill the host process.
func panicError(where string, r any) C.int {
	if r == nil {
		return sqliteOK
	}
	logError(fmt.Sprintf("sessionsearch: internal error in %s: %v", where, r))
	return sqliteError
}

//export sessionsearch_go_tokenizer_options
func sessionsearch_go_tokenizer_options(azArg **C.char, nArg C.int) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			rc = -1 - panicError("tokenizer constructor", r)
		}
	}()
	args := make([]string, int(nArg))
	for i, a := range unsafe.Slice(azArg, int(nArg)) {
		args[i] = C.GoString(a)
	}
	opts, err := tokenizer.ParseOptions(args)
	if err != nil {
		// FTS5 reports "error in tokenizer constructor" whatever the cause;
		// the SQLite log gets the option's name (and sessionsearch_tokens
		// checks options with a named error).
		logError("sessionsearch: " + err.Error())
		return -1
	}
	return C.int(opts.Encode())
}

// outputs keeps tokenizer buffers between documents. A sync.Pool would do,
// but the garbage collector empties it every other cycle, and an index
// build then pays for growing fresh buffers (page faults and zeroing) all
// the time; this free list keeps a few for as long as the process runs.
// One is kept in an atomic slot, which a single connection (the usual case)
// takes and gives back without the channel's lock.
var outputs = outputPool{free: make(chan *tokenizer.Output, 8)}

type outputPool struct {
	slot atomic.Pointer[tokenizer.Output]
	free chan *tokenizer.Output
}

func (p *outputPool) Get() *tokenizer.Output {
	if o := p.slot.Swap(nil); o != nil {
		return o
	}
	select {
	case o := <-p.free:
		return o
	default:
		return new(tokenizer.Output)
	}
}

// Put keeps o unless the free list is full or o holds a huge document's
// buffers (maxPooledBytes), which would stay pinned forever.
func (p *outputPool) Put(o *tokenizer.Output) {
	if o.Retained() > maxPooledBytes {
		return
	}
	if p.slot.CompareAndSwap(nil, o) {
		return
	}
	select {
	case p.free <- o:
	default:
	}
}

const maxPooledBytes = 1 << 20

// tokenizerOutputs holds one Output for each FTS5 tokenizer instance (one
// FTS5 table on one connection, so one thread at a time), by a slot number
// that the instance keeps in C: an index build takes its Output with one
// plain load, where the pool costs two atomic instructions a document.
var tokenizerOutputs outputSlots

type outputSlots struct {
	mu    sync.Mutex
	slots atomic.Pointer[[]*tokenizer.Output] // replaced, never changed in place
	free  []int
}

// open returns a new slot.
func (s *outputSlots) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var slots []*tokenizer.Output
	if p := s.slots.Load(); p != nil {
		slots = *p
	}
	if n := len(s.free); n > 0 {
		// The Output of a closed instance, with its scratch buffers: a
		// table reopened (each connection of a short-lived program opens
		// its own) does not grow them again.
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	grown := append(slots[:len(slots):len(slots)], new(tokenizer.Output))
	s.slots.Store(&grown)
	return len(grown) - 1
}

// get returns slot i's Output.
func (s *outputSlots) get(i int) *tokenizer.Output { return (*s.slots.Load())[i] }

// put keeps o for slot i unless a huge text grew it.
func (s *outputSlots) put(i int, o *tokenizer.Output) {
	if o.Retained() > maxPooledBytes {
		s.renew(i)
	}
}

// renew gives slot i a new Output.
func (s *outputSlots) renew(i int) {
	s.mu.Lock() // open may be copying the slots
	(*s.slots.Load())[i] = new(tokenizer.Output)
	s.mu.Unlock()
}

// close frees slot i for another instance.
func (s *outputSlots) close(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free = append(s.free, i)
}

//export sessionsearch_go_tokenizer_open
func sessionsearch_go_tokenizer_open() (slot C.int) {
	defer func() {
		if r := recover(); r != nil {
			slot = -1 - panicError("tokenizer constructor", r)
		}
	}()
	return C.int(tokenizerOutputs.open())
}

//export sessionsearch_go_tokenizer_close
func sessionsearch_go_tokenizer_close(slot C.int) {
	defer func() { panicError("tokenizer destructor", recover()) }()
	tokenizerOutputs.close(int(slot))
}

//export sessionsearch_go_tokenize
func sessionsearch_go_tokenize(options, slot, flags C.int, pText *C.char, nText C.int, b *C.ss_tokens) (rc C.int) {
	var out *tokenizer.Output
	defer func() {
		if r := recover(); r != nil {
			if out != nil {
				// The Output may point at b's memory, which C frees, and
				// hold a half-done text's state: a pooled one is dropped,
				// the slot gets a new one.
				out.Tokens, out.Folded = nil, nil
				if slot >= 0 {
					tokenizerOutputs.renew(int(slot))
				}
			}
			b.n = 0
			rc = panicError("tokenizer", r)
		}
	}()
	text := unsafe.Slice((*byte)(unsafe.Pointer(pText)), int(nText))
	if flags&C.FTS5_TOKENIZE_QUERY == 0 {
		// A text a bulk load is indexing comes with its tokens, made where
		// it read the event (store.TakeTokens).
		if t := store.TakeTokens(text, uint32(options)); t != nil {
			if len(t.Tokens) > int(b.cap) || len(t.Folded) > int(b.foldedCap) {
				if rc = C.ss_tokens_reserve(b, C.int(len(t.Tokens)), C.int(len(t.Folded))); rc != sqliteOK {
					b.n = 0
					return rc
				}
			}
			copy(unsafe.Slice((*tokenizer.Token)(unsafe.Pointer(b.tokens)), len(t.Tokens)), t.Tokens)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(b.folded)), len(t.Folded)), t.Folded)
			b.n = C.int(len(t.Tokens))
			return sqliteOK
		}
	}
	// The instance's own Output, or one from the pool for a text that an
	// xToken callback tokenizes while the instance's is in use (slot -1).
	if slot >= 0 {
		out = tokenizerOutputs.get(int(slot))
	} else {
		out = outputs.Get()
	}
	// Room for most texts before they start (a token per four bytes, as
	// much folded text as input), so that a new instance's first texts do
	// not grow Go copies step by step.
	if want, wantFolded := int(nText)/4+16, int(nText)+16; int(b.cap) < want || int(b.foldedCap) < wantFolded {
		if int(b.cap) < want {
			want = max(want, 2*int(b.cap))
		}
		if int(b.foldedCap) < wantFolded {
			wantFolded = max(wantFolded, 2*int(b.foldedCap))
		}
		if rc = C.ss_tokens_reserve(b, C.int(want), C.int(wantFolded)); rc != sqliteOK {
			b.n = 0
			return rc
		}
	}
	// The tokenizer writes into b's buffers, which C owns and hands to
	// FTS5 once this call has returned (no call back into C per text).
	// When a text needs more room, append moves its tokens or folded text
	// to Go memory; b then grows to that size and gets a copy.
	own, ownFolded := out.Tokens, out.Folded
	out.Tokens = unsafe.Slice((*tokenizer.Token)(unsafe.Pointer(b.tokens)), int(b.cap))[:0]
	out.Folded = unsafe.Slice((*byte)(unsafe.Pointer(b.folded)), int(b.foldedCap))[:0]
	tokenizer.DecodeOptions(uint32(options)).Tokenize(text, flags&C.FTS5_TOKENIZE_QUERY != 0, out)
	tokens, folded := out.Tokens, out.Folded
	out.Tokens, out.Folded = own, ownFolded // no Output keeps C memory
	if slot >= 0 {
		tokenizerOutputs.put(int(slot), out)
	} else {
		outputs.Put(out)
	}
	out = nil
	if len(tokens) > int(b.cap) || len(folded) > int(b.foldedCap) {
		if rc = C.ss_tokens_reserve(b, C.int(cap(tokens)), C.int(cap(folded))); rc != sqliteOK {
			b.n = 0
			return rc
		}
		copy(unsafe.Slice((*tokenizer.Token)(unsafe.Pointer(b.tokens)), len(tokens)), tokens)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(b.folded)), len(folded)), folded)
	}
	b.n = C.int(len(tokens))
	return sqliteOK
}

//export sessionsearch_go_release
func sessionsearch_go_release(h C.uintptr_t) {
	defer func() { panicError("release", recover()) }()
	cgo.Handle(h).Delete()
}

func logError(msg string) {
	// sqlite3_log is the only channel to the host's error log from a
	// tokenizer constructor; hosts without a log callback ignore it.
	cmsg := C.CString(msg)
	defer C.free(unsafe.Pointer(cmsg))
	C.ss_log(cmsg)
}
