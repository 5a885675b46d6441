//go:build sqlite_fts5

package syncer_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"

	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/syncer"
	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

var words = strings.Fields(`the of and to in is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no what can out other into more
some time could them only new about these two may first then do any like my now over such our man me even most made
after also did many before must through back years where much your way well down should because each just those
people how too little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right used take three
東京 大阪 名古屋 データベース 検索 서울 검색 데이터 กรุงเทพ ค้นหา café naïve Straße Ελλάδα москва`)

func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// large is a generated state directory, built once per process:
// SESSIONSEARCH_SYNC_BENCH_MB (default 200) MB of event JSON in one agent
// database, 40 events per session, a third of them large enough to be
// stored as zstd frames.
var large struct {
	once      gosync.Once
	dir       string
	g         *openclawtest.Gateway
	sessions  int
	jsonBytes int64
	err       error
}

func largeState(b *testing.B) (string, int64) {
	b.Helper()
	mb := benchenv.Int(b, "SESSIONSEARCH_SYNC_BENCH_MB", 200)
	large.once.Do(func() {
		dir, err := os.MkdirTemp("", "sync-bench-")
		if err != nil {
			large.err = err
			return
		}
		large.dir = dir
		g, err := openclawtest.New("sqlite3", dir, "main")
		if err != nil {
			large.err = err
			return
		}
		large.g = g
		r := rand.New(rand.NewPCG(11, 12))
		for i := 0; large.jsonBytes < int64(mb)<<20; i++ {
			key, id := g.Key(fmt.Sprint("s", i)), fmt.Sprint("w", i)
			if large.err = g.Create(key, id, openclawtest.Link{}); large.err != nil {
				return
			}
			var evs []string
			parent := ""
			for j := 0; j < 40; j++ {
				n := 20 + r.IntN(60)
				if j%3 == 2 {
					n = 300 + r.IntN(600)
				}
				role := "user"
				if j%2 == 1 {
					role = "assistant"
				}
				mid := fmt.Sprint("m", j)
				e := openclawtest.Message(mid, parent, role, text(r, n))
				parent = mid
				evs = append(evs, e)
				large.jsonBytes += int64(len(e))
			}
			if large.err = g.Append(id, evs...); large.err != nil {
				return
			}
			large.sessions++
		}
		var size int64
		filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				size += info.Size()
			}
			return nil
		})
		fmt.Fprintf(os.Stderr, "sync benchmark state: %d sessions, %.0f MB of event JSON, %.0f MB on disk\n", large.sessions, float64(large.jsonBytes)/1e6, float64(size)/1e6)
	})
	if large.err != nil {
		b.Fatal(large.err)
	}
	return large.dir, large.jsonBytes
}

func TestMain(m *testing.M) {
	code := m.Run()
	if large.g != nil {
		large.g.Close()
	}
	if large.dir != "" {
		os.RemoveAll(large.dir)
	}
	os.Exit(code)
}

// letters spells n in the letters q..z and a..p, a word no generated text
// has.
func letters(n int) string {
	b := []byte("qqfollow")
	for ; n > 0; n /= 16 {
		b = append(b, "qrstuvwxyzabcdep"[n%16])
	}
	return string(b)
}

func percentile(d []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p * float64(len(s)-1))
	return float64(s[i]) / 1e6
}

