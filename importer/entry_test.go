package importer

import (
	"strings"
	"testing"
)

// decodeAll runs lines through one decoder, returning events or errors.
func decodeAll(lines ...string) (events []string, errs []string) {
	var d entryDecoder
	for _, l := range lines {
		ev, err := d.decode([]byte(l))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		events = append(events, string(ev))
	}
	return events, errs
}

func TestDecodeCurrentVersionsAsWritten(t *testing.T) {
	for _, version := range []string{"3", "4"} {
		lines := []string{
			`{"type":"session","version":` + version + `,"id":"s1","timestamp":"2026-02-07T05:05:47.434Z","cwd":"/x"}`,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"<b>hi</b> & bye"}}`,
			`{"type":"leaf","id":"l","parentId":"a","targetId":"a"}`,
		}
		events, errs := decodeAll(lines...)
		if len(errs) != 0 {
			t.Fatalf("version %s: errors %v", version, errs)
		}
		for i := range lines {
			if events[i] != lines[i] {
				t.Errorf("version %s line %d changed:\n got %s\nwant %s", version, i, events[i], lines[i])
			}
		}
	}
}

func TestDecodeHeader(t *testing.T) {
	var d entryDecoder
	if _, err := d.decode([]byte(`{"type":"session","version":3,"id":"abc","timestamp":"2026-02-07T05:05:47.434Z"}`)); err != nil {
		t.Fatal(err)
	}
	if d.header.id != "abc" || d.header.createdAt != 1770440747434 {
		t.Fatalf("header %+v", d.header)
	}
	var ms entryDecoder
	ms.decode([]byte(`{"type":"session","version":3,"timestamp":1770440747434}`))
	if ms.header.createdAt != 1770440747434 {
		t.Fatalf("epoch ms timestamp read as %d", ms.header.createdAt)
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`not json`, "not a JSON object"},
		{`[1,2]`, "not a JSON object"},
		{`"session"`, "not a JSON object"},
		{`{"type":"message","id":`, "invalid JSON"},
		{`{"id":"x"}`, `no "type"`},
		{`{"type":null}`, `no "type"`},
		{`{"type":""}`, `no "type"`},
		{`{"type":7}`, `"type" must be a string, got number`},
		{`{"type":"session","version":"3"}`, `version must be a positive integer, got "3"`},
		{`{"type":"session","version":0}`, `version must be a positive integer, got 0`},
	} {
		_, errs := decodeAll(tc.line)
		if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("%s: errors %q, want one containing %q", tc.line, errs, tc.want)
		}
	}
}

// A rejected line does not count as an entry: the next line can still be
// the header, and numbering goes on without it.
func TestDecodeSkipsRejectedLines(t *testing.T) {
	events, errs := decodeAll(
		`garbage`,
		`{"type":"session","id":"s"}`,
		`{"type":"message","message":{"role":"user","content":"one"}}`,
		`{"type":"message",`,
		`{"type":"message","message":{"role":"assistant","content":"two"}}`,
	)
	if len(errs) != 2 {
		t.Fatalf("errors %v", errs)
	}
	want := []string{
		`{"id":"s","type":"session","version":3}`,
		`{"id":"v1-1","message":{"role":"user","content":"one"},"parentId":null,"type":"message"}`,
		`{"id":"v1-2","message":{"role":"assistant","content":"two"},"parentId":"v1-1","type":"message"}`,
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}

// Version 1 (no version in the header): entries get ids from their entry
// number, a parentId chain, and compactions name their first kept entry by
// id; hook messages become custom messages (pi-mono migrateV1ToV2 and
// migrateV2ToV3, OpenClaw session-manager-codec.ts).
func TestDecodeMigratesVersion1(t *testing.T) {
	events, errs := decodeAll(
		`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi <there>"}}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}`,
		`{"type":"message","message":{"role":"hookMessage","content":"from a hook"}}`,
		`{"type":"compaction","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}`,
		`{"type":"compaction","summary":"s","firstKeptEntryIndex":9,"tokensBefore":10}`,
	)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []string{
		`{"cwd":"/tmp","id":"s1","timestamp":"2025-01-01T00:00:00Z","type":"session","version":3}`,
		`{"id":"v1-1","message":{"role":"user","content":"hi <there>"},"parentId":null,"timestamp":"2025-01-01T00:00:01Z","type":"message"}`,
		`{"id":"v1-2","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]},"parentId":"v1-1","timestamp":"2025-01-01T00:00:02Z","type":"message"}`,
		`{"id":"v1-3","message":{"content":"from a hook","customType":"hook","role":"custom"},"parentId":"v1-2","type":"message"}`,
		`{"firstKeptEntryId":"v1-2","id":"v1-4","parentId":"v1-3","summary":"s","tokensBefore":10,"type":"compaction"}`,
		`{"id":"v1-5","parentId":"v1-4","summary":"s","tokensBefore":10,"type":"compaction"}`,
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("entry %d:\n got %s\nwant %s", i, events[i], want[i])
		}
	}
}

// Version 2: only hook messages change; everything else is stored as
// written.
func TestDecodeMigratesVersion2(t *testing.T) {
	msg := `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`
	events, errs := decodeAll(
		`{"type":"session","version":2,"id":"s2"}`,
		msg,
		`{"type":"message","id":"b","parentId":"a","message":{"role":"hookMessage","customType":"mine","content":"y"}}`,
	)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []string{
		`{"id":"s2","type":"session","version":3}`,
		msg,
		`{"id":"b","message":{"content":"y","customType":"mine","role":"custom"},"parentId":"a","type":"message"}`,
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("entry %d:\n got %s\nwant %s", i, events[i], want[i])
		}
	}
}

// A transcript without a header is stored as written.
func TestDecodeWithoutHeader(t *testing.T) {
	line := `{"type":"message","message":{"role":"user","content":"no header"}}`
	events, errs := decodeAll(line)
	if len(errs) != 0 || events[0] != line {
		t.Fatalf("events %v errors %v", events, errs)
	}
}
