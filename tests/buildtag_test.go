//go:build sqlite_fts5

package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// Building the driver without the sqlite_fts5 tag fails at compile time,
// with the fix in the message.
func TestDriverNeedsFTS5Tag(t *testing.T) {
	out, err := exec.Command("go", "build", "-o", "/dev/null", "github.com/sessionsearch/sessionsearch/driver").CombinedOutput()
	if err == nil {
		t.Fatal("the driver builds without -tags sqlite_fts5")
	}
	if !strings.Contains(string(out), "build_with_tags_sqlite_fts5") {
		t.Fatalf("the build error does not name the tag:\n%s", out)
	}
}
