package driver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchdata"
	"github.com/sessionsearch/sessionsearch/internal/benchenv"
	"github.com/sessionsearch/sessionsearch/query"
)

// BenchmarkSearch: sessions_search against the bare FTS5 query on the same
// index (MATCH ... ORDER BY rank LIMIT 10), over SESSIONSEARCH_BENCH_MESSAGES
// messages (default 1,000,000) of real text: translated strings of the
// gettext catalogs of 18 languages in 2,000 sessions of 5 agents, each
// session in one language. Query classes (searchQueries): a rare word, a
// common word, two words of one message, and a CJK substring inside a run;
// callers: a session with a spawn tree under "tree" visibility, and an
// agent's main session (which sees all its agent's sessions). For each class
// and caller it reports the ratio of the means and of the p99s,
// search/bare. SESSIONSEARCH_BENCH_DB names a file to keep the built
// database in and reuse on the next run (building 1M messages takes
// minutes); it is rebuilt when its size differs.
func BenchmarkSearch(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_BENCH_MESSAGES", 1_000_000)
	db, texts := searchCorpus(b, messages, os.Getenv("SESSIONSEARCH_BENCH_DB"))
	queries := searchQueries(texts, rand.New(rand.NewSource(2)))
	bare, err := db.Prepare(`SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH ?1 ORDER BY rank LIMIT 10`)
	if err != nil {
		b.Fatal(err)
	}
	search, _ := db.Prepare(`SELECT sessions_search(?1, ?2)`)
	callers := []struct{ name, options string }{
		{"tree", `{"caller":"` + benchSessionKey(7) + `","visibility":"tree"}`},
		{"main", `{"caller":"` + benchSessionKey(0) + `"}`},
	}
	type timing struct{ bare, search []time.Duration }
	times := map[string]*timing{}
	// The corpus and the frequency tables are garbage now: collect them
	// before timing, so that marking a large heap does not slow the first
	// searches (the Go side of sessions_search more than the bare query).
	texts = nil
	runtime.GC()
	run := func(q searchQuery, options string, t *timing) {
		parsed, err := query.Parse(q.text, false)
		if err != nil {
			b.Fatal(err)
		}
		expr := query.NewPlan(parsed).All
		t0 := time.Now()
		rows, err := bare.Query(expr)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		t1 := time.Now()
		var js string
		if err := search.QueryRow(q.text, options).Scan(&js); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		t.bare = append(t.bare, t1.Sub(t0))
		t.search = append(t.search, t2.Sub(t1))
	}
	b.ResetTimer()
	for b.Loop() {
		for _, c := range callers {
			for _, q := range queries {
				name := q.class + "-" + c.name
				if times[name] == nil {
					times[name] = &timing{}
				}
				run(q, c.options, times[name])
			}
		}
	}
	b.StopTimer()
	var all timing
	for name, t := range times {
		b.ReportMetric(mean(t.search)/mean(t.bare), name+"-mean/bare")
		b.ReportMetric(percentile(t.search, 0.99)/percentile(t.bare, 0.99), name+"-p99/bare")
		all.bare = append(all.bare, t.bare...)
		all.search = append(all.search, t.search...)
	}
	b.ReportMetric(percentile(all.bare, 0.5), "bare-p50-ms")
	b.ReportMetric(percentile(all.bare, 0.99), "bare-p99-ms")
	b.ReportMetric(percentile(all.search, 0.5), "search-p50-ms")
	b.ReportMetric(percentile(all.search, 0.99), "search-p99-ms")
	b.ReportMetric(mean(all.search)/mean(all.bare), "search/bare")
}

