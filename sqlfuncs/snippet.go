package sqlfuncs

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/redact"
)

// Range is a match in a text: byte offsets [Start,End).
type Range struct{ Start, End int }

// ellipsis marks each side of a text that a cut removed.
const ellipsis = "…"

// CutChars cuts text to at most maxChars characters (runes) on a character
// boundary, appending "…" when it cut (the "…" counts toward maxChars, so the
// result has at most maxChars runes). maxChars <= 0 means no cut.
//
// The cut never separates a character from the marks that combine with it
// (e + U+0301, emoji with skin tones or ZWJ sequences, flag pairs); it backs
// off to before the whole sequence. Nor does it cut a redaction mask in two:
// a mask that does not fit is left out whole. White space before the "…" is
// dropped.
func CutChars(text string, maxChars int) string {
	if maxChars <= 0 || utf8.RuneCountInString(text) <= maxChars {
		return text
	}
	cut := 0
	for k := 0; k < maxChars-1; k++ {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
	}
	cut = clusterStartBefore(text, cut)
	if m := strings.LastIndexByte(text[:cut], '['); m >= 0 && strings.HasPrefix(text[m:], redact.MaskPrefix) {
		if end := strings.IndexByte(text[m:], ']'); end < 0 || m+end >= cut {
			cut = m
		}
	}
	return strings.TrimRightFunc(text[:cut], unicode.IsSpace) + ellipsis
}

// clusterStartBefore moves a cut at byte offset cut back so that it does not
// split a character from the marks and joiners that follow it.
func clusterStartBefore(text string, cut int) int {
	for cut > 0 && cut < len(text) {
		next, _ := utf8.DecodeRuneInString(text[cut:])
		prev, size := utf8.DecodeLastRuneInString(text[:cut])
		if !extendsCluster(next) && prev != zeroWidthJoiner && !(isRegionalIndicator(next) && oddRegionalRun(text[:cut])) {
			return cut
		}
		cut -= size
	}
	return cut
}

const zeroWidthJoiner = '\u200d'

// extendsCluster reports runes that belong to the character before them:
// combining marks, joiners, variation selectors, emoji modifiers and tags.
func extendsCluster(r rune) bool {
	switch {
	case r == zeroWidthJoiner, r >= 0xFE00 && r <= 0xFE0F, r >= 0x1F3FB && r <= 0x1F3FF,
		r >= 0xE0020 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc)
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// oddRegionalRun reports whether s ends in an odd number of regional
// indicators: a cut there would split a flag.
func oddRegionalRun(s string) bool {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isRegionalIndicator(r) {
			break
		}
		n++
		s = s[:len(s)-size]
	}
	return n%2 == 1
}

// Snippet builds a search snippet from a whole message text: it redacts the
// whole text first, then picks a window of at most maxChars characters around
// the match ranges (byte offsets into the ORIGINAL text, sorted), preferring
// the window that covers the most matches, starting/ending on word boundaries
// where possible, with "…" at each side that was cut. A mask is atomic: the
// window either contains a whole mask or none of it. Returns the snippet.
//
// Redacting before cutting is what keeps a secret next to the match from
// leaking: the window can only cut between masks, never through a secret.
// maxChars <= 0 means no cut (the whole redacted text).
func Snippet(text string, matches []Range, maxChars int) string {
	return SnippetOf(text, maxChars, func() []Range { return matches })
}

