package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

func msg(id, parent string, hasParent bool) transcript.Entry {
	return transcript.Entry{Type: "message", ID: id, HasParent: hasParent, ParentID: parent, Role: "user", Message: true}
}

// docs/store.md S4-S6: what an append does to the tip.
func TestAppended(t *testing.T) {
	leafAt := func(seq int64, key string, messages int64) Tip { return Tip{Leaf: seq, Key: key, Messages: messages} }
	side := msg("s", "", false)
	side.Side = true
	leaf := transcript.Entry{Type: "leaf", ID: "l", HasParent: true, ParentID: "b", TargetID: "a"}
	tool := transcript.Entry{Type: "custom", ID: "c", HasParent: true, ParentID: "b"}
	noID := transcript.Entry{Type: "custom"}
	for _, tc := range []struct {
		name          string
		e             transcript.Entry
		seq           int64
		prev          Tip
		pending       bool
		active, moves bool
		tip           Tip
	}{
		{"first entry without parentId", msg("a", "", false), 0, NoTip, false, true, false, leafAt(0, "a", 1)},
		{"first entry, parentId null", msg("a", "", true), 0, NoTip, false, true, false, leafAt(0, "a", 1)},
		{"child of the leaf", msg("b", "a", true), 1, leafAt(0, "a", 1), false, true, false, leafAt(1, "b", 2)},
		{"implicit child of the leaf", msg("b", "", false), 1, leafAt(0, "a", 1), false, true, false, leafAt(1, "b", 2)},
		{"non-message child extends without counting", tool, 2, leafAt(1, "b", 2), false, true, false, leafAt(2, "c", 2)},
		{"branch from an older entry", msg("c", "a", true), 2, leafAt(1, "b", 2), false, false, true, leafAt(1, "b", 3)},
		{"new root under a leaf", msg("c", "", true), 2, leafAt(1, "b", 2), false, false, true, leafAt(1, "b", 3)},
		{"child of a leaf whose id was taken over", msg("c", "b", true), 2, leafAt(1, "", 2), false, false, true, leafAt(1, "", 3)},
		{"leaf entry", leaf, 2, leafAt(1, "b", 2), false, false, true, leafAt(1, "b", 2)},
		{"side entry leaves the leaf", side, 2, leafAt(1, "b", 2), false, false, false, leafAt(1, "b", 3)},
		{"side entry takes the leaf's id over", func() transcript.Entry { e := side; e.ID = "b"; return e }(), 2, leafAt(1, "b", 2), false, false, false, leafAt(1, "", 3)},
		{"entry without id", noID, 2, leafAt(1, "b", 2), false, false, false, leafAt(1, "b", 2)},
		{"pending session: nothing active, no replay", msg("b", "a", true), 1, leafAt(0, "a", 1), true, false, false, leafAt(0, "a", 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Appended(tc.e, tc.seq, tc.prev, tc.pending)
			if r.Active != tc.active || r.Moves != tc.moves || r.Tip != tc.tip {
				t.Errorf("Appended = active %v, moves %v, tip %+v; want %v, %v, %+v", r.Active, r.Moves, r.Tip, tc.active, tc.moves, tc.tip)
			}
			// The parent is the entry before, the leaf named by its id
			// (S42), for these only.
			if before := map[string]bool{"child of the leaf": true, "non-message child extends without counting": true, "leaf entry": true,
				"pending session: nothing active, no replay": true}[tc.name]; r.ParentBefore != before {
				t.Errorf("Appended: ParentBefore %v, want %v", r.ParentBefore, before)
			}
			want := tc.e // of its type, a record keeps only whether it is a leaf entry
			if !want.Leaf() {
				want.Type = ""
			}
			if r.Entry() != want {
				t.Errorf("the record keeps %+v, not the entry %+v", r.Entry(), want)
			}
		})
	}
}

// docs/store.md S8: out of order and deferred appends leave the session pending.
func TestDeferred(t *testing.T) {
	for _, tc := range []struct {
		pending, deferring bool
		seq, newest        int64
		want               bool
	}{
		{false, false, 0, -1, false},
		{false, false, 5, 4, false},
		{false, false, 6, 4, true},  // a gap
		{false, false, 3, 4, true},  // below the newest
		{false, false, 1, -1, true}, // a first event that is not seq 0
		{false, true, 5, 4, true},
		{true, false, 5, 4, true},
	} {
		if got := Deferred(tc.pending, tc.deferring, tc.seq, tc.newest); got != tc.want {
			t.Errorf("Deferred(%v, %v, %d, %d) = %v, want %v", tc.pending, tc.deferring, tc.seq, tc.newest, got, tc.want)
		}
	}
}

