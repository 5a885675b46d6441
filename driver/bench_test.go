package driver_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// Index-build benchmarks: the same documents inserted into FTS5 tables with
// SQLite's own tokenizers and with sessionsearch, interleaved in one run, so
// the reported ratio (sessionsearch speed / reference speed) compares like
// with like on this machine. MB/s counts the bytes of the documents.

// corpus returns documents of about 1 KiB cut from texts at line breaks.
func corpus(texts []string) []string {
	var docs []string
	var b strings.Builder
	for _, t := range texts {
		for _, line := range strings.SplitAfter(t, "\n") {
			b.WriteString(line)
			if b.Len() >= 1024 {
				docs = append(docs, b.String())
				b.Reset()
			}
		}
	}
	if b.Len() > 0 {
		docs = append(docs, b.String())
	}
	return docs
}

// transcriptTexts returns the user and assistant text of the fixture
// transcripts, filtered by a language predicate on the file name.
func transcriptTexts(tb testing.TB, keep func(name string) bool) []string {
	var texts []string
	for _, f := range fixtures.Files() {
		if !keep(f.Name) {
			continue
		}
		for _, line := range f.Lines {
			var e struct {
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &e) != nil || (e.Message.Role != "user" && e.Message.Role != "assistant") {
				continue
			}
			var s string
			if json.Unmarshal(e.Message.Content, &s) == nil {
				texts = append(texts, s+"\n")
				continue
			}
			var blocks []struct{ Type, Text string }
			json.Unmarshal(e.Message.Content, &blocks)
			for _, bl := range blocks {
				if bl.Type == "text" {
					texts = append(texts, bl.Text+"\n")
				}
			}
		}
	}
	if len(texts) == 0 {
		tb.Fatal("no fixture transcript texts")
	}
	return texts
}

// englishProse returns the licence texts every Debian system carries:
// plain English prose.
func englishProse(tb testing.TB) []string {
	files, _ := filepath.Glob("/usr/share/common-licenses/*")
	var texts []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	if len(texts) == 0 {
		tb.Fatal("no texts in /usr/share/common-licenses")
	}
	return texts
}

// goSource returns Go source text from the standard library.
func goSource(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	var texts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	if len(texts) == 0 {
		tb.Fatal("no Go source in GOROOT")
	}
	return texts
}

// localeTexts returns the translated strings of the gettext catalogs of
// the given languages under /usr/share/locale.
func localeTexts(tb testing.TB, langs ...string) []string {
	var texts []string
	for _, lang := range langs {
		files, _ := filepath.Glob("/usr/share/locale/" + lang + "/LC_MESSAGES/*.mo")
		for _, f := range files {
			texts = append(texts, moStrings(f)...)
		}
	}
	return texts
}

// moStrings reads the translations of a GNU .mo catalog.
func moStrings(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 28 {
		return nil
	}
	le := b[0] == 0xde && b[1] == 0x12
	u32 := func(off int) int {
		if off+4 > len(b) {
			return 0
		}
		if le {
			return int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24
		}
		return int(b[off+3]) | int(b[off+2])<<8 | int(b[off+1])<<16 | int(b[off])<<24
	}
	n, tOff := u32(8), u32(16)
	var out []string
	for i := 1; i < n; i++ { // entry 0 is the header
		l, o := u32(tOff+8*i), u32(tOff+8*i+4)
		if o+l <= len(b) {
			out = append(out, strings.ReplaceAll(string(b[o:o+l]), "\x00", "\n")+"\n")
		}
	}
	return out
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
	var tOurs, tRef time.Duration
	var sOurs, sRef int64
	b.ResetTimer()
	for b.Loop() {
		t, s := build(b, db, reference, docs)
		tRef, sRef = tRef+t, s
		t, s = build(b, db, ours, docs)
		tOurs, sOurs = tOurs+t, s
	}
	mbps := func(d time.Duration) float64 { return float64(bytes) * float64(b.N) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(tOurs), "ours-MB/s")
	b.ReportMetric(mbps(tRef), "ref-MB/s")
	b.ReportMetric(mbps(tOurs)/mbps(tRef), "speed-ratio")
	b.ReportMetric(float64(sOurs)/float64(sRef), "size-ratio")
}

func BenchmarkIndexBuild(b *testing.B) {
	english := func(name string) bool { return strings.HasPrefix(name, "en-") }
	multilingual := func(string) bool { return true }
	cjk := func(name string) bool { return strings.HasPrefix(name, "zh-") || strings.HasPrefix(name, "ja-") }
	sets := []struct {
		name            string
		docs            func() []string
		ours, reference string
	}{
		{"english-prose/vs-unicode61", func() []string { return corpus(englishProse(b)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"english-transcripts/vs-unicode61", func() []string { return corpus(transcriptTexts(b, english)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		// Each message its own document, as the transcript store indexes
		// them (median 140 bytes): the cost per document counts more.
		{"english-messages/vs-unicode61", func() []string { return transcriptTexts(b, english) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"english-and-code/vs-unicode61", func() []string {
			return corpus(append(append(englishProse(b), transcriptTexts(b, english)...), goSource(b)[:8]...))
		}, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"go-code/vs-unicode61", func() []string { return corpus(goSource(b)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"multilingual-transcripts/vs-unicode61", func() []string { return corpus(transcriptTexts(b, multilingual)) }, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"multilingual-catalogs/vs-unicode61", func() []string {
			return corpus(localeTexts(b, "de", "fr", "ru", "uk", "el", "ar", "he", "hi", "vi", "tr", "pl", "ja", "zh_CN", "ko", "th"))
		}, "sessionsearch", "unicode61 remove_diacritics 2"},
		{"cjk-transcripts/trigram-vs-trigram", func() []string { return corpus(transcriptTexts(b, cjk)) }, "sessionsearch cjk trigram", "trigram"},
		{"cjk-catalogs/trigram-vs-trigram", func() []string { return corpus(localeTexts(b, "ja", "zh_CN", "zh_TW", "ko")) }, "sessionsearch cjk trigram", "trigram"},
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
