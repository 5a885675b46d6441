package driver_test

// The rewind and reconcile figures of issue 15, before and after commit
// 9cdf8d7 (rewinds bounded by entries, reconcile resuming where it stopped).
// This file uses only SQL and driver API that exist on both sides of that
// commit, so that the same file runs in a worktree of 9cdf8d7^ as well; the
// table and how to run it are in docs/performance.md ("Rewind and
// reconcile, before and after (issue 15)").
//
// Sizes are set by environment variables (the defaults take seconds; the
// issue's sizes are given with each benchmark), and SESSIONSEARCH_BENCH_CAP_S
// (default 60) caps the time a scenario may take: past it the benchmark stops
// and reports finished=0 with how far it got, instead of running for minutes.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"

	"github.com/sessionsearch/sessionsearch/driver"
)

// issue15Cap is the time a scenario may take before it is reported as not
// finished.
func issue15Cap(tb testing.TB) time.Duration {
	return time.Duration(benchenv.Int(tb, "SESSIONSEARCH_BENCH_CAP_S", 60)) * time.Second
}

// issue15Peak measures the peak resident memory of this process over a
// stretch of work: Linux resets the high-water mark when "5" is written to
// /proc/self/clear_refs. ok is false where that is not possible, and the
// benchmark then reports no memory figure.
type issue15Peak struct{ ok bool }

func issue15StartPeak() issue15Peak {
	runtime.GC()
	debug.FreeOSMemory()
	err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return issue15Peak{ok: err == nil}
}

// mb returns the peak resident memory in MB since the start, or -1.
func (p issue15Peak) mb() float64 {
	if !p.ok {
		return -1
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return float64(kb) * 1024 / 1e6
		}
	}
	return -1
}

// issue15Open opens a new migrated database, closed when the benchmark ends.
func issue15Open(tb testing.TB, path string) *driver.DB {
	tb.Helper()
	db, err := driver.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return db
}

