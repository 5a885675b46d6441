package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// BenchmarkImport runs the built binary's import on a generated state
// directory (1 MiB transcripts, agents main and work) into a new database
// and reports the throughput in MB/s of JSONL (the whole command: reading,
// storing with deferred indexing, indexing at the end) and the peak
// resident memory of the process. SESSIONSEARCH_BENCH_MB sets the size of
// the directory (default 50); memory must not grow with it.
func BenchmarkImport(b *testing.B) {
	mb := benchenv.Int(b, "SESSIONSEARCH_BENCH_MB", 50)
	state := b.TempDir()
	size, files := writeStateDir(b, state, int64(mb)<<20, 1<<20, 1)
	b.Logf("state directory: %d transcripts, %.1f MB", files, float64(size)/1e6)
	b.SetBytes(size)
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dbFile := filepath.Join(b.TempDir(), "bench.db")
		cmd := exec.Command(binary, "import", "--db", dbFile, state)
		cmd.Env = []string{"HOME=" + b.TempDir()}
		b.StartTimer()
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("import: %v\n%s", err, out)
		}
		b.StopTimer()
		b.Logf("%s", strings.TrimSpace(string(out)))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss*1024) // kilobytes on Linux
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
}
