package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// The reference for the scanner: the same rules over encoding/json.

type refEvent struct {
	Type       string          `json:"type"`
	ID         json.RawMessage `json:"id"`
	ParentID   json.RawMessage `json:"parentId"`
	TargetID   json.RawMessage `json:"targetId"`
	AppendMode string          `json:"appendMode"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Message    *struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Text      json.RawMessage `json:"text"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"message"`
}

func refRead(data []byte) (e Entry, text string, err error) {
	var ev refEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return Entry{}, "", fmt.Errorf("event is not a JSON object: %w", err)
	}
	if ev.Type == "" {
		return Entry{}, "", ErrNoType
	}
	e = Entry{
		Type:      ev.Type,
		ID:        refIDString(ev.ID),
		HasParent: ev.ParentID != nil,
		ParentID:  refIDString(ev.ParentID),
		TargetID:  refIDString(ev.TargetID),
		Side:      ev.AppendMode == "side",
		Timestamp: refTimestamp(ev.Timestamp),
	}
	if m := ev.Message; m != nil {
		e.Role = m.Role
		if e.Timestamp == 0 {
			e.Timestamp = refTimestamp(m.Timestamp)
		}
		if ev.Type == "message" {
			text = refMessageText(m.Content, m.Text)
			e.Message = text != "" && (e.Role == "user" || e.Role == "assistant")
		}
	}
	return e, text, nil
}
func refIDString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw)
	}
	return ""
}
func refTimestamp(raw json.RawMessage) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0
		}
		return t.UnixMilli()
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0
	}
	return int64(f)
}
func refMessageText(content, textField json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return strings.TrimSpace(s)
	}
	if json.Unmarshal(textField, &s) == nil {
		return strings.TrimSpace(s)
	}
	var blocks []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" && bl.Type != "input_text" && bl.Type != "output_text" {
			continue
		}
		var t string
		if json.Unmarshal(bl.Text, &t) != nil || strings.TrimSpace(t) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

var errType *json.UnmarshalTypeError

// sameAsReference reports whether Read agrees with refRead on data. Where
// encoding/json refuses a field of an unexpected type (a number as "role"),
// Read is allowed to read the event, leaving the field empty.
func sameAsReference(data []byte) (bool, string) {
	// encoding/json also matches keys that differ in case ("tYpe"); events
	// are read case-sensitively, as OpenClaw writes and reads them.
	lower := bytes.ToLower(data)
	for _, k := range []string{"type", "id", "parentId", "targetId", "appendMode", "timestamp", "message", "role", "content", "text"} {
		if bytes.Count(lower, []byte(`"`+strings.ToLower(k)+`"`)) != bytes.Count(data, []byte(`"`+k+`"`)) {
			return true, ""
		}
	}
	e, text, err := Read(data)
	// ReadEntry reads the same entry, with the same error, without the text.
	if ee, eerr := ReadEntry(data); ee != e || fmt.Sprint(eerr) != fmt.Sprint(err) {
		return false, fmt.Sprintf("ReadEntry %+v (%v)\nRead      %+v (%v)", ee, eerr, e, err)
	}
	re, rtext, rerr := refRead(data)
	if rerr != nil {
		if errors.As(rerr, &errType) {
			return true, ""
		}
		if err == nil {
			return false, fmt.Sprintf("reference refuses (%v), Read accepts %+v", rerr, e)
		}
		return true, ""
	}
	if err != nil {
		return false, fmt.Sprintf("Read refuses (%v), reference accepts %+v", err, re)
	}
	if e != re || text != rtext {
		return false, fmt.Sprintf("Read %+v %q\nref  %+v %q", e, text, re, rtext)
	}
	return true, ""
}

func fixtureLines(tb testing.TB) [][]byte {
	var lines [][]byte
	for _, f := range fixtures.Files() {
		lines = append(lines, f.Lines...)
	}
	if len(lines) < 600 {
		tb.Fatalf("only %d fixture lines", len(lines))
	}
	return lines
}

// TestReadMatchesEncodingJSON: every fixture line, and random mutations of
// them, read the same as with encoding/json.
func TestReadMatchesEncodingJSON(t *testing.T) {
	lines := fixtureLines(t)
	cases := [][]byte{
		[]byte(`{"type":"message","message":{"role":"user","content":"a\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t"}}`),
		[]byte(`{"type":"message","message":{"role":"user","content":"\ud800\u0041"}}`),
		[]byte(`{"type":"message","message":{"role":"user","content":"bad \xff byte"}}`),
		[]byte(`  {"type":"x"}  `), []byte(`{"type":"x"} {}`), []byte(`{"type":"x",}`), []byte(`{"type":01}`),
		[]byte(`{"type":"x","n":-0.5e+3}`), []byte(`{"type":"x","n":1.}`), []byte(`{"type":"x","n":tru}`),
		[]byte(`{"type":"x","id":12.50,"parentId":-3}`), []byte(`{"type":"message","message":null}`),
		[]byte(`{"type":"leaf","targetId":{"a":1}}`), []byte(`{"type":"x","timestamp":"not a time"}`),
		[]byte("{\"type\":\"x\",\"s\":\"tab\there\"}"), []byte(`[]`), []byte(`"x"`), []byte(``),
		// Blank or not: escapes, invalid bytes, non-ASCII space, the last of a repeated key.
		[]byte(`{"type":"message","message":{"role":"user","content":" \u0020\n\u3000"}}`),
		[]byte("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\" \xff \"}}"),
		[]byte(`{"type":"message","message":{"role":"user","content":[{"text":"x","type":"text","text":" "}]}}`),
		[]byte(`{"type":"message","message":{"role":"user","content":[{"text":" ","type":"text","text":"x"}]}}`),
		[]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":7}]}}`),
		[]byte(`{"type":"message","message":{"role":"user","content":[{"type":"image","text":"x"},{"type":"output_text","text":"\u00a0"}]}}`),
		[]byte(`{"type":"message","message":{"role":"assistant","content":{"a":1},"text":" y "}}`),
		[]byte(`{"type":"message","message":{"role":"assistant","content":[],"text":"  "}}`),
		[]byte(`{"type":"message","message":{"role":"assistant","text":"z","content":[{"type":"text","text":"w"}]}}`),
	}
	cases = append(cases, lines...)
	r := rand.New(rand.NewSource(11))
	for range 20000 {
		line := append([]byte(nil), lines[r.Intn(len(lines))]...)
		for range 1 + r.Intn(3) {
			i := r.Intn(len(line))
			switch r.Intn(4) {
			case 0:
				const pool = "{}[]\",:\\ax0-e.tnu"
				line[i] = pool[r.Intn(len(pool))]
			case 1:
				line = append(line[:i], line[i+1:]...)
			case 2:
				line = line[:i]
			default:
				line = append(line[:i], append([]byte(`"type":"message",`), line[i:]...)...)
			}
			if len(line) == 0 {
				break
			}
		}
		cases = append(cases, line)
	}
	for _, c := range cases {
		if ok, why := sameAsReference(c); !ok {
			t.Fatalf("%q:\n%s", c, why)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, l := range fixtureLines(f)[:50] {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ok, why := sameAsReference(data); !ok {
			t.Fatalf("%q:\n%s", data, why)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	lines := fixtureLines(b)
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	for _, impl := range []struct {
		name string
		read func([]byte) (Entry, string, error)
	}{{"scanner", Read}, {"encoding-json", refRead}} {
		b.Run(impl.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					impl.read(l)
				}
			}
		})
	}
	_, _, _ = bytes.TrimSpace, strings.TrimSpace, time.Now
}