// SnippetOf is Snippet with the matches computed only when the redacted
// text is longer than maxChars: a text that fits is the snippet whatever
// its matches.
func SnippetOf(text string, maxChars int, matches func() []Range) string {
	spans := redact.Secrets(text)
	red := text
	if len(spans) > 0 {
		red = redact.Apply(text, spans)
	}
	n := utf8.RuneCountInString(red)
	if maxChars <= 0 || n <= maxChars {
		return red
	}
	masks, hits := keepRanges(text, spans, matches())
	// From here on, positions count characters.
	bounds := make([]int, 0, 2*(len(hits)+len(masks)))
	for _, r := range hits {
		bounds = append(bounds, r.Start, r.End)
	}
	for _, r := range masks {
		bounds = append(bounds, r.Start, r.End)
	}
	bounds = runeIndexes(red, bounds)
	for i := range hits {
		hits[i] = Range{bounds[2*i], bounds[2*i+1]}
	}
	for i := range masks {
		masks[i] = Range{bounds[2*(len(hits)+i)], bounds[2*(len(hits)+i)+1]}
	}
	core := bestMatchGroup(hits, maxChars-2)
	a, b := chooseWindow(n, maxChars, core)
	// No window reaches further than maxChars characters from the core.
	w := newRuneWindow(red, max(0, core.Start-maxChars-1), min(n, max(core.End, core.Start)+maxChars+1), n)
	a, b = w.adjust(a, b, masks, maxChars)
	if a >= b {
		return ellipsis
	}
	var s strings.Builder
	if a > 0 {
		s.WriteString(ellipsis)
	}
	s.WriteString(red[w.offset(a):w.offset(b)])
	if b < n {
		s.WriteString(ellipsis)
	}
	return s.String()
}