// issue15Load appends a linear session of n entries e0..e(n-1), pending (the
// connection defers indexing while it loads); message(i) tells which are
// user or assistant messages, the others are tool results.
func issue15Load(tb testing.TB, ctx context.Context, conn *sql.Conn, key string, n int, message func(int) bool) {
	tb.Helper()
	if err := driver.DeferIndexing(ctx, conn, true); err != nil {
		tb.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if err := driver.AddSession(ctx, tx, driver.Session{Key: key}); err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"e%d"`, i-1)
		}
		role, text := "toolResult", fmt.Sprintf("tool output %d", i)
		if message(i) {
			role, text = []string{"user", "assistant"}[i%2], fmt.Sprintf("needle %d of a big session", i)
		}
		ev := fmt.Sprintf(`{"type":"message","id":"e%d","parentId":%s,"message":{"role":%q,"content":%q}}`, i, parent, role, text)
		if _, err := stmt.ExecContext(ctx, key, i, ev); err != nil {
			tb.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	if err := driver.DeferIndexing(ctx, conn, false); err != nil {
		tb.Fatal(err)
	}
}

// issue15Reconcile calls Reconcile with budget until nothing is pending or
// until the deadline (zero: none) has passed; done says which.
func issue15Reconcile(tb testing.TB, ctx context.Context, conn *sql.Conn, budget time.Duration, deadline time.Time) (calls int, done bool) {
	tb.Helper()
	for {
		res, err := driver.Reconcile(ctx, conn, budget)
		if err != nil {
			tb.Fatal(err)
		}
		calls++
		if res.Pending == 0 {
			return calls, true
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return calls, false
		}
	}
}

// issue15Indexed counts the rows of the search index.
func issue15Indexed(tb testing.TB, ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) int {
	tb.Helper()
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sessionsearch_fts_docsize`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkIssue15Rewind: a session of 3 messages and many tool entries
// (SESSIONSEARCH_BENCH_TOOL_ENTRIES, default 100,000; the issue's size is
// 1,000,000) is rewound to its first message and switched back to its last,
// each move one leaf entry in its own transaction. ms/rewind is the time of
// that transaction (what other writers wait for); ms/until-indexed adds the
// sessions_reconcile calls of 500 ms that bring a deferred session back to
// search; peak-RSS-MB is the process's peak resident memory over one move
// and its reconcile. Each move is checked: the index holds 1, then 3
// messages.
func BenchmarkIssue15Rewind(b *testing.B) {
	tools := benchenv.Int(b, "SESSIONSEARCH_BENCH_TOOL_ENTRIES", 100000)
	n := tools + 3
	db := issue15Open(b, filepath.Join(b.TempDir(), "rewind.db"))
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	const key = "agent:main:rewind"
	issue15Load(b, ctx, conn, key, n, func(i int) bool { return i == 0 || i == n/2 || i == n-1 })
	issue15Reconcile(b, ctx, conn, time.Hour, time.Time{})
	if got := issue15Indexed(b, ctx, conn); got != 3 {
		b.Fatalf("%d messages indexed after loading, want 3", got)
	}
	var inTx, total time.Duration
	var peak float64
	moves := 0
	for b.Loop() {
		for _, move := range []struct {
			target string
			want   int
		}{{"e0", 1}, {fmt.Sprintf("e%d", n-1), 3}} {
			p := issue15StartPeak()
			start := time.Now()
			if _, err := driver.MoveLeaf(ctx, conn, key, move.target); err != nil {
				b.Fatal(err)
			}
			inTx += time.Since(start)
			issue15Reconcile(b, ctx, conn, 500*time.Millisecond, time.Time{})
			total += time.Since(start)
			peak = max(peak, p.mb())
			moves++
			if got := issue15Indexed(b, ctx, conn); got != move.want {
				b.Fatalf("after moving the leaf to %s: %d messages indexed, want %d", move.target, got, move.want)
			}
		}
	}
	b.ReportMetric(float64(inTx.Microseconds())/1e3/float64(moves), "ms/rewind")
	b.ReportMetric(float64(total.Microseconds())/1e3/float64(moves), "ms/until-indexed")
	if peak > 0 {
		b.ReportMetric(peak, "peak-RSS-MB")
	}
}

// BenchmarkIssue15LeafEntries: a session of 3 messages gets many leaf
// entries (SESSIONSEARCH_BENCH_LEAVES, default 2,000, the issue's size), each
// moving the leaf between its first and last message in its own
// transaction. s/all is the time of all of them (reconciled to the index
// after each, when a move was deferred), ms/last-leaf the mean of the last
// tenth (the growth). Past the cap it reports finished=0 and how many leaves
// it appended.
func BenchmarkIssue15LeafEntries(b *testing.B) {
	leaves := benchenv.Int(b, "SESSIONSEARCH_BENCH_LEAVES", 2000)
	limit := issue15Cap(b)
	var all, last time.Duration
	var lastN, done, runs int
	finished := true
	for b.Loop() {
		b.StopTimer()
		db := issue15Open(b, filepath.Join(b.TempDir(), "leaves.db"))
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		const key = "agent:main:leaves"
		issue15Load(b, ctx, conn, key, 3, func(int) bool { return true })
		issue15Reconcile(b, ctx, conn, time.Hour, time.Time{})
		b.StartTimer()
		start := time.Now()
		want := 3
		i := 0
		for ; i < leaves; i++ {
			if time.Since(start) > limit {
				finished = false
				break
			}
			target := []string{"e0", "e2"}[i%2]
			want = []int{1, 3}[i%2]
			t := time.Now()
			if _, err := driver.MoveLeaf(ctx, conn, key, target); err != nil {
				b.Fatal(err)
			}
			issue15Reconcile(b, ctx, conn, 500*time.Millisecond, time.Time{})
			if i >= leaves-leaves/10 {
				last += time.Since(t)
				lastN++
			}
		}
		all += time.Since(start)
		done += i
		runs++
		b.StopTimer()
		if got := issue15Indexed(b, ctx, conn); i > 0 && got != want {
			b.Fatalf("after %d leaf entries: %d messages indexed, want %d", i, got, want)
		}
		conn.Close()
		db.Close()
		b.StartTimer()
	}
	if !finished {
		b.Logf("did not finish in %v: %d of %d leaf entries per run", limit, done/runs, leaves)
	}
	b.ReportMetric(all.Seconds()/float64(runs), "s/all")
	b.ReportMetric(float64(all.Microseconds())/1e3/float64(max(done, 1)), "ms/leaf")
	if lastN > 0 {
		b.ReportMetric(float64(last.Microseconds())/1e3/float64(lastN), "ms/last-leaf")
	}
	b.ReportMetric(float64(done/runs), "leaves")
	b.ReportMetric(map[bool]float64{false: 0, true: 1}[finished], "finished")
}

// BenchmarkIssue15ReconcileChunked: one pending session of user and
// assistant messages (SESSIONSEARCH_BENCH_RECONCILE_MESSAGES, default
// 200,000; the issue's size is 300,000) is indexed by one
// sessions_reconcile call and, in a copy of the same database, by calls of
// 500 ms (the CLI's budget; SESSIONSEARCH_BENCH_BUDGET_MS sets it).
// steps-ratio is the time of the second over the first: linear work keeps it
// near 1. When the calls pass the cap, it reports finished=0 and
// done-fraction, the share of the messages indexed by then (and steps-ratio
// is a lower bound).
func BenchmarkIssue15ReconcileChunked(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_BENCH_RECONCILE_MESSAGES", 200000)
	budget := time.Duration(benchenv.Int(b, "SESSIONSEARCH_BENCH_BUDGET_MS", 500)) * time.Millisecond
	limit := issue15Cap(b)
	dir := b.TempDir()
	ctx := context.Background()
	template := issue15Open(b, filepath.Join(dir, "template.db"))
	conn, err := template.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	issue15Load(b, ctx, conn, "agent:main:big", messages, func(int) bool { return true })
	conn.Close()
	copies := 0
	fresh := func() (*driver.DB, *sql.Conn) {
		copies++
		path := filepath.Join(dir, fmt.Sprintf("copy-%d.db", copies))
		if _, err := template.ExecContext(ctx, `VACUUM INTO ?1`, path); err != nil {
			b.Fatal(err)
		}
		db := issue15Open(b, path)
		c, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return db, c
	}
	var one, steps time.Duration
	var onePeak, stepsPeak, fraction float64
	calls, runs := 0, 0
	finished := true
	for b.Loop() {
		b.StopTimer()
		db, c := fresh()
		p := issue15StartPeak()
		b.StartTimer()
		start := time.Now()
		issue15Reconcile(b, ctx, c, time.Hour, time.Time{})
		one += time.Since(start)
		b.StopTimer()
		onePeak = max(onePeak, p.mb())
		if got := issue15Indexed(b, ctx, c); got != messages {
			b.Fatalf("one call indexed %d messages, want %d", got, messages)
		}
		c.Close()
		db.Close()

		db, c = fresh()
		p = issue15StartPeak()
		b.StartTimer()
		start = time.Now()
		n, ok := issue15Reconcile(b, ctx, c, budget, start.Add(limit))
		steps += time.Since(start)
		b.StopTimer()
		stepsPeak = max(stepsPeak, p.mb())
		calls += n
		runs++
		got := issue15Indexed(b, ctx, c)
		if ok && got != messages {
			b.Fatalf("calls of %v indexed %d messages, want %d", budget, got, messages)
		}
		if !ok {
			finished = false
			fraction += float64(got) / float64(messages)
			b.Logf("calls of %v did not finish in %v: %d calls, %d of %d messages indexed", budget, limit, n, got, messages)
		} else {
			fraction++
		}
		c.Close()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(one.Seconds()/float64(runs), "s/one-call")
	b.ReportMetric(steps.Seconds()/float64(runs), "s/chunked")
	b.ReportMetric(float64(calls)/float64(runs), "calls")
	b.ReportMetric(steps.Seconds()/one.Seconds(), "steps-ratio")
	b.ReportMetric(fraction/float64(runs), "done-fraction")
	b.ReportMetric(map[bool]float64{false: 0, true: 1}[finished], "finished")
	if onePeak > 0 {
		b.ReportMetric(onePeak, "one-peak-RSS-MB")
		b.ReportMetric(stepsPeak, "chunked-peak-RSS-MB")
	}
}