// docs/store.md S6-S7: a replay finds the path and the tip; Diff lists what
// changes, in order.
func TestReplayedAndDiff(t *testing.T) {
	rec := func(e transcript.Entry, active bool) Record {
		r := NewRecord(e, NoTip)
		r.Active = active
		return r
	}
	rewind := transcript.Entry{Type: "leaf", ID: "l", HasParent: true, ParentID: "c", TargetID: "a"}
	for _, tc := range []struct {
		name    string
		records []Record
		seqs    []int64
		onPath  []bool
		tip     Tip
		changes []Change
	}{
		{"linear, all indexed", []Record{rec(msg("a", "", false), true), rec(msg("b", "a", true), true)}, []int64{0, 1},
			[]bool{true, true}, Tip{Leaf: 1, Key: "b", Messages: 2}, nil},
		{"branch: the old tip goes, the new one comes", []Record{rec(msg("a", "", false), true), rec(msg("b", "a", true), true), rec(msg("c", "a", true), false)}, []int64{0, 1, 2},
			[]bool{true, false, true}, Tip{Leaf: 2, Key: "c", Messages: 3}, []Change{{1, false}, {2, true}}},
		{"rewind to the first message", []Record{rec(msg("a", "", false), true), rec(msg("b", "a", true), true), rec(msg("c", "b", true), true), rec(rewind, false)}, []int64{0, 1, 2, 3},
			[]bool{true, false, false, false}, Tip{Leaf: 0, Key: "a", Messages: 3}, []Change{{1, false}, {2, false}}},
		{"seqs with gaps give the leaf's seq", []Record{rec(msg("a", "", false), false), rec(msg("b", "a", true), false)}, []int64{3, 9},
			[]bool{true, true}, Tip{Leaf: 9, Key: "b", Messages: 2}, []Change{{0, true}, {1, true}}},
		{"no entries", nil, nil, []bool{}, NoTip, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p Replayer
			for _, r := range tc.records {
				p.Add(r)
			}
			path, tip := p.Result(func(i int) int64 { return tc.seqs[i] })
			onPath := make([]bool, len(tc.records))
			for i := range onPath {
				onPath[i] = path.Has(i)
			}
			if !reflect.DeepEqual(onPath, tc.onPath) || tip != tc.tip {
				t.Errorf("Replayer = %v, %+v; want %v, %+v", onPath, tip, tc.onPath, tc.tip)
			}
			if got := Diff(tc.records, onPath); !reflect.DeepEqual(got, tc.changes) {
				t.Errorf("Diff = %v, want %v", got, tc.changes)
			}
		})
	}
}

// A Record survives its stored form, whatever its fields hold: the info
// object and the columns, and the trigger's view of the result; and info
// holds no fact that a column holds (S42).
func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []Record{
		{Tip: NoTip},
		{ID: "a1", Role: "user", Timestamp: 1770000000000, Message: true, Active: true, Tip: Tip{Leaf: 0, Key: "a1", Messages: 1}},
		{ID: "l", HasParent: true, ParentID: "a\"b\\c", TargetID: "t\n1", Leaf: true, Moves: true, Tip: Tip{Leaf: 4, Messages: 2}},
		{ID: "東京", HasParent: true, Side: true, Tip: Tip{Leaf: -1, Key: "ключ"}},
		{ID: "x", Timestamp: -5, Tip: Tip{Leaf: 4294967295, Key: "x", Messages: 10001}},
		{ID: "c", HasParent: true, ParentID: "b", ParentBefore: true, Role: "assistant", Message: true, Tip: Tip{Leaf: 7, Key: "c", Messages: 3}},
	} {
		info := string(r.AppendInfo(nil))
		got, err := ParseRecord(info, columnFacts(r), r.ParentID)
		want := r
		want.Tip = Tip{} // kept in columns of its own
		if err != nil || got != want {
			t.Errorf("ParseRecord(%s) = %+v, %v; want %+v", info, got, err, want)
		}
		var names map[string]any
		if err := json.Unmarshal([]byte(info), &names); err != nil {
			t.Fatal(err)
		}
		if r.ParentBefore && strings.Contains(info, r.ParentID) {
			t.Errorf("info %s repeats the id of the entry before", info)
		}
		for _, column := range []string{"id", "role", "ts", "message", "active", "tip"} {
			if _, ok := names[column]; ok {
				t.Errorf("info %s repeats %q, which its row has a column for", info, column)
			}
		}
		var res struct {
			ID      any   `json:"id"`
			Role    any   `json:"role"`
			TS      int64 `json:"ts"`
			Message int   `json:"message"`
			Active  int   `json:"active"`
			Tip     Tip   `json:"tip"`
		}
		out := r.AppendResult(nil)
		if err := json.Unmarshal(out, &res); err != nil || res.Tip != r.Tip || (res.Active != 0) != r.Active || (res.Message != 0) != r.Message ||
			res.ID != nilIfEmpty(r.ID) || res.Role != nilIfEmpty(r.Role) || res.TS != r.Timestamp {
			t.Errorf("AppendResult = %s (%v), does not carry %+v", out, err, r)
		}
	}
	if _, err := ParseRecord(`[1,2]`, Record{}, ""); err == nil {
		t.Error("ParseRecord accepted a schema 1 array")
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Schema 1's positional arrays read as the same Records.
func TestParseV1(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Record
	}{
		{`["a1",1,null,1,"user",1770000000000,null,1,0,"a1",1]`,
			Record{ID: "a1", HasParent: true, Role: "user", Timestamp: 1770000000000, Message: true, Active: true, Tip: Tip{Leaf: 0, Key: "a1", Messages: 1}}},
		{`["l1",1,"a5",2,null,0,"a4",0,3,null,5]`,
			Record{ID: "l1", HasParent: true, ParentID: "a5", TargetID: "a4", Leaf: true, Tip: Tip{Leaf: 3, Messages: 5}}},
		{`[null,0,null,4,null,0,null,0,-1,null,0]`, Record{Side: true, Tip: NoTip}},
	} {
		got, err := parseV1(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseV1(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{}`, `[1,2,3]`, `["a",1,null,"x",null,0,null,0,-1,null,0]`} {
		if _, err := parseV1(bad); err == nil {
			t.Errorf("parseV1(%s) succeeded", bad)
		}
	}
}
