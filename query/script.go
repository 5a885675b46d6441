package query

import "unicode"

// ScriptOf names the script group in which a word is judged (which
// languages' stopwords and stemmers apply): the Unicode script of its
// first letter, with Han, Hiragana and Katakana one group, "Han", since
// Chinese and Japanese share Han.
func ScriptOf(r rune) string {
	switch {
	case r < 0x80:
		if 'a' <= r|0x20 && r|0x20 <= 'z' {
			return "Latin"
		}
		return "Common"
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return "Han"
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			return name
		}
	}
	return "Common"
}
