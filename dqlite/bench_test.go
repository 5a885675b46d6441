//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// BenchmarkLatency measures append and search through the HTTP API on
// loopback: package server over a local file in this process (the
// baseline), one dqlite node, and three. Each reports its p50 and p99 in
// milliseconds; compare them within one run (docs/cluster.md).
//
//	cd dqlite && go test -tags "libsqlite3 sqlite_fts5" -run '^$' -bench Latency -benchtime 300x
func BenchmarkLatency(b *testing.B) {
	b.Run("file", func(b *testing.B) {
		db, err := driver.Open(filepath.Join(b.TempDir(), "local.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Migrate(b.Context()); err != nil {
			b.Fatal(err)
		}
		var list []string
		for _, v := range tokens {
			list = append(list, v)
		}
		tk, err := server.ParseTokens([]byte(`{"tokens":[` + strings.Join(list, ",") + `]}`))
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(server.New(db.DB, server.Options{Tokens: tk}))
		defer srv.Close()
		c := &cluster{t: b, nodes: []*proc{{id: 1, http: strings.TrimPrefix(srv.URL, "http://")}}}
		latencies(b, c)
	})
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("dqlite-%d", n), func(b *testing.B) {
			latencies(b, newCluster(b, n))
		})
	}
}

func latencies(b *testing.B, c *cluster) {
	c.importHTTP(b, c.nodes[0])
	key := "agent:main:bench"
	if status, body, err := c.post(c.nodes[0], "/v1/append", "main", fmt.Sprintf(`{"sessions":[{"sessionKey":%q}]}`, key)); err != nil || status != 200 {
		b.Fatalf("%d %s %v", status, body, err)
	}
	seq := 0
	b.Run("append", func(b *testing.B) {
		measure(b, func() {
			ev := fmt.Sprintf(`{"type":"message","id":"B%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"bench message %s"}}`, seq, loadWord(seq))
			status, body, err := c.post(c.nodes[0], "/v1/append", "main", fmt.Sprintf(`{"events":[{"sessionKey":%q,"seq":%d,"event":%s}]}`, key, seq, ev))
			if err != nil || status != 200 {
				b.Fatalf("append %d: %d %s %v", seq, status, body, err)
			}
			seq++
		})
	})
	i := 0
	b.Run("search", func(b *testing.B) {
		measure(b, func() {
			s := searches[i%len(searches)]
			status, body, err := c.post(c.nodes[len(c.nodes)-1], "/v1/search", s.token, fmt.Sprintf(`{"query":%q}`, s.query))
			if err != nil || status != 200 {
				b.Fatalf("search %q: %d %s %v", s.query, status, body, err)
			}
			i++
		})
	})
}

func measure(b *testing.B, op func()) {
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		op()
		d = append(d, time.Since(t0))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
