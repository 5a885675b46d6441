package driver_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// BenchmarkSearchWords: queries of 3 to 8 words, as a question leaves them
// once its stopwords are dropped (docs/quality.md QB8), against the store of
// BenchmarkSearch (SESSIONSEARCH_BENCH_MESSAGES messages, default 1,000,000;
// SESSIONSEARCH_BENCH_DB keeps it), searched as the CLI's operator, who
// sees every session, once with each variant of SESSIONSEARCH_BENCH_VARIANTS
// (a JSON object of named option sets, docs/quality.md QB5; default the
// engine's defaults). Two classes of 10 queries for each length 3..8:
// "together", words of one message, so that every word matches it; "apart",
// each word from another message of the same language, so that all of them
// rarely meet in one, which is the work of a search that relaxes. Words are
// runs of letters and marks, of three or more, in the space-separated languages,
// without the 50 most frequent of their language (the store's own
// stopwords). Each query runs SESSIONSEARCH_BENCH_ROUNDS times (default 3)
// with each variant, the variants taking turns to go first. Reported per
// variant: p50 and p99 in ms over all calls and per class, the share of
// queries answered with no message, and each variant's p50 and p99 over
// the first's (<variant>/<first>-p50); the log has a table by class
// and length.
func BenchmarkSearchWords(b *testing.B) {
	messages := benchenv.Int(b, "SESSIONSEARCH_BENCH_MESSAGES", 1_000_000)
	rounds := benchenv.Int(b, "SESSIONSEARCH_BENCH_ROUNDS", 3)
	variants, err := benchenv.ParseVariants(os.Getenv("SESSIONSEARCH_BENCH_VARIANTS"))
	if err != nil {
		b.Fatalf("SESSIONSEARCH_BENCH_VARIANTS: %v", err)
	}
	db, texts := searchCorpus(b, messages, os.Getenv("SESSIONSEARCH_BENCH_DB"))
	// A kept store whose build was cut short has its events but not all of
	// its index: finish it, which costs nothing when it is whole.
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	reconcileAll(b, ctx, conn, 10*time.Second)
	conn.Close()
	queries := wordQueries(texts, rand.New(rand.NewSource(3)))
	texts = nil
	runtime.GC()
	operator := map[string]any{
		"caller":       "agent:main:main",
		"visibility":   "all",
		"agentToAgent": map[string]any{"enabled": true, "allow": []string{"*"}},
	}
	options := make([]string, len(variants))
	for i, v := range variants {
		if options[i], err = v.OptionsJSON(operator); err != nil {
			b.Fatal(err)
		}
	}
	search, err := db.Prepare(`SELECT sessions_search(?1, ?2)`)
	if err != nil {
		b.Fatal(err)
	}
	defer search.Close()
	// times[variant][class] and by length, over every call; empty counts
	// the queries whose first call returned no message.
	times := make([]map[string][]time.Duration, len(variants))
	empty := make([]map[string]int, len(variants))
	for i := range variants {
		times[i], empty[i] = map[string][]time.Duration{}, map[string]int{}
	}
	for b.Loop() {
		for qi, q := range queries {
			for r := range rounds {
				for k := range variants {
					v := (qi + r + k) % len(variants)
					t0 := time.Now()
					var js string
					if err := search.QueryRow(q.text, options[v]).Scan(&js); err != nil {
						b.Fatalf("variant %s: sessions_search(%q, %s): %v", variants[v].Name, q.text, options[v], err)
					}
					d := time.Since(t0)
					length := fmt.Sprintf("%s-%d", q.class, len(strings.Fields(q.text)))
					for _, key := range []string{"all", q.class, length} {
						times[v][key] = append(times[v][key], d)
					}
					if r == 0 && !strings.Contains(js, `"messageId"`) {
						empty[v]["all"]++
						empty[v][q.class]++
					}
				}
			}
		}
	}
	b.StopTimer()
	classes := []string{"all", "together", "apart"}
	counts := map[string]int{"all": len(queries)}
	for _, q := range queries {
		counts[q.class]++
	}
	for v, variant := range variants {
		for _, c := range classes {
			b.ReportMetric(percentile(times[v][c], 0.5), variant.Name+"-"+c+"-p50-ms")
			b.ReportMetric(percentile(times[v][c], 0.99), variant.Name+"-"+c+"-p99-ms")
			b.ReportMetric(100*float64(empty[v][c])/float64(counts[c]), variant.Name+"-"+c+"-empty%")
		}
		if v > 0 {
			first := variants[0].Name
			b.ReportMetric(percentile(times[v]["all"], 0.5)/percentile(times[0]["all"], 0.5), variant.Name+"/"+first+"-p50")
			b.ReportMetric(percentile(times[v]["all"], 0.99)/percentile(times[0]["all"], 0.99), variant.Name+"/"+first+"-p99")
		}
	}
	var log strings.Builder
	fmt.Fprintf(&log, "%d queries, %d rounds; p50 / p99 ms by class and number of words:\n%-10s", len(queries), rounds, "")
	for _, v := range variants {
		fmt.Fprintf(&log, " %20s", v.Name)
	}
	for _, class := range []string{"together", "apart"} {
		for n := minQueryWords; n <= maxQueryWords; n++ {
			key := fmt.Sprintf("%s-%d", class, n)
			fmt.Fprintf(&log, "\n%-10s", key)
			for v := range variants {
				fmt.Fprintf(&log, " %9.2f / %8.2f", percentile(times[v][key], 0.5), percentile(times[v][key], 0.99))
			}
		}
	}
	b.Log(log.String())
}

