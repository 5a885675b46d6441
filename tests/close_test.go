package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseAfterSearch: sessions_search keeps its statement prepared for the
// connection's life, and a host that closes with sqlite3_close (which
// refuses while a statement is unfinalized) still closes cleanly
// (docs/search.md Q20).
func TestCloseAfterSearch(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "close_host")
	build := exec.Command("gcc", "-O1", "-Wall", "-Werror", "-o", bin, filepath.Join("hosts", "close_host.c"), "-lsqlite3")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, extension).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "closed" {
		t.Errorf("close_host: %v\n%s", err, out)
	}
}
