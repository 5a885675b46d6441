package main

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// minWordLen is the fewest letters a content word has.
const minWordLen = 3

// ContentWords are a question's content words: its runs of letters and
// digits in lower case, without the English stopwords of Snowball's Go port
// (kljensen/snowball english.IsStopWord, the 127-word list NLTK ships) and
// without words of fewer than three characters, each word once, in the
// question's order. "What is Caroline's identity?" gives caroline identity.
func ContentWords(question string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(w) < minWordLen || english.IsStopWord(w) || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}
