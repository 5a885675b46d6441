package query

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Stopwords (docs/search.md Q27): words so common that a message holding
// them says nothing about the question. A relaxed search leaves them out
// of the words it counts; the first, exact tier keeps every word.
//
// Which language's list applies is decided per query and per script group
// (ScriptOf): among the languages written in the group's script, the one
// whose list holds the most of the query's words in that script; ties go
// to a language Snowball has a stemmer for (Stem), then to the first in
// stopwordLists' order of codes, with English first. It
// needs two of the words, unless it is the script's usual language
// (defaultLanguage) or the script's only one. A script for which no
// language qualifies drops nothing, so "war" stays a word in an English
// question although it is a German stopword, and "Tim" in "instruments Tim
// play" although it is a Croatian one.

// stopwordList is one language's list (stopwords_tables.go).
type stopwordList struct {
	code, script, source, words string
}

var stopwordIndex struct {
	once sync.Once
	// byWord: for each word, a bit per language (index in langs) whose
	// list holds it.
	byWord map[string]uint64
	langs  []stopwordList
}

func stopwords() (map[string]uint64, []stopwordList) {
	s := &stopwordIndex
	s.once.Do(func() {
		s.langs = make([]stopwordList, 0, len(stopwordLists))
		for _, l := range stopwordLists { // English first, for ties
			if l.code == "en" {
				s.langs = append(s.langs, l)
			}
		}
		for _, l := range stopwordLists {
			if l.code != "en" && len(s.langs) < 64 {
				s.langs = append(s.langs, l)
			}
		}
		s.byWord = map[string]uint64{}
		for i, l := range s.langs {
			for _, w := range strings.Split(l.words, "\n") {
				s.byWord[w] |= 1 << i
			}
		}
	})
	return s.byWord, s.langs
}

// StopwordLanguages returns the codes of the languages that have a
// stopword list, and each one's source.
func StopwordLanguages() map[string]string {
	_, langs := stopwords()
	out := make(map[string]string, len(langs))
	for _, l := range langs {
		out[l.code] = l.source
	}
	return out
}

// Stopwords decides which of a query's words (folded tokens, or runs of
// n-gram characters) are stopwords, by the rule above; it returns one
// flag per word, and the language it chose for each script (ISO 639
// codes, by ScriptOf's names), which is also the language of the words'
// forms.
func Stopwords(words []string) ([]bool, map[string]string) {
	byWord, langs := stopwords()
	// hits[script][lang]: how many of the words in that script the
	// language's list holds.
	hits := map[string][]int{}
	for _, w := range words {
		// A letter alone (the s of caroline's, the t of don't) is no
		// evidence of a language: French's list holds s and t, so English
		// contractions would make a question French.
		if isOneCharacter(w) {
			continue
		}
		script := wordScript(w)
		for i := range langs {
			if byWord[w]&(1<<i) != 0 && langs[i].script == script {
				if hits[script] == nil {
					hits[script] = make([]int, len(langs))
				}
				hits[script][i]++
			}
		}
	}
	chosen := map[string]int{}
	for script, counts := range hits {
		best, languages := 0, 0
		for i, n := range counts {
			if langs[i].script == script {
				languages++
			}
			// Ties go to a language with a stemmer (Catalan and Spanish
			// share el, la and que; Spanish has Snowball's stemmer).
			if n > counts[best] || n == counts[best] && n > 0 && stemmers[langs[i].code] != nil && stemmers[langs[best].code] == nil {
				best = i
			}
		}
		// One word is evidence enough for the script's usual language, or
		// for a script of one language; another needs two, so that "tim" in
		// "instruments Tim play" does not make the query Croatian.
		if counts[best] >= 2 || languages == 1 || langs[best].code == defaultLanguage[script] {
			chosen[script] = best
		}
	}
	out := make([]bool, len(words))
	for k, w := range words {
		if lang, ok := chosen[wordScript(w)]; ok {
			out[k] = byWord[w]&(1<<lang) != 0
		}
	}
	names := make(map[string]string, len(chosen))
	for script, lang := range chosen {
		names[script] = langs[lang].code
	}
	return out, names
}

func wordScript(w string) string {
	r, _ := utf8.DecodeRuneInString(w)
	return ScriptOf(r)
}
