package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// docs/store.md S19: which events a bulk load keeps as zstd frames, and
// that every form reads back as the event.
func TestStoredEvent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	noise := func(n int) []byte { // does not compress
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r.IntN(62)]
		}
		return b
	}
	event := func(text []byte) []byte {
		return []byte(`{"type":"message","id":"m1","message":{"role":"user","content":"` + string(text) + `"}}`)
	}
	// sized is an event of exactly n bytes, filled with prose or noise.
	sized := func(n int, fill func(int) []byte) []byte { return event(fill(n - len(event(nil)))) }
	prose := func(n int) []byte { return []byte(strings.Repeat("the answer was kept, ", n/21+1)[:n]) }
	for _, c := range []struct {
		name  string
		seq   int64
		event []byte
		frame bool
	}{
		{"small", 1, sized(900, prose), false},
		{"at the lower bound", 1, sized(FrameMin, prose), true},
		{"below the lower bound", 1, sized(FrameMin-1, prose), false},
		{"compressible", 1, sized(20000, prose), true},
		{"seq 0, a session's header", 0, sized(20000, prose), false},
		{"incompressible", 1, sized(3000, noise), false},
		{"at the upper bound", 7, sized(FrameMax, prose), true},
		{"past the upper bound", 7, sized(FrameMax+1, prose), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			stored, frame := StoredEvent(c.seq, c.event, nil)
			if frame != c.frame || IsFrame(stored) != c.frame {
				t.Fatalf("%d bytes at seq %d: frame %v (IsFrame %v), want %v", len(c.event), c.seq, frame, IsFrame(stored), c.frame)
			}
			if !frame && !bytes.Equal(stored, c.event) {
				t.Fatal("an event kept as text changed")
			}
			if frame && (len(c.event)-len(stored) < frameSaves || (len(c.event)-len(stored))*10 < len(c.event)) {
				t.Fatalf("a frame of %d bytes for %d saves too little", len(stored), len(c.event))
			}
			back, err := EventJSON(stored, nil)
			if err != nil || !bytes.Equal(back, c.event) {
				t.Fatalf("read back %d bytes, %v", len(back), err)
			}
			e, _, _, err := ReadEvent(stored, nil)
			if err != nil || e.ID != "m1" || !e.Message {
				t.Fatalf("ReadEvent: %+v, %v", e, err)
			}
		})
	}
}

func TestWorthFrame(t *testing.T) {
	for _, c := range []struct {
		event, frame int
		want         bool
	}{
		{1024, 921, true},   // saves 103, a tenth
		{1024, 922, false},  // saves 102, less than a tenth
		{2000, 1800, true},  // saves a tenth exactly
		{2000, 1801, false}, // a tenth less one byte
		{600, 536, true},    // 64 bytes, more than a tenth
		{600, 537, false},   // 63 bytes, more than a tenth
		{5000, 5014, false}, // raw blocks: larger
	} {
		if got := worthFrame(c.event, c.frame); got != c.want {
			t.Errorf("worthFrame(%d, %d) = %v, want %v", c.event, c.frame, got, c.want)
		}
	}
}

// frameWith is a zstd frame of data from an encoder of its own, as another
// program (OpenClaw, a host) would write it.
func frameWith(data []byte) []byte {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// Frames another program wrote read back; frames that do not decode, or
// decode past MaxFrameEvent, are errors that say so.
func TestEventJSON(t *testing.T) {
	event := []byte(`{"type":"message","id":"x","message":{"role":"user","content":"` + strings.Repeat("other writers ", 300) + `"}}`)
	good := frameWith(event)
	for _, c := range []struct {
		name   string
		stored []byte
		want   []byte
		err    bool
	}{
		{"text", event, event, false},
		{"another writer's frame", good, event, false},
		{"truncated", good[:len(good)/2], nil, true},
		{"a bad checksum", append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^0xff), nil, true},
		{"only the magic number", zstdMagic, nil, true},
		{"past the limit", frameWith(bytes.Repeat([]byte("a"), MaxFrameEvent+1)), nil, true},
		{"at the limit", frameWith(bytes.Repeat([]byte("a"), MaxFrameEvent)), bytes.Repeat([]byte("a"), MaxFrameEvent), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := EventJSON(c.stored, nil)
			if c.err {
				if !errors.Is(err, errFrame) {
					t.Fatalf("got %d bytes and %v, want a frame error", len(got), err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, c.want) {
				t.Fatalf("got %d bytes, %v", len(got), err)
			}
		})
	}
}
