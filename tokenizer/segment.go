package tokenizer

import "unicode/utf8"

// Word boundaries: UAX #29 (Unicode Text Segmentation) rules WB1 to WB999,
// without tailoring, over the generated word-break property table.
// WordBreakTest.txt is replayed against this in segment_test.go.

var asciiProps = func() (t [128]prop) {
	for i := range t {
		t[i] = propsOf(rune(i))
	}
	return t
}()

func propAt(b []byte, i int) (prop, int) {
	if c := b[i]; c < utf8.RuneSelf {
		return asciiProps[c], 1
	}
	r, n := utf8.DecodeRune(b[i:])
	return propsOf(r), n
}

func isAHLetter(wb int) bool { return wb == wbALetter || wb == wbHebrewLetter }
func isMidLetterQ(wb int) bool {
	return wb == wbMidLetter || wb == wbMidNumLet || wb == wbSingleQuote
}
func isMidNumQ(wb int) bool { return wb == wbMidNum || wb == wbMidNumLet || wb == wbSingleQuote }
func isIgnored(wb int) bool { return wb == wbExtend || wb == wbFormat || wb == wbZWJ }

// nextNonIgnored returns the word-break property of the first character at or
// after i that is not Extend, Format or ZWJ, or -1 at the end of b.
func nextNonIgnored(b []byte, i int) int {
	for i < len(b) {
		p, n := propAt(b, i)
		if !isIgnored(p.wb()) {
			return p.wb()
		}
		i += n
	}
	return -1
}

// segmentEnd returns the end of the word-boundary segment that starts at pos.
func segmentEnd(b []byte, pos int) int {
	p0, n := propAt(b, pos)
	i := pos + n
	switch p0.wb() {
	case wbCR:
		if i < len(b) && b[i] == '\n' {
			return i + 1 // WB3
		}
		return i // WB3a
	case wbLF, wbNewline:
		return i // WB3a
	}
	// last and prev are the properties of the last two characters, skipping
	// Extend, Format and ZWJ (WB4); raw is the property of the character just
	// before i, for the rules that see those (WB3c, WB3d).
	last, prev := p0.wb(), -1
	raw := p0
	riCount := 0
	if last == wbRegionalIndicator {
		riCount = 1
	}
	for i < len(b) {
		p, n := propAt(b, i)
		wb := p.wb()
		switch {
		case wb == wbCR || wb == wbLF || wb == wbNewline:
			return i // WB3b
		case raw.wb() == wbZWJ && p.extPict():
			// WB3c
		case raw.wb() == wbWSegSpace && wb == wbWSegSpace:
			// WB3d
		case isIgnored(wb):
			raw = p
			i += n
			continue // WB4
		case isAHLetter(last) && isAHLetter(wb):
			// WB5
		case isAHLetter(last) && isMidLetterQ(wb) && isAHLetter(nextNonIgnored(b, i+n)):
			// WB6
		case isAHLetter(prev) && isMidLetterQ(last) && isAHLetter(wb):
			// WB7
		case last == wbHebrewLetter && wb == wbSingleQuote:
			// WB7a
		case last == wbHebrewLetter && wb == wbDoubleQuote && nextNonIgnored(b, i+n) == wbHebrewLetter:
			// WB7b
		case prev == wbHebrewLetter && last == wbDoubleQuote && wb == wbHebrewLetter:
			// WB7c
		case last == wbNumeric && wb == wbNumeric,
			isAHLetter(last) && wb == wbNumeric,
			last == wbNumeric && isAHLetter(wb):
			// WB8, WB9, WB10
		case prev == wbNumeric && isMidNumQ(last) && wb == wbNumeric:
			// WB11
		case last == wbNumeric && isMidNumQ(wb) && nextNonIgnored(b, i+n) == wbNumeric:
			// WB12
		case last == wbKatakana && wb == wbKatakana:
			// WB13
		case (isAHLetter(last) || last == wbNumeric || last == wbKatakana || last == wbExtendNumLet) && wb == wbExtendNumLet:
			// WB13a
		case last == wbExtendNumLet && (isAHLetter(wb) || wb == wbNumeric || wb == wbKatakana):
			// WB13b
		case last == wbRegionalIndicator && wb == wbRegionalIndicator && riCount%2 == 1:
			// WB15, WB16
		default:
			return i // WB999
		}
		if wb == wbRegionalIndicator {
			riCount++
		} else {
			riCount = 0
		}
		prev, last, raw = last, wb, p
		i += n
	}
	return i
}
