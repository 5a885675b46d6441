package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/agents.md A1: each format's fixture store (testdata/<agent>, or
// the files of testdata/<agent>-<version>), and every directory and file
// in it, is claimed by that format alone; OpenClaw's transcripts and
// state directories by none.
func TestEachStoreHasOneReader(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range dirs {
		f, versioned := Lookup(d.Name()), false
		if i := strings.LastIndex(d.Name(), "-"); f == nil && i > 0 && isDigits(strings.ReplaceAll(d.Name()[i+1:], ".", "")) {
			// Files a version of the program wrote (kilo-code-7.7.9),
			// in directories named for the turns: the files alone.
			f, versioned = Lookup(d.Name()[:i]), true
		}
		if !d.IsDir() || f == nil {
			continue
		}
		seen++
		root := filepath.Join("testdata", d.Name())
		err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if versioned && e.IsDir() || path != root && !storeFile(path) && !(e.IsDir() && holdsStoreFiles(path)) {
				return nil // notes and metadata beside the transcripts
			}
			var claimed []string
			for _, g := range Formats() {
				if g.Claims(path) {
					claimed = append(claimed, g.Agent)
				}
			}
			if len(claimed) != 1 || claimed[0] != f.Agent {
				t.Errorf("%s is claimed by %v, want %s alone", path, claimed, f.Agent)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen < 2 {
		t.Fatalf("only %d fixture stores in testdata", seen)
	}
	for _, path := range []string{
		"../internal/fixtures/transcripts",
		"../internal/fixtures/transcripts/en-telegram-rewind-fad751fa.jsonl",
		"../store/testdata/schema1.sqlite",
		".",
	} {
		if g := Claimed(path); g != nil {
			t.Errorf("%s is claimed by %s, want no format", path, g.Agent)
		}
	}
}

// storeFile reports whether path is a file a store keeps transcripts in.
func storeFile(path string) bool {
	if strings.HasSuffix(path, ".meta.json") {
		return false
	}
	if filepath.Base(path) == aiderHistoryName {
		return true
	}
	switch filepath.Ext(path) {
	case ".jsonl", ".json", ".db", ".zst":
		return true
	}
	return false
}

func holdsStoreFiles(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && storeFile(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
