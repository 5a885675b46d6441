// Package ranking owns the order of search results (docs/search.md
// Q26–Q30): how a matched message is classed (all words, word forms, some
// words) and ordered, how much each word of a question is worth, how a
// session is scored on its messages when results are grouped by session,
// how near-identical messages of a session collapse into one hit, and how
// recency blends into relevance. It is pure Go: the extension gives it the
// rows the FTS5 tiers matched, with their bm25 scores and coverage (the
// sessionsearch_coverage packing), and the words' frequencies, and asks it
// which to show, in what order.
package ranking

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode"
)

// How a hit matched (the "match" of a result).
const (
	MatchAll   = "all"   // every word of the query, as written
	MatchForms = "forms" // every word, some only in another form
	MatchSome  = "some"  // some of the words
)

// Orders.
const (
	OrderRelevance = "relevance"
	OrderRecent    = "recent"
	OrderBlend     = "blend"
)

// HalfLife is the recency blend's half-life: a hit this much older than
// the newest candidate counts half (docs/search.md Q29).
const HalfLife = 30 * 24 * 3600 * 1000 // 30 days, in milliseconds

// MaxWords is the most words a coverage mask holds (the packing of
// sessionsearch_coverage); the counts go past it.
const MaxWords = 24

// Coverage is the packing of sessionsearch_coverage: which of the words a
// row holds in any form, and which as written.
type Coverage int64

// Any returns the mask of words the row holds in any form.
func (c Coverage) Any() uint32 { return uint32(c>>24) & 0xffffff }

// Exact returns the mask of words the row holds as written.
func (c Coverage) Exact() uint32 { return uint32(c) & 0xffffff }

// NAny and NExact are the counts, which go past the masked words.
func (c Coverage) NAny() int   { return int(c>>54) & 63 }
func (c Coverage) NExact() int { return int(c>>48) & 63 }

// Full is the coverage of a row that holds every one of n words as
// written: a row of the exact tier.
func Full(n int) Coverage {
	m := int64(1)<<min(n, MaxWords) - 1
	return Coverage(int64(n)<<54 | int64(n)<<48 | m<<24 | m)
}

// Weights are what each word of a query is worth (docs/search.md Q29):
// for ordering messages, its inverse document frequency over messages, as
// bm25 computes it, ln(1 + (N - n + 0.5) / (n + 0.5)) with N messages of
// which n hold the word; for scoring sessions, over sessions, ln((S + 1) /
// (s + 1)) with S sessions of which s hold it. A word held in every
// message is worth almost nothing, a rare one the most.
type Weights struct {
	Message, Session []float64
}

// NewWeights computes the weights of words from the store's counts: n
// messages and s sessions, of the store's N and S, hold word i (in any
// form).
func NewWeights(N, S int64, messages, sessions []int64) Weights {
	w := Weights{Message: make([]float64, len(messages)), Session: make([]float64, len(sessions))}
	for i, n := range messages {
		n = min(max(n, 0), N)
		w.Message[i] = math.Log(1 + (float64(N-n)+0.5)/(float64(n)+0.5))
	}
	for i, s := range sessions {
		s = min(max(s, 0), S)
		w.Session[i] = math.Log(float64(S+1) / float64(s+1))
	}
	return w
}

// words returns how many words the weights are for.
func (w Weights) words() int { return len(w.Message) }

// held sums the weights ws of the words in mask.
func held(ws []float64, mask uint32) float64 {
	t := 0.0
	for m := mask; m != 0; m &= m - 1 {
		if i := bits.TrailingZeros32(m); i < len(ws) {
			t += ws[i]
		}
	}
	return t
}

// Hit is one matched message.
type Hit struct {
	RowID      int64
	SessionKey string
	MessageID  string
	Role       string
	Timestamp  int64
	Score      float64 // bm25, higher is better
	Cov        Coverage
	Exact      bool // found by the exact tier (every clause as written)
	Repeats    int  // near-identical hits of its session folded into it
}

// Match classes a hit for a query of n words.
func (h Hit) Match(n int) string {
	switch {
	case h.Exact || n == 0 || h.Cov.NExact() >= n:
		return MatchAll
	case h.Cov.NAny() >= n:
		return MatchForms
	default:
		return MatchSome
	}
}

func matchRank(m string) int {
	switch m {
	case MatchAll:
		return 0
	case MatchForms:
		return 1
	}
	return 2
}

// Order sorts hits best first (docs/search.md Q29): the exact tier's
// first; then by class (all, forms, some); then by the words held in any
// form, each counted at its message weight, then by the words held as
// written; then, by order: relevance, the bm25 score; recent, the newest;
// blend, the score halved for each HalfLife a hit is older than the
// newest of them. Ties go to the newest, then the message id, then the
// row.
func Order(hits []Hit, w Weights, order string) {
	newest := int64(math.MinInt64)
	for _, h := range hits {
		newest = max(newest, h.Timestamp)
	}
	key := func(h Hit) float64 {
		switch order {
		case OrderRecent:
			return float64(h.Timestamp)
		case OrderBlend:
			return h.Score * math.Exp2(-float64(newest-h.Timestamp)/HalfLife)
		}
		return h.Score
	}
	n := w.words()
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Exact != b.Exact {
			if a.Exact {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(matchRank(a.Match(n)), matchRank(b.Match(n))); c != 0 {
			return c
		}
		if !a.Exact {
			if c := cmp.Compare(held(w.Message, b.Cov.Any()), held(w.Message, a.Cov.Any())); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Cov.NExact(), a.Cov.NExact()); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return tieBreak(a, b)
	})
}

