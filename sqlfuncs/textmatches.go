package sqlfuncs

import (
	"cmp"
	"slices"

	"github.com/sessionsearch/sessionsearch/query"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// OutputTokens is a tokenizer Output as Tokens, without a copy.
type OutputTokens struct{ Output *tokenizer.Output }

// Len is the number of tokens.
func (t OutputTokens) Len() int { return len(t.Output.Tokens) }

// At is the i-th token.
func (t OutputTokens) At(i int) Token {
	k := t.Output.Tokens[i]
	return Token{Text: t.Output.Text(k), Start: int(k.Start), End: int(k.End), Colocated: k.Flags&tokenizer.Colocated != 0}
}

// TextMatches returns where a query matches a text, as the snippets of
// docs/search.md Q14 find it with the store's tokenizer (sessionsearch
// without arguments): the byte ranges that the CLI shows in bold and the
// page marks. Overlapping and touching ranges are merged, so the ranges
// are sorted and disjoint. A query that sessions_search refuses (empty, too
// long) is the same error here.
func TextMatches(text, q string, prefix bool) ([]Range, error) {
	parsed, err := query.ParseLiteral(q, prefix)
	if err != nil {
		return nil, err
	}
	var out tokenizer.Output
	tokens := OutputTokens{&out}
	var terms []Token
	phrases := Phrases(query.NewPlan(parsed).Terms, func(term string) []Token {
		tokenizer.Options{}.Tokenize([]byte(term), true, &out)
		terms = terms[:0]
		for i := range tokens.Len() {
			terms = append(terms, tokens.At(i))
		}
		return terms
	})
	if len(phrases) == 0 {
		return nil, nil
	}
	tokenizer.Options{}.Tokenize([]byte(text), false, &out)
	return mergeRanges(Matches(tokens, phrases)), nil
}

// mergeRanges sorts ranges by start and joins those that overlap or touch.
func mergeRanges(rs []Range) []Range {
	if len(rs) == 0 {
		return nil
	}
	sorted := append([]Range(nil), rs...)
	slices.SortFunc(sorted, func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
	out := sorted[:1]
	for _, r := range sorted[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}
