package store

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// How transcript_events keeps an event (docs/store.md S19): as its JSON
// text, or as a zstd frame of that text, a BLOB, the way OpenClaw keeps a
// large event since its agent schema 23. Every reader of the store (the
// triggers, the content view, history, reconcile, sessionsearch_event)
// reads either form; a bulk load (Load) stores an event of FrameMin to
// FrameMax bytes as a frame when that saves at least frameSaves bytes and
// a tenth, as OpenClaw does. A host's insert of JSON text is stored as it
// is.

// The sizes of the events a bulk load stores as frames.
const (
	FrameMin = 1 << 10
	FrameMax = 4 << 20
	// frameSaves is the least a frame must save, in bytes; it must also
	// save a tenth.
	frameSaves = 64
)

// MaxFrameEvent is the most a stored frame may decode to: the longest
// event import reads (jsonl.MaxLineBytes).
const MaxFrameEvent = 32 << 20

// zstdMagic begins every zstd frame. No JSON text begins with its first
// byte, so the two forms cannot be confused.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// IsFrame reports whether a stored event is a zstd frame.
func IsFrame(stored []byte) bool { return bytes.HasPrefix(stored, zstdMagic) }

// The codec is shared: zstd's DecodeAll and EncodeAll may be called from
// any goroutine, each call on one.
//
// Two encoders, both at zstd's fastest level: below entropyMin bytes the
// Huffman and FSE tables zstd builds for each block cost more than the
// events they shorten (measured on the generated state directory's events
// of 1-4 KiB: 2.5x the time for 10% less), so small events are compressed
// without them; larger ones, prose-like request records above all, with
// them (a quarter smaller).
var (
	frameDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxFrameEvent))
	smallEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithNoEntropyCompression(true), zstd.WithWindowSize(entropyMin), zstd.WithLowerEncoderMem(true))
	frameEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(FrameMax), zstd.WithLowerEncoderMem(true))
)

// entropyMin is the size from which an event's frame has entropy coding.
const entropyMin = 16 << 10

// errFrame is the error of a frame that does not decode.
var errFrame = errors.New("event is a zstd frame that does not decode")

// EventJSON returns the JSON text of a stored event: stored itself, or its
// frame decoded, appended to buf.
func EventJSON(stored, buf []byte) ([]byte, error) {
	if !IsFrame(stored) {
		return stored, nil
	}
	out, err := frameDecoder.DecodeAll(stored, buf[:0])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFrame, err)
	}
	return out, nil
}

// StoredEvent returns what a bulk load stores of event: a zstd frame of it
// (appended to buf) when the event is FrameMin to FrameMax bytes and the
// frame saves at least frameSaves bytes and a tenth, else event itself;
// frame says which. seq 0 is always kept as text: search reads a session's
// header with SQL's JSON functions (docs/search.md Q19).
func StoredEvent(seq int64, event, buf []byte) (stored []byte, frame bool) {
	if seq == 0 || len(event) < FrameMin || len(event) > FrameMax {
		return event, false
	}
	enc := frameEncoder
	if len(event) < entropyMin {
		enc = smallEncoder
	}
	out := enc.EncodeAll(event, buf[:0])
	if !worthFrame(len(event), len(out)) {
		return event, false
	}
	return out, true
}

// worthFrame reports whether a frame of n bytes of an event of m bytes
// saves enough to be kept: frameSaves bytes and a tenth.
func worthFrame(m, n int) bool {
	saved := m - n
	return saved >= frameSaves && saved*10 >= m
}

// IndexedText is what the index keeps of an event whose entry is e and
// whose text transcript.Read gave: a message's text with its secrets
// masked (docs/store.md S3), "" for an entry that is never searchable. The
// append trigger (through MessageText), the content view and a bulk load
// all take the indexed text from here.
func IndexedText(e transcript.Entry, text string) string {
	if !e.Message {
		return ""
	}
	out, _ := redact.Text(text)
	return out
}

// ReadEvent reads a stored event: its entry and the text transcript.Read
// gives, in one pass; buf is scratch for a frame's JSON.
func ReadEvent(stored, buf []byte) (transcript.Entry, string, []byte, error) {
	event, err := EventJSON(stored, buf)
	if err != nil {
		return transcript.Entry{}, "", buf, err
	}
	e, text, err := transcript.Read(event)
	if IsFrame(stored) {
		buf = event
	}
	return e, text, buf, err
}