// BenchmarkSearchAnswers: a search as the CLI and the MCP tool run it
// (docs/search.md Q31: the query language, relaxed matching, results by
// session) against the literal default on the same queries, over
// BenchmarkSearch's corpus and callers. The queries are BenchmarkSearch's
// and, as the class "question", runs of 4 to 8 words of a message
// (stopwords included), of which the store may hold no message with all.
// It reports the p50 and p99 of each, in ms, the answers' p50 and p99 by
// class, and the ratios of the answers' mean to the literal search's, in
// all and by class.
func BenchmarkSearchAnswers(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_BENCH_MESSAGES", 1_000_000)
	db, texts := searchCorpus(b, messages, os.Getenv("SESSIONSEARCH_BENCH_DB"))
	r := rand.New(rand.NewSource(3))
	queries := searchQueries(texts, r)
	for len(queries) < 200 {
		t := texts[r.Intn(len(texts))]
		ws := strings.Fields(t.text)
		if t.lang == "ja" || t.lang == "zh_CN" || t.lang == "th" || len(ws) < 4 {
			continue
		}
		n := min(len(ws), 4+r.Intn(5))
		at := r.Intn(len(ws) - n + 1)
		queries = append(queries, searchQuery{"question", strings.Join(ws[at:at+n], " ")})
	}
	texts = nil
	runtime.GC()
	search, err := db.Prepare(`SELECT sessions_search(?1, ?2)`)
	if err != nil {
		b.Fatal(err)
	}
	callers := []string{`"caller":"` + benchSessionKey(7) + `","visibility":"tree"`, `"caller":"` + benchSessionKey(0) + `"`}
	const answers = `,"syntax":"query","match":"relaxed","group":"session"`
	times := map[string][]time.Duration{}
	timed := func(mode string, q searchQuery, options string) {
		t0 := time.Now()
		var js string
		if err := search.QueryRow(q.text, options).Scan(&js); err != nil {
			b.Fatalf("%s %q: %v", mode, q.text, err)
		}
		d := time.Since(t0)
		times[mode] = append(times[mode], d)
		times[q.class+"-"+mode] = append(times[q.class+"-"+mode], d)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, c := range callers {
			for _, q := range queries {
				timed("literal", q, "{"+c+"}")
				timed("answers", q, "{"+c+answers+"}")
			}
		}
	}
	b.StopTimer()
	for name, ts := range times {
		if class, ok := strings.CutSuffix(name, "-answers"); ok {
			lit := times[class+"-literal"]
			b.ReportMetric(mean(ts)/mean(lit), class+"-mean/literal")
			b.ReportMetric(percentile(ts, 0.5), class+"-p50-ms")
			b.ReportMetric(percentile(ts, 0.99), class+"-p99-ms")
		}
	}
	for _, name := range []string{"literal", "answers"} {
		b.ReportMetric(percentile(times[name], 0.5), name+"-p50-ms")
		b.ReportMetric(percentile(times[name], 0.99), name+"-p99-ms")
	}
	b.ReportMetric(mean(times["answers"])/mean(times["literal"]), "answers/literal")
}

