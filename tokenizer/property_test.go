package tokenizer

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/internal/golden"
)

// ngramAlphabet mixes the n-gram scripts with what separates or hides
// inside their runs: punctuation, space, Latin words, invisible characters,
// decomposed kana and full-width forms.
var ngramAlphabet = []string{
	"東", "京", "都", "庁", "大", "阪", "の", "に", "が", "か\u3099", "テ", "キ", "ス", "ト", "ｶﾞ", "ガ",
	"한", "국", "어", "를", "\u1112\u1161\u11AB", "ภ", "า", "ษ", "ง", "่", "ย",
	"、", "。", " ", "abc", "ID", "\u00AD", "\u200B", "・", "１",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(ngramAlphabet[r.Intn(len(ngramAlphabet))])
	}
	return b.String()
}

// isNgramOnly reports whether every character of the folded s is indexed by
// substring.
func isNgramOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if propsOf(r).class() != classNgram {
			return false
		}
	}
	return true
}

// TestNgramSubstringExact: a query of n-gram characters, of any length,
// finds exactly the documents whose folded text contains it
// (docs/tokenizer.md T15), in both modes.
func TestNgramSubstringExact(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	checked := 0
	for _, trigram := range []bool{false, true} {
		opts := Options{Trigram: trigram}
		for range 3000 {
			doc := randomText(r, 1+r.Intn(12))
			fdoc := foldString(doc)
			queries := []string{randomText(r, 1+r.Intn(3))}
			if rs := []rune(fdoc); len(rs) > 0 {
				a := r.Intn(len(rs))
				b := a + 1 + r.Intn(min(6, len(rs)-a))
				queries = append(queries, string(rs[a:b]))
			}
			for _, q := range queries {
				fq := foldString(q)
				if !isNgramOnly(fq) {
					continue
				}
				checked++
				want := strings.Contains(fdoc, fq)
				if got := finds(opts, doc, q, false); got != want {
					t.Fatalf("%s: search %+q in %+q (folded %+q) found=%v, want %v", opts, q, doc, fdoc, got, want)
				}
			}
		}
	}
	if checked < 3000 {
		t.Fatalf("only %d queries checked", checked)
	}
}

// checkTokens asserts the invariants FTS5 relies on for any input: offsets
// inside the text and on character boundaries, starts in order, tokens not
// empty, no colocated first token, tokens free of separators.
func checkTokens(t *testing.T, src []byte, o *Output, query bool) {
	t.Helper()
	lastStart := int32(0)
	position := 0 // the first token at the current position
	for i, tk := range o.Tokens {
		if tk.Flags&Colocated == 0 {
			position = i
		}
		for _, other := range o.Tokens[position:i] {
			// FTS5 would index the same term at the same place twice, for
			// nothing (docs/tokenizer.md T13: a run that is the whole word
			// is left out).
			if string(o.Text(other)) == string(o.Text(tk)) {
				t.Fatalf("token %d %+q repeats a token at its position in %+q", i, o.Text(tk), window(src, tk.Start))
			}
		}
		separator := o.Text(tk)[0] == ' '
		if tk.Start < 0 || tk.End > int32(len(src)) || tk.Start > tk.End || tk.Start == tk.End && !separator {
			t.Fatalf("token %d %+q has offsets [%d,%d) in %d bytes", i, o.Text(tk), tk.Start, tk.End, len(src))
		}
		if !boundary(src, tk.Start) || !boundary(src, tk.End) {
			t.Fatalf("token %d [%d,%d) is not on character boundaries of %+q", i, tk.Start, tk.End, window(src, tk.Start))
		}
		if tk.Start < lastStart {
			t.Fatalf("token %d starts at %d before the previous token's start %d", i, tk.Start, lastStart)
		}
		lastStart = tk.Start
		base := o.Folded
		if tk.Flags&InSource != 0 {
			base = src
		}
		if tk.Len <= 0 || int(tk.Folded+tk.Len) > len(base) {
			t.Fatalf("token %d has text range %d+%d of %d", i, tk.Folded, tk.Len, len(base))
		}
		if tk.Flags&Colocated != 0 && (i == 0 || query) {
			t.Fatalf("token %d is colocated (query=%v)", i, query)
		}
		text := o.Text(tk)
		if separator && len(text) != 1 {
			t.Fatalf("token %d %+q starts with a space", i, text)
		}
		if !utf8.Valid(text) {
			t.Fatalf("token %d %+q is not UTF-8", i, text)
		}
		if !separator && strings.ContainsAny(string(text), " \t\n") {
			t.Fatalf("token %d %+q contains white space", i, text)
		}
	}
}

