package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// fixtureFiles returns the fixture transcripts by name.
func fixtureFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	names, err := fs.Glob(fixtures.Transcripts, "transcripts/*.jsonl")
	if err != nil || len(names) != 6 {
		t.Fatalf("fixture transcripts: %v, %d files", err, len(names))
	}
	for _, name := range names {
		b, err := fs.ReadFile(fixtures.Transcripts, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// importText imports one JSONL text into sink and returns the problems.
func importText(t *testing.T, sink Sink, path, text string) ([]Problem, Stats) {
	t.Helper()
	var problems []Problem
	im := &Importer{Sink: sink, Report: func(p Problem) { problems = append(problems, p) }}
	src := Source{Kind: JSONLFile, Path: path, AgentID: "main", SessionID: "from-name"}
	if err := im.ImportReader(context.Background(), src, strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	return problems, im.Stats()
}

// Every fixture transcript (version 3) is stored line for line, under the
// key derived from its header's session id.
func TestImportFixtureTranscripts(t *testing.T) {
	for name, data := range fixtureFiles(t) {
		sink := newMemSink()
		problems, stats := importText(t, sink, name, string(data))
		if len(problems) != 0 {
			t.Fatalf("%s: %v", name, problems)
		}
		var first struct{ ID, Timestamp string }
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
			t.Fatal(err)
		}
		key := "agent:main:session:" + first.ID
		if len(sink.order) != 1 || sink.order[0] != key {
			t.Fatalf("%s: sessions %v, want %s", name, sink.order, key)
		}
		if s := sink.sessions[key]; s.CreatedAt == 0 || s.ParentSessionKey != "" || s.SpawnedBy != "" {
			t.Errorf("%s: session %+v", name, s)
		}
		events := sink.events[key]
		if len(events) != len(lines) || stats.Added != int64(len(lines)) || stats.Bytes != int64(len(data)) {
			t.Fatalf("%s: %d events, stats %+v; %d lines of %d bytes", name, len(events), stats, len(lines), len(data))
		}
		for i, l := range lines {
			if string(events[i]) != l {
				t.Fatalf("%s: event %d differs from line %d", name, i, i+1)
			}
		}
	}
}

// A malformed line is reported with its file and line and skipped; the
// other lines are imported and numbered without gaps.
func TestImportSkipsMalformedLines(t *testing.T) {
	text := strings.Join([]string{
		`{"type":"session","version":3,"id":"m1"}`,
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"first"}}`,
		`{"type":"message","id":"b",`,
		``,
		`[]`,
		`{"type":"message","id":"c","parentId":"a","message":{"role":"assistant","content":"second"}}`,
	}, "\n")
	sink := newMemSink()
	problems, _ := importText(t, sink, "dir/m1.jsonl", text)
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "dir/m1.jsonl:3: invalid JSON") || msgs[1] != "dir/m1.jsonl:5: not a JSON object" {
		t.Fatalf("problems %q", msgs)
	}
	events := sink.events["agent:main:session:m1"]
	if len(events) != 3 || !bytes.Contains(events[2], []byte(`"second"`)) {
		t.Fatalf("events %q", events)
	}
}

// Importing the same text twice adds nothing the second time.
func TestImportTwiceAddsNothing(t *testing.T) {
	text := "{\"type\":\"session\",\"version\":3,\"id\":\"r1\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"
	sink := newMemSink()
	if p, s := importText(t, sink, "r1.jsonl", text); len(p) != 0 || s.Added != 2 {
		t.Fatalf("first import: %v %+v", p, s)
	}
	if p, s := importText(t, sink, "r1.jsonl", text); len(p) != 0 || s.Added != 0 || s.Events != 2 || s.Transcripts != 1 {
		t.Fatalf("second import: %v %+v", p, s)
	}
}

// A copy that disagrees with what is stored is reported at the line where
// it differs and rolled back as a whole; a longer copy adds its tail.
func TestImportConflictingCopy(t *testing.T) {
	head := "{\"type\":\"session\",\"version\":3,\"id\":\"c1\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"
	sink := newMemSink()
	importText(t, sink, "c1.jsonl", head)
	longer := head + "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"assistant\",\"content\":\"y\"}}\n"
	if p, s := importText(t, sink, "c1.jsonl.reset.2026-03-24T07-14-20.990Z", longer); len(p) != 0 || s.Added != 1 {
		t.Fatalf("longer copy: %v %+v", p, s)
	}
	other := "{\"type\":\"session\",\"version\":3,\"id\":\"c1\"}\n{\"type\":\"message\",\"id\":\"z\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"other\"}}\n{\"type\":\"message\",\"id\":\"q\",\"parentId\":\"z\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n{\"type\":\"message\",\"id\":\"r\",\"parentId\":\"q\",\"message\":{\"role\":\"user\",\"content\":\"new\"}}\n"
	problems, stats := importText(t, sink, "copy/c1.jsonl", other)
	var conflict *ConflictError
	if len(problems) != 1 || problems[0].Line != 2 || !errors.As(problems[0], &conflict) || conflict.Seq != 1 {
		t.Fatalf("problems %v", problems)
	}
	if stats.Transcripts != 0 || len(sink.events["agent:main:session:c1"]) != 3 {
		t.Fatalf("conflicting copy was stored: %+v, %d events", stats, len(sink.events["agent:main:session:c1"]))
	}
}

// A transcript the store refuses is reported with its session key.
func TestImportStoreRefusal(t *testing.T) {
	sink := newMemSink()
	sink.failKey = "agent:main:session:f1"
	problems, _ := importText(t, sink, "f1.jsonl", "{\"type\":\"session\",\"version\":3,\"id\":\"f1\"}\n")
	if len(problems) != 1 || problems[0].Error() != "f1.jsonl:1: session agent:main:session:f1: refused by the store" {
		t.Fatalf("problems %v", problems)
	}
}

// A file without one valid entry is a problem and creates no session.
func TestImportNothingValid(t *testing.T) {
	sink := newMemSink()
	problems, _ := importText(t, sink, "empty.jsonl", "\n\nnope\n")
	if len(problems) != 2 || problems[1].Error() != "empty.jsonl: no transcript entries" || len(sink.order) != 0 {
		t.Fatalf("problems %v, sessions %v", problems, sink.order)
	}
}

// The session id falls back to the file name when there is no header id.
func TestImportKeyFromFileName(t *testing.T) {
	sink := newMemSink()
	importText(t, sink, "x.jsonl", "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n")
	if len(sink.order) != 1 || sink.order[0] != "agent:main:session:from-name" {
		t.Fatalf("sessions %v", sink.order)
	}
}
