package sqlfuncs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/query"
)

// fakeTokens tokenizes for the tests: words split on spaces; "a|b" is the
// token a with b colocated after it; offsets are the word's bytes.
func fakeTokens(text string) []Token {
	var out []Token
	pos := 0
	for _, w := range strings.Split(text, " ") {
		for i, spelling := range strings.Split(w, "|") {
			out = append(out, Token{Text: []byte(spelling), Start: pos, End: pos + len(w), Colocated: i > 0})
		}
		pos += len(w) + 1
	}
	if text == "" {
		return nil
	}
	return out
}

// tokenSlice is Tokens held in a slice.
type tokenSlice []Token

func (t tokenSlice) Len() int       { return len(t) }
func (t tokenSlice) At(i int) Token { return t[i] }

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		name, text, query string
		prefix            bool
		want              []Range
	}{
		{"a word at each of its positions", "kiwi and kiwi", "kiwi", false, []Range{{0, 4}, {9, 13}}},
		{"a phrase needs consecutive positions", "red and kiwi", "red+kiwi", false, nil},
		{"a phrase covers its tokens", "a red kiwi", "red+kiwi", false, []Range{{2, 10}}},
		{"a phrase running past the text's end", "a red", "red+kiwi", false, nil},
		{"two terms are two phrases, by position then query order", "b a b", "a b", false, []Range{{0, 1}, {2, 3}, {4, 5}}},
		{"colocated document tokens share a position", "parsesessionkey|parse session key", "session", false, []Range{{22, 29}}},
		{"a phrase across a colocated token", "parsesessionkey|parse session key", "parse", false, []Range{{0, 21}}},
		{"query synonyms: any spelling", "kiwis fruit", "kiwi|kiwis", false, []Range{{0, 5}}},
		{"prefix: the last phrase only", "kiwis kiwano", "kiw kiwi", true, []Range{{0, 5}}},
		{"prefix covers the synonyms too", "kiwano", "zz|kiw", true, []Range{{0, 6}}},
		{"no match", "apple", "kiwi", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var terms []query.Term
			for _, term := range strings.Fields(c.query) {
				terms = append(terms, query.Term{Text: term})
			}
			phrases := Phrases(terms, func(term string) []Token {
				return fakeTokens(strings.ReplaceAll(term, "+", " "))
			})
			if c.prefix {
				phrases[len(phrases)-1].Prefix = true
			}
			if got := Matches(tokenSlice(fakeTokens(c.text)), phrases); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Matches(%q, %q) = %v, want %v", c.text, c.query, got, c.want)
			}
		})
	}
}

// A query term's tokens: a colocated one is a spelling of the term before
// it; terms without tokens are left out, and a term's Prefix marks its
// phrase.
func TestPhrases(t *testing.T) {
	tokenize := func(term string) []Token {
		if term == "--" {
			return nil
		}
		return fakeTokens(strings.ReplaceAll(term, "+", " "))
	}
	got := Phrases([]query.Term{{Text: "a|b+c"}, {Text: "--"}, {Text: "d", Prefix: true}}, tokenize)
	want := []Phrase{
		{Terms: [][][]byte{{[]byte("a"), []byte("b")}, {[]byte("c")}}},
		{Terms: [][][]byte{{[]byte("d")}}, Prefix: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Phrases = %v, want %v", got, want)
	}
}
