// Command gen writes tokenizer/tables.go from the Unicode Character Database.
//
// Why: the tokenizer's output is stored in every FTS5 index it builds, so it
// must not change when Go, golang.org/x/text or a segmentation library moves
// to a newer Unicode version. All tables the tokenizer uses (word-break
// properties, scripts, folding, canonical composition) are generated here from
// one pinned set of UCD files, Debian's unicode-data package (Unicode 15.0.0),
// and committed. Nothing in the tables is typed by hand.
//
// Run: go generate ./tokenizer (or go run ./tokenizer/internal/gen -ucd /usr/share/unicode -o tokenizer/tables.go)
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const maxRune = 0x10FFFF

// Word-break property values, in the order the tokenizer's wb* constants use.
var wbNames = []string{"Other", "CR", "LF", "Newline", "Extend", "ZWJ", "Regional_Indicator", "Format",
	"Katakana", "Hebrew_Letter", "ALetter", "Single_Quote", "Double_Quote", "MidNumLet", "MidLetter",
	"MidNum", "Numeric", "ExtendNumLet", "WSegSpace"}

// Token classes.
const (
	classNone  = 0
	classWord  = 1
	classNgram = 2
)

// Case kinds, for camelCase parts.
const (
	caseOther = 0
	caseUpper = 1
	caseLower = 2
	caseDigit = 3
)

// Base classes decide which following combining marks are optional
// diacritics (removed) and which are part of the letter (kept).
const (
	baseKeep       = 0 // Indic, Thai, kana, Hangul and every other script: marks are letters
	baseStrip      = 1 // Latin, Greek, Hebrew, Common: every nonspacing mark is optional
	baseCyrillic   = 2 // only stress marks are optional (й keeps its breve)
	baseCyrillicIe = 3 // е/Е: stress marks and the diaeresis of ё
	baseArabic     = 4 // harakat are optional; hamza above/below and madda are kept
	baseArabicAlef = 5 // alef: harakat and its hamza/madda forms are optional
	baseArabicHeh  = 6 // heh and its forms: harakat and the hamza above (Persian ezafe) are optional
	baseMark       = 7 // not a base: a combining mark
)

// The scripts the tokenizer indexes by substring (n-grams): docs/tokenizer.md T15.
var ngramScripts = map[string]bool{"Han": true, "Hiragana": true, "Katakana": true, "Hangul": true,
	"Thai": true, "Lao": true, "Khmer": true, "Myanmar": true}
var ngramScriptShort = map[string]bool{"Hani": true, "Hira": true, "Kana": true, "Hang": true,
	"Thai": true, "Laoo": true, "Khmr": true, "Mymr": true}

type charInfo struct {
	name   string
	gc     string
	ccc    int
	decomp []rune // canonical decomposition mapping (one level), nil if none
	compat bool
	digit  int // decimal digit value of an Nd character, -1 otherwise
}

var (
	ucd          = map[rune]*charInfo{}
	wbProp       = make([]uint8, maxRune+1)
	extPict      = make([]bool, maxRune+1)
	emojiMod     = make([]bool, maxRune+1)
	script       = make([]string, maxRune+1)
	scx          = make([][]string, maxRune+1)
	nfkcCF       = map[rune][]rune{}
	fullCompExcl = map[rune]bool{}
	nfcQCMaybe   = map[rune]bool{}
)