func tieBreak(a, b Hit) int {
	if c := cmp.Compare(b.Timestamp, a.Timestamp); c != 0 {
		return c
	}
	if c := strings.Compare(a.MessageID, b.MessageID); c != 0 {
		return c
	}
	return cmp.Compare(a.RowID, b.RowID)
}

// Held returns the indexes of the words a hit holds, in any form, of a
// query of n words.
func (h Hit) Held(n int) []int {
	mask := h.Cov.Any()
	if h.Exact {
		mask = 1<<min(n, MaxWords) - 1
	}
	var out []int
	for m := mask; m != 0; m &= m - 1 {
		out = append(out, bits.TrailingZeros32(m))
	}
	return out
}

// Near-identical messages (docs/search.md Q30) are two hits of one
// session and role that hold the same words of the query, whose scores are
// within ScoreSpread of each other, and whose texts share at least
// Similarity of their words (Jaccard's index of their sets of words,
// letters only, in lower case): two runs of one cron or heartbeat prompt
// that differ in a time, a date or a count.
const (
	ScoreSpread = 0.10
	Similarity  = 0.8
)

// Vocabulary is the set of words of a text, as near-identity compares
// them: runs of letters, in lower case.
type Vocabulary map[string]struct{}

// VocabularyOf returns the words of a text.
func VocabularyOf(text string) Vocabulary {
	v := Vocabulary{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		v[strings.ToLower(w)] = struct{}{}
	}
	return v
}

// Similar reports whether two vocabularies share at least Similarity of
// their words.
func Similar(a, b Vocabulary) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	common := 0
	for w := range a {
		if _, ok := b[w]; ok {
			common++
		}
	}
	union := len(a) + len(b) - common
	return union == 0 || float64(common) >= Similarity*float64(union)
}

// Twins reports whether two hits may be near-identical before their texts
// are read: the same session and role, the same words of the query held,
// and scores within ScoreSpread.
func Twins(a, b Hit) bool {
	return a.SessionKey == b.SessionKey && a.Role == b.Role && a.Cov == b.Cov &&
		math.Abs(a.Score-b.Score) <= ScoreSpread*math.Max(math.Abs(a.Score), math.Abs(b.Score))
}

// Collapse folds near-identical hits of a session into the first (best) of
// them, in order, counting them in its Repeats, and returns at most keep
// hits, in order; vocabulary gives a hit's words by row id. Only the
// texts of Twins of a kept hit are read: a search reads the texts it
// shows, and those that may fold into them.
func Collapse(hits []Hit, keep int, vocabulary func(rowid int64) Vocabulary) []Hit {
	out := hits[:0:0]
	for _, h := range hits {
		folded := false
		for i := range out {
			if Twins(out[i], h) && Similar(vocabulary(out[i].RowID), vocabulary(h.RowID)) {
				out[i].Repeats++
				folded = true
				break
			}
		}
		if !folded && len(out) < keep {
			out = append(out, h)
		}
	}
	return out
}

// Session is one session of grouped results: its hits, best first, and
// what it is scored on.
type Session struct {
	Key    string
	Score  float64
	Newest int64
	Hits   []Hit
}

// The parts of a session's score (docs/search.md Q30), weighed as the
// LoCoMo benchmark chose (docs/quality.md): the bm25 score of its best hit
// relative to the best of all hits; the share of the query's session
// weight that its best hit holds; and, counted SessionWords times, the
// share that its hits hold together.
const (
	BestScore    = 1.0
	BestWords    = 1.0
	SessionWords = 3.0
)

// Group groups ordered hits by session (docs/search.md Q30): a session is
// scored on its best hit and on the words its hits hold, each word at its
// session weight, and sessions are ordered by score, ties to the newest.
// Each session keeps its hits in the given order.
func Group(hits []Hit, w Weights) []Session {
	if len(hits) == 0 {
		return nil
	}
	top := 0.0
	for _, h := range hits {
		top = math.Max(top, h.Score)
	}
	n := w.words()
	all := uint32(1)<<min(n, MaxWords) - 1
	total := held(w.Session, all)
	index := map[string]int{}
	var sessions []Session
	var masks []uint32
	for _, h := range hits {
		i, ok := index[h.SessionKey]
		if !ok {
			i = len(sessions)
			index[h.SessionKey] = i
			sessions = append(sessions, Session{Key: h.SessionKey})
			masks = append(masks, 0)
		}
		s := &sessions[i]
		s.Hits = append(s.Hits, h)
		s.Newest = max(s.Newest, h.Timestamp)
		masks[i] |= mask(h, all)
	}
	for i := range sessions {
		s := &sessions[i]
		best := s.Hits[0]
		if top > 0 {
			s.Score = BestScore * best.Score / top
		}
		if total > 0 {
			s.Score += BestWords*held(w.Session, mask(best, all))/total + SessionWords*held(w.Session, masks[i])/total
		}
	}
	slices.SortStableFunc(sessions, func(a, b Session) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Newest, a.Newest); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return sessions
}

// mask returns the words a hit holds in any form; all, for the exact tier.
func mask(h Hit, all uint32) uint32 {
	if h.Exact {
		return all
	}
	return h.Cov.Any()
}

// Newest orders grouped sessions newest first (order recent), ties to the
// better score, then the key.
func Newest(sessions []Session) {
	slices.SortStableFunc(sessions, func(a, b Session) int {
		if c := cmp.Compare(b.Newest, a.Newest); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}
