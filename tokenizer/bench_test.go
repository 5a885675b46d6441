package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/benchdata"
)

func benchCorpus(b *testing.B, glob string) []byte {
	files, _ := filepath.Glob(glob)
	var data []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d...)
	}
	if len(data) == 0 {
		b.Fatalf("no files match %s", glob)
	}
	return data
}

func benchmarkTokenize(b *testing.B, data []byte, opts Options) {
	var o Output
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(data); off += 1024 {
			opts.Tokenize(data[off:min(off+1024, len(data))], false, &o)
		}
	}
}

// The Go source and prose benchmarks read texts that driver's
// BenchmarkIndexBuild indexes.
func BenchmarkTokenizeGoSource(b *testing.B) {
	benchmarkTokenize(b, joined(b, benchdata.GoSource()), Options{})
}

func BenchmarkTokenizeTranscripts(b *testing.B) {
	benchmarkTokenize(b, benchCorpus(b, "../internal/fixtures/transcripts/*.jsonl"), Options{})
}

func BenchmarkTokenizeProse(b *testing.B) {
	benchmarkTokenize(b, joined(b, benchdata.Prose()), Options{})
}

// BenchmarkTokenizeWords tokenizes one word of English transcript text per
// call, as the index build of one-word documents does: the cost of a call.
func BenchmarkTokenizeWords(b *testing.B) {
	var words [][]byte
	var n int64
	for _, m := range benchdata.Messages(benchdata.English) {
		for _, w := range strings.Fields(m) {
			if len(words) < 20000 {
				words = append(words, []byte(w))
				n += int64(len(w))
			}
		}
	}
	if len(words) == 0 {
		b.Fatal("no fixture messages")
	}
	var o Output
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			Options{}.Tokenize(w, false, &o)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}

func joined(b *testing.B, texts []string) []byte {
	if len(texts) == 0 {
		b.Fatal("corpus missing: /usr/share/common-licenses or GOROOT/src/net/http")
	}
	return []byte(strings.Join(texts, ""))
}