func main() {
	dir := flag.String("ucd", "/usr/share/unicode", "directory of the Unicode Character Database (Debian unicode-data)")
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()

	version := ""
	check := func(path, header string) {
		v := fileVersion(path, header)
		if version == "" {
			version = v
		} else if v != version {
			log.Fatalf("%s is Unicode %s, want %s: all tables must come from one version", path, v, version)
		}
	}
	wbFile := filepath.Join(*dir, "auxiliary", "WordBreakProperty.txt")
	check(wbFile, "WordBreakProperty-")
	check(filepath.Join(*dir, "Scripts.txt"), "Scripts-")
	check(filepath.Join(*dir, "ScriptExtensions.txt"), "ScriptExtensions-")
	check(filepath.Join(*dir, "DerivedNormalizationProps.txt"), "DerivedNormalizationProps-")
	emojiFile := filepath.Join(*dir, "emoji", "emoji-data.txt")
	if ev := emojiVersion(emojiFile); !strings.HasPrefix(version, ev+".") {
		log.Fatalf("emoji-data.txt is emoji %s, want Unicode %s", ev, version)
	}

	readUnicodeData(filepath.Join(*dir, "UnicodeData.txt"))
	for i := range wbProp {
		wbProp[i] = 0
	}
	wbIndex := map[string]uint8{}
	for i, n := range wbNames {
		wbIndex[n] = uint8(i)
	}
	readProps(wbFile, func(lo, hi rune, fields []string) {
		v, ok := wbIndex[fields[0]]
		if !ok {
			log.Fatalf("unknown word break property %q", fields[0])
		}
		for r := lo; r <= hi; r++ {
			wbProp[r] = v
		}
	})
	readProps(emojiFile, func(lo, hi rune, fields []string) {
		for r := lo; r <= hi; r++ {
			switch fields[0] {
			case "Extended_Pictographic":
				extPict[r] = true
			case "Emoji_Modifier":
				emojiMod[r] = true
			}
		}
	})
	for i := range script {
		script[i] = "Unknown"
	}
	readProps(filepath.Join(*dir, "Scripts.txt"), func(lo, hi rune, fields []string) {
		for r := lo; r <= hi; r++ {
			script[r] = fields[0]
		}
	})
	readProps(filepath.Join(*dir, "ScriptExtensions.txt"), func(lo, hi rune, fields []string) {
		for r := lo; r <= hi; r++ {
			scx[r] = strings.Fields(fields[0])
		}
	})
	readProps(filepath.Join(*dir, "DerivedNormalizationProps.txt"), func(lo, hi rune, fields []string) {
		switch fields[0] {
		case "NFKC_CF":
			var m []rune
			if len(fields) > 1 {
				for _, h := range strings.Fields(fields[1]) {
					m = append(m, hexRune(h))
				}
			}
			if m == nil {
				m = []rune{}
			}
			for r := lo; r <= hi; r++ {
				nfkcCF[r] = m
			}
		case "Full_Composition_Exclusion":
			for r := lo; r <= hi; r++ {
				fullCompExcl[r] = true
			}
		case "NFC_QC":
			if len(fields) > 1 && fields[1] == "M" {
				for r := lo; r <= hi; r++ {
					nfcQCMaybe[r] = true
				}
			}
		}
	})

	buildComposition()
	letterFolds := deriveLetterFolds()
	addIndicSequences()

	props := make([]uint32, maxRune+1)
	folds := make([]uint32, maxRune+1)
	var foldData bytes.Buffer
	foldData.WriteByte(0) // offset 0 means identity
	foldIndex := map[string]uint32{}
	for r := rune(0); r <= maxRune; r++ {
		info := ucd[r]
		gc := "Cn"
		if info != nil {
			gc = info.gc
		}
		props[r] = propsOf(r, gc)
		var removal uint32
		if isMark(gc) {
			removal = removalMask(r)
		}
		f := foldOf(r, letterFolds)
		idx := uint32(0)
		if !equalRunes(f, []rune{r}) {
			s := string(f)
			if len(s) > 255 {
				log.Fatalf("fold of %U is too long", r)
			}
			var ok bool
			if idx, ok = foldIndex[s]; !ok {
				idx = uint32(foldData.Len())
				foldData.WriteByte(byte(len(s)))
				foldData.WriteString(s)
				foldIndex[s] = idx
			}
		}
		if idx >= 1<<24 {
			log.Fatal("fold data too large")
		}
		folds[r] = idx<<8 | removal
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by tokenizer/internal/gen from the Unicode %s Character Database; DO NOT EDIT.\n\n", version)
	b.WriteString("package tokenizer\n\n")
	fmt.Fprintf(&b, "// UnicodeVersion is the version of every Unicode table the tokenizer uses.\nconst UnicodeVersion = %q\n\n", version)
	writeTrie32(&b, "props", props)
	writeTrie32(&b, "folds", folds)
	fmt.Fprintf(&b, "// foldData holds the folded forms: a length byte, then UTF-8.\nconst foldData = %q\n\n", foldData.String())
	writeNormTables(&b)

	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("format: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: Unicode %s, %d bytes of fold data", *out, version, foldData.Len())
}

func fileVersion(path, prefix string) string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	i := strings.Index(line, prefix)
	if i < 0 {
		log.Fatalf("%s: no version header %q", path, prefix)
	}
	v := strings.TrimSuffix(strings.TrimSpace(line[i+len(prefix):]), ".txt")
	return v
}

func emojiVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	m := regexp.MustCompile(`Used with Emoji Version (\d+\.\d+)`).FindSubmatch(data)
	if m == nil {
		log.Fatalf("%s: no emoji version", path)
	}
	return string(m[1])
}

func hexRune(s string) rune {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		log.Fatalf("bad code point %q", s)
	}
	return rune(v)
}

func readUnicodeData(path string) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var rangeStart rune = -1
	var rangeInfo *charInfo
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ";")
		if len(fs) < 15 {
			continue
		}
		r := hexRune(fs[0])
		ccc, _ := strconv.Atoi(fs[3])
		info := &charInfo{name: fs[1], gc: fs[2], ccc: ccc, digit: -1}
		if fs[2] == "Nd" {
			if info.digit, _ = strconv.Atoi(fs[6]); fs[6] == "" {
				log.Fatalf("%U is Nd without a digit value", r)
			}
		}
		if d := fs[5]; d != "" {
			if strings.HasPrefix(d, "<") {
				info.compat = true
			} else {
				for _, h := range strings.Fields(d) {
					info.decomp = append(info.decomp, hexRune(h))
				}
			}
		}
		switch {
		case strings.HasSuffix(fs[1], ", First>"):
			rangeStart, rangeInfo = r, info
		case strings.HasSuffix(fs[1], ", Last>"):
			for x := rangeStart; x <= r; x++ {
				ucd[x] = &charInfo{name: rangeInfo.name, gc: rangeInfo.gc, digit: -1}
			}
		default:
			ucd[r] = info
		}
	}
}

// readProps calls fn for each "lo..hi ; field ; field" line of a UCD property file.
func readProps(path string, fn func(lo, hi rune, fields []string)) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, ";")
		cps := strings.TrimSpace(parts[0])
		lo, hi := cps, cps
		if i := strings.Index(cps, ".."); i >= 0 {
			lo, hi = cps[:i], cps[i+2:]
		}
		var fields []string
		for _, p := range parts[1:] {
			fields = append(fields, strings.TrimSpace(p))
		}
		fn(hexRune(lo), hexRune(hi), fields)
	}
}

func gcOf(r rune) string {
	if info := ucd[r]; info != nil {
		return info.gc
	}
	return "Cn"
}

func cccOf(r rune) int {
	if info := ucd[r]; info != nil {
		return info.ccc
	}
	return 0
}

func isMark(gc string) bool { return gc == "Mn" || gc == "Mc" || gc == "Me" }

func isNgram(r rune, gc string) bool {
	if !(strings.HasPrefix(gc, "L") || strings.HasPrefix(gc, "M") || strings.HasPrefix(gc, "N")) {
		return false
	}
	if ngramScripts[script[r]] {
		return true
	}
	if script[r] == "Common" || script[r] == "Inherited" {
		for _, s := range scx[r] {
			if ngramScriptShort[s] {
				return true
			}
		}
	}
	return false
}

