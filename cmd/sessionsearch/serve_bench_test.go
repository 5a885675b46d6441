package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Latency of `sessionsearch serve` on this machine against the driver in
// the test process, on the same kind of database (docs/serve.md, "Speed").
// Each benchmark reports the p50 and p99 of its operations besides ns/op;
// compare Serve* with Driver* of the same run.

// latencies collects one duration per operation.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(float64(l[len(l)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(l[min(len(l)-1, len(l)*99/100)].Microseconds()), "p99-µs")
}

func benchEvent(i int) string {
	return fmt.Sprintf(`{"type":"message","id":"m%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"benchmark message %d about the hotel in Tokyo"}}`, i, i)
}

// BenchmarkServeAppend appends one event per request through the API.
func BenchmarkServeAppend(b *testing.B) {
	s := startServe(b, "--db", filepath.Join(b.TempDir(), "b.db"), "--tokens", writeTokens(b, "agent:main:main"))
	if st, out := s.request(b, serveWriter, "POST", "/v1/append", []byte(`{"sessions":[{"sessionKey":"agent:main:bench"}]}`)); st != 200 {
		b.Fatalf("%d %s", st, out)
	}
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := fmt.Sprintf(`{"events":[{"sessionKey":"agent:main:bench","seq":%d,"event":%s}]}`, i, benchEvent(i))
		start := time.Now()
		if st, out := s.request(b, serveWriter, "POST", "/v1/append", []byte(body)); st != 200 {
			b.Fatalf("%d %s", st, out)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	lat.report(b)
	s.stop(b)
}

// BenchmarkDriverAppend is the baseline: the same insert with the driver.
func BenchmarkDriverAppend(b *testing.B) {
	db := openDB(b, filepath.Join(b.TempDir(), "b.db"))
	if _, err := db.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO sessions(session_key) VALUES ('agent:main:bench')`); err != nil {
		b.Fatal(err)
	}
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := db.Exec(`INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:bench', ?1, ?2)`, i, benchEvent(i)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	lat.report(b)
}

// searchDB imports the fixture transcripts into a new database.
func searchDB(b *testing.B) string {
	file := filepath.Join(b.TempDir(), "b.db")
	mustRun(b, "import", "--db", file, fixtureDir)
	return file
}

const benchSearchOptions = `"limit":10,"caller":"agent:main:main","visibility":"all","sandboxed":false,"sandboxVisibility":"spawned"`

// BenchmarkServeSearch searches the fixtures through the API.
func BenchmarkServeSearch(b *testing.B) {
	s := startServe(b, "--db", searchDB(b), "--tokens", writeTokens(b, "agent:main:main"))
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if st, out := s.request(b, serveWriter, "POST", "/v1/search", []byte(`{"query":"the",`+benchSearchOptions+`}`)); st != 200 {
			b.Fatalf("%d %s", st, out)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	lat.report(b)
	s.stop(b)
}

// BenchmarkDriverSearch is the baseline: sessions_search in-process.
func BenchmarkDriverSearch(b *testing.B) {
	db := openDB(b, searchDB(b))
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var out string
		if err := db.QueryRow(`SELECT sessions_search('the', ?1)`, `{`+benchSearchOptions+`}`).Scan(&out); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	lat.report(b)
}
