// Package redact owns what is a secret and how it is masked in the copies
// of transcript text handed to a model: search snippets, history texts and
// the text the search index keeps (docs/redaction.md). Pure Go, no cgo.
package redact

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// The engine. The rules (what is a secret) live in rules.go;
// this file holds the machinery that runs them cheaply:
//
//  1. A keyword prefilter: one case-folded Aho-Corasick automaton over every
//     rule keyword. Text with no keyword (and no leading "…" cut) is
//     returned as it is, without running a regex or allocating.
//  2. A marker-free view. Highlight markers "[" and "]" may have been put
//     inside a secret (FTS5 highlight() cuts at token parts, so "[ghp]_abc…"
//     happens). The automaton steps over those two bytes, and when a keyword
//     is found in a text that has brackets the rules run on a copy without
//     them; the spans they find are mapped back onto the original bytes.
//  3. Each keyword hit runs only the rules that own the keyword, on a window
//     around the hit; the rules record spans with a kind and a rank.
//  4. Overlapping spans are merged; the most specific kind names the mask.
//
// Redaction is for copies handed to a model (snippets, history texts); the
// stored transcript is never rewritten.

// Version identifies Text's output. The search index holds masked text, so
// an index built with other rules must be rebuilt: change this whenever any
// text would be masked differently (testdata/redact.golden pins the output;
// docs/redaction.md R0).
const Version = 3

// Span is a secret found in a text: byte offsets [Start,End) and its kind.
type Span struct {
	Start, End int
	Kind       string
}

// Text returns text with every secret replaced by a mask naming its kind,
// e.g. "[REDACTED:github-token]". When nothing is found it returns text itself
// (no copy) and changed=false.
func Text(text string) (out string, changed bool) {
	spans := Secrets(text)
	if len(spans) == 0 {
		return text, false
	}
	return Apply(text, spans), true
}

// Secrets returns the secret spans in text, sorted, non-overlapping (merged).
func Secrets(text string) []Span {
	cut := cutEllipsisLen(text) > 0
	if !cut && !redactKeywords.any(text) {
		return nil
	}
	view, removed := stripHighlightMarkers(text)
	d := detector{text: view}
	d.run()
	if len(d.found) == 0 {
		return nil
	}
	return d.spans(text, removed)
}

// MaskPrefix starts every mask; a mask reads "[REDACTED:<kind>]".
const MaskPrefix = "[REDACTED:"

func Mask(kind string) string { return MaskPrefix + kind + "]" }

func Apply(text string, spans []Span) string {
	var b strings.Builder
	size := len(text)
	for _, s := range spans {
		size += len(MaskPrefix) + len(s.Kind) + 1 - (s.End - s.Start)
	}
	b.Grow(size)
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.Start])
		b.WriteString(MaskPrefix)
		b.WriteString(s.Kind)
		b.WriteByte(']')
		at = s.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// Ranks order the kinds of overlapping spans: the most specific rule names
// the merged mask ("token=ghp_…" is a github-token, not a token).
const (
	rankVendor       = iota // a provider's own format
	rankVendorLike          // a shared format such as "sk-…"
	rankStructure           // headers, URLs, cookies, command lines
	rankAssignment          // a secret-looking value given to a secret-named key
	rankProviderName        // a secret-looking value given to a name with a provider's word
	rankFragment            // a random-looking run at the start of a cut snippet
)

// found is a span in view coordinates, before merging.
type found struct {
	start, end int
	kind       string
	rank       int
}

// detector holds one pass over one text (the view).
type detector struct {
	text  string
	found []found
	// covered[t] is the end of the last span trigger t found: a later hit of
	// the same trigger inside it is the same secret (a JWT has "eyJ" twice).
	covered [maxRedactTriggers]int
	// keyEnd is the end of the last key name the assignment rule read, so a
	// key with several keywords ("client_secret_key") is read once.
	keyEnd int
	// providerKeyEnd is the same for the names read for a provider's word.
	providerKeyEnd int
	// curlLineEnd and commandLineEnd end the lines the curl and database
	// command rules have read: a line is read once, however many command
	// words it holds.
	curlLineEnd, commandLineEnd int
	// discordScanned and telegramScanned end the text the Discord and
	// Telegram window rules have searched.
	discordScanned, telegramScanned int
	// pemEnd remembers the last search for a PEM END line.
	pemEnd struct {
		searched bool
		from, at int
	}
}