func propsOf(r rune, gc string) uint32 {
	var p uint32 = uint32(wbProp[r])
	if extPict[r] {
		p |= 1 << 5
	}
	class := classNone
	switch {
	case isNgram(r, gc):
		class = classNgram
	case strings.HasPrefix(gc, "L"), strings.HasPrefix(gc, "M"), strings.HasPrefix(gc, "N"), gc == "Co",
		extPict[r], wbNames[wbProp[r]] == "Regional_Indicator":
		class = classWord
	}
	p |= uint32(class) << 6
	ck := caseOther
	switch gc {
	case "Lu", "Lt":
		ck = caseUpper
	case "Ll":
		ck = caseLower
	case "Nd":
		ck = caseDigit
	}
	p |= uint32(ck) << 8
	p |= uint32(baseClassOf(r, gc)) << 10
	if nfcQCMaybe[r] {
		p |= 1 << 13
	}
	p |= uint32(cccOf(r)) << 16
	return p
}

func baseClassOf(r rune, gc string) int {
	if isMark(gc) {
		return baseMark
	}
	switch script[r] {
	case "Latin", "Greek", "Hebrew", "Common", "Inherited", "Unknown":
		return baseStrip
	case "Cyrillic":
		if r == 0x0415 || r == 0x0435 || r == 0x0401 || r == 0x0451 {
			return baseCyrillicIe
		}
		return baseCyrillic
	case "Arabic":
		if r == 0x0627 || r == 0x0622 || r == 0x0623 || r == 0x0625 {
			return baseArabicAlef
		}
		if hehForms[r] {
			return baseArabicHeh
		}
		return baseArabic
	}
	return baseKeep
}

// removableUnder reports whether the combining mark m is an optional
// diacritic after a base of class base: docs/tokenizer.md T3.
func removableUnder(m rune, base int) bool {
	if !isMark(gcOf(m)) || gcOf(m) == "Mc" {
		return false
	}
	switch base {
	case baseStrip:
		return true
	case baseCyrillic:
		return m == 0x0300 || m == 0x0301
	case baseCyrillicIe:
		return m == 0x0300 || m == 0x0301 || m == 0x0308
	case baseArabic, baseArabicAlef, baseArabicHeh:
		if script[m] != "Arabic" && script[m] != "Inherited" {
			return false
		}
		if m == 0x0653 || m == 0x0654 || m == 0x0655 {
			return base == baseArabicAlef || base == baseArabicHeh && m == 0x0654
		}
		return true
	}
	return false
}

func removalMask(r rune) uint32 {
	parts := nfd(foldCase(nfd([]rune{r})))
	var mask uint32
	for base := baseKeep; base <= baseArabicHeh; base++ {
		all := len(parts) > 0
		for _, p := range parts {
			if !removableUnder(p, base) {
				all = false
			}
		}
		if all {
			mask |= 1 << base
		}
	}
	return mask
}

// deriveLetterFolds maps letters that have no decomposition to the letters
// a reader takes them for (docs/tokenizer.md T6 to T8), from their Unicode
// names: Latin letters with strokes, bars, hooks and other attachments,
// barred, dotless, insular and small capital forms to their base letter;
// Latin ligature letters (æ, œ, ꜳ, ȸ) spelled out; eth to d; and the
// Arabic-script variants of yeh, kaf, heh and teh marbuta that Persian,
// Urdu and Kurdish text mix with the Arabic ones.
func deriveLetterFolds() map[rune][]rune {
	byName := map[string]rune{}
	for r, info := range ucd {
		byName[info.name] = r
	}
	out := map[rune][]rune{}
	for r, info := range ucd {
		if info.decomp != nil || info.compat || script[r] != "Latin" || !strings.HasPrefix(info.gc, "L") {
			continue
		}
		if f := latinLetterFold(info.name, byName); f != nil && !equalRunes(f, []rune{r}) {
			out[r] = f
		}
	}
	for from, to := range arabicFolds {
		f, ok1 := byName[from]
		t, ok2 := byName[to]
		if !ok1 || !ok2 {
			log.Fatalf("arabicFolds: no character named %q or %q", from, to)
		}
		out[f] = []rune{t}
	}
	hehForms[byName["ARABIC LETTER HEH"]] = true
	for r, f := range out {
		if len(f) == 1 && f[0] == byName["ARABIC LETTER HEH"] {
			hehForms[r] = true
		}
	}
	for r, info := range ucd {
		if len(info.decomp) > 0 && hehForms[info.decomp[0]] {
			hehForms[r] = true
		}
	}
	return out
}

