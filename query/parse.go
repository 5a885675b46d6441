// Package query owns what a search query means (docs/search.md Q1–Q4,
// Q25–Q28): the query language a person types, parsed once into a small
// typed tree (Parse), and the plans that turn that tree into FTS5
// expressions: every clause, then every content word with its word forms,
// then some of the words (Plan); and the time phrases a query may hold
// (FindTimePhrase, Q40–Q41). It knows nothing of SQLite; the extension
// runs the expressions it builds and ranks their rows with package ranking.
package query

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxChars is the longest query, in characters after trimming, that
// sessions_search and sessions_match accept (OpenClaw's limit).
const MaxChars = 4096

// Query is a parsed query: clauses that must all hold. A clause is one
// atom or several joined by OR, or an atom that must not occur.
type Query struct {
	Clauses []Clause
}

// Clause is one or more alternatives (a OR b OR c); Negated clauses exclude
// the messages that match them.
type Clause struct {
	Alts    []Atom
	Negated bool
}

// Atom is one term as the person wrote it: a word (which may hold
// punctuation: foo-bar, report.txt, 東京都), or a quoted phrase; Prefix
// when it ended with * (or was the last atom of a prefix search).
type Atom struct {
	Text   string
	Quoted bool
	Prefix bool
}

// The syntax, as docs/search.md Q25 states it:
//
//   - White space (Unicode's, and NUL) separates terms.
//   - "..." is a phrase: a term may hold white space between double
//     quotes. A quote that is not closed is text.
//   - OR, in capitals and on its own, between two terms joins them.
//     Anywhere else it is the word "or".
//   - -term excludes the messages that hold term, when term starts with a
//     letter or a quote. Before anything else the minus is text: --continue
//     (an option of a command) and -1 are searched for, not left out. A
//     query of nothing but exclusions is read as its words (the minus is
//     text), so that a search for "-v" finds "v".
//   - term* matches term as a prefix of a word.
//   - Everything else is text: parentheses, colons, ^, NEAR, AND, NOT and
//     lone punctuation never become FTS5 syntax.

// rawTerm is one white-space separated term before OR joins them.
type rawTerm struct {
	atom       Atom
	negated    bool
	or         bool // the bare word OR
	start, end int  // its bytes in the query, minus and quotes included
}

// Parse checks a query and parses it. prefix makes the last atom that
// holds a token, of the last positive clause that has one, a prefix (the
// "prefix" option). Terms that hold no token are kept: NewPlan drops
// them.
func Parse(q string, prefix bool) (Query, error) {
	q, err := Check(q)
	if err != nil {
		return Query{}, err
	}
	terms := lex(q)
	var out Query
	for i := 0; i < len(terms); i++ {
		// lex left OR only between two plain terms: it joins them.
		t := terms[i]
		c := Clause{Alts: []Atom{t.atom}, Negated: t.negated}
		for !t.negated && i+2 < len(terms) && terms[i+1].or && !terms[i+2].or && !terms[i+2].negated {
			c.Alts = append(c.Alts, terms[i+2].atom)
			i += 2
		}
		out.Clauses = append(out.Clauses, c)
	}
	if !out.hasPositive() {
		// Only exclusions: the minus signs were text.
		for i := range out.Clauses {
			out.Clauses[i].Negated = false
		}
	}
	if prefix {
		var tk tokens
		for i := len(out.Clauses) - 1; i >= 0; i-- {
			alts := out.Clauses[i].Alts
			if a := &alts[len(alts)-1]; !out.Clauses[i].Negated && len(tk.lead(a.Text)) > 0 {
				a.Prefix = true
				break
			}
		}
	}
	return out, nil
}

// Syntaxes of a query (the "syntax" option, docs/search.md Q1).
const (
	// SyntaxLiteral: every white-space separated term is text, matched as
	// a phrase (CONTRACT.md's rule, and sessions_match's).
	SyntaxLiteral = "literal"
	// SyntaxQuery: the query language Parse reads.
	SyntaxQuery = "query"
)

