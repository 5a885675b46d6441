package tokenizer

import "unicode/utf8"

// Folding runs before segmentation, over the whole text, so that every pair
// of canonically or compatibility equivalent texts gives the same folded
// text and therefore the same tokens (docs/tokenizer.md T2 to T10):
//
//   - NFKC_Casefold: NFKC, full case folding, default ignorables removed
//     (soft hyphen, ZWJ, ZWNJ, variation selectors);
//   - optional diacritics removed according to the script of the base letter
//     they sit on (Latin, Greek, Hebrew: all nonspacing marks; Cyrillic:
//     stress marks and the diaeresis of ё; Arabic: harakat, the hamza and
//     madda forms of alef, the hamza above heh), tatweel and emoji skin tones
//     removed; marks of every other script stay;
//   - letters folded to the letters a reader takes them for: decimal digits
//     to ASCII, Latin letters with attachments (ø ł đ ɵ ᴛ) to their letter and
//     ligature letters (æ œ) spelled out, Arabic-script variants (ی ک ە ة) to
//     one letter; Indic letter + vowel sign sequences that look like a
//     precomposed vowel letter composed to it;
//   - NFC, so the result is composed (が stays one code point, distinct from か).
//
// The generator precomputes the fold of each code point alone; this pass only
// handles what depends on context: a combining mark after its base, and
// canonical reordering or composition of marks that arrive decomposed.

// piece maps a folded range to the source range it came from where the two
// differ in length. Between pieces folded and source bytes correspond one to
// one, shifted by the last piece's difference.
type piece struct{ f0, f1, s0, s1 int32 }

// folder is the state of one fold pass.
type folder struct {
	o      *Output
	fb     []byte
	pieces []piece
	base   int // base class of the last base character
	// The current combining sequence: where its starter begins in the folded
	// and the source text, the combining class of its last character, and
	// whether it needs canonical reordering or composition.
	seqF, seqS int32
	lastCCC    uint8
	dirty      bool
}

// fold appends the folded form of src[from:to] to fb, and to pieces the
// places where folded and source characters do not correspond one to one;
// all offsets are absolute.
func (o *Output) fold(fb []byte, pieces []piece, src []byte, from, to int) ([]byte, []piece) {
	// A mark with no base before it stays; a stretch after ASCII text has an
	// ASCII base.
	f := folder{o: o, fb: fb, pieces: pieces, base: baseKeep, seqF: int32(len(fb)), seqS: int32(from)}
	if from > 0 {
		f.base = baseStrip
	}
	src = src[:to]
	i := from
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			f.flush(i)
			j := i
			for j < len(src) && src[j] < utf8.RuneSelf {
				j++
			}
			f.fb = appendLower(f.fb, src[i:j])
			f.seqF, f.seqS, f.lastCCC, f.base = int32(len(f.fb)-1), int32(j-1), 0, baseStrip
			i = j
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			// An invalid byte separates words, like a space.
			f.flush(i)
			f.seqF, f.seqS, f.lastCCC, f.base = int32(len(f.fb)), int32(i), 0, baseStrip
			f.fb = append(f.fb, ' ')
			i++
			continue
		}
		p := propsOf(r)
		folded, mapped, removable := foldOf(r)
		f0 := int32(-1) // where this character's folded form starts
		switch {
		case p.base() == baseMark && mapped && len(folded) > utf8.RuneLen(firstRune(folded)):
			// A mark that decomposes into several (Greek dialytika tonos,
			// Indic two-part vowel signs): each part follows the policy alone.
			for _, part := range folded {
				if _, _, rm := foldOf(part); rm&(1<<f.base) == 0 {
					at := f.put(i, string(part), propsOf(part), propsOf(part))
					if f0 < 0 {
						f0 = at
					}
				}
			}
		case p.base() == baseMark && removable&(1<<f.base) != 0:
			// An optional diacritic.
		case r == 0x200D && f.khandaTa(src, i):
			// Bengali ta, virama, ZWJ: khanda ta (docs/tokenizer.md T9).
			i += size
			continue
		case mapped && len(folded) == 0:
			// Invisible: default ignorables, tatweel, skin tones.
		case mapped:
			last := propsOf(firstRune(folded))
			first := last
			if len(folded) > utf8.RuneLen(firstRune(folded)) {
				lr, _ := utf8.DecodeLastRuneInString(folded)
				last = propsOf(lr)
			}
			f0 = f.put(i, folded, first, last)
		default:
			f0 = f.putBytes(i, src[i:i+size], p)
		}
		if f0 < 0 {
			f0 = int32(len(f.fb))
		}
		// A piece where folded and source characters do not correspond one
		// to one: a length change, or several characters from one (⑴ → (1)).
		if int(int32(len(f.fb))-f0) != size || mapped && len(folded) > utf8.RuneLen(firstRune(folded)) {
			f.pieces = append(f.pieces, piece{f0, int32(len(f.fb)), int32(i), int32(i + size)})
		}
		if p.base() != baseMark && (!mapped || len(folded) > 0) {
			f.base = p.base()
		}
		i += size
	}
	f.flush(len(src))
	return f.fb, f.pieces
}