// hehForms are heh and the letters that fold to it: a hamza above them is
// the Persian ezafe, optional like a haraka (docs/tokenizer.md T7).
var hehForms = map[rune]bool{}

// arabicFolds names the Arabic-script letter variants that fold together
// (docs/tokenizer.md T7; Lucene's Arabic, Persian and Sorani normalization
// filters fold the same pairs). Each is a judgement, stated and tested:
// Farsi yeh, alef maksura and yeh barree read as yeh; keheh as kaf; ae
// (Sorani, Uyghur), heh goal and heh doachashmee (Urdu) as heh, since the
// Persian heh with yeh above decomposes to ae; teh marbuta as heh, as it is
// written in informal Arabic and as Persian spells Arabic loans; the
// Kurdish reh with small v as reh with small v below.
var arabicFolds = map[string]string{
	"ARABIC LETTER FARSI YEH":        "ARABIC LETTER YEH",
	"ARABIC LETTER ALEF MAKSURA":     "ARABIC LETTER YEH",
	"ARABIC LETTER YEH BARREE":       "ARABIC LETTER YEH",
	"ARABIC LETTER KEHEH":            "ARABIC LETTER KAF",
	"ARABIC LETTER AE":               "ARABIC LETTER HEH",
	"ARABIC LETTER HEH GOAL":         "ARABIC LETTER HEH",
	"ARABIC LETTER HEH DOACHASHMEE":  "ARABIC LETTER HEH",
	"ARABIC LETTER TEH MARBUTA":      "ARABIC LETTER HEH",
	"ARABIC LETTER TEH MARBUTA GOAL": "ARABIC LETTER HEH",
	"ARABIC LETTER REH WITH SMALL V": "ARABIC LETTER REH WITH SMALL V BELOW",
}

var (
	latinPair     = regexp.MustCompile(`^LATIN SMALL (?:LETTER|LIGATURE) ([A-Z])([A-Z])$`)
	latinSuffix   = regexp.MustCompile(`^(LATIN SMALL LETTER .+?) (?:WITH .*|BAR|DIGRAPH|ROTUNDA)$`)
	latinPrefix   = regexp.MustCompile(`^LATIN SMALL LETTER (?:BARRED|DOTLESS|INSULAR|SCRIPT) (.+)$`)
	latinSmallCap = regexp.MustCompile(`^LATIN (?:LETTER SMALL CAPITAL|SMALL CAPITAL LETTER|CAPITAL LETTER) (.+)$`)
)

// latinLetterFold returns what the Latin letter called name folds to, or
// nil: the name loses its attachments one at a time (a capital or small
// capital becomes the small letter; "WITH ...", "BAR", "BARRED", "DOTLESS",
// "INSULAR", "SCRIPT", "ROTUNDA", "DIGRAPH" go) until it names another letter, which folds in
// turn, or spells two letters (a ligature). Letters named otherwise (schwa,
// eng, open e, open o, thorn, ezh, turned and reversed letters) are letters
// of their own and stay.
func latinLetterFold(name string, byName map[string]rune) []rune {
	if name == "LATIN SMALL LETTER ETH" || name == "LATIN CAPITAL LETTER ETH" {
		return []rune{'d'} // a judgement: docs/tokenizer.md T8
	}
	n := name
	for {
		if m := latinPair.FindStringSubmatch(n); m != nil {
			return []rune(strings.ToLower(m[1] + m[2]))
		}
		next := n
		if m := latinSmallCap.FindStringSubmatch(n); m != nil {
			next = "LATIN SMALL LETTER " + m[1]
		} else if m := latinSuffix.FindStringSubmatch(n); m != nil {
			next = m[1]
		} else if m := latinPrefix.FindStringSubmatch(n); m != nil {
			next = "LATIN SMALL LETTER " + m[1]
		}
		if next == n {
			return nil
		}
		n = next
		if r, ok := byName[n]; ok && n != name {
			if info := ucd[r]; info.decomp == nil && !info.compat {
				if f := latinLetterFold(n, byName); f != nil {
					return f
				}
			}
			return []rune{r}
		}
	}
}

