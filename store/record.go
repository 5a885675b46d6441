package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Record is the stored state of one entry: what the rules need of its event
// (so that a replay never parses events again), whether it is on the active
// path, and the session's Tip after it. It is kept in a row of
// sessionsearch_entries, each fact once (docs/store.md S42): what SQL reads
// (the entry's id, role, timestamp, message flag, active, and the tip) in
// columns of their own, so that no view or table definition needs a JSON
// function (docs/store.md S13); the rest, read only by Go, in the info
// column as a JSON object with the names AppendInfo writes.
type Record struct {
	ID        string // "" when the entry has no id (column entry_id)
	HasParent bool   // the event has a parentId field ("parent", null for a new root)
	ParentID  string // its value
	// ParentBefore: the parent is the entry before it (seq-1), the leaf it
	// was appended to (parentBefore), as in nearly every transcript; info
	// then says "prev" instead of repeating that entry's id.
	ParentBefore bool
	Role         string // of a message (column role)
	Timestamp    int64  // of a message, epoch ms (column ts)
	TargetID     string // of a leaf entry
	Message      bool   // a user or assistant message with text: indexed when active (column message)
	Leaf         bool   // a leaf entry: moves the leaf to its target
	Reset        bool   // a reset entry: later entries do not cross it (docs/store.md S6)
	Side         bool   // appendMode side: never the leaf
	// Moves is set on an entry appended off the active path that may move
	// it (a leaf entry, or a branch): the append trigger replays the
	// session when it is set.
	Moves  bool
	Active bool // on the active path (column active)
	Tip    Tip  // columns tip_leaf, tip_key, tip_messages
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
		TargetID: e.TargetID, Message: e.Message, Leaf: e.Leaf(), Reset: e.Reset(), Side: e.Side, Tip: t}
}

// parentBefore reports whether an entry appended as seq with a parentId
// field of value parentID, to a session whose tip was prev, has for parent
// the entry before it, seq-1: the leaf it was appended to, whose id is
// then the tip's key.
func parentBefore(hasParent bool, parentID string, seq int64, prev Tip) bool {
	return hasParent && parentID != "" && parentID == prev.Key && prev.Leaf == seq-1
}

// Entry is what package transcript's rules need of r.
func (r Record) Entry() transcript.Entry {
	e := transcript.Entry{ID: r.ID, HasParent: r.HasParent, ParentID: r.ParentID, Role: r.Role,
		Timestamp: r.Timestamp, TargetID: r.TargetID, Side: r.Side, Message: r.Message}
	switch {
	case r.Leaf:
		e.Type = "leaf"
	case r.Reset:
		e.Type = "reset"
	}
	return e
}

// entryColumns are the columns of a row of sessionsearch_entries, in the
// order of Record.columns.
const entryColumns = `id, info, message, active, entry_id, role, ts, tip_leaf, tip_key, tip_messages`

// insertEntry writes a row from Go (reconcile, upgrades, the bulk load);
// the tip's key is bound as it is, and stored as tipKeySQL says.
var insertEntry = `INSERT OR IGNORE INTO sessionsearch_entries(` + entryColumns + `) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ` +
	tipKeySQL("?9", "?5") + `, ?10)`

// tipKeySQL is the SQL that stores a tip's key in its row (docs/store.md
// S42), given the key and the row's entry id (text or NULL, NULL as ""):
// NULL when the key is the row's own id, as it is in nearly every row (an
// entry with an id becomes the leaf, and its id names it), else the key,
// with "" kept as an empty text. tipKeyOf reads it back from the row of
// table alias a.
func tipKeySQL(key, id string) string {
	return "nullif(coalesce(" + key + ", ''), coalesce(" + id + ", ''))"
}

func tipKeyOf(a string) string { return "coalesce(" + a + ".tip_key, " + a + ".entry_id)" }

// columns are the values of r's row with the given id; info is a buffer to
// write the info object into.
func (r Record) columns(id int64, info []byte) []any {
	return []any{id, r.AppendInfo(info), r.Message, r.Active, nullString(r.ID), nullString(r.Role), r.Timestamp,
		r.Tip.Leaf, r.Tip.Key, r.Tip.Messages}
}

// nullString binds "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AppendResult appends what sessionsearch_entry returns to the append
// trigger, which splits it into the row's columns:
// {"info":{...},"id":"...","role":"...","ts":N,"message":0|1,"active":0|1,
// "tip":{"leaf":N,"key":"...","messages":N}}, "id", "role" and the tip's
// "key" only when set. Written by hand, like AppendInfo: it runs once per
// appended event.
func (r Record) AppendResult(b []byte) []byte {
	b = append(b, `{"info":`...)
	b = r.AppendInfo(b)
	if r.ID != "" {
		b = append(b, `,"id":`...)
		b = sqlfuncs.AppendJSONString(b, r.ID)
	}
	if r.Role != "" {
		b = append(b, `,"role":`...)
		b = sqlfuncs.AppendJSONString(b, r.Role)
	}
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, r.Timestamp, 10)
	b = append(b, `,"message":`...)
	b = appendFlag(b, r.Message)
	b = append(b, `,"active":`...)
	b = appendFlag(b, r.Active)
	b = append(b, `,"tip":{"leaf":`...)
	b = strconv.AppendInt(b, r.Tip.Leaf, 10)
	if r.Tip.Key != "" {
		b = append(b, `,"key":`...)
		b = sqlfuncs.AppendJSONString(b, r.Tip.Key)
	}
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, r.Tip.Messages, 10)
	return append(b, '}', '}')
}

