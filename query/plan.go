package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// MatchNothing is the FTS5 expression of a query that can match no row: an
// empty phrase. It is valid FTS5 syntax that selects nothing, so
// sessions_match can return it to plain SQL without turning an
// all-punctuation query into an error.
const MatchNothing = `""`

// MaxWords is the most words a relaxed search counts (docs/search.md Q27);
// the words after them still match in the first tier.
const MaxWords = 24

// Plan is what a search runs for a query (docs/search.md Q26):
//
//   - All is the exact tier: every clause, as the person wrote it, in one
//     FTS5 expression (MatchNothing when no clause holds a token).
//   - Words are the content words of the relaxed tiers: each positive
//     clause that is not a stopword, with each run of n-gram characters
//     cut into pieces, at most MaxWords. A message's coverage is how many
//     of them it holds.
//   - Not is the excluded part, " NOT ..." appended to every tier.
type Plan struct {
	All   string
	Words []Word
	Not   string
	// Terms are the positive atoms of the query, for snippets: what a
	// snippet centres on and shows (with the words' pieces, SnippetTerms).
	Terms []Term
}

// SnippetTerms returns the phrases a snippet of a hit centres on: the
// query's positive atoms, and the words a relaxed search counts.
func (p Plan) SnippetTerms() []Term {
	out := append([]Term(nil), p.Terms...)
	seen := map[Term]bool{}
	for _, t := range out {
		seen[t] = true
	}
	for _, w := range p.Words {
		for _, t := range w.Terms {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Word is one content word of a relaxed search: its spellings (one, or
// the alternatives of an OR), and Token when it is one word of a spaced
// script, whose other forms may be looked up.
type Word struct {
	Text  string // as shown to a person: the atom, or the n-gram piece
	Terms []Term
	Token string // the folded token, when word forms apply; "" otherwise
	Lang  string // the language of its stopwords and forms, when Token is set
}

// Phrases returns the FTS5 strings of the word's spellings.
func (w Word) Phrases() []string {
	out := make([]string, len(w.Terms))
	for i, t := range w.Terms {
		out[i] = ftsString(t.Text, t.Prefix)
	}
	return out
}

// Term is one phrase of a query for a snippet: its text and whether its
// last token matches as a prefix.
type Term struct {
	Text   string
	Prefix bool
}

// ftsString quotes s as an FTS5 string, so that the tokenizer reads it as
// a phrase and no character of it is FTS5 syntax.
func ftsString(s string, prefix bool) string {
	q := `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	if prefix {
		q += "*"
	}
	return q
}

// tokens is a tokenizer.Output used by one Plan call.
type tokens struct{ out tokenizer.Output }

// lead returns the tokens of a query term that are not colocated (one per
// position), as strings.
func (t *tokens) lead(s string) []string {
	tokenizer.Options{}.Tokenize([]byte(s), true, &t.out)
	var out []string
	for _, k := range t.out.Tokens {
		if k.Flags&tokenizer.Colocated == 0 {
			out = append(out, string(t.out.Text(k)))
		}
	}
	return out
}

// NewPlan plans a parsed query.
func NewPlan(q Query) Plan {
	var p Plan
	var tk tokens
	var pos, neg []string
	// Candidate words in clause order; single flags those a stopword
	// list may drop.
	type candidate struct {
		word   Word
		single bool
	}
	var cands []candidate
	for _, c := range q.Clauses {
		var alts []string
		var kept []Atom
		for _, a := range c.Alts {
			if len(tk.lead(a.Text)) == 0 {
				continue // punctuation only: a phrase of nothing matches nothing
			}
			alts = append(alts, ftsString(a.Text, a.Prefix))
			kept = append(kept, a)
		}
		if len(alts) == 0 {
			continue
		}
		expr := alts[0]
		if len(alts) > 1 {
			expr = "(" + strings.Join(alts, " OR ") + ")"
		}
		if c.Negated {
			neg = append(neg, expr)
			continue
		}
		pos = append(pos, expr)
		for _, a := range kept {
			p.Terms = append(p.Terms, Term{a.Text, a.Prefix})
		}
		a := kept[0]
		toks := tk.lead(a.Text)
		switch {
		case len(kept) > 1 || a.Quoted || a.Prefix:
			cands = append(cands, candidate{word: Word{Text: strings.Join(textsOf(kept), " OR "), Terms: termsOf(kept)}})
		case len(toks) == 1 && !isNgramToken(toks[0]):
			cands = append(cands, candidate{word: Word{Text: trimPunct(a.Text), Terms: termsOf(kept), Token: toks[0]}, single: true})
		case allNgram(toks):
			for _, piece := range ngramPieces(toks) {
				cands = append(cands, candidate{word: Word{Text: piece, Terms: []Term{{Text: piece}}}, single: true})
			}
		default:
			// A word of parts (caroline's, artists/bands, report.txt)
			// counts its parts; its n-gram runs count their pieces. The
			// separator between two runs (東京>大阪, <파일>에) ends a run
			// and is no word.
			var run []string
			flush := func() {
				for _, piece := range ngramPieces(run) {
					cands = append(cands, candidate{word: Word{Text: piece, Terms: []Term{{Text: piece}}}, single: true})
				}
				run = nil
			}
			for _, t := range toks {
				if isNgramToken(t) {
					run = append(run, t)
					continue
				}
				if run != nil {
					flush()
				}
				if t == tokenizer.Separator {
					continue
				}
				cands = append(cands, candidate{word: Word{Text: t, Terms: []Term{{Text: t}}, Token: t}, single: true})
			}
			if run != nil {
				flush()
			}
		}
	}
	if len(pos) == 0 {
		p.All = MatchNothing
		return p
	}
	p.All = strings.Join(pos, " AND ")
	for _, n := range neg {
		p.Not += " NOT " + n
	}
	if len(pos) > 1 && p.Not != "" {
		p.All = "(" + p.All + ")"
	}
	p.All += p.Not
	// Stopwords go, unless every word is one.
	var singles []string
	for _, c := range cands {
		if c.single {
			singles = append(singles, stopKey(c.word))
		}
	}
	stop, langs := Stopwords(singles)
	dropAll := true
	k := 0
	for _, c := range cands {
		if !c.single || !stop[k] && !isOneCharacter(c.word.Token) {
			dropAll = false
		}
		if c.single {
			k++
		}
	}
	k = 0
	seen := map[string]bool{}
	for _, c := range cands {
		isStop := c.single && (stop[k] || isOneCharacter(c.word.Token))
		if c.single {
			k++
		}
		key := strings.Join(c.word.Phrases(), "\x00")
		if c.word.Token != "" {
			key = c.word.Token
		}
		if isStop && !dropAll || seen[key] || len(p.Words) == MaxWords {
			continue
		}
		seen[key] = true
		if c.word.Token != "" {
			script := wordScript(c.word.Token)
			if lang, ok := langs[script]; ok {
				c.word.Lang = lang
			} else {
				c.word.Lang = defaultLanguage[script]
			}
		}
		p.Words = append(p.Words, c.word)
	}
	return p
}

// trimPunct returns a word as written without the punctuation around it
// (the ? of "Lisbon?"), as a result's words show it.
func trimPunct(s string) string {
	if t := strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }); t != "" {
		return t
	}
	return s
}

// isOneCharacter reports whether a word of a spaced script is one letter or
// digit (the s of caroline's, the t of don't, the 1 of v2.3.1): a relaxed
// search does not count it, as it does not count stopwords.
func isOneCharacter(token string) bool {
	r, size := utf8.DecodeRuneInString(token)
	return size == len(token) && (unicode.IsLetter(r) || unicode.IsDigit(r)) && !tokenizer.IsNgram(r)
}

func termsOf(atoms []Atom) []Term {
	out := make([]Term, len(atoms))
	for i, a := range atoms {
		out[i] = Term{a.Text, a.Prefix}
	}
	return out
}

func textsOf(atoms []Atom) []string {
	out := make([]string, len(atoms))
	for i, a := range atoms {
		out[i] = a.Text
	}
	return out
}

// stopKey is how a word is looked up in the stopword lists: its folded
// token, or its n-gram piece.
func stopKey(w Word) string {
	if w.Token != "" {
		return w.Token
	}
	return w.Text
}

func isNgramToken(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	return size == len(t) && tokenizer.IsNgram(r)
}

func allNgram(toks []string) bool {
	for _, t := range toks {
		if !isNgramToken(t) {
			return false
		}
	}
	return true
}

// ngramPieces cuts a run of n-gram characters (folded, one per token) into
// the pieces a relaxed search counts (docs/search.md Q27): its stopwords
// (the run's own script's list that holds most of the run) cut it first;
// then each stretch longer than n characters gives its overlapping n-grams,
// n being 2 for Han, kana and Hangul and 3 for Thai, Lao, Khmer and
// Myanmar, whose words are longer. A stretch of n or fewer is one piece.
func ngramPieces(toks []string) []string {
	run := strings.Join(toks, "")
	chars := []rune(run)
	n := 2
	if scriptUsesTrigrams(chars[0]) {
		n = 3
	}
	var pieces []string
	for _, stretch := range cutStopwords(chars) {
		if len(stretch) <= n {
			pieces = append(pieces, string(stretch))
			continue
		}
		for i := 0; i+n <= len(stretch); i++ {
			pieces = append(pieces, string(stretch[i:i+n]))
		}
	}
	if len(pieces) == 0 {
		pieces = []string{run} // a run of nothing but stopwords stays whole
	}
	return pieces
}

func scriptUsesTrigrams(r rune) bool {
	return unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// cutStopwords removes the stopwords of the run's script from a run of
// n-gram characters, longest first, and returns the stretches between.
func cutStopwords(chars []rune) [][]rune {
	byWord, langs := stopwords()
	script := ScriptOf(chars[0])
	longest := 0
	best, bestHits := -1, 0
	for i, l := range langs {
		if l.script != script {
			continue
		}
		hits := 0
		for a := range chars {
			for b := a + 1; b <= len(chars) && b-a <= 4; b++ {
				if byWord[string(chars[a:b])]&(1<<i) != 0 {
					hits++
				}
			}
		}
		if hits > bestHits {
			best, bestHits = i, hits
		}
	}
	if best < 0 {
		return [][]rune{chars}
	}
	longest = 4
	var out [][]rune
	start := 0
	for i := 0; i < len(chars); {
		cut := 0
		for b := min(len(chars), i+longest); b > i; b-- {
			if byWord[string(chars[i:b])]&(1<<best) != 0 {
				cut = b - i
				break
			}
		}
		if cut == 0 {
			i++
			continue
		}
		if i > start {
			out = append(out, chars[start:i])
		}
		i += cut
		start = i
	}
	if start < len(chars) {
		out = append(out, chars[start:])
	}
	return out
}

// Group bytes of the coverage function (sessionsearch_coverage): a word's
// index, with FormBit when the phrase is another form of the word, not
// the word itself; NoGroup for phrases that count for nothing (the
// excluded ones).
const (
	FormBit = 0x80
	NoGroup = 0xff
)

// Relaxed returns the FTS5 expression of the relaxed tiers: any of the
// words, in any of their spellings, or any of their forms (forms[i], FTS5
// strings, for word i; nil for none), with the exclusions; and the group
// byte of each of its phrases, in FTS5's order (left to right), for the
// coverage function. With no words it returns "".
func (p Plan) Relaxed(forms [][]string) (expr string, groups []byte) {
	if len(p.Words) == 0 {
		return "", nil
	}
	var alts []string
	for i, w := range p.Words {
		for _, ph := range w.Phrases() {
			alts = append(alts, ph)
			groups = append(groups, byte(i))
		}
		if i < len(forms) {
			for _, f := range forms[i] {
				alts = append(alts, f)
				groups = append(groups, byte(i)|FormBit)
			}
		}
	}
	expr = strings.Join(alts, " OR ")
	if p.Not != "" {
		expr = "(" + expr + ")" + p.Not
	}
	return expr, groups
}

// WordsAreAll reports whether the exact tier is the words' own: All is
// every word, each in its spellings, and nothing else (no stopword
// dropped, no term cut into parts or pieces, no word past MaxWords), with
// the exclusions. Then a message holds every word as written exactly when
// the exact tier matches it, and the relaxed tier's expression finds the
// exact tier's rows too (docs/search.md Q37).
func (p Plan) WordsAreAll() bool {
	if len(p.Words) == 0 {
		return false
	}
	clauses := make([]string, len(p.Words))
	for i, w := range p.Words {
		alts := w.Phrases()
		clauses[i] = alts[0]
		if len(alts) > 1 {
			clauses[i] = "(" + strings.Join(alts, " OR ") + ")"
		}
	}
	all := strings.Join(clauses, " AND ")
	if len(clauses) > 1 && p.Not != "" {
		all = "(" + all + ")"
	}
	return all+p.Not == p.All
}
