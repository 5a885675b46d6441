package redact

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	"github.com/sessionsearch/sessionsearch/redact/redacttest"
)

// prose300 is a clean 300-character snippet: no rule keyword, the common
// case, which must cost only the keyword scan.
const prose300 = "We moved the nightly build to the new runner and the cache now survives between jobs. " +
	"The test suite finishes in four minutes instead of ten, and the flaky network test was " +
	"rewritten to use a local fixture. Next week we will look at the slow image resize step and " +
	"at the memory growth in the indexer."

func BenchmarkRedactProse300(b *testing.B) {
	if len(prose300) != 300 {
		b.Fatalf("prose300 has %d bytes", len(prose300))
	}
	b.SetBytes(int64(len(prose300)))
	b.ReportAllocs()
	defer reportCPU(b, int64(len(prose300)))()
	for b.Loop() {
		Text(prose300)
	}
}

// reportCPU reports the process's CPU time per operation (and per byte)
// next to the wall time: on the shared build machine other jobs stretch a
// run's wall time several times over, while the CPU time it takes stays
// nearly put, so the ratios of docs/redaction.md R10 and R14 are read from
// it. Call it right before the loop and defer what it returns.
func reportCPU(b *testing.B, bytesPerOp int64) func() {
	start := processCPU()
	return func() {
		ns := float64(processCPU()-start) / float64(b.N)
		b.ReportMetric(ns, "cpu-ns/op")
		if bytesPerOp > 0 && ns > 0 {
			b.ReportMetric(float64(bytesPerOp)*1e3/ns, "cpu-MB/s")
		}
	}
}

func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// mixedSnippets are 300-character snippets built around the true-positive
// samples: the costly case, a keyword hit and a secret in every snippet.
func mixedSnippets() []string {
	var out []string
	for _, s := range redacttest.Samples() {
		text := strings.ReplaceAll(s.Text, "\n", " ")
		pad := 300 - len(text)
		if pad < 0 {
			text = text[:300]
			pad = 0
		}
		out = append(out, (prose300 + prose300)[:pad/2]+text+prose300[:pad-pad/2])
	}
	return out
}

func BenchmarkRedactMixed300(b *testing.B) {
	snippets := mixedSnippets()
	total := 0
	for _, s := range snippets {
		total += len(s)
	}
	b.SetBytes(int64(total / len(snippets)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Text(snippets[i%len(snippets)])
		i++
	}
}

// transcriptCorpus is every text of the fixture transcripts (user and
// assistant text, thinking, tool calls and results), one message at a time,
// with a true-positive sample put into every 20th: realistic transcript
// text with a realistic rate of secrets.
func transcriptCorpus(tb testing.TB) []string {
	var texts []string
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "text" || k == "thinking" || k == "content" || k == "arguments") {
					texts = append(texts, s)
					continue
				}
				collect(x)
			}
		case []any:
			for _, x := range v {
				collect(x)
			}
		}
	}
	for _, f := range fixtures.Files() {
		for _, line := range f.Lines {
			var e any
			if err := json.Unmarshal(line, &e); err != nil {
				tb.Fatalf("%s: %v", f.Name, err)
			}
			collect(e)
		}
	}
	samples := redacttest.Samples()
	for i := 0; i < len(texts); i += 20 {
		texts[i] += "\n" + samples[(i/20)%len(samples)].Text
	}
	return texts
}

func BenchmarkRedactThroughput(b *testing.B) {
	texts := transcriptCorpus(b)
	total := 0
	for _, t := range texts {
		total += len(t)
	}
	if total < 200<<10 {
		b.Fatalf("corpus is only %d bytes", total)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	defer reportCPU(b, int64(total))()
	for b.Loop() {
		for _, t := range texts {
			Text(t)
		}
	}
}

// BenchmarkBaselineLowerProse300 is the baseline the redaction benchmarks
// are read against: strings.ToLower over the same clean snippet, one pass
// that touches every byte as the keyword scan does.
func BenchmarkBaselineLowerProse300(b *testing.B) {
	b.SetBytes(int64(len(prose300)))
	defer reportCPU(b, int64(len(prose300)))()
	for b.Loop() {
		_ = strings.ToLower(prose300)
	}
}

// toolText64K is the size of a tool's output as an agent's tool call gets
// it back: a file read, a build log, a test run.
const toolText64K = 64 << 10

// toolTexts64K cuts tool-sized texts out of two bodies: the fixture
// transcripts (tool calls and results among the messages, a secret in
// every 20th message) and Go's net/http source, as a file read returns it.
func toolTexts64K(tb testing.TB) []string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "*.go"))
	var source strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		source.Write(data)
	}
	var texts []string
	for _, body := range []string{strings.Join(transcriptCorpus(tb), "\n"), source.String()} {
		for len(body) >= toolText64K {
			texts = append(texts, body[:toolText64K])
			body = body[toolText64K:]
		}
	}
	if len(texts) < 8 {
		tb.Fatalf("only %d texts of 64 KiB", len(texts))
	}
	return texts
}

// BenchmarkRedactToolText64K redacts tool-sized texts; the two baselines
// below read the same texts in the same run, and docs/redaction.md R10
// gives the ratios.
func BenchmarkRedactToolText64K(b *testing.B) {
	benchmarkTexts(b, toolTexts64K(b), func(s string) { Text(s) })
}

// BenchmarkBaselineIndexByte64K is the cheapest pass over every byte: a
// search for a byte the texts do not hold.
func BenchmarkBaselineIndexByte64K(b *testing.B) {
	benchmarkTexts(b, toolTexts64K(b), func(s string) {
		if strings.IndexByte(s, 0) >= 0 {
			b.Fatal("a NUL byte in the text")
		}
	})
}

// plainScan is what a plain scanner without a prefilter runs: one regular
// expression of secret words over the whole text.
var plainScan = regexp.MustCompile(`(?i)(?:password|passwd|secret|token|api[_-]?key|authorization|bearer)`)

// BenchmarkBaselineRegexp64K is one pass of plainScan over the same texts.
func BenchmarkBaselineRegexp64K(b *testing.B) {
	benchmarkTexts(b, toolTexts64K(b), func(s string) { plainScan.FindAllStringIndex(s, -1) })
}

func benchmarkTexts(b *testing.B, texts []string, f func(string)) {
	b.SetBytes(toolText64K)
	b.ReportAllocs()
	defer reportCPU(b, toolText64K)()
	i := 0
	for b.Loop() {
		f(texts[i%len(texts)])
		i++
	}
}
