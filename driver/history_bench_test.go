package driver_test

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// BenchmarkHistoryBigSession: sessions_history of a session of 200,000
// entries (a message every second one), against the same call on a session
// of 2,000, both indexed: the newest messages (default options) and a
// window of 20 around a message in the middle. big/small is the ratio of
// the times, alloc-MB the bytes allocated by one call on the big session.
func BenchmarkHistoryBigSession(b *testing.B) {
	db, ctx, conn := storeConn(b)
	const big, small = 200000, 2000
	bigSession(b, ctx, conn, "agent:main:big", big, 2)
	bigSession(b, ctx, conn, "agent:main:small", small, 2)
	reconcileAll(b, ctx, conn, time.Hour)
	for _, c := range []struct {
		name      string
		mid       func(n int) string
		limit     int
		wantCount int
	}{
		{"newest", nil, 0, 200},
		{"anchor", func(n int) string { return "e" + strconv.Itoa(n/2) }, 20, 20},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took [2]time.Duration
			var alloc uint64
			for b.Loop() {
				for k, s := range []struct {
					key string
					n   int
				}{{"agent:main:big", big}, {"agent:main:small", small}} {
					o := driver.HistoryOptions{Options: driver.Options{Caller: "agent:main:main"}, Limit: c.limit, IncludeTools: true}
					if c.mid != nil {
						o.MessageID = c.mid(s.n)
					}
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					start := time.Now()
					h, err := db.History(ctx, s.key, o)
					took[k] += time.Since(start)
					runtime.ReadMemStats(&after)
					if err != nil || len(h.Messages) != c.wantCount {
						b.Fatalf("%s: %d messages, %v", s.key, len(h.Messages), err)
					}
					if k == 0 {
						alloc += after.TotalAlloc - before.TotalAlloc
					}
				}
			}
			b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "big/small")
			b.ReportMetric(took[0].Seconds()*1000/float64(b.N), "ms/big")
			b.ReportMetric(float64(alloc)/1e6/float64(b.N), "alloc-MB/big")
		})
	}
}
