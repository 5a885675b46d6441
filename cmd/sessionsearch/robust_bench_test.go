package main

// The import figure of issue 15, before and after commit 9cdf8d7 (reconcile
// resuming where it stopped) and the compact replay (its peak memory): the
// same file runs in a worktree of the old commit. The tables are in
// docs/performance.md ("Rewind and reconcile, before and after (issue 15)").

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// issue15Transcript writes one transcript of about size bytes of short
// user and assistant messages (about 145 bytes a line, as in the issue's
// 43.5 MB transcript of 300,000 messages) and returns its size and number
// of messages.
func issue15Transcript(tb testing.TB, path string, size int64) (written int64, messages int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	line := func(s string) {
		n, _ := w.WriteString(s + "\n")
		written += int64(n)
	}
	line(`{"type":"session","version":3,"id":"0b7e5d2c-1f2a-4c3b-8d4e-5f6a7b8c9d0e","timestamp":"2026-03-01T00:00:00.000Z","cwd":"/home/user/work"}`)
	parent := "null"
	for written < size {
		role := []string{"user", "assistant"}[messages%2]
		id := fmt.Sprintf("%08x", messages)
		line(fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-03-01T00:%02d:%02d.000Z","message":{"role":"%s","content":"step %d of the job"}}`,
			id, parent, messages/60%60, messages%60, role, messages))
		parent = `"` + id + `"`
		messages++
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return written, messages
}

var issue15Indexed = regexp.MustCompile(`stored in ([0-9.]+)s, indexed [0-9]+ sessions in ([0-9.]+)s`)

// BenchmarkIssue15ImportOneTranscript runs the built binary's import of one
// transcript (SESSIONSEARCH_BENCH_TRANSCRIPT_MB, default 20; the issue's
// size is 43.5) into a new database: s/import is the whole command,
// s/stored and s/indexed its two parts as it reports them, peak-RSS-MB the
// process's peak resident memory. An import that passes the cap
// (SESSIONSEARCH_BENCH_CAP_S, default 60) is killed and reported as
// finished=0.
func BenchmarkIssue15ImportOneTranscript(b *testing.B) {
	mb := benchenv.Int(b, "SESSIONSEARCH_BENCH_TRANSCRIPT_MB", 20)
	limit := time.Duration(benchenv.Int(b, "SESSIONSEARCH_BENCH_CAP_S", 60)) * time.Second
	state := b.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	size, messages := issue15Transcript(b, filepath.Join(dir, "0b7e5d2c-1f2a-4c3b-8d4e-5f6a7b8c9d0e.jsonl"), int64(mb)<<20)
	b.Logf("one transcript: %.1f MB, %d messages", float64(size)/1e6, messages)
	var total, stored, indexed time.Duration
	var peak int64
	runs := 0
	finished := true
	for b.Loop() {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "import.db")
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		cmd := exec.CommandContext(ctx, binary, "import", "--db", db, state)
		cmd.Env = []string{"HOME=" + b.TempDir()}
		b.StartTimer()
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		b.StopTimer()
		timedOut := ctx.Err() != nil
		cancel()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss*1024) // kilobytes on Linux
		}
		runs++
		total += took
		switch {
		case timedOut:
			finished = false
			b.Logf("import did not finish in %v", limit)
		case err != nil:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				b.Fatalf("import: %v\n%s%s", err, out, exit.Stderr)
			}
			b.Fatalf("import: %v", err)
		default:
			m := issue15Indexed.FindStringSubmatch(string(out))
			if m == nil {
				b.Fatalf("import printed %q, without its stored and indexed times", out)
			}
			s, _ := strconv.ParseFloat(m[1], 64)
			i, _ := strconv.ParseFloat(m[2], 64)
			stored += time.Duration(s * float64(time.Second))
			indexed += time.Duration(i * float64(time.Second))
			b.Logf("%s", strings.TrimSpace(string(out)))
		}
		b.StartTimer()
	}
	b.ReportMetric(total.Seconds()/float64(runs), "s/import")
	if finished {
		b.ReportMetric(stored.Seconds()/float64(runs), "s/stored")
		b.ReportMetric(indexed.Seconds()/float64(runs), "s/indexed")
	}
	b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
	b.ReportMetric(map[bool]float64{false: 0, true: 1}[finished], "finished")
}
