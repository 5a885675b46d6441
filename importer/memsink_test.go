package importer

import (
	"bytes"
	"context"
	"errors"
)

// memSink is a Sink in memory with the SQL sink's rules: a transaction's
// events become visible on Commit, events already stored are ignored when
// equal and conflicts when not, and session links are filled, never
// replaced.
type memSink struct {
	sessions map[string]Session
	events   map[string][][]byte
	order    []string // session keys in the order first committed
	failKey  string   // Begin of this key fails
}

func newMemSink() *memSink {
	return &memSink{sessions: map[string]Session{}, events: map[string][][]byte{}}
}

func (m *memSink) Begin(_ context.Context, s Session) (TranscriptWriter, error) {
	if s.Key == m.failKey {
		return nil, errors.New("refused by the store")
	}
	return &memTx{m: m, s: s}, nil
}

// BeginReplace starts a transcript that replaces the stored one on Commit.
func (m *memSink) BeginReplace(_ context.Context, s Session) (TranscriptWriter, error) {
	return &memTx{m: m, s: s, replace: true}, nil
}

type memTx struct {
	m       *memSink
	s       Session
	pending [][]byte
	replace bool
}

func (t *memTx) stored(seq int) ([]byte, bool) {
	if seq < len(t.pending) && t.pending[seq] != nil {
		return t.pending[seq], true
	}
	if ev := t.m.events[t.s.Key]; seq < len(ev) && !t.replace {
		return ev[seq], true
	}
	return nil, false
}

func (t *memTx) Append(_ context.Context, seq int, event []byte) (bool, error) {
	if old, ok := t.stored(seq); ok {
		if !bytes.Equal(old, event) {
			return false, &ConflictError{SessionKey: t.s.Key, Seq: seq}
		}
		return false, nil
	}
	for len(t.pending) <= seq {
		t.pending = append(t.pending, nil)
	}
	t.pending[seq] = append([]byte(nil), event...)
	return true, nil
}

func (t *memTx) Commit() error {
	if t.replace {
		delete(t.m.events, t.s.Key)
		if _, ok := t.m.sessions[t.s.Key]; ok {
			t.m.sessions[t.s.Key] = t.s
		}
	}
	old, ok := t.m.sessions[t.s.Key]
	if !ok {
		t.m.order = append(t.m.order, t.s.Key)
		old = t.s
	}
	if old.SpawnedBy == "" {
		old.SpawnedBy = t.s.SpawnedBy
	}
	if old.ParentSessionKey == "" {
		old.ParentSessionKey = t.s.ParentSessionKey
	}
	if old.CreatedAt == 0 {
		old.CreatedAt = t.s.CreatedAt
	}
	t.m.sessions[t.s.Key] = old
	ev := t.m.events[t.s.Key]
	for seq, e := range t.pending {
		if e == nil {
			continue
		}
		for len(ev) <= seq {
			ev = append(ev, nil)
		}
		ev[seq] = e
	}
	t.m.events[t.s.Key] = ev
	return nil
}

func (t *memTx) Rollback() error { return nil }
