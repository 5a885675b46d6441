// Package golden compares a test's output with a file that pins it, for
// output that must never change by accident (token output, masked text).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the tests that run")

// Check fails t at the first line where got differs from the file at path,
// naming how to accept a deliberate change (with what else must change:
// hint). With -update it rewrites the file instead.
func Check(t testing.TB, path, got, hint string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w string
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Fatalf("%s changed at line %d:\n got: %s\nwant: %s\n(go test -run %s -update rewrites it after a deliberate change; %s)",
				path, i+1, g, w, t.Name(), hint)
		}
	}
}
