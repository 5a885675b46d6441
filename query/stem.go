package query

import (
	"strings"
	"sync"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
)

// Word forms (docs/search.md Q28): two words are forms of each other when
// Snowball's stemmer of the query's language gives them the same stem
// (researching, researched and research are research). The stemmers are
// Snowball's own, generated into Go (github.com/blevesearch/snowballstem),
// for the languages Snowball has; the language of a word is the one its
// script's stopwords chose for the query (Stopwords), or, when none did,
// the script's first language below.

// stemmers are the Snowball stemmers by ISO 639-1 code.
var stemmers = map[string]func(*snowball.Env) bool{
	"ar": arabic.Stem, "da": danish.Stem, "de": german.Stem, "en": english.Stem, "es": spanish.Stem,
	"fi": finnish.Stem, "fr": french.Stem, "ga": irish.Stem, "hu": hungarian.Stem, "it": italian.Stem,
	"nl": dutch.Stem, "no": norwegian.Stem, "pt": portuguese.Stem, "ro": romanian.Stem, "ru": russian.Stem,
	"sv": swedish.Stem, "ta": tamil.Stem, "tr": turkish.Stem,
}

// defaultLanguage is a script's language when no stopword chose one.
var defaultLanguage = map[string]string{"Latin": "en", "Cyrillic": "ru", "Arabic": "ar", "Tamil": "ta", "Han": "zh"}

// envs are Snowball environments, which a stemmer changes in place.
var envs = sync.Pool{New: func() any { return snowball.NewEnv("") }}

// Stem returns the Snowball stem of a folded word in a language, and
// whether the language has a stemmer.
func Stem(lang, word string) (string, bool) {
	stem, ok := stemmers[lang]
	if !ok {
		return "", false
	}
	env := envs.Get().(*snowball.Env)
	defer envs.Put(env)
	env.SetCurrent(word)
	stem(env)
	return env.Current(), true
}

// MinFormPrefix is the shortest common start, in characters, of a word
// and its stem for which its forms are looked up: a shorter one would read
// too much of the index's vocabulary and find unrelated words.
const MinFormPrefix = 3

// FormPrefix returns where the forms of a word are looked for in the
// index's vocabulary (its terms in [prefix, prefix + "\xff")): the common
// start of the word and its stem but the stem's last character, which
// every term that Snowball's suffix-stripping stemmers give the same stem
// shares in practice. The last character is left out because a stemmer
// may rewrite it: English's turns a final y into i (study and studies are
// studi) and gives back an e it removed (hoping is hope), so the forms of
// studies start with stud and those of hope with hop. When that start is
// too short, the common start of the word and its whole stem is used (run,
// running). It returns "" when the word has no stemmer or the prefix is
// too short.
func (w Word) FormPrefix() string {
	if w.Token == "" || w.Lang == "" {
		return ""
	}
	stem, ok := Stem(w.Lang, w.Token)
	if !ok {
		return ""
	}
	_, last := utf8.DecodeLastRuneInString(stem)
	for _, s := range []string{stem[:len(stem)-last], stem} {
		if p := commonStart(w.Token, s); utf8.RuneCountInString(p) >= MinFormPrefix {
			return p
		}
	}
	return ""
}

// commonStart returns the longest common start of a and b, in whole
// characters.
func commonStart(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) {
		ra, size := utf8.DecodeRuneInString(a[n:])
		if rb, _ := utf8.DecodeRuneInString(b[n:]); ra != rb {
			break
		}
		n += size
	}
	return a[:n]
}

// IsForm reports whether a term of the index is another form of the word:
// not the word itself, and of the same stem.
func (w Word) IsForm(term string) bool {
	if term == w.Token || w.Lang == "" || strings.ContainsAny(term, " \x00") {
		return false
	}
	a, ok := Stem(w.Lang, w.Token)
	if !ok {
		return false
	}
	b, _ := Stem(w.Lang, term)
	return a == b
}
