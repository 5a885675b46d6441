//go:build sqlite_fts5

package importer

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// FuzzImportLines: the importer reads any bytes as a JSONL transcript into a
// real store without a panic. Every problem names the file, and a problem
// about an entry names its line, a non-empty line of the input; the only
// problem without a line is a transcript with no entry at all. What is
// stored is every line not reported, in order, or (when the store refused
// a line) nothing; and the index passes FTS5's integrity-check.
func FuzzImportLines(f *testing.F) {
	ctx := context.Background()
	db, err := driver.Open(filepath.Join(f.TempDir(), "import.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		f.Fatal(err)
	}
	for _, file := range fixtures.Files() {
		f.Add(bytes.Join(file.Lines[:min(len(file.Lines), 10)], []byte("\n")))
	}
	f.Add([]byte("\xef\xbb\xbf{\"type\":\"session\",\"version\":3,\"id\":\"s1\"}\r\n\n  \n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\nnot json\n{\"type\":\"message\"\n[1]\n{}\n"))
	f.Add([]byte(`{"type":"session","version":3,"id":"\u0000\ud800"}` + "\n" + `{"type":"message","id":"a","parentId":"missing","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := db.ExecContext(ctx, `DELETE FROM sessions`); err != nil {
			t.Fatal(err)
		}
		sink, err := NewSQLSink(ctx, db.DB, false)
		if err != nil {
			t.Fatal(err)
		}
		defer sink.Close()
		var problems []Problem
		im := &Importer{Sink: sink, Report: func(p Problem) { problems = append(problems, p) }}
		src := Source{Kind: JSONLFile, Path: "fuzz.jsonl", AgentID: "main", SessionID: "fuzz"}
		if err := im.ImportReader(ctx, src, bytes.NewReader(data)); err != nil {
			t.Fatalf("ImportReader: %v", err)
		}
		lines := bytes.Split(data, []byte("\n"))
		reported := map[int]bool{}
		for _, p := range problems {
			msg := p.Error()
			if !strings.HasPrefix(msg, "fuzz.jsonl") {
				t.Fatalf("problem %q does not name the file", msg)
			}
			if p.Line == 0 {
				if msg != "fuzz.jsonl: no transcript entries" {
					t.Fatalf("problem without a line: %q", msg)
				}
				continue
			}
			if p.Line < 0 || p.Line > len(lines) || len(bytes.TrimSpace(lines[p.Line-1])) == 0 {
				t.Fatalf("problem %q names line %d, which is not a non-empty line of the %d", msg, p.Line, len(lines))
			}
			reported[p.Line] = true
		}
		var kept [][]byte
		for i, l := range lines {
			l = bytes.TrimSpace(l)
			if i == 0 {
				l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf")) // a byte order mark
			}
			if len(l) > 0 && !reported[i+1] {
				kept = append(kept, l)
			}
		}
		rows, err := db.QueryContext(ctx, `SELECT event FROM transcript_events ORDER BY session_key, seq`)
		if err != nil {
			t.Fatal(err)
		}
		var stored []string
		for rows.Next() {
			var ev string
			if err := rows.Scan(&ev); err != nil {
				t.Fatal(err)
			}
			stored = append(stored, ev)
		}
		rows.Close()
		if len(stored) != 0 && len(stored) != len(kept) {
			t.Fatalf("%d lines not reported, %d events stored; problems: %v", len(kept), len(stored), problems)
		}
		if len(stored) == 0 && len(kept) > 0 && len(reported) == 0 {
			t.Fatalf("%d lines not reported, nothing stored, and no problem", len(kept))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatalf("FTS5 integrity-check after the import: %v", err)
		}
	})
}
