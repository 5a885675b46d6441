package sqlfuncs

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func noRedact(s string) string { return s }

// conversation returns n messages m0..m(n-1), alternating user and
// assistant, each with a 10-character text.
func conversation(n int) []HistoryMessage {
	msgs := make([]HistoryMessage, n)
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = HistoryMessage{ID: fmt.Sprintf("m%d", i), Role: role, Timestamp: int64(1000 + i), Text: fmt.Sprintf("text %05d", i)}
	}
	return msgs
}

func ids(msgs []HistoryMessage) string {
	var s []string
	for _, m := range msgs {
		s = append(s, m.ID)
	}
	return strings.Join(s, ",")
}

func historyOpts(limit int, anchor string) HistoryOptions {
	o := defaultHistory("c")
	o.Limit, o.MessageID = limit, anchor
	return o
}

func TestHistoryWindow(t *testing.T) {
	path := conversation(10)
	tools := []HistoryMessage{
		{ID: "u1", Role: "user", Text: "run it"},
		{ID: "t1", Role: "toolResult", Text: "ok"},
		{ID: "s1", Role: "system", Text: "compacted"},
		{ID: "a1", Role: "assistant", Text: "done"},
		{ID: "t2", Role: "tool", Text: "log"},
		{ID: "x1", Role: "custom", Text: "?"},
	}
	withTools := func(o HistoryOptions) HistoryOptions { o.IncludeTools = true; return o }
	tests := []struct {
		name    string
		path    []HistoryMessage
		opts    HistoryOptions
		want    string
		hasMore bool
	}{
		{"newest limit", path, historyOpts(3, ""), "m7,m8,m9", true},
		{"limit 1", path, historyOpts(1, ""), "m9", true},
		{"limit equals length", path, historyOpts(10, ""), "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9", false},
		{"limit over length", path, historyOpts(11, ""), "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9", false},
		{"empty path", nil, historyOpts(3, ""), "", false},
		{"anchor alone", path, historyOpts(1, "m5"), "m5", true},
		{"anchor grows older first", path, historyOpts(2, "m5"), "m4,m5", true},
		{"anchor then newer", path, historyOpts(3, "m5"), "m4,m5,m6", true},
		{"anchor alternates", path, historyOpts(4, "m5"), "m3,m4,m5,m6", true},
		{"anchor at the oldest grows newer", path, historyOpts(3, "m0"), "m0,m1,m2", true},
		{"anchor at the newest grows older", path, historyOpts(3, "m9"), "m7,m8,m9", true},
		{"anchor near the start", path, historyOpts(5, "m1"), "m0,m1,m2,m3,m4", true},
		{"anchor window covers all", path, historyOpts(10, "m3"), "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9", false},
		{"anchor window over length", path, historyOpts(1000, "m3"), "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9", false},
		{"anchor not on the path", path, historyOpts(3, "zz"), "", false},
		{"tools left out", tools, historyOpts(10, ""), "u1,a1", false},
		{"tools included", tools, withTools(historyOpts(10, "")), "u1,t1,a1,t2", false},
		{"limit counts kept roles", tools, historyOpts(1, ""), "a1", true},
		{"anchor on a hidden tool message", tools, historyOpts(10, "t1"), "", false},
		{"anchor on an included tool message", tools, withTools(historyOpts(2, "t1")), "u1,t1", true},
		{"anchor on a system message", tools, withTools(historyOpts(10, "s1")), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HistoryWindow("agent:ops:main", tt.path, tt.opts, noRedact)
			if ids(got.Messages) != tt.want || got.HasMore != tt.hasMore || got.Truncated {
				t.Errorf("got %s hasMore=%v truncated=%v, want %s hasMore=%v truncated=false",
					ids(got.Messages), got.HasMore, got.Truncated, tt.want, tt.hasMore)
			}
			if got.SessionKey != "agent:ops:main" {
				t.Errorf("SessionKey = %q", got.SessionKey)
			}
		})
	}
}

