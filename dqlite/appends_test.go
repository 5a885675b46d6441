//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadResult is what a steady append load saw.
type loadResult struct {
	requests int
	refused  map[string]int  // "status code" (or "network error") → requests
	latency  []time.Duration // of each request
	appends  []time.Duration // of each append, from its first request to its acknowledgement
	retried  int             // appends whose first request was refused
	acked    map[string]int  // session → events acknowledged
}

func (r *loadResult) refusedCount() int {
	n := 0
	for _, v := range r.refused {
		n += v
	}
	return n
}

// refusedWith counts the refusals whose "status code" key starts with prefix.
func (r *loadResult) refusedWith(prefix string) int {
	n := 0
	for k, v := range r.refused {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// positiveEnv reads the positive whole number in the environment variable
// name, or def when it is unset.
func positiveEnv(t testing.TB, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive whole number", name, s)
	}
	return n
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[int(q*float64(len(d)-1))]
}

func (r *loadResult) String() string {
	var codes []string
	for k, v := range r.refused {
		codes = append(codes, fmt.Sprintf("%s ×%d", k, v))
	}
	sort.Strings(codes)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("%d requests, %d refused (%.2f%%) [%s]; request p50 %s p99 %s max %s; %d appends, %d retried, first request to acknowledgement p50 %s p99 %s max %s",
		r.requests, r.refusedCount(), 100*float64(r.refusedCount())/float64(max(r.requests, 1)), strings.Join(codes, ", "),
		ms(quantile(r.latency, 0.5)), ms(quantile(r.latency, 0.99)), ms(quantile(r.latency, 1)),
		len(r.appends), r.retried, ms(quantile(r.appends, 0.5)), ms(quantile(r.appends, 0.99)), ms(quantile(r.appends, 1)))
}

// appendLoad runs clients for d, each appending 1 or 2 events every 50 ms
// to a session of its own, through a random node (leaderOnly: through the
// leader's). A refused request is counted and sent again, the same, until
// it is answered 200: appends are idempotent by (sessionKey, seq).
func appendLoad(t testing.TB, c *cluster, clients int, d time.Duration, leaderOnly bool) *loadResult {
	res := &loadResult{refused: map[string]int{}, acked: map[string]int{}}
	var mu sync.Mutex
	leader := c.waitLeader(10*time.Second, 0)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		key := fmt.Sprintf("agent:main:load-%d-%d", i, time.Now().UnixNano())
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(i)))
			seq := 0
			for time.Now().Before(deadline) {
				n := 1 + rng.Intn(2)
				var evs []string
				for k := seq; k < seq+n; k++ {
					ev := fmt.Sprintf(`{"type":"message","id":"C%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"load %s"}}`, k, loadWord(k))
					evs = append(evs, fmt.Sprintf(`{"sessionKey":%q,"seq":%d,"event":%s}`, key, k, ev))
				}
				body := fmt.Sprintf(`{"events":[%s]}`, strings.Join(evs, ","))
				if seq == 0 {
					body = fmt.Sprintf(`{"sessions":[{"sessionKey":%q}],"events":[%s]}`, key, strings.Join(evs, ","))
				}
				first := time.Now()
				for try := 0; ; try++ {
					p := c.nodes[leader-1]
					if !leaderOnly {
						p = c.nodes[rng.Intn(len(c.nodes))]
					}
					t0 := time.Now()
					status, b, err := c.post(p, "/v1/append", "main", body)
					took := time.Since(t0)
					mu.Lock()
					res.requests++
					res.latency = append(res.latency, took)
					if err == nil && status == http.StatusOK {
						res.acked[key] = seq + n
						res.appends = append(res.appends, time.Since(first))
						if try > 0 {
							res.retried++
						}
						mu.Unlock()
						break
					}
					var e struct{ Error struct{ Code string } }
					json.Unmarshal(b, &e)
					k := fmt.Sprintf("%d %s", status, e.Error.Code)
					if err != nil {
						k = "network error"
					}
					if res.refused[k] == 0 {
						t.Logf("client %d, node %d: the first %s: %.300s %v", i, p.id, k, b, err)
					}
					res.refused[k]++
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
				}
				seq += n
				time.Sleep(50 * time.Millisecond)
			}
		}(i)
	}
	wg.Wait()
	return res
}

// checkAcked checks that each session of the load holds exactly the events
// acknowledged, each once, with its own content.
func (c *cluster) checkAcked(t testing.TB, res *loadResult) {
	t.Helper()
	for key, n := range res.acked {
		rows, err := c.db.Query(`SELECT seq, event ->> '$.id' FROM transcript_events WHERE session_key = ?1 ORDER BY seq`, key)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var seq int
			var id string
			rows.Scan(&seq, &id)
			if seq != i || id != fmt.Sprintf("C%d", seq) {
				t.Errorf("%s: row %d is seq %d with event %s, want seq %d with C%d", key, i, seq, id, i, i)
			}
			i++
		}
		rows.Close()
		if i != n {
			t.Errorf("%s: %d events stored, %d acknowledged", key, i, n)
		}
	}
}

// TestConcurrentAppends: four clients append to their own sessions through
// random nodes of a healthy cluster, then all through the leader: no
// request is refused, and every acknowledged event is stored once
// (docs/cluster.md K10).
func TestConcurrentAppends(t *testing.T) {
	c := newCluster(t, 3)
	for _, leaderOnly := range []bool{false, true} {
		res := appendLoad(t, c, 4, 10*time.Second, leaderOnly)
		t.Logf("4 clients, leader only %v: %v", leaderOnly, res)
		if res.refusedCount() > 0 {
			t.Errorf("4 clients, leader only %v: %d of %d requests refused: %v", leaderOnly, res.refusedCount(), res.requests, res.refused)
		}
		c.checkAcked(t, res)
	}
}

// BenchmarkConcurrentAppends runs TestConcurrentAppends's load with
// SESSIONSEARCH_LOAD_CLIENTS clients (default 4) for
// SESSIONSEARCH_LOAD_SECONDS (default 60) per iteration, through random
// nodes and all through the leader, and reports the requests refused (and
// of them the 500s and 503s) and the time from an append's first request to
// its acknowledgement:
//
//	make cluster-load   # or, in dqlite/: go test -tags "libsqlite3 sqlite_fts5" -run '^$' -bench ConcurrentAppends -benchtime 1x
func BenchmarkConcurrentAppends(b *testing.B) {
	seconds := positiveEnv(b, "SESSIONSEARCH_LOAD_SECONDS", 60)
	clients := positiveEnv(b, "SESSIONSEARCH_LOAD_CLIENTS", 4)
	d := time.Duration(seconds) * time.Second
	c := newCluster(b, 3)
	for _, leaderOnly := range []bool{false, true} {
		b.Run(map[bool]string{false: "random-nodes", true: "leader"}[leaderOnly], func(b *testing.B) {
			for b.Loop() {
				res := appendLoad(b, c, clients, d, leaderOnly)
				b.Logf("%d clients × %v: %v", clients, d, res)
				b.ReportMetric(float64(res.refusedCount()), "refused")
				b.ReportMetric(float64(res.refusedWith("500 ")), "status-500")
				b.ReportMetric(float64(res.refusedWith("503 ")), "status-503")
				b.ReportMetric(float64(len(res.appends)), "appends")
				b.ReportMetric(float64(quantile(res.appends, 0.5).Microseconds())/1000, "ack-p50-ms")
				b.ReportMetric(float64(quantile(res.appends, 0.99).Microseconds())/1000, "ack-p99-ms")
				c.checkAcked(b, res)
			}
		})
	}
}
