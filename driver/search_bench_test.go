package driver_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"

	"github.com/sessionsearch/sessionsearch/driver"
)

// BenchmarkSearch: two-word searches over SESSIONSEARCH_BENCH_MESSAGES
// messages (default 1,000,000) in 2,000 sessions of 5 agents, with tree
// visibility, against the bare FTS5 query on the same index
// (MATCH ... ORDER BY rank LIMIT 10). Reports p50 and p99 of both and the
// ratio of their means.
func BenchmarkSearch(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_BENCH_MESSAGES", 1_000_000)
	const sessions = 2000
	db, ctx := openStore(b)
	r := rand.New(rand.NewSource(1))
	// A vocabulary with a Zipf-like spread of word frequencies.
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*7919%104729)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	conn, _ := db.Conn(ctx)
	driver.DeferIndexing(ctx, conn, true)
	start := time.Now()
	tx, _ := conn.BeginTx(ctx, nil)
	ins, _ := tx.Prepare(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	keys := make([]string, sessions)
	for s := range sessions {
		agent := s % 5
		keys[s] = fmt.Sprintf("agent:a%d:s%d", agent, s)
		if s < 5 {
			keys[s] = fmt.Sprintf("agent:a%d:main", agent)
		}
		spawnedBy := ""
		if s >= 5 && r.Intn(2) == 0 {
			spawnedBy = keys[r.Intn(s)]
		}
		if err := driver.AddSession(ctx, tx, driver.Session{Key: keys[s], SpawnedBy: spawnedBy}); err != nil {
			b.Fatal(err)
		}
	}
	for m := range messages {
		s := m % sessions
		seq := m / sessions
		var words []string
		for range 8 + r.Intn(24) {
			words = append(words, vocab[zipf.Uint64()])
		}
		if _, err := ins.Exec(keys[s], seq, string(message(fmt.Sprintf("m%d", seq), parentID(seq), "user", strings.Join(words, " "), int64(m)))); err != nil {
			b.Fatal(err)
		}
	}
	ins.Close()
	tx.Commit()
	loaded := time.Since(start)
	start = time.Now()
	reconcileAll(b, ctx, conn, 10*time.Second)
	b.Logf("%d messages in %d sessions: loaded in %v, indexed in %v", messages, sessions, loaded, time.Since(start))
	conn.Close()

	// Queries: two words of middling frequency.
	var queries []string
	for range 200 {
		queries = append(queries, vocab[1+r.Intn(200)]+" "+vocab[1+r.Intn(2000)])
	}
	caller := keys[7] // a session with a spawn tree, tree visibility
	bare, _ := db.Prepare(`SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH ?1 ORDER BY rank LIMIT 10`)
	search, _ := db.Prepare(`SELECT sessions_search(?1, ?2)`)
	opts := `{"caller":"` + caller + `","visibility":"tree"}`
	var tBare, tSearch []time.Duration
	b.ResetTimer()
	runBare := func(q string) {
		expr := `"` + strings.ReplaceAll(q, " ", `" AND "`) + `"`
		t0 := time.Now()
		rows, err := bare.Query(expr)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		tBare = append(tBare, time.Since(t0))
	}
	runSearch := func(q string) {
		t0 := time.Now()
		var js string
		if err := search.QueryRow(q, opts).Scan(&js); err != nil {
			b.Fatal(err)
		}
		tSearch = append(tSearch, time.Since(t0))
	}
	for b.Loop() {
		for i, q := range queries {
			// Alternate which runs first, so that neither always finds the
			// pages the other just read.
			if i%2 == 0 {
				runBare(q)
				runSearch(q)
			} else {
				runSearch(q)
				runBare(q)
			}
		}
	}
	b.StopTimer()
	pct := func(ds []time.Duration, p float64) float64 {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000
	}
	mean := func(ds []time.Duration) float64 {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return float64(t.Microseconds()) / 1000 / float64(len(ds))
	}
	b.ReportMetric(pct(tBare, 0.5), "bare-p50-ms")
	b.ReportMetric(pct(tBare, 0.99), "bare-p99-ms")
	b.ReportMetric(pct(tSearch, 0.5), "search-p50-ms")
	b.ReportMetric(pct(tSearch, 0.99), "search-p99-ms")
	b.ReportMetric(mean(tSearch)/mean(tBare), "search/bare")
	_ = filepath.Join
}

func parentID(seq int) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf("m%d", seq-1)
}

// BenchmarkSearchProject: the project option (docs/search.md Q19) against
// the same search without it, over 200 sessions of 100 messages whose
// headers name 10 projects. Every message matches the common word, so the
// filter reads a header for every match: its cost per match. Reports the
// ratio of the means.
func BenchmarkSearchProject(b *testing.B) {
	db, ctx := openStore(b)
	conn, _ := db.Conn(ctx)
	driver.DeferIndexing(ctx, conn, true)
	tx, _ := conn.BeginTx(ctx, nil)
	ins, _ := tx.Prepare(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	for s := range 200 {
		key := fmt.Sprintf("agent:a:s%d", s)
		if err := driver.AddSession(ctx, tx, driver.Session{Key: key}); err != nil {
			b.Fatal(err)
		}
		if _, err := ins.Exec(key, 0, fmt.Sprintf(`{"type":"session","version":3,"id":"s%d","cwd":"/home/ana/src/p%d"}`, s, s%10)); err != nil {
			b.Fatal(err)
		}
		for m := 1; m <= 100; m++ {
			ev := fmt.Sprintf(`{"type":"message","id":"m%d","message":{"role":"user","content":"common words in message %d of session %d"}}`, m, m, s)
			if _, err := ins.Exec(key, m, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	ins.Close()
	tx.Commit()
	reconcileAll(b, ctx, conn, 10*time.Second)
	conn.Close()
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:a:main", Visibility: "agent"}}
	with := opts
	with.Project = "/home/ana/src/p3"
	var tWith, tWithout time.Duration
	for b.Loop() {
		t0 := time.Now()
		res, err := db.Search(ctx, "common", opts)
		t1 := time.Now()
		resP, errP := db.Search(ctx, "common", with)
		t2 := time.Now()
		if err != nil || errP != nil || len(res.Results) != 10 || len(resP.Results) != 10 {
			b.Fatalf("search: %v %v, %d and %d results", err, errP, len(res.Results), len(resP.Results))
		}
		tWithout += t1.Sub(t0)
		tWith += t2.Sub(t1)
	}
	b.ReportMetric(float64(tWith)/float64(tWithout), "project/none")
	b.ReportMetric(float64(tWith.Microseconds())/float64(b.N), "project-µs/op")
	b.ReportMetric(float64(tWithout.Microseconds())/float64(b.N), "none-µs/op")
}
