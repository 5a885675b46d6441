package driver_test

import (
	"database/sql"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchdata"
)

// Index-build benchmarks: the same documents inserted into FTS5 tables with
// SQLite's own tokenizers and with sessionsearch, interleaved in one run, so
// the reported ratio (sessionsearch speed / reference speed) compares like
// with like on this machine. MB/s counts the bytes of the documents.

// lines returns the non-blank lines of texts.
func lines(texts []string) []string {
	var out []string
	for _, t := range texts {
		for _, l := range strings.Split(t, "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// plainWords returns up to n words of texts in lower-case ASCII letters,
// each its own document: both tokenizers make one and the same token of
// it, so what the reference does not pay is the cost of a document
// (extra-ns/doc: the crossing into Go and back, the tokenizer's setup).
func plainWords(texts []string, n int) []string {
	var out []string
	for _, t := range texts {
		for _, w := range strings.Fields(t) {
			if len(out) == n {
				return out
			}
			if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// need fails the benchmark when a corpus is missing from this machine.
func need(tb testing.TB, name string, texts []string) []string {
	if len(texts) == 0 {
		tb.Fatalf("no %s on this machine", name)
	}
	return texts
}

func openBench(tb testing.TB) *sql.DB {
	db, err := sql.Open(driver.DriverName, ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// build inserts docs into a fresh FTS5 table with the tokenizer and returns
// the time it took and the size of the index in bytes.
func build(tb testing.TB, db *sql.DB, tokenize string, docs []string) (time.Duration, int64) {
	if _, err := db.Exec(`DROP TABLE IF EXISTS b; CREATE VIRTUAL TABLE b USING fts5(body, tokenize=` + quote(tokenize) + `)`); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO b(body) VALUES (?)`)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range docs {
		if _, err := stmt.Exec(d); err != nil {
			tb.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	elapsed := time.Since(start)
	var size int64
	if err := db.QueryRow(`SELECT sum(length(block)) FROM b_data`).Scan(&size); err != nil {
		tb.Fatal(err)
	}
	return elapsed, size
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// compareBuild reports MB/s of each tokenizer, the ratio of the first (ours)
// to the second (reference), and the ratio of index sizes.
func compareBuild(b *testing.B, docs []string, ours, reference string) {
	db := openBench(b)
	defer db.Close()
	var bytes int64
	for _, d := range docs {
		bytes += int64(len(d))
	}
	var tOurs, tRef, cOurs, cRef time.Duration
	var sOurs, sRef int64
	b.ResetTimer()
	for b.Loop() {
		c := cpuTime(b)
		t, s := build(b, db, reference, docs)
		c2 := cpuTime(b)
		tRef, sRef, cRef = tRef+t, s, cRef+c2-c
		t, s = build(b, db, ours, docs)
		tOurs, sOurs, cOurs = tOurs+t, s, cOurs+cpuTime(b)-c2
	}
	mbps := func(d time.Duration) float64 { return float64(bytes) * float64(b.N) / d.Seconds() / 1e6 }
	// What a document costs us more than the reference, per document: on
	// short documents, the cost of crossing into Go and back.
	b.ReportMetric(float64((tOurs-tRef).Nanoseconds())/float64(b.N*len(docs)), "extra-ns/doc")
	b.ReportMetric(mbps(tOurs), "ours-MB/s")
	b.ReportMetric(mbps(tRef), "ref-MB/s")
	b.ReportMetric(mbps(tOurs)/mbps(tRef), "speed-ratio")
	b.ReportMetric(float64(sOurs)/float64(sRef), "size-ratio")
	// The same ratio by the CPU time the process used: on a machine that
	// other work shares, it moves much less than the elapsed time.
	b.ReportMetric(cRef.Seconds()/cOurs.Seconds(), "cpu-speed-ratio")
	b.ReportMetric(float64((cOurs-cRef).Nanoseconds())/float64(b.N*len(docs)), "extra-cpu-ns/doc")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// multilingualCatalogs are the languages of the multilingual-catalogs
// corpus: Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, Han,
// kana and Hangul text.
var multilingualCatalogs = []string{"de", "fr", "ru", "uk", "el", "ar", "he", "hi", "vi", "tr", "pl", "ja", "zh_CN", "ko", "th"}

func BenchmarkIndexBuild(b *testing.B) {
	corpus := func(texts []string) []string { return benchdata.Docs(texts, 1024) }
	prose := func() []string { return need(b, "licence texts in /usr/share/common-licenses", benchdata.Prose()) }
	goSource := func() []string { return need(b, "Go source in GOROOT", benchdata.GoSource()) }
	messages := func(keep func(string) bool) []string { return need(b, "fixture messages", benchdata.Messages(keep)) }
	all := func(string) bool { return true }
	cjk := func(name string) bool { return strings.HasPrefix(name, "zh-") || strings.HasPrefix(name, "ja-") }
	sets := []struct {
		name            string
		docs            func() []string
		ours, reference string
	}{
		{"english-prose/vs-unicode61", func() []string { return corpus(prose()) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"english-transcripts/vs-unicode61", func() []string { return corpus(messages(benchdata.English)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		// Each message its own document, as the transcript store indexes
		// them (median 140 bytes): the cost per document counts more.
		{"english-messages/vs-unicode61", func() []string { return messages(benchdata.English) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		// Each line of those messages its own document: short documents,
		// where the cost per document is most of the cost.
		{"english-lines/vs-unicode61", func() []string { return lines(messages(benchdata.English)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		// One plain word per document: the cost of a document alone.
		{"english-words/vs-unicode61", func() []string { return plainWords(prose(), 20000) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"english-and-code/vs-unicode61", func() []string {
			return corpus(append(append(prose(), messages(benchdata.English)...), goSource()[:8]...))
		}, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"go-code/vs-unicode61", func() []string { return corpus(goSource()) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"multilingual-transcripts/vs-unicode61", func() []string { return corpus(messages(all)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"multilingual-catalogs/vs-unicode61", func() []string {
			return corpus(benchdata.Catalogs(multilingualCatalogs...))
		}, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"cjk-transcripts/trigram-vs-trigram", func() []string { return corpus(messages(cjk)) }, "sessionsearch cjk trigram", "trigram"},
		{"cjk-catalogs/trigram-vs-trigram", func() []string { return corpus(benchdata.Catalogs("ja", "zh_CN", "zh_TW", "ko")) }, "sessionsearch cjk trigram", "trigram"},
	}
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			docs := s.docs()
			if len(docs) < 10 {
				b.Fatalf("corpus %s has only %d documents", s.name, len(docs))
			}
			compareBuild(b, docs, s.ours, s.reference)
		})
	}
}