func appendFlag(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// AppendInfo appends the info object: the facts of the event that no
// column holds, each name present only when it is set: "prev" when the
// parent is the entry before (ParentBefore), else "parent" exactly when
// the event has a parentId field.
func (r Record) AppendInfo(b []byte) []byte {
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
	flag := func(name string, v bool) {
		if v {
			sep(name)
			b = append(b, '1')
		}
	}
	switch {
	case r.ParentBefore:
		flag("prev", true)
	case r.HasParent:
		sep("parent")
		if r.ParentID == "" {
			b = append(b, "null"...)
		} else {
			b = sqlfuncs.AppendJSONString(b, r.ParentID)
		}
	}
	if r.TargetID != "" {
		sep("target")
		b = sqlfuncs.AppendJSONString(b, r.TargetID)
	}
	flag("leaf", r.Leaf)
	flag("reset", r.Reset)
	flag("side", r.Side)
	flag("moves", r.Moves)
	return append(b, '}')
}

// storedInfo is the info object for decoding: flags are 1 when set, and
// "parent" is present (maybe null) exactly when the event had parentId
// and "prev" is not set.
type storedInfo struct {
	Parent   json.RawMessage `json:"parent"`
	Prev     int             `json:"prev"`
	TargetID string          `json:"target"`
	Leaf     int             `json:"leaf"`
	Reset    int             `json:"reset"`
	Side     int             `json:"side"`
	Moves    int             `json:"moves"`
}

// ParseRecord reads a record from its row: cols holds what the row's
// columns give (ID, Role, Timestamp, Message, Active), info the object
// AppendInfo wrote, and before is the id of the entry before it, its
// parent when info says "prev". (The tip is read only from the newest row,
// by SQL.)
// Reconcile reads every entry of a session this way, so the form
// AppendInfo writes is read by hand (parseInfo); anything else, from
// escapes in a string to names it does not write, by encoding/json.
func ParseRecord(info string, cols Record, before string) (Record, error) {
	r, ok := parseInfo(info)
	if !ok {
		var err error
		if r, err = parseInfoJSON(info); err != nil {
			return Record{}, err
		}
	}
	r.ID, r.Role, r.Timestamp, r.Message, r.Active = cols.ID, cols.Role, cols.Timestamp, cols.Message, cols.Active
	if r.ParentBefore {
		r.HasParent, r.ParentID = true, before
	}
	return r, nil
}

// parseInfoJSON reads any info object, with encoding/json.
func parseInfoJSON(info string) (Record, error) {
	var v storedInfo
	if err := json.Unmarshal([]byte(info), &v); err != nil {
		return Record{}, fmt.Errorf("bad entry info %q: %v", info, err)
	}
	r := Record{TargetID: v.TargetID, ParentBefore: v.Prev != 0, Leaf: v.Leaf != 0, Reset: v.Reset != 0, Side: v.Side != 0, Moves: v.Moves != 0}
	if v.Parent != nil {
		r.HasParent = true
		if string(v.Parent) != "null" {
			if err := json.Unmarshal(v.Parent, &r.ParentID); err != nil {
				return Record{}, fmt.Errorf("bad entry info %q: parent: %v", info, err)
			}
		}
	}
	return r, nil
}

// parseInfo reads the info object as AppendInfo writes it: no spaces, the
// names it writes, strings of printable ASCII without escapes, integers,
// and null only for "parent". It reports false for anything else, which
// ParseRecord leaves to encoding/json; what it accepts, encoding/json
// reads the same (TestParseInfo, FuzzParseRecord).
func parseInfo(s string) (r Record, ok bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return r, false
	}
	i := 1
	if s == "{}" {
		return r, true
	}
	for {
		// "name":
		name, j, ok := infoString(s, i)
		if !ok || j >= len(s) || s[j] != ':' {
			return r, false
		}
		i = j + 1
		switch name {
		case "target":
			v, j, ok := infoString(s, i)
			if !ok {
				return r, false
			}
			r.TargetID, i = v, j
		case "parent":
			r.HasParent = true
			if strings.HasPrefix(s[i:], "null") {
				r.ParentID, i = "", i+len("null")
				break
			}
			v, j, ok := infoString(s, i)
			if !ok {
				return r, false
			}
			r.ParentID, i = v, j
		default:
			j := i
			if j < len(s) && s[j] == '-' {
				j++
			}
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			digits := s[i:j]
			if d := strings.TrimPrefix(digits, "-"); d == "" || len(d) > 1 && d[0] == '0' {
				return r, false
			}
			n, err := strconv.ParseInt(digits, 10, 64)
			if err != nil {
				return r, false
			}
			switch name {
			case "prev":
				r.ParentBefore = n != 0
			case "leaf":
				r.Leaf = n != 0
			case "reset":
				r.Reset = n != 0
			case "side":
				r.Side = n != 0
			case "moves":
				r.Moves = n != 0
			default:
				return r, false
			}
			i = j
		}
		switch {
		case i == len(s)-1:
			return r, true
		case i < len(s) && s[i] == ',':
			i++
		default:
			return r, false
		}
	}
}

// infoString reads the string that starts at s[i] if it is printable ASCII
// without escapes, and returns it and the index after its closing quote.
func infoString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, true
		case c < 0x20 || c == '\\' || c >= 0x7f:
			return "", i, false
		}
	}
	return "", i, false
}