// foldCase applies NFKC_Casefold to each rune.
func foldCase(rs []rune) []rune {
	var out []rune
	for _, r := range rs {
		if m, ok := nfkcCF[r]; ok {
			out = append(out, m...)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// foldOf is the folded form of r on its own: NFKC_Casefold, optional
// diacritics removed by the policy of its base, letters with a stroke or a
// ligature spelled out, invisible joiners removed, then NFC.
func foldOf(r rune, letterFolds map[rune][]rune) []rune {
	if r >= 0xD800 && r <= 0xDFFF {
		return []rune{r}
	}
	s := nfd(foldCase(nfd([]rune{r})))
	base := -1
	var out []rune
	for _, c := range s {
		gc := gcOf(c)
		if isMark(gc) {
			if base >= 0 && removableUnder(c, base) {
				continue
			}
			out = append(out, c)
			continue
		}
		if c == 0x0640 || emojiMod[c] { // tatweel, emoji skin tones: invisible, not a base
			continue
		}
		base = baseClassOf(c, gc)
		if info := ucd[c]; info != nil && info.digit >= 0 {
			out = append(out, '0'+rune(info.digit)) // docs/tokenizer.md T5
		} else if letterFolds[c] != nil {
			out = append(out, foldCase(letterFolds[c])...)
		} else {
			out = append(out, c)
		}
	}
	if isMark(gcOf(r)) && len(out) > 1 {
		// A mark that decomposes into several keeps them apart: the
		// tokenizer applies the policy to each after the base it follows.
		return out
	}
	return nfc(out)
}

func equalRunes(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Canonical normalization, implemented from UnicodeData for the generator.

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

var composePairs = map[[2]rune]rune{}

// indicPairs are the tokenizer's own compositions: an Indic vowel letter
// written as another letter and a vowel sign, a sequence the Unicode
// Standard (Core Specification, chapter 12) tells writers not to use for
// the precomposed letter, which it looks like but is not canonically
// equivalent to (docs/tokenizer.md T9). Only the tokenizer's NFC pass uses
// them; composePairs stays canonical for the generator's own folding.
var indicPairs = map[[2]rune]rune{}

// indicSequences: per script, "letter + vowel sign = letter", by the short
// names after "<SCRIPT> LETTER " and "<SCRIPT> VOWEL SIGN " (a name with
// its own prefix, such as GURMUKHI IRI, stands as it is).
var indicSequences = map[string][]string{
	"DEVANAGARI": {
		"A + AA = AA", "A + CANDRA E = CANDRA A", "A + SHORT E = SHORT A", "A + CANDRA O = CANDRA O",
		"A + SHORT O = SHORT O", "A + O = O", "A + AU = AU", "A + OE = OE", "A + OOE = OOE", "A + AW = AW",
		"A + UE = UE", "A + UUE = UUE", "AA + CANDRA E = CANDRA O", "AA + SHORT E = SHORT O", "AA + E = O",
		"AA + AI = AU", "AA + OE = OOE", "E + CANDRA E = CANDRA E", "E + SHORT E = SHORT E", "E + E = AI",
	},
	"BENGALI": {"A + AA = AA"},
	"ORIYA":   {"A + AA = AA"},
	"GURMUKHI": {"A + AA = AA", "A + AI = AI", "A + AU = AU", "GURMUKHI IRI + I = I", "GURMUKHI IRI + II = II",
		"GURMUKHI IRI + EE = EE", "GURMUKHI URA + U = U", "GURMUKHI URA + UU = UU", "GURMUKHI URA + OO = OO"},
	"GUJARATI": {"A + AA = AA", "A + CANDRA E = GUJARATI VOWEL CANDRA E", "A + E = E", "A + AI = AI",
		"A + CANDRA O = GUJARATI VOWEL CANDRA O", "A + O = O", "A + AU = AU"},
}

func addIndicSequences() {
	byName := map[string]rune{}
	for r, info := range ucd {
		byName[info.name] = r
	}
	look := func(name string) rune {
		r, ok := byName[name]
		if !ok {
			log.Fatalf("indicSequences: no character named %q", name)
		}
		return r
	}
	for sc, seqs := range indicSequences {
		letter := func(n string) rune {
			if strings.HasPrefix(n, sc+" ") {
				return look(n)
			}
			return look(sc + " LETTER " + n)
		}
		for _, seq := range seqs {
			lhs, result, _ := strings.Cut(seq, " = ")
			first, sign, _ := strings.Cut(lhs, " + ")
			a, b, c := letter(first), look(sc+" VOWEL SIGN "+sign), letter(result)
			indicPairs[[2]rune{a, b}] = c
			nfcQCMaybe[b] = true // the sign may compose with the letter before it
		}
	}
}

func buildComposition() {
	for r, info := range ucd {
		if info.decomp == nil || fullCompExcl[r] || len(info.decomp) != 2 {
			continue
		}
		composePairs[[2]rune{info.decomp[0], info.decomp[1]}] = r
	}
}

func decomposeRune(r rune, out []rune) []rune {
	if r >= hangulSBase && r < hangulSBase+hangulSCount {
		s := r - hangulSBase
		out = append(out, hangulLBase+s/hangulNCount, hangulVBase+(s%hangulNCount)/hangulTCount)
		if t := s % hangulTCount; t != 0 {
			out = append(out, hangulTBase+t)
		}
		return out
	}
	if info := ucd[r]; info != nil && info.decomp != nil {
		for _, d := range info.decomp {
			out = decomposeRune(d, out)
		}
		return out
	}
	return append(out, r)
}

func nfd(rs []rune) []rune {
	var out []rune
	for _, r := range rs {
		out = decomposeRune(r, out)
	}
	// Canonical ordering: stable sort of each run of non-starters by ccc.
	for i := 0; i < len(out); {
		if cccOf(out[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(out) && cccOf(out[j]) != 0 {
			j++
		}
		sort.SliceStable(out[i:j], func(a, b int) bool { return cccOf(out[i+a]) < cccOf(out[i+b]) })
		i = j
	}
	return out
}

func nfc(rs []rune) []rune {
	d := nfd(rs)
	if len(d) == 0 {
		return d
	}
	out := []rune{d[0]}
	starter := -1
	if cccOf(d[0]) == 0 {
		starter = 0
	}
	lastCCC := -1
	for _, c := range d[1:] {
		ccc := cccOf(c)
		if starter >= 0 && (lastCCC < ccc || (lastCCC == -1 && ccc == 0)) {
			if comp, ok := composeRune(out[starter], c); ok {
				out[starter] = comp
				continue
			}
		}
		if ccc == 0 {
			starter = len(out)
			lastCCC = -1
		} else {
			lastCCC = ccc
		}
		out = append(out, c)
	}
	return out
}

func composeRune(a, b rune) (rune, bool) {
	if a >= hangulLBase && a < hangulLBase+hangulLCount && b >= hangulVBase && b < hangulVBase+hangulVCount {
		return hangulSBase + ((a-hangulLBase)*hangulVCount+(b-hangulVBase))*hangulTCount, true
	}
	if a >= hangulSBase && a < hangulSBase+hangulSCount && (a-hangulSBase)%hangulTCount == 0 &&
		b > hangulTBase && b < hangulTBase+hangulTCount {
		return a + (b - hangulTBase), true
	}
	c, ok := composePairs[[2]rune{a, b}]
	return c, ok
}

// Output.

const blockBits = 6

func writeTrie32(b *bytes.Buffer, name string, vals []uint32) {
	index, blocks := buildTrie(len(vals), func(i int) uint64 { return uint64(vals[i]) })
	fmt.Fprintf(b, "// %sIndex maps a code point's high bits to a block of %sBlocks.\n", name, name)
	fmt.Fprintf(b, "var %sIndex = [%d]uint16{", name, len(index))
	writeInts(b, index)
	fmt.Fprintf(b, "}\n\nvar %sBlocks = [%d]uint32{", name, len(blocks))
	writeInts(b, blocks)
	b.WriteString("}\n\n")
}

func buildTrie(n int, val func(int) uint64) (index, blocks []uint64) {
	size := 1 << blockBits
	seen := map[string]int{}
	for start := 0; start < n; start += size {
		key := make([]byte, 0, size*8)
		block := make([]uint64, size)
		for i := 0; i < size; i++ {
			block[i] = val(start + i)
			key = strconv.AppendUint(key, block[i], 36)
			key = append(key, ',')
		}
		id, ok := seen[string(key)]
		if !ok {
			id = len(blocks) / size
			seen[string(key)] = id
			blocks = append(blocks, block...)
		}
		index = append(index, uint64(id))
	}
	if len(blocks)/size > 1<<16 {
		log.Fatal("too many blocks")
	}
	return index, blocks
}

func writeInts(b *bytes.Buffer, vs []uint64) {
	for i, v := range vs {
		if i%16 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%#x, ", v)
	}
	b.WriteString("\n")
}

// writeNormTables writes what the tokenizer's NFC pass needs for the code
// points that can appear in folded text: canonical decompositions and
// primary composites (Hangul is algorithmic; combining classes are in props).
func writeNormTables(b *bytes.Buffer) {
	var vs []uint64
	var decRunes []rune
	for r := rune(0); r <= maxRune; r++ {
		if info := ucd[r]; info != nil && info.decomp != nil {
			decRunes = append(decRunes, r)
		}
	}
	b.WriteString("// decompRunes have a full canonical decomposition: decompData[decompIndex[i]:decompIndex[i+1]].\n")
	b.WriteString("var decompRunes = [...]rune{")
	vs = make([]uint64, len(decRunes))
	for i, r := range decRunes {
		vs[i] = uint64(r)
	}
	writeInts(b, vs)
	b.WriteString("}\n\nvar decompIndex = [...]uint16{")
	var data []rune
	idx := make([]uint64, 0, len(decRunes)+1)
	for _, r := range decRunes {
		idx = append(idx, uint64(len(data)))
		data = append(data, decomposeRune(r, nil)...)
	}
	idx = append(idx, uint64(len(data)))
	writeInts(b, idx)
	b.WriteString("}\n\nvar decompData = [...]rune{")
	vs = make([]uint64, len(data))
	for i, r := range data {
		vs[i] = uint64(r)
	}
	writeInts(b, vs)
	b.WriteString("}\n\n")

	type pairT struct {
		key  uint64
		comp rune
	}
	var pairs []pairT
	for _, m := range []map[[2]rune]rune{composePairs, indicPairs} {
		for k, c := range m {
			pairs = append(pairs, pairT{uint64(k[0])<<21 | uint64(k[1]), c})
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].key < pairs[j].key })
	b.WriteString("// composeKeys (first<<21 | second) and composeValues are the primary composites.\n")
	b.WriteString("var composeKeys = [...]uint64{")
	vs = make([]uint64, len(pairs))
	for i, p := range pairs {
		vs[i] = p.key
	}
	writeInts(b, vs)
	b.WriteString("}\n\nvar composeValues = [...]rune{")
	for i, p := range pairs {
		vs[i] = uint64(p.comp)
	}
	writeInts(b, vs)
	b.WriteString("}\n")
}
