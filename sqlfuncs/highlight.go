package sqlfuncs

import (
	"bytes"

	"github.com/sessionsearch/sessionsearch/query"
)

// Where a query matches in a text: the byte ranges a snippet is centred on
// and shows (docs/search.md Q14). They are the phrase instances FTS5 reports
// through its auxiliary API (xInst) for the expression MatchExpr builds,
// computed here from the tokens instead, so that a snippet needs no second
// FTS5 lookup of its row:
//
//   - Each kept term of the query is a phrase: its tokens in query mode,
//     where a token flagged colocated is another spelling of the term
//     before it (FTS5's synonyms). With prefix, the last term of the last
//     phrase matches any token that starts with one of its spellings.
//   - The text's tokens have positions: each token that is not colocated
//     starts a new one (the first token always has position 0), and a
//     colocated token shares the position before it, as FTS5 numbers them
//     when it indexes.
//   - A phrase of n terms matches at position p when, for each i < n, a
//     token at position p+i equals a spelling of term i. (FTS5 cuts tokens
//     to 32,768 bytes; a query of at most query.MaxChars characters has no
//     token that long, so the cut changes no match and is not made here.)
//   - The instances are ordered by position, and at one position by the
//     phrase's order in the query. An instance covers the bytes from the
//     start of the first non-colocated token at p to the end of the one at
//     p+n-1 (the last one in the text if the phrase runs past it).

// Token is one token of a text or query term: its folded bytes, the byte
// range of the text it came from, and whether it is colocated with the
// token before it.
type Token struct {
	Text       []byte
	Start, End int
	Colocated  bool
}

// Phrase is one kept term of a query as FTS5 matches it: for each of its
// positions, the spellings a token there may have; Prefix when its last
// position matches by prefix.
type Phrase struct {
	Terms  [][][]byte
	Prefix bool
}

// Phrases returns the phrases of a query's terms (query.Plan's
// SnippetTerms): each term tokenized in query mode by tokenize, which
// returns the term's tokens (valid until its next call); a term with
// Prefix matches its last token by prefix. Terms without tokens are left
// out.
func Phrases(terms []query.Term, tokenize func(term string) []Token) []Phrase {
	var phrases []Phrase
	for _, term := range terms {
		var p Phrase
		for _, t := range tokenize(term.Text) {
			spelling := bytes.Clone(t.Text)
			if t.Colocated && len(p.Terms) > 0 {
				last := len(p.Terms) - 1
				p.Terms[last] = append(p.Terms[last], spelling)
			} else {
				p.Terms = append(p.Terms, [][]byte{spelling})
			}
		}
		if len(p.Terms) > 0 {
			p.Prefix = term.Prefix
			phrases = append(phrases, p)
		}
	}
	return phrases
}

// Tokens is a text's tokens, in order: how many, and the i-th.
type Tokens interface {
	Len() int
	At(i int) Token
}

// Matches returns the ranges of the phrases' instances in a text of the
// given tokens, in FTS5's order (see above). Besides the tokens it holds
// two integers for each position of the text.
func Matches(tokens Tokens, phrases []Phrase) []Range {
	// first[p]: the index of position p's first token; lead: the indexes
	// of the tokens that are not colocated, whose byte ranges the
	// instances cover (the C side maps instances to them the same way).
	first := make([]int32, 0, tokens.Len()+1)
	lead := make([]int32, 0, tokens.Len())
	for i := range tokens.Len() {
		t := tokens.At(i)
		if !t.Colocated || len(first) == 0 {
			first = append(first, int32(i))
		}
		if !t.Colocated {
			lead = append(lead, int32(i))
		}
	}
	first = append(first, int32(tokens.Len()))
	positions := len(first) - 1
	at := func(pos int, spellings [][]byte, prefix bool) bool {
		for i := first[pos]; i < first[pos+1]; i++ {
			text := tokens.At(int(i)).Text
			for _, s := range spellings {
				if bytes.Equal(text, s) || prefix && bytes.HasPrefix(text, s) {
					return true
				}
			}
		}
		return false
	}
	matchesAt := func(p Phrase, pos int) bool {
		for i, spellings := range p.Terms {
			if pos+i >= positions || !at(pos+i, spellings, p.Prefix && i == len(p.Terms)-1) {
				return false
			}
		}
		return true
	}
	var out []Range
	for pos := range min(positions, len(lead)) {
		for _, p := range phrases {
			if len(p.Terms) == 0 || !matchesAt(p, pos) {
				continue
			}
			last := min(pos+len(p.Terms)-1, len(lead)-1)
			out = append(out, Range{tokens.At(int(lead[pos])).Start, tokens.At(int(lead[last])).End})
		}
	}
	return out
}