// utcMillis agrees with time.Parse(time.RFC3339Nano) wherever it answers,
// and answers for the UTC form events use.
func TestUTCMillis(t *testing.T) {
	cases := []string{
		"2026-02-07T05:05:47.434Z", "2026-02-07T05:05:47Z", "2026-02-07T05:05:47.4Z", "2026-02-07T05:05:47.123456789Z",
		"2026-02-07T05:05:47.1234567891Z", "2026-02-07T05:05:47.Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z",
		"2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01t23:59:59Z",
		"2026-01-01T23:59:59z", "2026-01-01T23:59:59+00:00", "2026-01-01T23:59:59.5+02:00", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999Z", "2026-1-01T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00.12a4Z",
		"+026-01-01T00:00:00Z", "2026-01-01T00:00:00,5Z", "", "Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z",
	}
	r := rand.New(rand.NewSource(3))
	for range 20000 {
		b := []byte(cases[r.Intn(4)])
		b[r.Intn(len(b))] = "0123456789-T:.Z+x"[r.Intn(17)]
		cases = append(cases, string(b))
	}
	answered := 0
	for _, c := range cases {
		ms, ok := utcMillis([]byte(c))
		ref, err := time.Parse(time.RFC3339Nano, c)
		switch {
		case ok && err != nil:
			t.Errorf("%q: utcMillis reads %d, time.Parse refuses: %v", c, ms, err)
		case ok && ms != ref.UnixMilli():
			t.Errorf("%q: utcMillis %d, time.Parse %d", c, ms, ref.UnixMilli())
		case ok:
			answered++
		}
	}
	for _, c := range cases[:7] {
		if _, ok := utcMillis([]byte(c)); !ok && c != "2026-02-07T05:05:47.1234567891Z" && c != "2026-02-07T05:05:47.Z" {
			t.Errorf("%q: utcMillis does not read the common form", c)
		}
	}
	if answered < 100 {
		t.Errorf("utcMillis answered only %d of %d cases", answered, len(cases))
	}
}
