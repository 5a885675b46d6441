package sqlfuncs

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hitPieces are strings that take every path of AppendJSONString.
var hitPieces = []string{"", "plain", `quo"te`, `back\slash`, "tab\tnl\ncr\r", "\b\f\x00\x01\x1f", "<&>",
	"ünïcödé", "东京", "\u2028", "a\u2029b", "\xff", "\xe2\x80", "caf\xc3", "emoji 😀", "\x7f", "é\u2028"}

func randomHitString(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(4) {
		if r.IntN(3) == 0 {
			sb.WriteByte(byte(r.IntN(256)))
		} else {
			sb.WriteString(hitPieces[r.IntN(len(hitPieces))])
		}
	}
	return sb.String()
}

func checkAppendHit(t testing.TB, hit SearchHit) {
	if got, want := appendHit(nil, hit), encodeJSON(hit); !bytes.Equal(got, want) {
		t.Fatalf("appendHit(%+v)\n = %s\nencodeJSON gives\n   %s", hit, got, want)
	}
}

// TestAppendHit: the hand-written encoding of a result is encodeJSON's,
// byte for byte, for strings that need every kind of escape and for
// scores on both sides of encoding/json's exponent bounds.
func TestAppendHit(t *testing.T) {
	scores := []float64{0, math.Copysign(0, -1), 1, -1, 13.545032760066519, 1e-6, 9.99999e-7, 1e21, 9.999999e20, -1e21, 1e-300, 1e300, 123456789.125, 0.1, 5e-324}
	for _, s := range hitPieces {
		for _, f := range scores {
			checkAppendHit(t, SearchHit{SessionKey: s, MessageID: s, Role: s, Timestamp: -5, Snippet: s, Score: f})
		}
	}
	r := rand.New(rand.NewPCG(14, 4))
	for range 20000 {
		hit := SearchHit{SessionKey: randomHitString(r), MessageID: randomHitString(r), Role: randomHitString(r),
			Timestamp: r.Int64() - r.Int64(), Snippet: randomHitString(r), Score: scores[r.IntN(len(scores))] * r.Float64()}
		if r.IntN(3) == 0 { // a hit of a scope beyond messages (Q33)
			hit.Kind, hit.Tool = randomHitString(r), randomHitString(r)
		}
		checkAppendHit(t, hit)
	}
	for _, indexing := range []bool{false, true} {
		for _, truncated := range []bool{false, true} {
			for _, period := range []*TimeRange{nil, {Phrase: "la semaine dernière <b>", After: 1764460799999, Before: 1765065600000}} {
				want := encodeJSON(SearchResult{Results: []SearchHit{}, Indexing: indexing, Truncated: truncated, Time: period})
				if got := []byte(searchHead + searchTail(indexing, truncated, period)); !bytes.Equal(got, want) {
					t.Errorf("searchHead + searchTail(%v, %v, %v) = %s, want %s", indexing, truncated, period, got, want)
				}
			}
		}
	}
	// Every single byte, alone and after valid text.
	for c := range 256 {
		checkAppendHit(t, SearchHit{Snippet: string([]byte{byte(c)}), MessageID: "é" + string([]byte{byte(c)})})
	}
}

// FuzzAppendHit: any strings and numbers encode as encodeJSON encodes them.
func FuzzAppendHit(f *testing.F) {
	f.Add("agent:main:main", "m1", "user", int64(1), "snippet \u2028 \xff", 13.5)
	f.Fuzz(func(t *testing.T, key, id, role string, ts int64, snippet string, score float64) {
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return // SearchJSON writes those as 0 before encoding
		}
		checkAppendHit(t, SearchHit{SessionKey: key, MessageID: id, Role: role, Timestamp: ts, Snippet: snippet, Score: score})
	})
}

// BenchmarkSearchJSON: SearchJSON of ten results whose snippets hold
// newlines, tabs, quotes and non-Latin text, as catalog and transcript
// snippets do, against encoding/json of the same answer in the same run
// (hand/json, the ratio of the times).
func BenchmarkSearchJSON(b *testing.B) {
	hits := make([]SearchHit, 10)
	for i := range hits {
		hits[i] = SearchHit{SessionKey: "agent:main:subagent:" + strconv.Itoa(i), MessageID: "m" + strconv.Itoa(400+i), Role: "assistant",
			Timestamp: 1772323200270 + int64(i), Score: 13.545032760066519 - float64(i),
			Snippet: "Zwischenspeicher aktualisieren (erzwungen)\n\n\tWarten auf \"Sperre\" für Zwischenspeicher: %s\n東京の会議は午後です"}
	}
	var hand, ref time.Duration
	for b.Loop() {
		t0 := time.Now()
		SearchJSON(hits, false, false, 1<<20, nil)
		t1 := time.Now()
		encodeJSON(SearchResult{Results: hits})
		hand, ref = hand+t1.Sub(t0), ref+time.Since(t1)
	}
	b.ReportMetric(float64(hand)/float64(ref), "hand/json")
}
