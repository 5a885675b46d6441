package store

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// Record is the stored state of one entry: what the rules need of its event
// (so that a replay never parses events again), whether it is on the active
// path, and the session's Tip after it. It is kept in the info column of
// sessionsearch_entries as a JSON object with these names; the columns that
// SQL reads (active, message, entry_id, role, ts) are generated from it by
// name (see schema.go).
type Record struct {
	ID        string `json:"id,omitempty"`
	HasParent bool   `json:"-"`                // the event has a parentId field ("parent", null for a new root)
	ParentID  string `json:"-"`                // its value
	Role      string `json:"role,omitempty"`   // of a message
	Timestamp int64  `json:"ts,omitempty"`     // of a message, epoch ms
	TargetID  string `json:"target,omitempty"` // of a leaf entry
	Message   bool   `json:"-"`                // a user or assistant message with text: indexed when active
	Leaf      bool   `json:"-"`                // a leaf entry: moves the leaf to its target
	Side      bool   `json:"-"`                // appendMode side: never the leaf
	Active    bool   `json:"-"`                // on the active path
	// Moves is set on an entry appended off the active path that may move
	// it (a leaf entry, or a branch): the append trigger replays the
	// session when it is set.
	Moves bool `json:"-"`
	Tip   Tip  `json:"tip"`
}

// Tip is a session's state for appends, valid in its newest entry: the seq
// of its leaf (-1 for none), the leaf's key (its id while that id names it,
// else "") and how many message entries the session has.
type Tip struct {
	Leaf     int64  `json:"leaf"`
	Key      string `json:"key,omitempty"`
	Messages int64  `json:"messages"`
}

// NoTip is the tip of a session without entries.
var NoTip = Tip{Leaf: -1}

// NewRecord is the record of entry e, off the path, with tip t.
func NewRecord(e transcript.Entry, t Tip) Record {
	return Record{ID: e.ID, HasParent: e.HasParent, ParentID: e.ParentID, Role: e.Role, Timestamp: e.Timestamp,
		TargetID: e.TargetID, Message: e.Message, Leaf: e.Leaf(), Side: e.Side, Tip: t}
}

// Entry is what package transcript's rules need of r.
func (r Record) Entry() transcript.Entry {
	e := transcript.Entry{ID: r.ID, HasParent: r.HasParent, ParentID: r.ParentID, Role: r.Role,
		Timestamp: r.Timestamp, TargetID: r.TargetID, Side: r.Side, Message: r.Message}
	if r.Leaf {
		e.Type = "leaf"
	}
	return e
}

// AppendJSON appends r's stored form to b. Written by hand: it runs once per
// appended event.
func (r Record) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	sep := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	str := func(name, v string) {
		if v != "" {
			sep(name)
			b = appendJSONString(b, v)
		}
	}
	flag := func(name string, v bool) {
		if v {
			sep(name)
			b = append(b, '1')
		}
	}
	str("id", r.ID)
	if r.HasParent {
		sep("parent")
		if r.ParentID == "" {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, r.ParentID)
		}
	}
	str("role", r.Role)
	if r.Timestamp != 0 {
		sep("ts")
		b = strconv.AppendInt(b, r.Timestamp, 10)
	}
	str("target", r.TargetID)
	flag("message", r.Message)
	flag("leaf", r.Leaf)
	flag("side", r.Side)
	flag("active", r.Active)
	flag("moves", r.Moves)
	sep("tip")
	b = append(b, `{"leaf":`...)
	b = strconv.AppendInt(b, r.Tip.Leaf, 10)
	if r.Tip.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, r.Tip.Key)
	}
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, r.Tip.Messages, 10)
	return append(b, '}', '}')
}

// storedRecord is Record's stored form for decoding: flags are 1 when set,
// and "parent" is present (maybe null) exactly when the event had parentId.
type storedRecord struct {
	ID        string          `json:"id"`
	Parent    json.RawMessage `json:"parent"`
	Role      string          `json:"role"`
	Timestamp int64           `json:"ts"`
	TargetID  string          `json:"target"`
	Message   int             `json:"message"`
	Leaf      int             `json:"leaf"`
	Side      int             `json:"side"`
	Active    int             `json:"active"`
	Moves     int             `json:"moves"`
	Tip       Tip             `json:"tip"`
}

// ParseRecord reads a record written by AppendJSON.
func ParseRecord(s string) (Record, error) {
	var v storedRecord
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return Record{}, fmt.Errorf("bad entry record %q: %v", s, err)
	}
	r := Record{ID: v.ID, Role: v.Role, Timestamp: v.Timestamp, TargetID: v.TargetID, Message: v.Message != 0,
		Leaf: v.Leaf != 0, Side: v.Side != 0, Active: v.Active != 0, Moves: v.Moves != 0, Tip: v.Tip}
	if v.Parent != nil {
		r.HasParent = true
		if string(v.Parent) != "null" {
			if err := json.Unmarshal(v.Parent, &r.ParentID); err != nil {
				return Record{}, fmt.Errorf("bad entry record %q: parent: %v", s, err)
			}
		}
	}
	return r, nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}