func TestHistoryTexts(t *testing.T) {
	// The redactor masks whole secrets only, as a real one does with a
	// token it can no longer recognize once cut. Texts are cut with
	// CutChars: at most maxChars characters, "…" included.
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET-TOKEN", "[R]") }
	tests := []struct {
		name, text string
		maxChars   int
		want       string
		truncated  bool
	}{
		{"short", "hello", 5, "hello", false},
		{"cut", "hello!", 5, "hell…", true},
		{"redacted", "key SECRET-TOKEN here", 4000, "key [R] here", false},
		{"redacted before the cut", "xxSECRET-TOKEN", 6, "xx[R]", false},
		{"redacted then cut", "xxSECRET-TOKENyy", 4, "xx[…", true},
		{"characters not bytes", "héllo wörld", 11, "héllo wörld", false},
		{"cut between characters", "日本語のテキスト", 3, "日本…", true},
		{"emoji kept whole", "a😀bc", 3, "a😀…", true},
		{"one character", "ab", 1, "…", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := historyOpts(10, "")
			o.MaxChars = tt.maxChars
			got := HistoryWindow("s", []HistoryMessage{{ID: "1", Role: "user", Text: tt.text}}, o, redact)
			if len(got.Messages) != 1 || got.Messages[0].Text != tt.want || got.Truncated != tt.truncated {
				t.Errorf("got %+v truncated=%v, want text %q truncated=%v", got.Messages, got.Truncated, tt.want, tt.truncated)
			}
		})
	}
}

func TestHistoryMaxBytes(t *testing.T) {
	path := conversation(10)
	full := HistoryWindow("s", path, historyOpts(10, ""), noRedact)
	size := len(full.JSON())
	// Every message of conversation() encodes to the same size.
	perMessage := len(encodeJSON(path[0])) + 1
	withMax := func(o HistoryOptions, maxBytes int) HistoryOptions { o.MaxBytes = maxBytes; return o }
	tests := []struct {
		name      string
		opts      HistoryOptions
		want      string
		truncated bool
		hasMore   bool
	}{
		{"exactly the full size", withMax(historyOpts(10, ""), size), "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9", false, false},
		{"one byte short drops the oldest", withMax(historyOpts(10, ""), size-1), "m1,m2,m3,m4,m5,m6,m7,m8,m9", true, true},
		{"room for three", withMax(historyOpts(10, ""), size-7*perMessage), "m7,m8,m9", true, true},
		{"limit drops before bytes", withMax(historyOpts(3, ""), size-7*perMessage), "m7,m8,m9", false, true},
		{"anchor window fits", withMax(historyOpts(5, "m5"), size-5*perMessage), "m3,m4,m5,m6,m7", false, true},
		{"anchor drops the farthest newer", withMax(historyOpts(5, "m5"), size-6*perMessage), "m3,m4,m5,m6", true, true},
		{"anchor drops the farthest on both sides", withMax(historyOpts(5, "m5"), size-7*perMessage), "m4,m5,m6", true, true},
		{"anchor alone", withMax(historyOpts(5, "m5"), size-9*perMessage), "m5", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HistoryWindow("s", path, tt.opts, noRedact)
			if ids(got.Messages) != tt.want || got.Truncated != tt.truncated || got.HasMore != tt.hasMore {
				t.Errorf("got %s truncated=%v hasMore=%v, want %s truncated=%v hasMore=%v",
					ids(got.Messages), got.Truncated, got.HasMore, tt.want, tt.truncated, tt.hasMore)
			}
			if n := len(got.JSON()); n > tt.opts.MaxBytes {
				t.Errorf("JSON is %d bytes, over maxBytes %d", n, tt.opts.MaxBytes)
			}
		})
	}
}

func TestHistoryOversizedMessages(t *testing.T) {
	big := strings.Repeat("x", 2000)
	path := conversation(6)
	path[5].Text = big // the newest
	path[2].Text = big
	o := historyOpts(10, "")
	o.MaxBytes = 1000

	got := HistoryWindow("s", path, o, noRedact)
	if ids(got.Messages) != "m0,m1,m2,m3,m4,m5" || !got.Truncated || got.HasMore {
		t.Fatalf("got %s truncated=%v hasMore=%v, want m0..m5 truncated", ids(got.Messages), got.Truncated, got.HasMore)
	}
	for i, m := range got.Messages {
		want := path[i]
		if i == 2 || i == 5 {
			want.Text = OmittedText
		}
		if m != want {
			t.Errorf("message %d = %+v, want %+v", i, m, want)
		}
	}

	o.Limit, o.MessageID = 3, "m2"
	got = HistoryWindow("s", path, o, noRedact)
	if ids(got.Messages) != "m1,m2,m3" || got.Messages[1].Text != OmittedText || !got.Truncated || !got.HasMore {
		t.Errorf("anchored: got %+v truncated=%v hasMore=%v", got.Messages, got.Truncated, got.HasMore)
	}

	// A window that a too-large message would push over maxBytes stops there,
	// and the other side keeps growing.
	path = conversation(8)
	path[5].Text = strings.Repeat("y", 850) // fits alone, not beside the anchor
	o = historyOpts(5, "m4")
	o.MaxBytes = 1000
	got = HistoryWindow("s", path, o, noRedact)
	if ids(got.Messages) != "m2,m3,m4" || !got.Truncated || !got.HasMore {
		t.Errorf("blocked newer side: got %s truncated=%v hasMore=%v, want m2,m3,m4", ids(got.Messages), got.Truncated, got.HasMore)
	}
	o.Limit, o.MessageID = 1, "m5"
	if got := HistoryWindow("s", path, o, noRedact); len(got.Messages) != 1 || got.Messages[0].Text != path[5].Text {
		t.Errorf("m5 alone: got %+v, want its full text", got.Messages)
	}
}