// keepRanges returns the masks of the secrets spans of text and the
// matches in byte offsets of the redacted text, the matches sorted. A match
// that touches a secret grows to cover its whole mask.
func keepRanges(text string, spans []redact.Span, matches []Range) (masks, hits []Range) {
	// shift[i] is how far the text after spans[i] moved.
	shift := make([]int, len(spans))
	masks = make([]Range, len(spans))
	d := 0
	for i, s := range spans {
		masks[i] = Range{s.Start + d, s.Start + d + len(redact.Mask(s.Kind))}
		d += len(redact.Mask(s.Kind)) - (s.End - s.Start)
		shift[i] = d
	}
	// at maps an offset of text to the redacted text; an offset inside a
	// secret goes to the start of its mask, or to the end for a match end.
	at := func(p int, end bool) int {
		p = max(0, min(p, len(text)))
		i := sort.Search(len(spans), func(i int) bool { return spans[i].End > p })
		if i < len(spans) && spans[i].Start < p {
			if end {
				return masks[i].End
			}
			return masks[i].Start
		}
		if i > 0 {
			return p + shift[i-1]
		}
		return p
	}
	hits = make([]Range, 0, len(matches))
	for _, m := range matches {
		s, e := at(m.Start, false), at(m.End, true)
		hits = append(hits, Range{s, max(s, e)})
	}
	slices.SortFunc(hits, func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
	return masks, hits
}

// runeIndexes converts byte offsets of s, in any order, to character
// indexes; an offset inside a character counts as the next one.
func runeIndexes(s string, offsets []int) []int {
	order := make([]int, len(offsets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(offsets[a], offsets[b]) })
	out := make([]int, len(offsets))
	runes, at := 0, 0
	for _, k := range order {
		off := min(offsets[k], len(s))
		for off < len(s) && !utf8.RuneStart(s[off]) {
			off++
		}
		if off > at {
			runes += utf8.RuneCountInString(s[at:off])
			at = off
		}
		out[k] = runes
	}
	return out
}

// bestMatchGroup picks the run of matches (sorted by start) that fits in
// budget characters and has the most matches, the earliest on a tie; its
// extent is the core the window must show. No matches: the core is the
// start of the text.
func bestMatchGroup(hits []Range, budget int) Range {
	if len(hits) == 0 {
		return Range{}
	}
	bi, bj, j := 0, 0, 0
	for i := range hits {
		j = max(j, i)
		for j+1 < len(hits) && hits[j+1].End <= hits[i].Start+budget {
			j++
		}
		if j-i > bj-bi {
			bi, bj = i, j
		}
	}
	end := hits[bi].End
	for _, h := range hits[bi+1 : bj+1] {
		end = max(end, h.End)
	}
	return Range{hits[bi].Start, end}
}

// chooseWindow places a window of at most maxChars characters, ellipses
// included, over a text of n characters so that it shows the core with
// equal context on both sides where the text allows.
func chooseWindow(n, maxChars int, core Range) (a, b int) {
	budget := max(0, maxChars-2)
	if core.End-core.Start > budget {
		a = core.Start
	} else {
		a = max(0, core.Start-(budget-(core.End-core.Start))/2)
	}
	b = fitWindowEnd(n, maxChars, a)
	if b == n && a > 0 {
		a = max(0, min(a, n-(maxChars-1)))
		b = fitWindowEnd(n, maxChars, a)
	}
	return a, b
}

// fitWindowEnd is the furthest end for a window starting at a.
func fitWindowEnd(n, maxChars, a int) int {
	avail := maxChars
	if a > 0 {
		avail--
	}
	if n-a <= avail {
		return n
	}
	return max(a, a+avail-1)
}

// runeWindow indexes the characters [from,to] of a text of n characters.
type runeWindow struct {
	text     string
	from, to int
	pos      []int // pos[k-from] is the byte offset of character k
	n        int
}

func newRuneWindow(text string, from, to, n int) *runeWindow {
	w := &runeWindow{text: text, from: from, to: to, n: n, pos: make([]int, 0, to-from+1)}
	k := 0
	for i := range text {
		if k >= from && k <= to {
			w.pos = append(w.pos, i)
		}
		if k++; k > to {
			break
		}
	}
	if to == n {
		w.pos = append(w.pos, len(text))
	}
	return w
}

func (w *runeWindow) offset(k int) int { return w.pos[k-w.from] }

func (w *runeWindow) rune(k int) rune {
	r, _ := utf8.DecodeRuneInString(w.text[w.offset(k):])
	return r
}

// adjust shrinks the window [a,b) to word boundaries (within a few
// characters), out of masks it would cut, and off combining sequences it
// would split.
func (w *runeWindow) adjust(a, b int, masks []Range, maxChars int) (int, int) {
	shift := min(20, maxChars/5)
	if a > 0 && !w.wordBreak(a) {
		for p := a + 1; p <= min(b, a+shift); p++ {
			if w.wordBreak(p) {
				a = p
				break
			}
		}
	}
	if b < w.n && !w.wordBreak(b) {
		for p := b - 1; p >= max(a, b-shift); p-- {
			if w.wordBreak(p) {
				b = p
				break
			}
		}
	}
	for _, m := range masks {
		if m.Start < a && a < m.End {
			a = m.End
		}
		if m.Start < b && b < m.End {
			b = m.Start
		}
	}
	for a < b && a > 0 && (extendsCluster(w.rune(a)) || w.rune(a-1) == zeroWidthJoiner) {
		a++
	}
	for b > a && b < w.n && (extendsCluster(w.rune(b)) || w.rune(b-1) == zeroWidthJoiner ||
		isRegionalIndicator(w.rune(b)) && oddRegionalRun(w.text[:w.offset(b)])) {
		b--
	}
	if a > 0 {
		for a < b && unicode.IsSpace(w.rune(a)) {
			a++
		}
	}
	if b < w.n {
		for b > a && unicode.IsSpace(w.rune(b-1)) {
			b--
		}
	}
	return a, b
}

// wordBreak reports whether a cut before character k falls between words:
// next to a space or punctuation, or next to a script written without spaces
// (Han, kana, Hangul, Thai...), where any character boundary will do.
func (w *runeWindow) wordBreak(k int) bool {
	if k <= 0 || k >= w.n {
		return true
	}
	prev, next := w.rune(k-1), w.rune(k)
	return unicode.IsSpace(prev) || unicode.IsSpace(next) || unicode.IsPunct(prev) || unicode.IsPunct(next) ||
		unspacedScript(prev) || unspacedScript(next)
}

func unspacedScript(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