// ParseSyntax parses a query in a syntax: Parse for SyntaxQuery,
// ParseLiteral for any other.
func ParseSyntax(q string, prefix bool, syntax string) (Query, error) {
	if syntax == SyntaxQuery {
		return Parse(q, prefix)
	}
	return ParseLiteral(q, prefix)
}

// ParseLiteral checks a query and reads it literally: each term between
// white space (Unicode's, and NUL) is one plain atom, whatever quotes,
// minus signs, stars or capitals it holds, and all must match. prefix
// makes the last term that holds a token a prefix.
func ParseLiteral(q string, prefix bool) (Query, error) {
	q, err := Check(q)
	if err != nil {
		return Query{}, err
	}
	var out Query
	for _, f := range strings.FieldsFunc(q, isSpace) {
		out.Clauses = append(out.Clauses, Clause{Alts: []Atom{{Text: f}}})
	}
	if prefix {
		var tk tokens
		for i := len(out.Clauses) - 1; i >= 0; i-- {
			if a := &out.Clauses[i].Alts[0]; len(tk.lead(a.Text)) > 0 {
				a.Prefix = true
				break
			}
		}
	}
	return out, nil
}

func (q Query) hasPositive() bool {
	for _, c := range q.Clauses {
		if !c.Negated {
			return true
		}
	}
	return false
}

// Check trims a query and checks its length: an empty query and one over
// MaxChars characters are errors.
func Check(q string) (string, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return "", errors.New("query must not be empty")
	}
	if n := utf8.RuneCountInString(q); n > MaxChars {
		return "", fmt.Errorf("query must be at most %d characters, got %d", MaxChars, n)
	}
	return q, nil
}

func isSpace(r rune) bool { return unicode.IsSpace(r) || r == 0 }

// lex splits a query into terms: white space separates them, except
// inside a closed pair of double quotes that starts a term (after an
// optional minus).
func lex(q string) []rawTerm {
	var terms []rawTerm
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if isSpace(r) {
			i += size
			continue
		}
		start := i
		negated := false
		j := i
		if q[j] == '-' && j+1 < len(q) {
			if r2, _ := utf8.DecodeRuneInString(q[j+1:]); r2 == '"' || unicode.IsLetter(r2) {
				negated = true
				j++
			}
		}
		if q[j] == '"' {
			if end := strings.IndexByte(q[j+1:], '"'); end >= 0 {
				closeAt := j + 1 + end
				after := closeAt + 1
				star := after < len(q) && q[after] == '*'
				if star {
					after++
				}
				if after == len(q) || startsWithSpace(q[after:]) {
					terms = append(terms, rawTerm{atom: Atom{Text: q[j+1 : closeAt], Quoted: true, Prefix: star}, negated: negated, start: start, end: after})
					i = after
					continue
				}
			}
		}
		// A plain term: up to the next white space.
		end := strings.IndexFunc(q[start:], isSpace)
		if end < 0 {
			end = len(q)
		} else {
			end += start
		}
		text := q[j:end]
		if text == "OR" && !negated {
			terms = append(terms, rawTerm{or: true, start: start, end: end})
			i = end
			continue
		}
		a := Atom{Text: text}
		if len(text) > 1 && strings.HasSuffix(text, "*") && !strings.HasSuffix(text, "**") {
			a.Text, a.Prefix = text[:len(text)-1], true
		}
		terms = append(terms, rawTerm{atom: a, negated: negated, start: start, end: end})
		i = end
	}
	// An OR that does not stand between two terms is a word.
	for k := range terms {
		if terms[k].or && (k == 0 || k == len(terms)-1 || terms[k-1].or || terms[k+1].or || terms[k+1].negated || terms[k-1].negated) {
			terms[k] = rawTerm{atom: Atom{Text: "OR"}, start: terms[k].start, end: terms[k].end}
		}
	}
	return terms
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isSpace(r)
}
