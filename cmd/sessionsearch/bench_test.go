package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// importRun is one run of an importing program: its wall time, its peak
// resident memory and what it left on disk.
type importRun struct {
	seconds float64
	peakMB  float64
	diskMB  float64
	out     string
}

// runImporter runs cmd to completion (its environment is home's) and
// measures it; disk is the size of the files it leaves under dir.
func runImporter(b *testing.B, cmd *exec.Cmd, dir string) importRun {
	b.Helper()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	r := importRun{seconds: time.Since(start).Seconds(), out: strings.TrimSpace(string(out))}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakMB = float64(ru.Maxrss*1024) / 1e6 // kilobytes on Linux
	}
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				r.diskMB += float64(info.Size()) / 1e6
			}
		}
		return nil
	})
	return r
}

// importers are the programs a benchmark runs on the same input, in turn,
// in each of its rounds: this build's import, the build named by
// SESSIONSEARCH_BENCH_BASELINE (the build before a change), and with
// dejaVu set the deja-vu binary named by SESSIONSEARCH_BENCH_DEJA (built
// as ../shared/notes/peers-build.md says, outside the project).
type importProgram struct {
	name string
	run  func(b *testing.B) importRun
}

func importers(b *testing.B, home string, args []string, dejaVu bool) []importProgram {
	ours := func(bin string, flags ...string) func(*testing.B) importRun {
		return func(b *testing.B) importRun {
			dir := b.TempDir()
			cmd := exec.Command(bin, append(append([]string{"import", "--db", filepath.Join(dir, "bench.db")}, flags...), args...)...)
			cmd.Env = []string{"HOME=" + home}
			return runImporter(b, cmd, dir)
		}
	}
	list := []importProgram{{"this build", ours(binary)}}
	if os.Getenv("SESSIONSEARCH_BENCH_TOOLS") != "" {
		// This build with its tool index on (docs/store.md S33), against
		// this build and the baseline without.
		list = append(list, importProgram{"this build", ours(binary)})
		list[0].run = ours(binary, "--tools")
		list[0].name = "this build --tools"
	}
	if bin := os.Getenv("SESSIONSEARCH_BENCH_BASELINE"); bin != "" {
		list = append(list, importProgram{"baseline", ours(bin)})
	}
	if bin := os.Getenv("SESSIONSEARCH_BENCH_DEJA"); dejaVu && bin != "" {
		list = append(list, importProgram{"deja-vu", func(b *testing.B) importRun {
			dir := b.TempDir()
			cmd := exec.Command(bin, "index")
			cmd.Env = []string{"HOME=" + home, "DEJA_INDEX_DIR=" + dir}
			return runImporter(b, cmd, dir)
		}})
	}
	return list
}

// benchImporters runs each importer once a round, in turn, and reports
// this build's figures and each other's ratio to them: time/<name> is
// this build's wall time over the other's, in the same round.
func benchImporters(b *testing.B, list []importProgram, sourceBytes int64) {
	b.SetBytes(sourceBytes)
	b.ResetTimer()
	b.StopTimer()
	var ours importRun
	others := make([]importRun, len(list))
	for i := 0; i < b.N; i++ {
		// Each round starts with the next program, so that none always
		// runs after another's writes (the kernel writes a finished
		// import's pages back while the next one runs).
		for j := range list {
			k := (i + j) % len(list)
			im := list[k]
			r := im.run(b)
			if k == 0 {
				ours = r
				b.Logf("%s: %.2f s, %.1f MB peak, %.1f MB on disk: %s", im.name, r.seconds, r.peakMB, r.diskMB, r.out[strings.LastIndexByte(r.out, '\n')+1:])
			} else {
				others[k] = r
				b.Logf("%s: %.2f s, %.1f MB peak, %.1f MB on disk", im.name, r.seconds, r.peakMB, r.diskMB)
			}
		}
	}
	b.ReportMetric(ours.seconds, "s/import")
	b.ReportMetric(float64(sourceBytes)/1e6/ours.seconds, "MB/s")
	b.ReportMetric(ours.peakMB, "peak-RSS-MB")
	b.ReportMetric(ours.diskMB, "disk-MB")
	b.ReportMetric(ours.diskMB/(float64(sourceBytes)/1e6), "disk/source")
	for k, im := range list[1:] {
		r := others[k+1]
		name := strings.ReplaceAll(im.name, " ", "-")
		b.ReportMetric(ours.seconds/r.seconds, "time/"+name)
		b.ReportMetric(ours.diskMB/r.diskMB, "disk/"+name)
		b.ReportMetric(r.peakMB, "peak-RSS-MB-"+name)
	}
}

// BenchmarkImport runs the built binary's import on a generated state
// directory (1 MiB transcripts, agents main and work) into a new database
// and reports the throughput in MB/s of JSONL (the whole command: reading,
// storing and indexing) and the peak resident memory of the process.
// SESSIONSEARCH_BENCH_MB sets the size of the directory (default 50);
// memory must not grow with it. With SESSIONSEARCH_BENCH_BASELINE, the
// build it names imports the same directory in each round (time/baseline).
func BenchmarkImport(b *testing.B) {
	mb := benchenv.Int(b, "SESSIONSEARCH_BENCH_MB", 50)
	state := b.TempDir()
	size, files := writeStateDir(b, state, int64(mb)<<20, 1<<20, 1)
	b.Logf("state directory: %d transcripts, %.1f MB", files, float64(size)/1e6)
	benchImporters(b, importers(b, b.TempDir(), []string{state}, false), size)
}

// BenchmarkImportLoCoMo imports LoCoMo as Claude Code session files,
// SESSIONSEARCH_BENCH_LOCOMO_COPIES copies (default 20: 5,440 sessions,
// 117,640 messages), and with SESSIONSEARCH_BENCH_DEJA indexes them with
// deja-vu in the same rounds (time/deja-vu, disk/deja-vu).
func BenchmarkImportLoCoMo(b *testing.B) {
	copies := benchenv.Int(b, "SESSIONSEARCH_BENCH_LOCOMO_COPIES", 20)
	home := b.TempDir()
	size, files, messages := writeLoCoMoClaude(b, home, readLoCoMo(b), copies, 0, false)
	b.Logf("%d Claude Code sessions, %d messages, %.1f MB", files, messages, float64(size)/1e6)
	benchImporters(b, importers(b, home, []string{filepath.Join(home, ".claude", "projects")}, true), size)
}

// BenchmarkImportClaudeRequests imports LoCoMo sessions written as Claude
// Code 2.1.3xx writes them, with the records of each API request and
// attachments beside each turn (writeRequestRecords), and reports what
// the database takes on disk against the files (disk/source):
// SESSIONSEARCH_BENCH_REQUEST_SESSIONS sessions (default 30).
func BenchmarkImportClaudeRequests(b *testing.B) {
	n := benchenv.Int(b, "SESSIONSEARCH_BENCH_REQUEST_SESSIONS", 30)
	home := b.TempDir()
	size, files, messages := writeLoCoMoClaude(b, home, readLoCoMo(b), 1, n, true)
	b.Logf("%d Claude Code 2.1.3xx sessions, %d messages, %.1f MB", files, messages, float64(size)/1e6)
	benchImporters(b, importers(b, home, []string{filepath.Join(home, ".claude", "projects")}, true), size)
}
