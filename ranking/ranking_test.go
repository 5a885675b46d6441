package ranking

import (
	"math"
	"reflect"
	"testing"
)

const day = 24 * 3600 * 1000 // milliseconds

// cov packs a coverage as sessionsearch_coverage does (extension/bridge.c):
// the masks of the words held in any form and as written, and their
// counts.
func cov(anyMask, exactMask uint32) Coverage {
	nAny, nExact := 0, 0
	for i := range 32 {
		nAny += int(anyMask>>i) & 1
		nExact += int(exactMask>>i) & 1
	}
	return Coverage(int64(nAny)<<54 | int64(nExact)<<48 | int64(anyMask&0xffffff)<<24 | int64(exactMask&0xffffff))
}

// equal gives n words the same weight, as a store where each is in one
// message of a thousand, and one session of a hundred.
func equal(n int) Weights {
	messages := make([]int64, n)
	sessions := make([]int64, n)
	for i := range n {
		messages[i], sessions[i] = 1, 1
	}
	return NewWeights(1000, 100, messages, sessions)
}

// TestCoverage: the packing of sessionsearch_coverage, which the extension
// computes in C and ranking reads (docs/search.md Q26).
func TestCoverage(t *testing.T) {
	tests := []struct {
		name         string
		c            Coverage
		any, exact   uint32
		nAny, nExact int
	}{
		{"nothing", 0, 0, 0, 0, 0},
		{"one word as written, one in another form", cov(0b11, 0b01), 0b11, 0b01, 2, 1},
		{"the 24th word", cov(1<<23, 1<<23), 1 << 23, 1 << 23, 1, 1},
		{"the exact tier, 3 words", Full(3), 0b111, 0b111, 3, 3},
		{"the exact tier, no words", Full(0), 0, 0, 0, 0},
		{"the exact tier, 24 words", Full(24), 1<<24 - 1, 1<<24 - 1, 24, 24},
		// Past MaxWords the counts go on, the masks stop.
		{"the exact tier, 30 words", Full(30), 1<<24 - 1, 1<<24 - 1, 30, 30},
	}
	for _, tt := range tests {
		if tt.c.Any() != tt.any || tt.c.Exact() != tt.exact || tt.c.NAny() != tt.nAny || tt.c.NExact() != tt.nExact {
			t.Errorf("%s: any %b exact %b, %d and %d words; want %b %b, %d and %d",
				tt.name, tt.c.Any(), tt.c.Exact(), tt.c.NAny(), tt.c.NExact(), tt.any, tt.exact, tt.nAny, tt.nExact)
		}
	}
}

// TestWeights: a rare word is worth more than a common one, over messages
// and over sessions (docs/search.md Q29).
func TestWeights(t *testing.T) {
	// "heartbeat" in 5 of 100,000 messages (2 of 500 sessions), "file"
	// in 20,000 (400), "the" in every one.
	w := NewWeights(100000, 500, []int64{5, 20000, 100000}, []int64{2, 400, 500})
	if !(w.Message[0] > w.Message[1] && w.Message[1] > w.Message[2]) {
		t.Errorf("message weights %v: want the rarest word first", w.Message)
	}
	if !(w.Session[0] > w.Session[1] && w.Session[1] > w.Session[2]) {
		t.Errorf("session weights %v: want the rarest word first", w.Session)
	}
	// bm25's idf: a word in every message still counts a little, so that
	// holding it beats not holding it; a word in every session counts
	// nothing for a session's score.
	if w.Message[2] <= 0 || w.Message[2] > 0.01 {
		t.Errorf("a word in every message weighs %v, want a little above 0", w.Message[2])
	}
	if w.Session[2] != 0 {
		t.Errorf("a word in every session weighs %v, want 0", w.Session[2])
	}
	if want := math.Log(1 + (100000-5+0.5)/(5+0.5)); math.Abs(w.Message[0]-want) > 1e-12 {
		t.Errorf("idf of a word in 5 of 100000 messages = %v, want %v", w.Message[0], want)
	}
	if want := math.Log(501.0 / 3); math.Abs(w.Session[0]-want) > 1e-12 {
		t.Errorf("idf of a word in 2 of 500 sessions = %v, want %v", w.Session[0], want)
	}

	// Counts out of range (a count capped by the search, an empty store)
	// give finite weights, never NaN or negative ones.
	for _, c := range []struct {
		N, S        int64
		n, s        []int64
		description string
	}{
		{0, 0, []int64{0}, []int64{0}, "an empty store"},
		{10, 1, []int64{50}, []int64{7}, "more matches than messages"},
		{10, 1, []int64{-1}, []int64{-1}, "a negative count"},
		{0, 0, nil, nil, "no words"},
	} {
		w := NewWeights(c.N, c.S, c.n, c.s)
		if len(w.Message) != len(c.n) || len(w.Session) != len(c.s) {
			t.Errorf("%s: %d and %d weights, want %d", c.description, len(w.Message), len(w.Session), len(c.n))
		}
		for _, x := range append(append([]float64{}, w.Message...), w.Session...) {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				t.Errorf("%s: weight %v", c.description, x)
			}
		}
	}
}

