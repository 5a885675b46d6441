package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// Word-break property values (UAX #29), in the generator's order.
const (
	wbOther = iota
	wbCR
	wbLF
	wbNewline
	wbExtend
	wbZWJ
	wbRegionalIndicator
	wbFormat
	wbKatakana
	wbHebrewLetter
	wbALetter
	wbSingleQuote
	wbDoubleQuote
	wbMidNumLet
	wbMidLetter
	wbMidNum
	wbNumeric
	wbExtendNumLet
	wbWSegSpace
)

// Token classes of a code point.
const (
	classNone  = 0 // white space, punctuation, symbols, controls: never in a token
	classWord  = 1 // letters, digits and marks of spaced scripts, emoji
	classNgram = 2 // Han, kana, Hangul, Thai, Lao, Khmer, Myanmar: indexed by substring
)

// Case kinds, for camelCase parts.
const (
	caseOther = 0
	caseUpper = 1
	caseLower = 2
	caseDigit = 3
)

// Base classes: which combining marks after a base are optional diacritics.
const (
	baseKeep   = 0
	baseStrip  = 1
	baseArabic = 4 // 4 to 6: letters of the Arabic script
	baseMark   = 7
)

// prop is a code point's entry in the props table.
type prop uint32

func (p prop) wb() int          { return int(p & 0x1f) }
func (p prop) extPict() bool    { return p&(1<<5) != 0 }
func (p prop) class() int       { return int(p>>6) & 3 }
func (p prop) caseKind() int    { return int(p>>8) & 3 }
func (p prop) base() int        { return int(p>>10) & 7 }
func (p prop) nfcMaybe() bool   { return p&(1<<13) != 0 }
func (p prop) ccc() uint8       { return uint8(p >> 16) }
func (p prop) composable() bool { return p&(1<<13|0xff<<16) != 0 }

func propsOf(r rune) prop {
	if uint32(r) > utf8.MaxRune {
		return 0
	}
	return prop(propsBlocks[int(propsIndex[r>>6])<<6|int(r&63)])
}

// foldOf returns the folded form of r when it differs from r (ok=true; it
// may be empty), and the set of base classes under which r, a combining
// mark, is an optional diacritic.
func foldOf(r rune) (folded string, ok bool, removableUnder uint8) {
	if uint32(r) > utf8.MaxRune {
		return "", false, 0
	}
	v := foldsBlocks[int(foldsIndex[r>>6])<<6|int(r&63)]
	removableUnder = uint8(v)
	if off := v >> 8; off != 0 {
		n := uint32(foldData[off])
		return foldData[off+1 : off+1+n], true, removableUnder
	}
	return "", false, removableUnder
}

// Canonical composition, for folded text whose combining marks arrive out of
// canonical order or can compose with the character before them (NFD input).

const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

func appendDecomposed(out []rune, r rune) []rune {
	if r >= hangulSBase && r < hangulSBase+hangulSCount {
		s := r - hangulSBase
		out = append(out, hangulLBase+s/hangulNCount, hangulVBase+(s%hangulNCount)/hangulTCount)
		if t := s % hangulTCount; t != 0 {
			out = append(out, hangulTBase+t)
		}
		return out
	}
	i := sort.Search(len(decompRunes), func(i int) bool { return decompRunes[i] >= r })
	if i < len(decompRunes) && decompRunes[i] == r {
		return append(out, decompData[decompIndex[i]:decompIndex[i+1]]...)
	}
	return append(out, r)
}

func composePair(a, b rune) (rune, bool) {
	if a >= hangulLBase && a < hangulLBase+hangulLCount && b >= hangulVBase && b < hangulVBase+hangulVCount {
		return hangulSBase + ((a-hangulLBase)*hangulVCount+(b-hangulVBase))*hangulTCount, true
	}
	if a >= hangulSBase && a < hangulSBase+hangulSCount && (a-hangulSBase)%hangulTCount == 0 &&
		b > hangulTBase && b < hangulTBase+hangulTCount {
		return a + (b - hangulTBase), true
	}
	key := uint64(a)<<21 | uint64(b)
	i := sort.Search(len(composeKeys), func(i int) bool { return composeKeys[i] >= key })
	if i < len(composeKeys) && composeKeys[i] == key {
		return composeValues[i], true
	}
	return 0, false
}

// appendNFC appends the NFC form of the UTF-8 text s to dst, using scratch
// for the decomposed runes.
func appendNFC(dst []byte, s []byte, scratch []rune) ([]byte, []rune) {
	d := scratch[:0]
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		d = appendDecomposed(d, r)
		s = s[n:]
	}
	// Canonical ordering: a stable sort of each run of non-starters by
	// combining class (insertion sort for the usual short runs).
	for i := 0; i < len(d); {
		if propsOf(d[i]).ccc() == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(d) && propsOf(d[j]).ccc() != 0 {
			j++
		}
		run := d[i:j]
		if len(run) <= 8 {
			for k := 1; k < len(run); k++ {
				for m := k; m > 0 && propsOf(run[m-1]).ccc() > propsOf(run[m]).ccc(); m-- {
					run[m], run[m-1] = run[m-1], run[m]
				}
			}
		} else {
			sort.SliceStable(run, func(a, b int) bool { return propsOf(run[a]).ccc() < propsOf(run[b]).ccc() })
		}
		i = j
	}
	// Canonical composition.
	if len(d) > 0 {
		out := d[:1]
		starter := -1
		if propsOf(d[0]).ccc() == 0 {
			starter = 0
		}
		last := -1 // ccc of the last character kept after the starter, -1 if none
		for _, c := range d[1:] {
			cc := int(propsOf(c).ccc())
			if starter >= 0 && (last < cc || (last == -1 && cc == 0)) {
				if comp, ok := composePair(out[starter], c); ok {
					out[starter] = comp
					continue
				}
			}
			if cc == 0 {
				starter, last = len(out), -1
			} else {
				last = cc
			}
			out = append(out, c)
		}
		d = out
	}
	for _, r := range d {
		dst = utf8.AppendRune(dst, r)
	}
	return dst, d
}

// IsNgram reports whether r belongs to a script the tokenizer indexes one
// character per position (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar;
// docs/tokenizer.md T15), so that a query of it matches by substring.
func IsNgram(r rune) bool { return propsOf(r).class() == classNgram }