func (d *detector) add(start, end int, kind string, rank int) {
	if start < 0 || end > len(d.text) || start >= end {
		return
	}
	d.found = append(d.found, found{start, end, kind, rank})
}

// run feeds the view through the keyword automaton and runs the triggers of
// every keyword hit, then the rule for a cut start.
func (d *detector) run() {
	m := redactKeywords
	t := d.text
	s := 0
	for i := 0; i < len(t); i++ {
		s = int(m.next[s+int(m.class[t[i]])])
		if s < m.finalFrom {
			continue
		}
		for _, w := range m.out[s/m.stride] {
			start := i + 1 - len(m.words[w])
			for _, tr := range m.triggers[w] {
				if start < d.covered[tr] {
					continue
				}
				before := len(d.found)
				d.fire(tr, start, i+1)
				for _, f := range d.found[before:] {
					if f.end > d.covered[tr] {
						d.covered[tr] = f.end
					}
				}
			}
		}
	}
	d.cutStart()
}

// spans merges the found spans and maps them from the view back to text.
func (d *detector) spans(text string, removed []int) []Span {
	fs := d.found
	slices.SortFunc(fs, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end),
			cmp.Compare(a.rank, b.rank), strings.Compare(a.kind, b.kind))
	})
	out := make([]Span, 0, len(fs))
	var cur found
	for i, f := range fs {
		if i > 0 && f.start < cur.end {
			if betterKind(f, cur) {
				cur.kind, cur.rank = f.kind, f.rank
			}
			if f.end > cur.end {
				cur.end = f.end
			}
			continue
		}
		if i > 0 {
			out = append(out, Span{cur.start, cur.end, cur.kind})
		}
		cur = f
	}
	out = append(out, Span{cur.start, cur.end, cur.kind})
	if removed == nil {
		return out
	}
	for i := range out {
		out[i].Start, out[i].End = balanceMarkers(text, markerOrigin(removed, out[i].Start), markerOrigin(removed, out[i].End-1)+1)
	}
	// Swallowing markers can make neighbours touch or overlap.
	merged := out[:1]
	for _, s := range out[1:] {
		last := &merged[len(merged)-1]
		if s.Start < last.End {
			if s.End > last.End {
				last.End = s.End
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// betterKind reports whether f should name a merged span instead of cur:
// the more specific rank wins, then the longer span.
func betterKind(f, cur found) bool {
	if f.rank != cur.rank {
		return f.rank < cur.rank
	}
	return f.end-f.start > cur.end-cur.start
}

// stripHighlightMarkers returns text without "[" and "]" and the offsets
// in text of the brackets it took out, ascending (markerOrigin maps the
// view back). When text has no brackets the view is text itself and
// removed is nil. Code and JSON are full of brackets: the view costs one
// copy of the text and one int per bracket, not one per byte.
func stripHighlightMarkers(text string) (view string, removed []int) {
	if strings.IndexByte(text, '[') < 0 && strings.IndexByte(text, ']') < 0 {
		return text, nil
	}
	b := make([]byte, 0, len(text))
	from := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '[' || c == ']' {
			b = append(b, text[from:i]...)
			removed = append(removed, i)
			from = i + 1
		}
	}
	b = append(b, text[from:]...)
	return unsafe.String(unsafe.SliceData(b), len(b)), removed
}

// markerOrigin maps an offset of the view to its offset in text: the
// view byte at v sits after every removed bracket whose view position
// (its offset less the brackets before it) is at or before v.
func markerOrigin(removed []int, v int) int {
	k := sort.Search(len(removed), func(i int) bool { return removed[i]-i > v })
	return v + k
}

// balanceMarkers widens a span mapped back onto text so that it does not
// leave half of a highlight pair outside the mask: "[ghp]_abc" masks as
// "[REDACTED:…]", not "[[REDACTED:…]".
func balanceMarkers(text string, start, end int) (int, int) {
	open, unopened := 0, 0
	for i := start; i < end; i++ {
		switch text[i] {
		case '[':
			open++
		case ']':
			if open > 0 {
				open--
			} else {
				unopened++
			}
		}
	}
	for open > 0 && end < len(text) && text[end] == ']' {
		end++
		open--
	}
	for unopened > 0 && start > 0 && text[start-1] == '[' {
		start--
		unopened--
	}
	if start > 0 && end < len(text) && text[start-1] == '[' && text[end] == ']' {
		start, end = start-1, end+1
	}
	return start, end
}

// keywordSet is a deterministic Aho-Corasick automaton over lower-case
// keywords. Upper-case ASCII letters step like their lower-case forms, and
// "[" and "]" do not move it at all, so "[GHP]_" is seen as "ghp_".
//
// A state is stored as its row offset in next (state number times stride),
// and the states where a keyword ends are numbered last, so the scan loop
// is one table load and one comparison per byte.
type keywordSet struct {
	words     []string
	triggers  [][]int // per word: indexes into redactTriggers
	class     [256]uint8
	stride    int      // number of byte classes
	next      []uint32 // next[state+class], states as row offsets
	finalFrom int      // row offset of the first state where a word ends
	out       [][]int  // per state number: the words that end there
}

func newKeywordSet(words []string, triggers [][]int) *keywordSet {
	m := &keywordSet{words: words, triggers: triggers}
	// Class 0 is every byte no keyword uses; the last class is the markers.
	n := 1
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' || c == '[' || c == ']' {
				panic("redact: redaction keyword must be lower case without brackets: " + w)
			}
			if m.class[c] == 0 {
				m.class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		m.class[c-'a'+'A'] = m.class[c]
	}
	skip := n
	m.class['['], m.class[']'] = uint8(skip), uint8(skip)
	m.stride = n + 1

	// The trie, then failure links breadth first, then the full table.
	children := [][]int{make([]int, m.stride)}
	ends := [][]int{nil}
	for wi, w := range words {
		s := 0
		for i := 0; i < len(w); i++ {
			c := int(m.class[w[i]])
			if children[s][c] == 0 {
				children = append(children, make([]int, m.stride))
				ends = append(ends, nil)
				children[s][c] = len(children) - 1
			}
			s = children[s][c]
		}
		ends[s] = append(ends[s], wi)
	}
	states := len(children)
	next := make([]int, states*m.stride)
	out := make([][]int, states)
	fail := make([]int, states)
	for queue := []int{0}; len(queue) > 0; queue = queue[1:] {
		s := queue[0]
		out[s] = ends[s]
		if s != 0 {
			out[s] = append(append([]int(nil), ends[s]...), out[fail[s]]...)
		}
		for c := 0; c < m.stride; c++ {
			child := children[s][c]
			switch {
			case c == skip:
				next[s*m.stride+c] = s
			case child != 0:
				next[s*m.stride+c] = child
				if s != 0 {
					fail[child] = next[fail[s]*m.stride+c]
				}
				queue = append(queue, child)
			case s != 0:
				next[s*m.stride+c] = next[fail[s]*m.stride+c]
			}
		}
	}

	// Renumber: states without output first (the root stays 0), then the
	// final ones.
	order := make([]int, 0, states) // new number -> old
	for pass := 0; pass < 2; pass++ {
		for s := 0; s < states; s++ {
			if (len(out[s]) > 0) == (pass == 1) {
				order = append(order, s)
			}
		}
	}
	renum := make([]int, states) // old -> new
	for newS, oldS := range order {
		renum[oldS] = newS
	}
	m.next = make([]uint32, states*m.stride)
	m.out = make([][]int, states)
	m.finalFrom = states * m.stride
	for newS, oldS := range order {
		m.out[newS] = out[oldS]
		if len(out[oldS]) > 0 && newS*m.stride < m.finalFrom {
			m.finalFrom = newS * m.stride
		}
		for c := 0; c < m.stride; c++ {
			m.next[newS*m.stride+c] = uint32(renum[next[oldS*m.stride+c]] * m.stride)
		}
	}
	return m
}

// anyWhere reports whether text holds a keyword at [start,end) for which
// keep is true (the span ignores highlight markers inside the keyword).
func (m *keywordSet) anyWhere(text string, keep func(start, end int) bool) bool {
	s := 0
	for i := 0; i < len(text); i++ {
		s = int(m.next[s+int(m.class[text[i]])])
		if s < m.finalFrom {
			continue
		}
		for _, w := range m.out[s/m.stride] {
			if start := i + 1 - len(m.words[w]); start >= 0 && keep(start, i+1) {
				return true
			}
		}
	}
	return false
}

// any reports whether text holds at least one keyword.
func (m *keywordSet) any(text string) bool {
	next, final := m.next, m.finalFrom
	s := 0
	for i := 0; i < len(text); i++ {
		s = int(next[s+int(m.class[text[i]])])
		if s >= final {
			return true
		}
	}
	return false
}