func TestHistoryEnvelopeOverMaxBytes(t *testing.T) {
	key := "agent:ops:" + strings.Repeat("k", 300)
	o := historyOpts(10, "")
	o.MaxBytes = 256
	got := HistoryWindow(key, conversation(3), o, noRedact)
	if len(got.Messages) != 0 || !got.Truncated || !got.HasMore {
		t.Errorf("got %+v, want no messages, truncated and hasMore", got)
	}
	if !json.Valid(got.JSON()) {
		t.Errorf("invalid JSON %s", got.JSON())
	}
}

func TestHistoryJSON(t *testing.T) {
	tests := []struct {
		name string
		r    HistoryResult
		want string
	}{
		{"empty", HistoryResult{SessionKey: "agent:ops:main"}, `{"sessionKey":"agent:ops:main","messages":[],"truncated":false,"hasMore":false}`},
		{"messages", HistoryResult{
			SessionKey: "s",
			Messages: []HistoryMessage{
				{ID: "a", Role: "user", Timestamp: 1700000000000, Text: "if a < b && c > d"},
				{ID: "b", Role: "assistant", Timestamp: -1, Text: "line\n\"quoted\" é \u2028"},
			},
			Truncated: true, HasMore: true,
		}, `{"sessionKey":"s","messages":[{"id":"a","role":"user","timestamp":1700000000000,"text":"if a < b && c > d"},` +
			`{"id":"b","role":"assistant","timestamp":-1,"text":"line\n\"quoted\" é \u2028"}],"truncated":true,"hasMore":true}`},
		{"invalid UTF-8 becomes U+FFFD", HistoryResult{SessionKey: "s\xff", Messages: []HistoryMessage{{Text: "a\xffb"}}},
			`{"sessionKey":"s\ufffd","messages":[{"id":"","role":"","timestamp":0,"text":"a\ufffdb"}],"truncated":false,"hasMore":false}`},
	}
	for _, tt := range tests {
		if got := string(tt.r.JSON()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestHistoryInvariants runs random histories and options and checks what
// must always hold: the JSON fits, the window is contiguous and bounded,
// the anchor is in it, texts are cut, and the flags tell the truth.
func TestHistoryInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2026))
	roles := []string{"user", "assistant", "user", "assistant", "toolResult", "tool", "system"}
	words := []string{"a", "é", "日本", "😀", "<&>", "\"", "\n", strings.Repeat("z", 300)}
	for c := range 3000 {
		path := make([]HistoryMessage, rng.IntN(40))
		for i := range path {
			var text strings.Builder
			for range rng.IntN(30) {
				text.WriteString(words[rng.IntN(len(words))])
			}
			path[i] = HistoryMessage{ID: fmt.Sprintf("id%d", i), Role: roles[rng.IntN(len(roles))], Timestamp: int64(i), Text: text.String()}
		}
		o := historyOpts(1+rng.IntN(30), "")
		o.IncludeTools = rng.IntN(2) == 0
		o.MaxChars = 1 + rng.IntN(500)
		o.MaxBytes = 256 + rng.IntN(4000)
		if len(path) > 0 && rng.IntN(2) == 0 {
			o.MessageID = path[rng.IntN(len(path))].ID
		}
		got := HistoryWindow("agent:ops:subagent:x", path, o, noRedact)

		var kept []HistoryMessage
		for _, m := range path {
			if m.Role == "user" || m.Role == "assistant" || (o.IncludeTools && (m.Role == "tool" || m.Role == "toolResult")) {
				kept = append(kept, m)
			}
		}
		anchor := slices.IndexFunc(kept, func(m HistoryMessage) bool { return m.ID == o.MessageID })
		fail := func(format string, args ...any) {
			t.Fatalf("case %d, options %+v, %d kept: %s", c, o, len(kept), fmt.Sprintf(format, args...))
		}
		js := got.JSON()
		if len(js) > o.MaxBytes {
			fail("JSON is %d bytes, over %d", len(js), o.MaxBytes)
		}
		if !json.Valid(js) {
			fail("invalid JSON")
		}
		if len(got.Messages) > o.Limit {
			fail("%d messages, over limit", len(got.Messages))
		}
		if o.MessageID != "" && anchor < 0 {
			if len(got.Messages) != 0 || got.HasMore || got.Truncated {
				fail("anchor not kept, got %+v", got)
			}
			continue
		}
		if len(got.Messages) == 0 {
			if len(kept) > 0 {
				fail("no messages although %d are kept", len(kept))
			}
			continue
		}
		first := slices.IndexFunc(kept, func(m HistoryMessage) bool { return m.ID == got.Messages[0].ID })
		for i, m := range got.Messages {
			src := kept[first+i]
			if m.ID != src.ID || m.Role != src.Role || m.Timestamp != src.Timestamp {
				fail("message %d is %s, want %s: not contiguous", i, m.ID, src.ID)
			}
			if m.Text != OmittedText && utf8.RuneCountInString(m.Text) > o.MaxChars+1 {
				fail("text of %s has %d characters", m.ID, utf8.RuneCountInString(m.Text))
			}
			if m.Text != src.Text && !got.Truncated {
				fail("text of %s changed without truncated", m.ID)
			}
		}
		last := first + len(got.Messages)
		if o.MessageID == "" && last != len(kept) {
			fail("the newest message is missing")
		}
		if o.MessageID != "" && (anchor < first || anchor >= last) {
			fail("the anchor is missing")
		}
		if hasMore := first > 0 || last < len(kept); got.HasMore != hasMore {
			fail("hasMore = %v, want %v", got.HasMore, hasMore)
		}
		if len(got.Messages) < min(o.Limit, len(kept)) && !got.Truncated {
			fail("%d messages dropped without truncated", min(o.Limit, len(kept))-len(got.Messages))
		}
	}
}