// BenchmarkCatchUp compares a cold-start sync of the large state directory
// with an import of it (deferred indexing, then sessions_reconcile, as
// 'sessionsearch import' does), each into a new database. The two alternate
// within each iteration, so a load on the machine weighs on both; it
// reports MB/s of event JSON for each and the median ratio sync/import.
func BenchmarkCatchUp(b *testing.B) {
	dir, n := largeState(b)
	var syncs, imports, ratios []float64
	for i := 0; i < b.N; i++ {
		var ts, ti time.Duration
		for k := 0; k < 2; k++ {
			if (i+k)%2 == 0 {
				ts = catchUpSync(b, dir)
			} else {
				ti = catchUpImport(b, dir)
			}
		}
		syncs = append(syncs, float64(n)/1e6/ts.Seconds())
		imports = append(imports, float64(n)/1e6/ti.Seconds())
		ratios = append(ratios, ti.Seconds()/ts.Seconds())
		b.Logf("pair %d: sync %.2f MB/s, import %.2f MB/s, ratio %.2f", i, syncs[i], imports[i], ratios[i])
	}
	b.ReportMetric(median(syncs), "sync-MB/s")
	b.ReportMetric(median(imports), "import-MB/s")
	b.ReportMetric(median(ratios), "sync/import")
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func catchUpSync(b *testing.B, dir string) time.Duration {
	db := store(b)
	s := newSyncer(b, db.DB, nil)
	start := time.Now()
	if st := sync(b, s, dir); st.Pending != 0 || st.More {
		b.Fatalf("catch-up left %d sessions pending", st.Pending)
	}
	return time.Since(start)
}

func catchUpImport(b *testing.B, dir string) time.Duration {
	db := store(b)
	ctx := context.Background()
	start := time.Now()
	sink, err := importer.NewSQLSink(ctx, db.DB, true)
	must(b, err)
	open := syncer.OpenReadOnly("sqlite3")
	im := &importer.Importer{Sink: sink, OpenDB: func(p string) (*sql.DB, error) { return open(p, false) },
		Report: func(p importer.Problem) { b.Error(p) }}
	plan, problems := importer.NewPlan([]string{dir}, importer.PlanOptions{})
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	for _, src := range plan.Sources {
		must(b, im.Import(ctx, src))
	}
	must(b, sink.Close())
	for {
		r, err := db.Reconcile(ctx, 500*time.Millisecond)
		must(b, err)
		if r.Pending == 0 {
			break
		}
	}
	return time.Since(start)
}

// BenchmarkSyncNoChange is a sync of the large state directory when
// nothing changed ("unchanged": one stat per source) and when the database
// file changed but no transcript did ("listed": every window's watermark
// compared with the database).
func BenchmarkSyncNoChange(b *testing.B) {
	dir, _ := largeState(b)
	db := store(b)
	s := newSyncer(b, db.DB, nil)
	sync(b, s, dir)
	path := filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")
	for _, mode := range []string{"unchanged", "listed"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "unchanged" {
				// Past the racy window, so the stored stamps are trusted.
				old := time.Now().Add(-time.Minute)
				must(b, os.Chtimes(path, old, old))
				sync(b, s, dir)
			}
			var d []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "listed" {
					b.StopTimer()
					t := time.Now().Add(-time.Duration(i+1) * time.Second)
					must(b, os.Chtimes(path, t, t))
					b.StartTimer()
				}
				start := time.Now()
				st := sync(b, s, dir)
				d = append(d, time.Since(start))
				if st.Events != 0 {
					b.Fatalf("a sync without changes stored %d events", st.Events)
				}
				if mode == "unchanged" && st.Unchanged != st.Sources {
					b.Fatalf("%d of %d sources looked at again", st.Sources-st.Unchanged, st.Sources)
				}
			}
			b.ReportMetric(percentile(d, 0.5), "p50-ms")
			b.ReportMetric(percentile(d, 0.99), "p99-ms")
		})
	}
}

// BenchmarkFollowLatency measures, under Follow, the time from a committed
// append in the gateway's database to the message being searchable, in a
// small state directory and in the large one.
func BenchmarkFollowLatency(b *testing.B) {
	for _, size := range []string{"small", "large"} {
		b.Run(size, func(b *testing.B) {
			var g *openclawtest.Gateway
			var dir string
			key, id := "", ""
			if size == "large" {
				dir, _ = largeState(b)
				g, key, id = large.g, large.g.Key("s0"), "w0"
			} else {
				dir = b.TempDir()
				g = gateway(b, dir, "main")
				key, id = g.Key("main"), "w1"
				must(b, g.Create(key, id, openclawtest.Link{}))
			}
			db := store(b)
			s := newSyncer(b, db.DB, nil)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			ready := make(chan struct{})
			var once gosync.Once
			go func() {
				done <- s.Follow(ctx, []string{dir}, syncer.FollowOptions{Round: func(st syncer.Stats, err error) {
					if os.Getenv("SYNC_DEBUG") != "" {
						fmt.Fprintf(os.Stderr, "round %+v %v\n", st, err)
					}
					once.Do(func() { close(ready) })
				}})
			}()
			<-ready
			// Searchable is what a search finds: the message's own word.
			probe, err := db.Prepare(`SELECT count(*) FROM json_each(sessions_search(?1, json_object('caller', ?2, 'sessionKey', ?2)), '$.results')`)
			must(b, err)
			defer probe.Close()
			parent := "" // the header of the small session
			if size == "large" {
				parent = "m39"
			}
			var d []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				mid := fmt.Sprintf("f%d-%d", b.N, i)
				word := letters(b.N*1000 + i)
				must(b, g.Append(id, openclawtest.Message(mid, parent, "user", "followed message "+word)))
				start := time.Now()
				parent = mid
				for {
					var n int
					must(b, probe.QueryRow(word, key).Scan(&n))
					if n == 1 {
						break
					}
					if time.Since(start) > 30*time.Second {
						b.Fatalf("message %s not searchable after 30s", mid)
					}
					time.Sleep(500 * time.Microsecond)
				}
				d = append(d, time.Since(start))
			}
			b.StopTimer()
			cancel()
			must(b, <-done)
			b.ReportMetric(percentile(d, 0.5), "p50-ms")
			b.ReportMetric(percentile(d, 0.99), "p99-ms")
		})
	}
}