// window returns the input around off, for messages about large inputs.
func window(src []byte, off int32) []byte {
	return src[max(0, int(off)-40):min(len(src), int(off)+40)]
}

// boundary reports whether off is where a character starts when src is
// decoded as UTF-8 (an invalid byte counts as one character).
func boundary(src []byte, off int32) bool {
	if off == 0 || off == int32(len(src)) {
		return true
	}
	// Step back to the start of the character that contains off.
	i := int(off)
	for k := 0; k < utf8.UTFMax && i > 0 && !utf8.RuneStart(src[i]); k++ {
		i--
	}
	for i < int(off) {
		_, n := utf8.DecodeRune(src[i:])
		i += n
	}
	return i == int(off)
}

func FuzzTokenize(f *testing.F) {
	for _, c := range hardCases {
		f.Add([]byte(c.doc))
		f.Add([]byte(c.query))
	}
	f.Add([]byte("\xff\xfe invalid \xc3 utf-8 \x00 nul"))
	f.Add([]byte("a\u0301\u0302\u0303\u0304 e\u0308\u0301 \u0e33\u0e4d"))
	f.Add([]byte("ﷺ ﷻ ㍿ ⑴ ½ \ufdfa"))
	f.Fuzz(func(t *testing.T, src []byte) {
		var o Output
		checkTokenize(t, src, &o)
	})
}

func TestLargeAndHostileInput(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	big := make([]byte, 16<<20)
	for i := range big {
		big[i] = byte(r.Intn(256))
	}
	var o Output
	Options{}.Tokenize(big, false, &o)
	checkTokens(t, big, &o, false)
	if len(o.Tokens) == 0 {
		t.Fatal("no tokens in 16 MiB of random bytes")
	}
	// Inputs that once took quadratic time or stress one rule each.
	for _, s := range []string{
		strings.Repeat("東京 schema_version\x00 ", 1<<16),
		"क" + strings.Repeat("\u094d\u093c", 1<<17), // marks out of canonical order
		"ก" + strings.Repeat("\u0e48\u0e38", 1<<17),
		"a" + strings.Repeat("\u0345\u0301\u0316\u0334", 1<<16),
		strings.Repeat("\u1161", 1<<18), // conjoining vowels with no leading consonant
		"a." + strings.Repeat("\u0301", 1<<19),
		strings.Repeat("\u200d", 1<<19),
		strings.Repeat("🇫", 1<<18),
		strings.Repeat("aB", 1<<19),
		strings.Repeat("\ufdfa", 1<<16), // one character folds to a phrase
	} {
		for _, opts := range []Options{{}, {Trigram: true}} {
			opts.Tokenize([]byte(s), false, &o)
			checkTokens(t, []byte(s), &o, false)
		}
	}
}

// TestGoldenTokens pins the token output: an index built by one build is
// queried by the next, so any change must be deliberate (run with -update,
// review the diff, bump Version when existing indexes need a rebuild).
func TestGoldenTokens(t *testing.T) {
	var b strings.Builder
	var o Output
	for _, c := range hardCases {
		for _, text := range []string{c.doc, c.query} {
			for _, opts := range []Options{{}, {Trigram: true}} {
				for _, query := range []bool{false, true} {
					opts.Tokenize([]byte(text), query, &o)
					mode := "document"
					if query {
						mode = "query"
					}
					fmt.Fprintf(&b, "%s %s %+q:", opts, mode, text)
					for _, tk := range o.Tokens {
						c := ""
						if tk.Flags&Colocated != 0 {
							c = "+"
						}
						fmt.Fprintf(&b, " %s%+q@%d-%d", c, o.Text(tk), tk.Start, tk.End)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	golden.Check(t, "testdata/tokens.golden", b.String(), "bump Version when existing indexes need a rebuild")
}

// Lower-case ASCII words need no folding: their tokens point into the
// input instead of a copy.
func TestASCIIWordsPointIntoInput(t *testing.T) {
	var o Output
	Options{}.Tokenize([]byte("plain words, Capital and camelCase"), false, &o)
	for _, tk := range o.Tokens {
		inSource := tk.Flags&InSource != 0
		text := string(o.Text(tk))
		if want := text == "plain" || text == "words" || text == "and"; inSource != want {
			t.Errorf("token %q: in the input = %v, want %v", text, inSource, want)
		}
	}
}