func TestSearchJSON(t *testing.T) {
	r := SearchHit{SessionKey: "agent:ops:main", MessageID: "m1", Role: "user", Timestamp: 1700000000000, Snippet: "a <b> & c", Score: 1.25}
	tests := []struct {
		name                string
		results             []SearchHit
		indexing, truncated bool
		want                string
	}{
		{"no results", nil, false, false, `{"results":[],"indexing":false,"truncated":false}`},
		{"flags", []SearchHit{}, true, true, `{"results":[],"indexing":true,"truncated":true}`},
		{"one result", []SearchHit{r}, false, false,
			`{"results":[{"sessionKey":"agent:ops:main","messageId":"m1","role":"user","timestamp":1700000000000,"snippet":"a <b> & c","score":1.25}],"indexing":false,"truncated":false}`},
		{"scores", []SearchHit{{Score: 0}, {Score: -3.5}, {Score: 1e-7}, {Score: math.NaN()}, {Score: math.Inf(1)}}, false, false,
			`{"results":[` +
				`{"sessionKey":"","messageId":"","role":"","timestamp":0,"snippet":"","score":0},` +
				`{"sessionKey":"","messageId":"","role":"","timestamp":0,"snippet":"","score":-3.5},` +
				`{"sessionKey":"","messageId":"","role":"","timestamp":0,"snippet":"","score":1e-7},` +
				`{"sessionKey":"","messageId":"","role":"","timestamp":0,"snippet":"","score":0},` +
				`{"sessionKey":"","messageId":"","role":"","timestamp":0,"snippet":"","score":0}],"indexing":false,"truncated":false}`},
	}
	for _, tt := range tests {
		if got := string(SearchJSON(tt.results, tt.indexing, tt.truncated, 1<<20, nil)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	in := []SearchHit{{Score: math.NaN()}}
	SearchJSON(in, false, false, 1<<20, nil)
	if !math.IsNaN(in[0].Score) {
		t.Errorf("SearchJSON changed its input")
	}
}

// TestSearchJSONMaxBytes tries every maxBytes around the sizes of interest
// against a brute force: the most leading results whose JSON fits.
func TestSearchJSONMaxBytes(t *testing.T) {
	var results []SearchHit
	for i := range 5 {
		results = append(results, SearchHit{
			SessionKey: "agent:ops:main", MessageID: fmt.Sprintf("m%d", i), Role: "assistant",
			Timestamp: int64(i), Snippet: strings.Repeat("é", 10*i), Score: float64(5 - i),
		})
	}
	for _, indexing := range []bool{false, true} {
		for _, truncated := range []bool{false, true} {
			full := len(SearchJSON(results, indexing, truncated, 1<<20, nil))
			for maxBytes := 0; maxBytes <= full+2; maxBytes++ {
				var want []byte
				for k := len(results); k >= 0; k-- {
					env := SearchResult{Results: append([]SearchHit{}, results[:k]...), Indexing: indexing, Truncated: truncated || k < len(results)}
					if want = encodeJSON(env); len(want) <= maxBytes {
						break
					}
				}
				got := SearchJSON(results, indexing, truncated, maxBytes, nil)
				if string(got) != string(want) {
					t.Fatalf("indexing=%v truncated=%v maxBytes=%d:\n got %s\nwant %s", indexing, truncated, maxBytes, got, want)
				}
			}
		}
	}
	// The boundaries, spelled out.
	full := len(SearchJSON(results, false, false, 1<<20, nil))
	var out SearchResult
	for _, tt := range []struct {
		maxBytes, results int
		truncated         bool
	}{{full, 5, false}, {full - 1, 4, true}, {256, 1, true}, {0, 0, true}} {
		if err := json.Unmarshal(SearchJSON(results, false, false, tt.maxBytes, nil), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Results) != tt.results || out.Truncated != tt.truncated {
			t.Errorf("maxBytes %d: %d results truncated=%v, want %d truncated=%v", tt.maxBytes, len(out.Results), out.Truncated, tt.results, tt.truncated)
		}
	}
}

func ExampleSearchJSON() {
	results := []SearchHit{
		{SessionKey: "agent:ops:main", MessageID: "m7", Role: "assistant", Timestamp: 1700000000000, Snippet: "deploy to staging", Score: 2.5},
		{SessionKey: "agent:ops:main", MessageID: "m3", Role: "user", Timestamp: 1690000000000, Snippet: "deploy failed", Score: 1.5},
	}
	fmt.Println(string(SearchJSON(results, false, false, 200, nil)))
	// Output: {"results":[{"sessionKey":"agent:ops:main","messageId":"m7","role":"assistant","timestamp":1700000000000,"snippet":"deploy to staging","score":2.5}],"indexing":false,"truncated":true}
}

// TestHistoryWindowReach: HistoryWindow over only the messages
// HistoryWindowReach names (the newest, or the anchor and those on each
// side of it, counted among the messages of its roles) gives the answer it
// gives over the whole path, for every limit, anchor, role mix and byte
// budget: what lets a reader of a long session stop early.
func TestHistoryWindowReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2026))
	roles := []string{"user", "assistant", "toolResult", "system"}
	trimmed := 0
	for c := range 3000 {
		path := make([]HistoryMessage, rng.IntN(60))
		for i := range path {
			path[i] = HistoryMessage{ID: fmt.Sprintf("id%d", rng.IntN(len(path))), Role: roles[rng.IntN(len(roles))], Timestamp: int64(i), Text: strings.Repeat("w ", 1+rng.IntN(40))}
		}
		o := historyOpts(1+rng.IntN(12), "")
		o.IncludeTools = rng.IntN(2) == 0
		o.MaxBytes = 256 + rng.IntN(2000)
		if len(path) > 0 && rng.IntN(2) == 0 {
			o.MessageID = path[rng.IntN(len(path))].ID
		}
		var kept []HistoryMessage
		for _, m := range path {
			if HistoryRole(m.Role, o.IncludeTools) {
				kept = append(kept, m)
			}
		}
		newest, perSide := HistoryWindowReach(o.Limit)
		var reach []HistoryMessage
		if o.MessageID == "" {
			reach = kept[max(0, len(kept)-newest):]
		} else if a := slices.IndexFunc(kept, func(m HistoryMessage) bool { return m.ID == o.MessageID }); a >= 0 {
			reach = kept[max(0, a-perSide):min(len(kept), a+perSide+1)]
		}
		if len(reach) < len(kept) {
			trimmed++
		}
		want, got := HistoryWindow("k", path, o, noRedact), HistoryWindow("k", reach, o, noRedact)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d, options %+v: over the reach %+v\nover the whole path %+v", c, o, got, want)
		}
	}
	if trimmed < 1000 {
		t.Fatalf("only %d of 3000 cases leave messages out of the reach", trimmed)
	}
}
