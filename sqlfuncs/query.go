package sqlfuncs

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxQueryChars is the longest query, in characters after trimming, that
// sessions_search and sessions_match accept (OpenClaw's limit).
const MaxQueryChars = 4096

// MatchNothing is the FTS5 expression MatchExpr returns when no term of the
// query can match: an empty phrase. It is valid FTS5 syntax that selects no
// row, so sessions_match can return it to plain SQL without turning an
// all-punctuation query into an error; sessions_search compares with it and
// answers zero results without running the query. (An empty MATCH string
// would be an FTS5 syntax error.)
const MatchNothing = `""`

// MatchExpr turns a user query into a safe FTS5 expression.
//
//   - The query is trimmed; an empty query or one over MaxQueryChars
//     characters is an error.
//   - It is split on Unicode white space, and on NUL, which would end the
//     expression early inside FTS5's parser.
//   - Each term becomes an FTS5 string with `"` doubled, so OR, AND, NOT,
//     NEAR, *, ^, :, parentheses and - are literal text; the tokenizer then
//     matches the term as a phrase ("foo-bar" finds "foo bar").
//   - Terms for which hasTokens is false are dropped: a phrase with no
//     tokens matches no row and would empty the whole AND. hasTokens comes
//     from the tokenizer; nil keeps every term.
//   - The kept terms are joined with " AND "; with prefix the last kept term
//     gets "*" after its closing quote.
//   - If no term is kept the result is MatchNothing.
func MatchExpr(query string, prefix bool, hasTokens func(term string) bool) (string, error) {
	terms, err := QueryTerms(query, hasTokens)
	if err != nil {
		return "", err
	}
	if len(terms) == 0 {
		return MatchNothing, nil
	}
	var b strings.Builder
	for i, term := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(term, `"`, `""`))
		b.WriteByte('"')
	}
	if prefix {
		b.WriteByte('*')
	}
	return b.String(), nil
}

// checkQuery trims a query and checks its length.
func checkQuery(query string) (string, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return "", errors.New("query must not be empty")
	}
	if n := utf8.RuneCountInString(query); n > MaxQueryChars {
		return "", fmt.Errorf("query must be at most %d characters, got %d", MaxQueryChars, n)
	}
	return query, nil
}
