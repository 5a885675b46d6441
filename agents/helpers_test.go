package agents

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// read reads a transcript from position after and returns its events and
// the records it reported as bad.
func read(t *testing.T, tr Transcript, after int64) (events [][]byte, bad []Event) {
	t.Helper()
	err := tr.Read(context.Background(), after, func(e Event) error {
		if e.Bad != nil {
			bad = append(bad, e)
			return nil
		}
		if _, err := transcript.Parse(e.JSON); err != nil {
			t.Fatalf("%s: %s: event %s: %v", tr.Path, e.Rec, e.JSON, err)
		}
		events = append(events, e.JSON)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: read: %v", tr.Path, err)
	}
	return events, bad
}

// activePath returns "role: text" for each message on the active path of
// the events, oldest first, as sessions_history shows them (tool results
// included); searchable says which of them search finds.
func activePath(t *testing.T, events [][]byte) (path []string, searchable []bool) {
	t.Helper()
	r := transcript.NewReplay()
	entries := make([]transcript.Entry, len(events))
	texts := make([]string, len(events))
	for i, ev := range events {
		e, text, err := transcript.Read(ev)
		if err != nil {
			t.Fatalf("event %d %s: %v", i, ev, err)
		}
		entries[i], texts[i] = e, text
		r.Append(e)
	}
	on := r.Path()
	for i := len(on) - 1; i >= 0; i-- {
		e := entries[on[i]]
		if e.Type != "message" {
			continue
		}
		path = append(path, e.Role+": "+texts[on[i]])
		searchable = append(searchable, e.Message)
	}
	return path, searchable
}

// onPathSearchable returns the messages of activePath that search finds.
func onPathSearchable(path []string, searchable []bool) []string {
	var out []string
	for i, p := range path {
		if searchable[i] {
			out = append(out, p)
		}
	}
	return out
}

// copyFile copies src to dst, a writable copy of a fixture.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// openReadOnly opens a database read-only, as the importer's and the
// syncer's openers do.
func openReadOnly(path string) (*sql.DB, error) {
	return sql.Open("sqlite3", "file:"+path+"?mode=ro")
}

// writeTestFile writes data to path, making its directory.
func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkRoots checks a reader's roots for home /home/u without its
// environment variable (want), and with variable set to dir (wantSet).
func checkRoots(t *testing.T, roots func(Env) []string, want, variable, dir, wantSet string) {
	t.Helper()
	env := Env{Home: "/home/u", Getenv: func(string) string { return "" }}
	if got := roots(env); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("Roots = %v, want [%s]", got, want)
	}
	env.Getenv = func(k string) string {
		if k == variable {
			return dir
		}
		return ""
	}
	if got := roots(env); !reflect.DeepEqual(got, []string{wantSet}) {
		t.Errorf("Roots with $%s = %v, want [%s]", variable, got, wantSet)
	}
}

// one fails the test unless a List found exactly one transcript and no
// problem.
func one(t *testing.T, trs []Transcript, problems []Problem) {
	t.Helper()
	if len(problems) != 0 || len(trs) != 1 {
		t.Fatalf("List = %d transcripts, problems %v; want 1, none", len(trs), problems)
	}
}
