package store

import (
	"strings"
	"unicode"
)

// ReplacesSessions reports whether sql, the text of a statement, is an
// INSERT OR REPLACE (or REPLACE) into the sessions table (docs/store.md
// S18). Such a statement deletes the row it replaces: with
// recursive_triggers on that would delete the session's transcript, and
// with foreign keys on it would cascade into its events, so the store
// refuses it and names the statement to use instead. The statement may
// start with comments and name the table with a schema or in quotes; a
// statement that starts with WITH is not recognized (its REPLACE deletes
// what a DELETE would, docs/store.md S18).
func ReplacesSessions(sql string) bool {
	w := sqlWords{s: sql}
	first := w.next()
	switch {
	case first == "replace":
	case first == "insert" && w.next() == "or" && w.next() == "replace":
	default:
		return false
	}
	if w.next() != "into" {
		return false
	}
	table := w.next()
	if w.peekDot() {
		w.next() // the dot
		table = w.next()
	}
	return table == "sessions"
}

// sqlWords reads the words of a statement: keywords and identifiers,
// unquoted and lowercased (ASCII case folding, as SQLite's), skipping white
// space and comments. A dot is a word of its own.
type sqlWords struct {
	s string
	i int
}

func (w *sqlWords) skip() {
	for w.i < len(w.s) {
		switch {
		case w.s[w.i] == ' ' || w.s[w.i] == '\t' || w.s[w.i] == '\n' || w.s[w.i] == '\r' || w.s[w.i] == '\f':
			w.i++
		case strings.HasPrefix(w.s[w.i:], "--"):
			end := strings.IndexByte(w.s[w.i:], '\n')
			if end < 0 {
				w.i = len(w.s)
			} else {
				w.i += end + 1
			}
		case strings.HasPrefix(w.s[w.i:], "/*"):
			end := strings.Index(w.s[w.i+2:], "*/")
			if end < 0 {
				w.i = len(w.s)
			} else {
				w.i += 2 + end + 2
			}
		default:
			return
		}
	}
}

func (w *sqlWords) peekDot() bool {
	w.skip()
	return w.i < len(w.s) && w.s[w.i] == '.'
}

func (w *sqlWords) next() string {
	w.skip()
	if w.i >= len(w.s) {
		return ""
	}
	c := w.s[w.i]
	if c == '.' {
		w.i++
		return "."
	}
	closer := map[byte]byte{'"': '"', '`': '`', '[': ']', '\'': '\''}[c]
	if closer != 0 {
		var b strings.Builder
		for j := w.i + 1; j < len(w.s); j++ {
			if w.s[j] == closer {
				if closer != ']' && j+1 < len(w.s) && w.s[j+1] == closer {
					b.WriteByte(closer) // a doubled quote
					j++
					continue
				}
				w.i = j + 1
				return asciiLower(b.String())
			}
			b.WriteByte(w.s[j])
		}
		w.i = len(w.s)
		return ""
	}
	start := w.i
	for w.i < len(w.s) && (w.s[w.i] >= 0x80 || w.s[w.i] == '_' || w.s[w.i] == '$' || unicode.IsLetter(rune(w.s[w.i])) || unicode.IsDigit(rune(w.s[w.i]))) {
		w.i++
	}
	if w.i == start {
		w.i++ // punctuation: a word of one byte
	}
	return asciiLower(w.s[start:w.i])
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
