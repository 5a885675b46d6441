package browsercheck

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"
)

// BenchmarkKeystrokeToResults: how long after a keystroke the page has
// drawn that keystroke's results (docs/ui.md U12), in Chromium, over the
// store of SESSIONSEARCH_BENCH_DB: the million-message store of
// driver/search_bench_test.go BenchmarkSearch, which that benchmark builds
// and keeps when given the same variable (docs/performance.md). Words of
// the store's own messages are typed one key at a time; after each key the
// benchmark waits for the page's measure from the key's input event to the
// frame that shows its results (performance.measure
// "sessionsearch:results"). The baseline, in the same run, is the two
// requests the page makes for each keystroke (search, then highlight),
// sent from Go: the page's own cost is the rest. Reported: the page's
// p50, p90 and p99 in ms, the p50 of its parts (key to the search's
// answer, then to the highlight's), the baseline's p50 and p99, and the
// ratio of the p50s.
func BenchmarkKeystrokeToResults(b *testing.B) {
	db := os.Getenv("SESSIONSEARCH_BENCH_DB")
	if db == "" {
		b.Fatal("set SESSIONSEARCH_BENCH_DB to the store BenchmarkSearch builds: " +
			"SESSIONSEARCH_BENCH_MESSAGES=1000000 SESSIONSEARCH_BENCH_DB=/tmp/search-1m.db go test -tags sqlite_fts5 -run '^$' -bench 'BenchmarkSearch$' -benchtime 1x ./driver/")
	}
	ui, address := start(b, "ui", "--db", db)
	token := strings.TrimPrefix(address, ui.url+"/#token=")
	words := benchWords(b, ui, token)
	tb := open(b, address)
	tb.wait(`document.getElementById('who').textContent !== ''`)
	var page, search, marks, api []float64
	b.ResetTimer()
	for b.Loop() {
		for _, w := range words {
			tb.do(chromedp.Focus(chromedp.ID("q")))
			tb.eval(`document.getElementById('q').select()`, nil)
			tb.key("\b")
			typed := ""
			for _, r := range w {
				typed += string(r)
				var before int
				tb.eval(`performance.getEntriesByName('sessionsearch:results').length`, &before)
				tb.key(string(r))
				tb.wait(fmt.Sprintf(`performance.getEntriesByName('sessionsearch:results').length > %d && document.getElementById('results').dataset.query === %s`, before, jsString(typed)))
				var ms [3]float64
				tb.eval(`['results', 'search', 'highlight'].map(n => performance.getEntriesByName('sessionsearch:' + n).at(-1).duration)`, &ms)
				page = append(page, ms[0])
				search = append(search, ms[1])
				marks = append(marks, ms[2])
				api = append(api, apiRoundTrip(b, ui, token, typed))
			}
		}
	}
	b.StopTimer()
	p50, apiP50 := percentile(page, 0.5), percentile(api, 0.5)
	b.ReportMetric(p50, "page-p50-ms")
	b.ReportMetric(percentile(page, 0.9), "page-p90-ms")
	b.ReportMetric(percentile(page, 0.99), "page-p99-ms")
	b.ReportMetric(percentile(search, 0.5), "page-search-p50-ms")
	b.ReportMetric(percentile(marks, 0.5), "page-highlight-p50-ms")
	b.ReportMetric(apiP50, "api-p50-ms")
	b.ReportMetric(percentile(api, 0.99), "api-p99-ms")
	b.ReportMetric(p50/apiP50, "page/api-p50")
	b.ReportMetric(float64(len(page))/float64(b.N), "keystrokes")
}

// benchWords are 20 words of the store's messages, of several languages:
// a session's history, its words of at least four letters, drawn at
// random.
func benchWords(b *testing.B, s *service, token string) []string {
	r := rand.New(rand.NewSource(3))
	var words []string
	for len(words) < 20 {
		n := 5 + r.Intn(1995) // a session of BenchmarkSearch's store, not a main one
		key := fmt.Sprintf("agent:a%d:s%d", n%5, n)
		st, out := s.post(b, token, "/v1/history", fmt.Sprintf(`{"sessionKey":%q,"limit":3}`, key))
		if st != 200 {
			continue
		}
		var h struct{ Messages []struct{ Text string } }
		json.Unmarshal(out, &h)
		for _, m := range h.Messages {
			fields := strings.FieldsFunc(m.Text, func(c rune) bool { return !unicode.IsLetter(c) })
			fields = slices.DeleteFunc(fields, func(w string) bool { return len([]rune(w)) < 4 || len([]rune(w)) > 12 })
			if len(fields) > 0 {
				words = append(words, strings.ToLower(fields[r.Intn(len(fields))]))
				break
			}
		}
	}
	return words
}

// apiRoundTrip is the time of the page's two requests for a query, sent
// from Go: the search, then the highlight of its snippets.
func apiRoundTrip(b *testing.B, s *service, token, typed string) float64 {
	q := jsQuery(typed)
	start := time.Now()
	st, out := s.post(b, token, "/v1/search", fmt.Sprintf(`{"query":%s,"prefix":%v,"limit":25,"snippetChars":240}`, q.query, q.prefix))
	if st != 200 {
		b.Fatalf("search %s: %d %s", typed, st, out)
	}
	var res struct{ Results []struct{ Snippet string } }
	json.Unmarshal(out, &res)
	texts := make([]string, len(res.Results))
	for i, r := range res.Results {
		texts[i] = r.Snippet
	}
	body, _ := json.Marshal(map[string]any{"query": typed, "prefix": q.prefix, "texts": texts})
	if st, out := s.post(b, token, "/v1/highlight", string(body)); st != http.StatusOK {
		b.Fatalf("highlight: %d %s", st, out)
	}
	return float64(time.Since(start).Microseconds()) / 1000
}

// jsQuery is what the page sends for a typed word (app.js queryOf): a
// prefix from two characters on.
func jsQuery(typed string) struct {
	query  string
	prefix bool
} {
	q, _ := json.Marshal(typed)
	return struct {
		query  string
		prefix bool
	}{string(q), len([]rune(typed)) >= 2}
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}
