package store

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomRecord is a record with each field set or not, and strings that
// AppendInfo writes plain or escaped.
func randomRecord(r *rand.Rand) Record {
	str := func() string {
		switch r.IntN(6) {
		case 0:
			return ""
		case 1:
			return []string{`quo"te`, `back\slash`, "tab\there", "ünï", "<&>", "\x7f", "a\u2028b"}[r.IntN(7)]
		default:
			b := make([]byte, 1+r.IntN(12))
			for i := range b {
				b[i] = "abcdef0123456789-_:"[r.IntN(19)]
			}
			return string(b)
		}
	}
	flag := func() bool { return r.IntN(3) == 0 }
	rec := Record{ID: str(), HasParent: flag(), Role: str(), TargetID: str(),
		Message: flag(), Leaf: flag(), Reset: flag(), Side: flag(), Moves: flag()}
	if rec.HasParent {
		rec.ParentID, rec.ParentBefore = str(), flag()
	}
	switch r.IntN(4) {
	case 0:
	case 1:
		rec.Timestamp = -r.Int64()
	default:
		rec.Timestamp = r.Int64()
	}
	return rec
}

// TestParseInfo: every info object AppendInfo writes reads back as its
// record, and the hand-written reader agrees with encoding/json on them and
// on hand-made objects it must leave to encoding/json.
func TestParseInfo(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	fast := 0
	for range 20000 {
		want := randomRecord(r)
		want.Active = true
		info := string(want.AppendInfo(nil))
		got, err := ParseRecord(info, columnFacts(want), want.ParentID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseRecord(%s) = %+v, %v; want %+v", info, got, err, want)
		}
		if _, ok := parseInfo(info); ok {
			fast++
		}
		checkParseInfo(t, info)
	}
	// Most of them (those without escapes) are read by hand.
	if fast < 10000 {
		t.Errorf("parseInfo read %d of 20000 info objects, want most", fast)
	}
	for _, info := range []string{
		`{}`, `{"id":"a"}`, `{"parent":null}`, `{"parent":"p","parent":null}`, `{"id":"a","id":"b"}`,
		`{"ts":-0}`, `{"ts":01}`, `{"ts":1.5}`, `{"ts":1e3}`, `{"ts":9223372036854775808}`, `{"ts":-9223372036854775808}`,
		`{"message":2}`, `{"message":-1}`, `{"ID":"a"}`, `{"id":null}`, `{"id":1}`, `{"role":"x","extra":1}`,
		`{"id":"a",}`, `{,}`, `{"id":"a"}x`, `{"id":"a"`, `{"id" :"a"}`, `{ "id":"a"}`, `{"id":"a\u0062"}`,
		`{"parent":nul}`, `{"parent":nullx}`, `{"parent":null,"id":"x"}`, `{"ts":}`, `{"ts":-}`, `{"id":"` + "\x01" + `"}`,
		`{"id":"` + "\xff" + `"}`, `{"id":"é"}`, `[]`, `{`, ``, `null`, `{"target":"t","leaf":1,"moves":1}`, `{"prev":1}`, `{"prev":0,"parent":"p"}`,
		`{"parent":"p","prev":1}`, `{"prev":"1"}`, `{"prev":null}`,
	} {
		checkParseInfo(t, info)
	}
}

// columnFacts is what the columns of r's row hold of it: the rest of r is
// in info alone.
func columnFacts(r Record) Record {
	return Record{ID: r.ID, Role: r.Role, Timestamp: r.Timestamp, Message: r.Message, Active: r.Active}
}

// checkParseInfo fails when parseInfo accepts info and reads it otherwise
// than encoding/json does.
func checkParseInfo(t testing.TB, info string) {
	got, ok := parseInfo(info)
	if !ok {
		return
	}
	want, err := parseInfoJSON(info)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("parseInfo(%q) = %+v; encoding/json reads %+v, %v", info, got, want, err)
	}
}

// FuzzParseRecord: whatever info parseInfo accepts, encoding/json reads
// the same.
func FuzzParseRecord(f *testing.F) {
	r := rand.New(rand.NewPCG(14, 3))
	for range 20 {
		rec := randomRecord(r)
		f.Add(string(rec.AppendInfo(nil)))
	}
	f.Add(`{"parent":null,"target":"t","side":1}`)
	f.Add(`{"id":"a","parent":"p","ts":-5,"message":1}`)
	f.Fuzz(func(t *testing.T, info string) {
		checkParseInfo(t, info)
		if strings.Contains(info, "\x00") {
			return
		}
		if rec, err := ParseRecord(info, Record{}, "b"); err == nil {
			// What ParseRecord reads, AppendInfo writes back to the same.
			again, err := ParseRecord(string(rec.AppendInfo(nil)), Record{}, "b")
			if err != nil || !reflect.DeepEqual(again, rec) {
				t.Fatalf("%q: read %+v, written and read again %+v, %v", info, rec, again, err)
			}
		}
	})
}