// The lengths of the queries of BenchmarkSearchWords, in words.
const (
	minQueryWords = 3
	maxQueryWords = 8
)

// wordQueries draws BenchmarkSearchWords' queries from the corpus: for each
// length, 10 "together" and 10 "apart" (see there).
func wordQueries(texts []corpusText, r *rand.Rand) []searchQuery {
	wordsOf := func(t corpusText) []string {
		if t.lang == "ja" || t.lang == "zh_CN" || t.lang == "th" {
			return nil
		}
		var out []string
		// Marks belong to their word: a Devanagari vowel sign is no boundary.
		for _, w := range strings.FieldsFunc(strings.ToLower(t.text), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsMark(c) }) {
			if utf8.RuneCountInString(w) >= 3 && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
		return out
	}
	df := map[string]int{}
	byLang := map[string][]string{}
	for _, t := range texts {
		for _, w := range wordsOf(t) {
			if df[w] == 0 {
				byLang[t.lang] = append(byLang[t.lang], w)
			}
			df[w]++
		}
	}
	stop := map[string]bool{}
	for _, ws := range byLang {
		slices.SortFunc(ws, func(a, b string) int { return df[b] - df[a] })
		for _, w := range ws[:min(50, len(ws))] {
			stop[w] = true
		}
	}
	content := func(t corpusText) []string {
		return slices.DeleteFunc(wordsOf(t), func(w string) bool { return stop[w] })
	}
	// Messages with words, by language, for "apart".
	withWords := map[string][]int{}
	var langs []string
	for i, t := range texts {
		if len(content(t)) > 0 {
			if withWords[t.lang] == nil {
				langs = append(langs, t.lang)
			}
			withWords[t.lang] = append(withWords[t.lang], i)
		}
	}
	slices.Sort(langs)
	var qs []searchQuery
	for n := minQueryWords; n <= maxQueryWords; n++ {
		for range 10 {
			for {
				ws := content(texts[r.Intn(len(texts))])
				if len(ws) < n {
					continue
				}
				r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
				qs = append(qs, searchQuery{"together", strings.Join(ws[:n], " ")})
				break
			}
		}
		for range 10 {
			in := withWords[langs[r.Intn(len(langs))]]
			var ws []string
			for len(ws) < n {
				cand := content(texts[in[r.Intn(len(in))]])
				if w := cand[r.Intn(len(cand))]; !slices.Contains(ws, w) {
					ws = append(ws, w)
				}
			}
			qs = append(qs, searchQuery{"apart", strings.Join(ws, " ")})
		}
	}
	return qs
}
