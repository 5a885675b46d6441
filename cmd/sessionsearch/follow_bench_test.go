package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

// BenchmarkSyncFollowLatency measures the first sync after an import of
// the same gateway (first-sync-s), and how long a message a gateway appends
// takes to become searchable while `sync --follow` runs: the time from the
// gateway's commit to the first read-only query that finds the message
// indexed (sessionsearch_messages, not pending). The store already holds
// SESSIONSEARCH_BENCH_FOLLOW_SESSIONS sessions (default 400) of 40
// messages, imported before the follower starts; each round appends
// SESSIONSEARCH_BENCH_FOLLOW_APPENDS messages (default 40), one at a
// time, to sessions in turn. With SESSIONSEARCH_BENCH_BASELINE the build
// it names follows the same gateway in the same round (p50/baseline,
// p99/baseline: this build's over the other's).
func BenchmarkSyncFollowLatency(b *testing.B) {
	sessions := benchenv.Int(b, "SESSIONSEARCH_BENCH_FOLLOW_SESSIONS", 400)
	appends := benchenv.Int(b, "SESSIONSEARCH_BENCH_FOLLOW_APPENDS", 40)
	state := b.TempDir()
	g, err := openclawtest.New("sqlite3", state, "main")
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	r := rand.New(rand.NewPCG(3, 9))
	ids := make([]string, sessions)
	parents := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprint("w", i)
		if err := g.Create(g.Key(fmt.Sprint("s", i)), ids[i], openclawtest.Link{}); err != nil {
			b.Fatal(err)
		}
		var evs []string
		for j := 0; j < 40; j++ {
			id := fmt.Sprint("m", j)
			role := []string{"user", "assistant"}[j%2]
			evs = append(evs, openclawtest.Message(id, parents[i], role, genText(r, 20+r.IntN(300))))
			parents[i] = id
		}
		if err := g.Append(ids[i], evs...); err != nil {
			b.Fatal(err)
		}
	}
	programs := []struct{ name, bin string }{{"this build", binary}}
	if bin := os.Getenv("SESSIONSEARCH_BENCH_BASELINE"); bin != "" {
		programs = append(programs, struct{ name, bin string }{"baseline", bin})
	}
	next := 0
	var ours, base []time.Duration
	var firsts [2]time.Duration
	b.ResetTimer()
	b.StopTimer()
	for n := 0; n < b.N; n++ {
		for i := range programs {
			k := (i + n) % len(programs) // which goes first alternates
			p := programs[k]
			lat, first := followLatency(b, p.bin, state, g, ids, parents, &next, appends)
			firsts[k] += first
			b.Logf("%s: the first sync after the import %v; then p50 %.1f ms, p99 %.1f ms over %d appends", p.name, first.Round(time.Millisecond), ms(percentile(lat, 50)), ms(percentile(lat, 99)), len(lat))
			if k == 0 {
				ours = append(ours, lat...)
			} else {
				base = append(base, lat...)
			}
		}
	}
	b.ReportMetric(ms(percentile(ours, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(ours, 99)), "p99-ms")
	b.ReportMetric(firsts[0].Seconds()/float64(b.N), "first-sync-s")
	if len(base) > 0 {
		b.ReportMetric(float64(firsts[0])/float64(firsts[1]), "first-sync/baseline")
		b.ReportMetric(ms(percentile(base, 50)), "p50-ms-baseline")
		b.ReportMetric(float64(percentile(ours, 50))/float64(percentile(base, 50)), "p50/baseline")
		b.ReportMetric(float64(percentile(ours, 99))/float64(percentile(base, 99)), "p99/baseline")
	}
}

// followLatency imports the gateway's state into a new database with bin,
// starts bin's `sync --follow` on it and measures, for each of appends
// messages, the time from the append's commit until a reader finds it.
func followLatency(b *testing.B, bin, state string, g *openclawtest.Gateway, ids, parents []string, next *int, appends int) (lat []time.Duration, first time.Duration) {
	b.Helper()
	dbPath := filepath.Join(b.TempDir(), "follow.db")
	env := []string{"HOME=" + b.TempDir(), "OPENCLAW_STATE_DIR=" + state, "PATH=" + os.Getenv("PATH")}
	imp := exec.Command(bin, "import", "--db", dbPath)
	imp.Env = env
	if out, err := imp.CombinedOutput(); err != nil {
		b.Fatalf("%s import: %v\n%s", bin, err, out)
	}
	noop := exec.Command(bin, "sync", "--db", dbPath)
	noop.Env = env
	start := time.Now()
	if out, err := noop.CombinedOutput(); err != nil {
		b.Fatalf("%s sync: %v\n%s", bin, err, out)
	}
	first = time.Since(start)
	cmd := exec.Command(bin, "sync", "--follow", "--db", dbPath)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Errorf("%s sync --follow: %v\n%s", bin, err, stderr.String())
		}
	}()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// The follower's first round reads every session once; the first
	// append, made while it runs, is not counted.
	for i := -1; i < appends; i++ {
		s := *next % len(ids)
		*next++
		key := g.Key(fmt.Sprint("s", s))
		var before int
		if err := db.QueryRow(`SELECT count(*) FROM sessionsearch_messages WHERE session_key = ? AND NOT pending`, key).Scan(&before); err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("f%d", *next)
		if err := g.Append(ids[s], openclawtest.Message(id, parents[s], "user", fmt.Sprint("followed message ", *next))); err != nil {
			b.Fatal(err)
		}
		parents[s] = id
		start := time.Now()
		for {
			var got int
			if err := db.QueryRow(`SELECT count(*) FROM sessionsearch_messages WHERE session_key = ? AND NOT pending`, key).Scan(&got); err != nil && !strings.Contains(err.Error(), "locked") {
				b.Fatal(err)
			}
			if got > before {
				break
			}
			if time.Since(start) > 30*time.Second {
				b.Fatalf("%s: message %s of %s not searchable after 30 s\n%s", bin, id, key, stderr.String())
			}
			time.Sleep(time.Millisecond)
		}
		if i >= 0 {
			lat = append(lat, time.Since(start))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return lat, first
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