// BenchmarkSearchAfterWrite: what a write on the same connection costs the
// next search. A connection keeps its callers' visibility decisions while
// the sessions are unchanged (docs/search.md Q21), so an append should cost
// the next search nothing, while a new session makes it read every
// session again. Rare-word queries of BenchmarkSearch for an agent's main
// session, over SESSIONSEARCH_AFTERWRITE_MESSAGES messages (default 40,000)
// in its 2,000 sessions; each query is timed alone, after an append to an
// existing session, and after a new session (each time the same query
// again). Reported: the mean of each against the mean alone.
func BenchmarkSearchAfterWrite(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_AFTERWRITE_MESSAGES", 40_000)
	db, texts := searchCorpus(b, messages, "")
	var queries []searchQuery
	for _, q := range searchQueries(texts, rand.New(rand.NewSource(2))) {
		if q.class == "rare" {
			queries = append(queries, q)
		}
	}
	texts = nil
	runtime.GC()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	options := `{"caller":"` + benchSessionKey(0) + `"}`
	search := func(q searchQuery) time.Duration {
		t0 := time.Now()
		var js string
		if err := conn.QueryRowContext(ctx, `SELECT sessions_search(?1, ?2)`, q.text, options).Scan(&js); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// The writer appends to a session of its own, each message the child of
	// the one before, as an agent writes its transcript.
	writer := benchSessionKey(0) + ":writer"
	if err := driver.AddSession(ctx, conn, driver.Session{Key: writer}); err != nil {
		b.Fatal(err)
	}
	var alone, afterAppend, afterSession []time.Duration
	n, parent := 0, ""
	for b.Loop() {
		for _, q := range queries {
			search(q) // after the last write of the loop
			alone = append(alone, search(q))
			n++
			id := fmt.Sprintf("w%d", n)
			if _, err := driver.Append(ctx, conn, writer, message(id, parent, "user", "qqwrite", int64(n))); err != nil {
				b.Fatal(err)
			}
			parent = id
			afterAppend = append(afterAppend, search(q))
			if err := driver.AddSession(ctx, conn, driver.Session{Key: fmt.Sprintf("agent:a1:new%d", n)}); err != nil {
				b.Fatal(err)
			}
			afterSession = append(afterSession, search(q))
		}
	}
	b.ReportMetric(mean(afterAppend)/mean(alone), "after-append/alone")
	b.ReportMetric(mean(afterSession)/mean(alone), "after-new-session/alone")
	b.ReportMetric(mean(alone)*1000, "alone-µs")
}

// percentile is the p-th quantile of ds in milliseconds.
func percentile(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000
}

// mean is the mean of ds in milliseconds.
func mean(ds []time.Duration) float64 {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return float64(t.Microseconds()) / 1000 / float64(len(ds))
}

// searchLanguages are the catalogs BenchmarkSearch's sessions are written in.
var searchLanguages = []string{"en_GB", "de", "fr", "es", "it", "pt_BR", "pl", "tr", "vi", "ru", "uk", "el", "ar", "he", "hi", "ja", "zh_CN", "ko", "th"}

// benchSessionKey is the key of session s of searchCorpus: agents a0..a4,
// sessions 0..4 their main sessions.
func benchSessionKey(s int) string {
	if s < 5 {
		return fmt.Sprintf("agent:a%d:main", s)
	}
	return fmt.Sprintf("agent:a%d:s%d", s%5, s)
}

// searchCorpus returns a store of messages messages in 2,000 sessions, and
// each message's text and language. Half the sessions after the main ones
// were spawned by an earlier session. Each message is 1-6 strings of its
// session's catalog. The store is kept at path when it is not empty.
func searchCorpus(b testing.TB, messages int, path string) (*driver.DB, []corpusText) {
	const sessions = 2000
	r := rand.New(rand.NewSource(1))
	catalogs := make([][]string, len(searchLanguages))
	for i, lang := range searchLanguages {
		catalogs[i] = need(b, "the gettext catalog of "+lang, benchdata.Catalogs(lang))
	}
	texts := make([]corpusText, messages)
	for m := range texts {
		lang := (m % sessions) % len(searchLanguages)
		var parts []string
		for range 1 + r.Intn(6) {
			parts = append(parts, catalogs[lang][r.Intn(len(catalogs[lang]))])
		}
		texts[m] = corpusText{lang: searchLanguages[lang], text: strings.Join(parts, "\n")}
	}
	if path == "" {
		path = filepath.Join(b.TempDir(), "search.db")
	}
	if db, err := driver.Open(path); err == nil {
		var n int
		if db.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n); n == messages {
			b.Cleanup(func() { db.Close() })
			return db, texts
		}
		db.Close()
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	db, err := driver.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	conn, _ := db.Conn(ctx)
	defer conn.Close()
	driver.DeferIndexing(ctx, conn, true)
	// The connection goes back to the pool: a later db.Conn must not
	// inherit the deferral.
	defer driver.DeferIndexing(ctx, conn, false)
	start := time.Now()
	tx, _ := conn.BeginTx(ctx, nil)
	ins, _ := tx.Prepare(`INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`)
	for s := range sessions {
		spawnedBy := ""
		if s >= 5 && r.Intn(2) == 0 {
			spawnedBy = benchSessionKey(r.Intn(s))
		}
		if err := driver.AddSession(ctx, tx, driver.Session{Key: benchSessionKey(s), SpawnedBy: spawnedBy}); err != nil {
			b.Fatal(err)
		}
	}
	for m, t := range texts {
		s, seq := m%sessions, m/sessions
		role := []string{"user", "assistant"}[seq%2]
		text, _ := json.Marshal(t.text)
		ev := fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"timestamp":%d,"message":{"role":%q,"content":%s}}`, seq, parentOf(seq), m, role, text)
		if _, err := ins.Exec(benchSessionKey(s), seq, ev); err != nil {
			b.Fatal(err)
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	loaded := time.Since(start)
	start = time.Now()
	reconcileAll(b, ctx, conn, 10*time.Second)
	b.Logf("%d messages in %d sessions: loaded in %v, indexed in %v", messages, sessions, loaded, time.Since(start))
	return db, texts
}

// corpusText is one message of searchCorpus.
type corpusText struct{ lang, text string }

// searchQuery is one query of BenchmarkSearch and its class.
type searchQuery struct{ class, text string }

// searchQueries draws 40 queries of each class from the corpus by document
// frequency: "rare" a word in 2-10 messages, "common" one of the 30 most
// frequent words of a language, "two" two words of one message each in at
// least 50, "cjk" two Han, Kana or Hangul letters inside a longer run, in at
// least 5. Words are letter runs of space-separated scripts, lower-cased;
// Thai and CJK text gives none.
func searchQueries(texts []corpusText, r *rand.Rand) []searchQuery {
	df := map[string]int{}
	lang := map[string]string{}
	cjkDF := map[string]int{}
	wordsOf := func(t corpusText) []string {
		if t.lang == "ja" || t.lang == "zh_CN" || t.lang == "th" {
			return nil
		}
		return strings.FieldsFunc(strings.ToLower(t.text), func(c rune) bool { return !unicode.IsLetter(c) })
	}
	cjkPairs := func(t corpusText) []string {
		var pairs []string
		rs := []rune(t.text)
		for i := 0; i+2 < len(rs); i++ {
			if cjkLetter(rs[i]) && cjkLetter(rs[i+1]) && cjkLetter(rs[i+2]) && (i == 0 || cjkLetter(rs[i-1])) {
				pairs = append(pairs, string(rs[i:i+2]))
			}
		}
		return pairs
	}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, w := range wordsOf(t) {
			if utf8.RuneCountInString(w) > 2 && !seen[w] {
				seen[w] = true
				df[w]++
				lang[w] = t.lang
			}
		}
		for _, p := range cjkPairs(t) {
			if !seen[p] {
				seen[p] = true
				cjkDF[p]++
			}
		}
	}
	sorted := func(m map[string]int, keep func(string, int) bool) []string {
		var out []string
		for w, n := range m {
			if keep(w, n) {
				out = append(out, w)
			}
		}
		slices.Sort(out)
		return out
	}
	pick := func(class string, from []string) []searchQuery {
		var qs []searchQuery
		for range 40 {
			if len(from) > 0 {
				qs = append(qs, searchQuery{class, from[r.Intn(len(from))]})
			}
		}
		return qs
	}
	rare := sorted(df, func(_ string, n int) bool { return n >= 2 && n <= 10 })
	byLang := map[string][]string{}
	for _, w := range sorted(df, func(string, int) bool { return true }) {
		byLang[lang[w]] = append(byLang[lang[w]], w)
	}
	var common []string
	for _, ws := range byLang {
		slices.SortStableFunc(ws, func(a, b string) int { return df[b] - df[a] })
		common = append(common, ws[:min(30, len(ws))]...)
	}
	slices.Sort(common)
	var two []string
	for len(two) < 40 {
		t := texts[r.Intn(len(texts))]
		var ws []string
		for _, w := range wordsOf(t) {
			if df[w] >= 50 && !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
		if len(ws) >= 2 {
			two = append(two, ws[0]+" "+ws[len(ws)-1])
		}
	}
	qs := append(pick("rare", rare), pick("common", common)...)
	qs = append(qs, pick("two", two)...)
	return append(qs, pick("cjk", sorted(cjkDF, func(_ string, n int) bool { return n >= 5 }))...)
}

// cjkLetter reports whether c is a Han, Hiragana, Katakana or Hangul letter.
func cjkLetter(c rune) bool {
	return unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
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
