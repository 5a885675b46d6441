package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An import killed with SIGKILL after it has committed some transcripts,
// then run again, ends with the same database as an import that was never
// interrupted.
func TestKilledImportResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: writes and imports 40 MB")
	}
	state := t.TempDir()
	size, files := writeStateDir(t, state, 40<<20, 400<<10, 7)
	t.Logf("state directory: %d transcripts, %.1f MB", files, float64(size)/1e6)
	dir := t.TempDir()
	killed := filepath.Join(dir, "killed.db")

	cmd := exec.Command(binary, "import", "--db", killed, state)
	cmd.Env = []string{"HOME=" + dir}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	first := ""
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "import: ") {
			first = lines.Text()
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for lines.Scan() {
		}
	}()
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("import was not killed (progress line %q): %v", first, err)
	}
	t.Logf("killed after %q", first)

	db := openDB(t, killed).DB
	_, partSessions, _ := contentHash(t, db)
	if partSessions == 0 || partSessions >= files {
		t.Fatalf("the killed import committed %d of %d sessions, not some", partSessions, files)
	}
	start := time.Now()
	r := mustRun(t, "import", "--db", killed, state)
	t.Logf("resumed in %v: %s", time.Since(start), strings.TrimSpace(r.stdout))
	resumed, sessions, events := contentHash(t, db)

	clean := filepath.Join(dir, "clean.db")
	mustRun(t, "import", "--db", clean, state)
	want, wantSessions, wantEvents := contentHash(t, openDB(t, clean).DB)
	if resumed != want || sessions != files {
		t.Fatalf("resumed import: %d sessions, %d events; clean import: %d sessions, %d events; hashes differ: %v",
			sessions, events, wantSessions, wantEvents, resumed != want)
	}
	// Both are fully indexed and search the same.
	for _, file := range []string{killed, clean} {
		if out := mustRun(t, "status", "--db", file).stdout; !strings.Contains(out, "pending   none") {
			t.Errorf("%s: %s", file, out)
		}
	}
	a := searchJSON(t, killed, "授权码")
	b := searchJSON(t, clean, "授权码")
	if len(a.Results) == 0 || len(a.Results) != len(b.Results) {
		t.Errorf("resumed database finds %d, clean one %d", len(a.Results), len(b.Results))
	}
}