// khandaTa replaces the Bengali ta and virama just before the ZWJ at source
// offset i with khanda ta, the letter that sequence spells, and reports
// whether it did: only when both came through folding unchanged.
func (f *folder) khandaTa(src []byte, i int) bool {
	const taVirama, khanda = "\u09a4\u09cd", "\u09ce"
	at := len(f.fb) - len(taVirama)
	if f.dirty || i < len(taVirama) || string(src[i-len(taVirama):i]) != taVirama || at < 0 || string(f.fb[at:]) != taVirama ||
		len(f.pieces) > 0 && f.pieces[len(f.pieces)-1].f1 > int32(at) {
		return false
	}
	f.fb = append(f.fb[:at], khanda...)
	f.pieces = append(f.pieces, piece{int32(at), int32(len(f.fb)), int32(i - len(taVirama)), int32(i + 3)})
	f.seqF, f.seqS, f.lastCCC = int32(at), int32(i-len(taVirama)), 0
	return true
}

// compose decides, before folded text whose first character has props
// first is appended at source offset i, whether the combining sequence needs
// normalizing or a new one starts.
func (f *folder) compose(i int, first prop) {
	if first.composable() && (first.nfcMaybe() || first.ccc() < f.lastCCC) {
		f.dirty = true
	} else if first.ccc() == 0 && !first.nfcMaybe() {
		f.flush(i)
		f.seqF, f.seqS = int32(len(f.fb)), int32(i)
	}
}

// put appends the folded text s and returns where it starts.
func (f *folder) put(i int, s string, first, last prop) int32 {
	f.compose(i, first)
	at := int32(len(f.fb))
	f.fb = append(f.fb, s...)
	f.lastCCC = last.ccc()
	return at
}

func (f *folder) putBytes(i int, s []byte, p prop) int32 {
	f.compose(i, p)
	at := int32(len(f.fb))
	f.fb = append(f.fb, s...)
	f.lastCCC = p.ccc()
	return at
}

// flush normalizes the current combining sequence, which ends at source
// offset srcEnd, if it needs it.
func (f *folder) flush(srcEnd int) {
	if !f.dirty {
		return
	}
	f.dirty = false
	old := f.fb[f.seqF:]
	var nfc []byte
	nfc, f.o.runes = appendNFC(f.o.scratch[:0], old, f.o.runes)
	f.o.scratch = nfc
	if string(nfc) == string(old) {
		return
	}
	for len(f.pieces) > 0 && f.pieces[len(f.pieces)-1].f1 > f.seqF {
		f.pieces = f.pieces[:len(f.pieces)-1]
	}
	f.fb = append(f.fb[:f.seqF], nfc...)
	f.pieces = append(f.pieces, piece{f.seqF, int32(len(f.fb)), f.seqS, int32(srcEnd)})
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// offsets maps folded offsets back to source offsets, in one stretch of
// text: before the first piece, source = folded + delta.
type offsets struct {
	pieces []piece
	delta  int32
}

// firstAfter is the index of the first piece that ends after f.
func (m offsets) firstAfter(f int32) int {
	lo, hi := 0, len(m.pieces)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if m.pieces[h].f1 <= f {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// start returns the source offset of the character that begins at folded
// offset f. Characters removed just before it are not part of it.
func (m offsets) start(f int32) int32 {
	k := m.firstAfter(f)
	if k < len(m.pieces) && m.pieces[k].f0 <= f {
		return m.pieces[k].s0 // f is inside an expansion such as ﬁ → fi
	}
	if k == 0 {
		return f + m.delta
	}
	return f + m.pieces[k-1].s1 - m.pieces[k-1].f1
}

// end returns the source offset just after the character that ends at folded
// offset f, with what folding removed right after it (a combining accent, a
// skin tone): those belong to the character before them.
func (m offsets) end(f int32) int32 {
	k := m.firstAfter(f)
	if k < len(m.pieces) && m.pieces[k].f0 < f {
		return m.pieces[k].s1 // f is inside an expansion
	}
	if k == 0 {
		return f + m.delta
	}
	return f + m.pieces[k-1].s1 - m.pieces[k-1].f1
}