// TestMatch: how a hit says it matched (docs/search.md Q26).
func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		hit  Hit
		n    int
		want string
	}{
		{"the exact tier", Hit{Exact: true, Cov: Full(3)}, 3, MatchAll},
		{"every word as written, from the relaxed tier", Hit{Cov: cov(0b111, 0b111)}, 3, MatchAll},
		{"every word, one in another form", Hit{Cov: cov(0b111, 0b011)}, 3, MatchForms},
		{"every word, all in other forms", Hit{Cov: cov(0b11, 0)}, 2, MatchForms},
		{"two words of three", Hit{Cov: cov(0b011, 0b011)}, 3, MatchSome},
		{"one word of three, in another form", Hit{Cov: cov(0b100, 0)}, 3, MatchSome},
		{"no words to match", Hit{}, 0, MatchAll},
		{"30 words, all held", Hit{Cov: Full(30)}, 30, MatchAll},
	}
	for _, tt := range tests {
		if got := tt.hit.Match(tt.n); got != tt.want {
			t.Errorf("%s: Match = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestOrder: the order of hits (docs/search.md Q29), each case a set of
// hits given worst first and the message ids in the order a person should
// see them.
func TestOrder(t *testing.T) {
	now := int64(1_700_000_000_000)
	// A question of three words: 0 and 1 common, 2 rare.
	skewed := NewWeights(100000, 1000, []int64{30000, 30000, 10}, []int64{900, 900, 3})
	tests := []struct {
		name  string
		order string
		w     Weights
		hits  []Hit
		want  []string
	}{
		{"the exact tier first, whatever its score", OrderRelevance, equal(2), []Hit{
			{MessageID: "relaxed-all", Score: 50, Cov: cov(0b11, 0b11), Timestamp: now},
			{MessageID: "exact", Score: 1, Cov: Full(2), Exact: true, Timestamp: now - day},
		}, []string{"exact", "relaxed-all"}},
		{"all words in other forms above some words as written", OrderRelevance, equal(3), []Hit{
			{MessageID: "two-of-three", Score: 30, Cov: cov(0b011, 0b011)},
			{MessageID: "forms", Score: 2, Cov: cov(0b111, 0b001)},
			{MessageID: "as-written", Score: 1, Cov: cov(0b111, 0b111)},
		}, []string{"as-written", "forms", "two-of-three"}},
		{"a rare word outweighs two common ones", OrderRelevance, skewed, []Hit{
			{MessageID: "common-two", Score: 20, Cov: cov(0b011, 0b011)},
			{MessageID: "rare-one", Score: 5, Cov: cov(0b100, 0b100)},
		}, []string{"rare-one", "common-two"}},
		{"a rare word in another form still outweighs a common one", OrderRelevance, skewed, []Hit{
			{MessageID: "common", Score: 20, Cov: cov(0b001, 0b001)},
			{MessageID: "rare-form", Score: 5, Cov: cov(0b100, 0)},
		}, []string{"rare-form", "common"}},
		{"as many words: as written before other forms", OrderRelevance, equal(3), []Hit{
			{MessageID: "form", Score: 9, Cov: cov(0b011, 0b001)},
			{MessageID: "written", Score: 1, Cov: cov(0b011, 0b011)},
		}, []string{"written", "form"}},
		{"same words: the better score", OrderRelevance, equal(3), []Hit{
			{MessageID: "b", Score: 1, Cov: cov(0b011, 0b011), Timestamp: now},
			{MessageID: "a", Score: 2, Cov: cov(0b011, 0b011), Timestamp: now - 100*day},
		}, []string{"a", "b"}},
		{"recent: the newest among the same words", OrderRecent, equal(3), []Hit{
			{MessageID: "old-better", Score: 9, Cov: cov(0b011, 0b011), Timestamp: now - day},
			{MessageID: "new", Score: 1, Cov: cov(0b011, 0b011), Timestamp: now},
			{MessageID: "exact-old", Score: 1, Cov: Full(3), Exact: true, Timestamp: now - 9*day},
			{MessageID: "exact-new", Score: 1, Cov: Full(3), Exact: true, Timestamp: now - 8*day},
		}, []string{"exact-new", "exact-old", "new", "old-better"}},
		{"recent: never a newer hit with fewer words first", OrderRecent, equal(3), []Hit{
			{MessageID: "new-one-word", Score: 1, Cov: cov(0b001, 0b001), Timestamp: now},
			{MessageID: "old-two-words", Score: 1, Cov: cov(0b011, 0b011), Timestamp: now - 300*day},
		}, []string{"old-two-words", "new-one-word"}},
		// Blend: a score halves for each HalfLife a hit is older than the
		// newest. A month-old hit needs twice the score of today's.
		{"blend: a much newer hit passes a slightly better old one", OrderBlend, equal(2), []Hit{
			{MessageID: "old", Score: 10, Cov: Full(2), Exact: true, Timestamp: now - 60*day},
			{MessageID: "new", Score: 9, Cov: Full(2), Exact: true, Timestamp: now},
		}, []string{"new", "old"}},
		{"blend: not a far better one", OrderBlend, equal(2), []Hit{
			{MessageID: "new", Score: 9, Cov: Full(2), Exact: true, Timestamp: now},
			{MessageID: "old", Score: 40, Cov: Full(2), Exact: true, Timestamp: now - 60*day},
		}, []string{"old", "new"}},
		{"blend: at one half-life, twice the score is a tie, to the newer", OrderBlend, equal(2), []Hit{
			{MessageID: "old", Score: 8, Cov: Full(2), Exact: true, Timestamp: now - HalfLife},
			{MessageID: "new", Score: 4, Cov: Full(2), Exact: true, Timestamp: now},
		}, []string{"new", "old"}},
		{"blend: the classes still come first", OrderBlend, equal(2), []Hit{
			{MessageID: "new-some", Score: 9, Cov: cov(0b01, 0b01), Timestamp: now},
			{MessageID: "old-all", Score: 1, Cov: cov(0b11, 0b11), Timestamp: now - 365*day},
		}, []string{"old-all", "new-some"}},
		{"ties: the newest, then the message id, then the row", OrderRelevance, equal(1), []Hit{
			{RowID: 4, MessageID: "b", Score: 3, Cov: Full(1), Exact: true, Timestamp: now},
			{RowID: 3, MessageID: "a", Score: 3, Cov: Full(1), Exact: true, Timestamp: now},
			{RowID: 2, MessageID: "a", Score: 3, Cov: Full(1), Exact: true, Timestamp: now},
			{RowID: 1, MessageID: "z", Score: 3, Cov: Full(1), Exact: true, Timestamp: now + 1},
		}, []string{"z", "a", "a", "b"}},
		{"no words (a search of the exact tier only): the score", OrderRelevance, Weights{}, []Hit{
			{MessageID: "low", Score: 1, Exact: true},
			{MessageID: "high", Score: 2, Exact: true},
		}, []string{"high", "low"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := append([]Hit(nil), tt.hits...)
			Order(hits, tt.w, tt.order)
			if got := ids(hits); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %s: %q, want %q", tt.order, got, tt.want)
			}
		})
	}
	// The row breaks the last tie.
	hits := []Hit{{RowID: 2, MessageID: "a", Exact: true}, {RowID: 1, MessageID: "a", Exact: true}}
	Order(hits, Weights{}, OrderRelevance)
	if hits[0].RowID != 1 {
		t.Errorf("tie on everything: row %d first, want row 1", hits[0].RowID)
	}
	Order(nil, equal(2), OrderBlend) // nothing to order
}

// TestHeld: the words a hit shows it holds (a result's "words").
func TestHeld(t *testing.T) {
	tests := []struct {
		name string
		hit  Hit
		n    int
		want []int
	}{
		{"some words, in any form", Hit{Cov: cov(0b101, 0b001)}, 3, []int{0, 2}},
		{"the exact tier holds every word", Hit{Exact: true}, 3, []int{0, 1, 2}},
		{"the exact tier past MaxWords: the masked ones", Hit{Exact: true}, 30, seq(MaxWords)},
		{"none", Hit{}, 3, nil},
		{"no words", Hit{Exact: true}, 0, nil},
	}
	for _, tt := range tests {
		if got := tt.hit.Held(tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Held = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSimilar: near-identity of two texts is Jaccard's index of their sets
// of words, letters only, in lower case, at least Similarity
// (docs/search.md Q30).
func TestSimilar(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       bool
	}{
		{"the same prompt at another time", "HEARTBEAT 2024-05-01T10:00: check the inbox and reply",
			"HEARTBEAT 2024-05-02T10:30: check the inbox and reply", true},
		{"a count differs", "Cron: 3 new emails in the inbox, summarize them",
			"Cron: 12 new emails in the inbox, summarize them", true},
		{"case and punctuation", "Check the inbox.", "check THE inbox!", true},
		{"repeated words count once", "ok ok ok done", "ok done", true},
		{"four words of five shared, of six in all", "deploy the api to staging",
			"deploy the api to production", false},
		{"exactly Similarity: 4 of 5", "alpha beta gamma delta", "alpha beta gamma delta epsilon", true},
		{"just under: 4 of 6", "alpha beta gamma delta zeta", "alpha beta gamma delta epsilon", false},
		{"different texts", "what did we decide about the heartbeat file", "the heartbeat file is in the repo", false},
		{"no letters in either", "12:00", "13:45", true},
		{"letters in one only", "12:00", "noon", false},
		{"non-Latin letters are words", "проверить почту сейчас", "проверить почту завтра", false},
	}
	for _, tt := range tests {
		if got := Similar(VocabularyOf(tt.a), VocabularyOf(tt.b)); got != tt.want {
			t.Errorf("%s: Similar(%q, %q) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
		if got := Similar(VocabularyOf(tt.b), VocabularyOf(tt.a)); got != tt.want {
			t.Errorf("%s: Similar is not symmetric", tt.name)
		}
	}
}

// TestCollapse: near-identical hits of a session fold into the best of
// them, counted in its Repeats (docs/search.md Q30).
func TestCollapse(t *testing.T) {
	texts := map[int64]string{
		1: "HEARTBEAT 10:00 read HEARTBEAT.md and check the inbox",
		2: "HEARTBEAT 10:30 read HEARTBEAT.md and check the inbox",
		3: "HEARTBEAT 11:00 read HEARTBEAT.md and check the inbox",
		4: "the heartbeat file moved to the repo root, as we decided",
		5: "HEARTBEAT 11:30 read HEARTBEAT.md and check the inbox",
	}
	hb := func(row int64, session, role string, score float64) Hit {
		return Hit{RowID: row, SessionKey: session, Role: role, Score: score, Cov: cov(0b1, 0b1), MessageID: texts[row][:min(len(texts[row]), 15)]}
	}
	tests := []struct {
		name    string
		hits    []Hit
		keep    int
		want    []int64 // rows kept, in order
		repeats []int
	}{
		{"three runs of a heartbeat prompt: one hit, two repeats", []Hit{
			hb(1, "s", "user", 10), hb(2, "s", "user", 10), hb(4, "s", "assistant", 9), hb(3, "s", "user", 9.5),
		}, 5, []int64{1, 4}, []int{2, 0}},
		{"a repeat past the kept hits is still counted", []Hit{
			hb(1, "s", "user", 10), hb(4, "s", "user", 9), hb(2, "s", "user", 9.8),
		}, 1, []int64{1}, []int{1}},
		{"another session's run is its own hit", []Hit{
			hb(1, "a", "user", 10), hb(2, "b", "user", 10),
		}, 5, []int64{1, 2}, []int{0, 0}},
		{"another role's text is its own hit", []Hit{
			hb(1, "s", "user", 10), hb(2, "s", "assistant", 10),
		}, 5, []int64{1, 2}, []int{0, 0}},
		{"a score more than ScoreSpread apart does not fold", []Hit{
			hb(1, "s", "user", 10), hb(2, "s", "user", 8.9),
		}, 5, []int64{1, 2}, []int{0, 0}},
		{"other words of the query held do not fold", []Hit{
			hb(1, "s", "user", 10), func() Hit { h := hb(2, "s", "user", 10); h.Cov = cov(0b11, 0b11); return h }(),
		}, 5, []int64{1, 2}, []int{0, 0}},
		{"keep bounds the hits, not the folds", []Hit{
			hb(1, "s", "user", 10), hb(4, "s", "user", 9), hb(2, "s", "user", 10), hb(3, "s", "user", 10), hb(5, "s", "user", 10),
		}, 2, []int64{1, 4}, []int{3, 0}},
		{"nothing", nil, 3, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := map[int64]int{}
			given := append([]Hit(nil), tt.hits...)
			out := Collapse(tt.hits, tt.keep, func(row int64) Vocabulary {
				read[row]++
				return VocabularyOf(texts[row])
			})
			var rows []int64
			var repeats []int
			for _, h := range out {
				rows = append(rows, h.RowID)
				repeats = append(repeats, h.Repeats)
			}
			if !reflect.DeepEqual(rows, tt.want) || !reflect.DeepEqual(repeats, tt.repeats) {
				t.Errorf("kept rows %v with repeats %v, want %v with %v", rows, repeats, tt.want, tt.repeats)
			}
			if !reflect.DeepEqual(tt.hits, given) {
				t.Errorf("Collapse changed the hits it was given")
			}
			// Only twins' texts are read: a hit that differs in session,
			// role, words or score is never read for folding.
			for _, h := range tt.hits {
				twin := false
				for _, o := range tt.hits {
					twin = twin || o.RowID != h.RowID && Twins(o, h)
				}
				if !twin && read[h.RowID] > 0 {
					t.Errorf("row %d, a twin of none, was read %d times", h.RowID, read[h.RowID])
				}
			}
		})
	}
}

// TestGroup: sessions scored on their hits (docs/search.md Q30).
func TestGroup(t *testing.T) {
	now := int64(1_700_000_000_000)
	w := equal(3)
	tests := []struct {
		name string
		w    Weights
		hits []Hit // in Order's order
		want []string
	}{
		// A session whose hits hold the three words between them outranks
		// one whose single, better hit holds two.
		{"the distinct words a session covers", w, []Hit{
			{SessionKey: "one-hit", Score: 10, Cov: cov(0b011, 0b011), Timestamp: now},
			{SessionKey: "three-hits", Score: 6, Cov: cov(0b001, 0b001), Timestamp: now - day},
			{SessionKey: "three-hits", Score: 5, Cov: cov(0b010, 0b010), Timestamp: now - day},
			{SessionKey: "three-hits", Score: 4, Cov: cov(0b100, 0b100), Timestamp: now - day},
		}, []string{"three-hits", "one-hit"}},
		// Three hits of the same word are worth no more than one: the
		// better hit wins.
		{"repeats of one word add nothing", w, []Hit{
			{SessionKey: "best", Score: 10, Cov: cov(0b001, 0b001), Timestamp: now - day},
			{SessionKey: "many", Score: 9, Cov: cov(0b001, 0b001), Timestamp: now},
			{SessionKey: "many", Score: 9, Cov: cov(0b001, 0b001), Timestamp: now},
			{SessionKey: "many", Score: 9, Cov: cov(0b001, 0b001), Timestamp: now},
		}, []string{"best", "many"}},
		{"the exact tier holds every word", w, []Hit{
			{SessionKey: "relaxed", Score: 10, Cov: cov(0b011, 0b011), Timestamp: now},
			{SessionKey: "exact", Score: 8, Exact: true, Cov: Full(3), Timestamp: now - day},
		}, []string{"exact", "relaxed"}},
		// A rare word counts more in a session's score than a common one.
		{"a session holding the rare word", NewWeights(100000, 1000, []int64{5000, 5000, 10}, []int64{500, 500, 2}), []Hit{
			{SessionKey: "common", Score: 10, Cov: cov(0b011, 0b011), Timestamp: now},
			{SessionKey: "rare", Score: 8, Cov: cov(0b100, 0b100), Timestamp: now},
		}, []string{"rare", "common"}},
		{"ties to the newer session", w, []Hit{
			{SessionKey: "older", Score: 5, Cov: cov(0b001, 0b001), Timestamp: now - day},
			{SessionKey: "newer", Score: 5, Cov: cov(0b001, 0b001), Timestamp: now},
		}, []string{"newer", "older"}},
		{"then to the key", w, []Hit{
			{SessionKey: "b", Score: 5, Cov: cov(0b001, 0b001), Timestamp: now},
			{SessionKey: "a", Score: 5, Cov: cov(0b001, 0b001), Timestamp: now},
		}, []string{"a", "b"}},
		{"no words: the best hit's score", Weights{}, []Hit{
			{SessionKey: "low", Score: 1, Exact: true},
			{SessionKey: "high", Score: 3, Exact: true},
		}, []string{"high", "low"}},
		// Words in every session weigh nothing: the score decides.
		{"words in every session", NewWeights(1000, 10, []int64{10, 10}, []int64{10, 10}), []Hit{
			{SessionKey: "two-words", Score: 1, Cov: cov(0b11, 0b11)},
			{SessionKey: "better", Score: 3, Cov: cov(0b01, 0b01)},
		}, []string{"better", "two-words"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions := Group(tt.hits, tt.w)
			var got []string
			hits := 0
			for _, s := range sessions {
				got = append(got, s.Key)
				hits += len(s.Hits)
				for _, h := range s.Hits {
					if h.SessionKey != s.Key {
						t.Errorf("session %s holds a hit of %s", s.Key, h.SessionKey)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sessions %q, want %q", got, tt.want)
			}
			if hits != len(tt.hits) {
				t.Errorf("%d hits grouped, want %d", hits, len(tt.hits))
			}
			for i := 1; i < len(sessions); i++ {
				if sessions[i].Score > sessions[i-1].Score {
					t.Errorf("session %s (%v) after %s (%v)", sessions[i].Key, sessions[i].Score, sessions[i-1].Key, sessions[i-1].Score)
				}
			}
		})
	}
	if s := Group(nil, w); s != nil {
		t.Errorf("Group(nil) = %v, want nil", s)
	}
}

// TestGroupScore: a session's score, its parts as docs/search.md Q30 says:
// its best hit's score relative to the best of all, the share of the
// query's words its best hit holds, and SessionWords times the share its
// hits hold together; its hits kept in order.
func TestGroupScore(t *testing.T) {
	w := equal(4)
	hits := []Hit{
		{RowID: 1, SessionKey: "a", Score: 8, Cov: cov(0b0011, 0b0011), Timestamp: 5},
		{RowID: 2, SessionKey: "b", Score: 4, Cov: cov(0b0001, 0b0001), Timestamp: 9},
		{RowID: 3, SessionKey: "a", Score: 6, Cov: cov(0b0100, 0b0100), Timestamp: 7},
	}
	sessions := Group(hits, w)
	want := map[string]struct {
		score  float64
		newest int64
		rows   []int64
	}{
		"a": {BestScore*8/8 + BestWords*2/4 + SessionWords*3/4, 7, []int64{1, 3}},
		"b": {BestScore*4/8 + BestWords*1/4 + SessionWords*1/4, 9, []int64{2}},
	}
	for _, s := range sessions {
		wt := want[s.Key]
		var rows []int64
		for _, h := range s.Hits {
			rows = append(rows, h.RowID)
		}
		if math.Abs(s.Score-wt.score) > 1e-9 || s.Newest != wt.newest || !reflect.DeepEqual(rows, wt.rows) {
			t.Errorf("session %s: score %v, newest %d, rows %v; want %v, %d, %v", s.Key, s.Score, s.Newest, rows, wt.score, wt.newest, wt.rows)
		}
	}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.MessageID
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
