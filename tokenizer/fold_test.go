package tokenizer

import (
	"bufio"
	"compress/bzip2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

func foldString(s string) string {
	var o Output
	fb, _ := o.fold(nil, nil, []byte(s), 0, len(s))
	return string(fb)
}

// TestNormalizationTestEquivalence: the five columns of every line of
// NormalizationTest.txt are canonically or compatibility equivalent, so they
// must fold to the same text.
func TestNormalizationTestEquivalence(t *testing.T) {
	f, err := os.Open(ucdDir + "/NormalizationTest.txt.bz2")
	if err != nil {
		t.Fatalf("%v (install Debian's unicode-data package)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(bzip2.NewReader(f))
	lines, failed := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if lines == 0 && !strings.Contains(line, "-"+UnicodeVersion+".txt") {
			t.Fatalf("NormalizationTest.txt is %q, the tables are Unicode %s", line, UnicodeVersion)
		}
		if line == "" || line[0] == '#' || line[0] == '@' {
			lines++
			continue
		}
		cols := strings.Split(line, ";")[:5]
		var folded [5]string
		for i, col := range cols {
			var b strings.Builder
			for _, h := range strings.Fields(col) {
				v, _ := strconv.ParseUint(h, 16, 32)
				b.WriteRune(rune(v))
			}
			folded[i] = foldString(b.String())
		}
		lines++
		for i := 1; i < 5; i++ {
			if folded[i] != folded[0] {
				failed++
				if failed <= 10 {
					t.Errorf("%s: column %d folds to %+q, column 1 to %+q", line, i+1, folded[i], folded[0])
				}
				break
			}
		}
	}
	if lines < 19000 {
		t.Fatalf("read only %d lines", lines)
	}
	if failed > 0 {
		t.Errorf("%d lines fold differently", failed)
	}
}

// referenceFold is an independent folding built on golang.org/x/text (same
// Unicode version under Go 1.26) and Go's unicode script tables: NFKC_Casefold
// by its definition (NFKC, case folding and removal of default ignorables,
// repeated until stable), then the diacritic policy, then NFC.
func referenceFold(s string, ignorable map[rune]bool) string {
	fold := cases.Fold()
	for range 8 {
		next := norm.NFKC.String(s)
		next = fold.String(next)
		next = strings.Map(func(r rune) rune {
			if ignorable[r] {
				return -1
			}
			if unicode.Is(unicode.Cherokee, r) {
				// x/text folds Cherokee to lower case; CaseFolding.txt folds it
				// to upper case (since Unicode 8.0).
				return unicode.ToUpper(r)
			}
			return r
		}, next)
		next = norm.NFKC.String(next)
		if next == s {
			break
		}
		s = next
	}
	var out []rune
	base := -1
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r) {
			if base >= 0 && referenceRemovable(r, base) {
				continue
			}
			out = append(out, r)
			continue
		}
		if r == 0x0640 || (0x1F3FB <= r && r <= 0x1F3FF) {
			continue // tatweel and skin tones are invisible, not bases
		}
		base = referenceBase(r)
		out = append(out, []rune(referenceLetter(r))...)
	}
	return norm.NFC.String(string(out))
}

const (
	refKeep = iota
	refStrip
	refCyrillic
	refCyrillicIe
	refArabic
	refArabicAlef
	refArabicHeh
)

func referenceBase(r rune) int {
	switch {
	case unicode.Is(unicode.Cyrillic, r):
		if r == 'е' || r == 'Е' || r == 'ё' || r == 'Ё' {
			return refCyrillicIe
		}
		return refCyrillic
	case unicode.Is(unicode.Arabic, r):
		if r == 'ا' || r == 'أ' || r == 'إ' || r == 'آ' {
			return refArabicAlef
		}
		if r == 'ه' || referenceArabic[r] == 'ه' || len([]rune(norm.NFD.String(string(r)))) > 1 && referenceBase([]rune(norm.NFD.String(string(r)))[0]) == refArabicHeh {
			return refArabicHeh
		}
		return refArabic
	case unicode.Is(unicode.Latin, r), unicode.Is(unicode.Greek, r), unicode.Is(unicode.Hebrew, r),
		unicode.Is(unicode.Common, r), unicode.Is(unicode.Inherited, r):
		return refStrip
	}
	for _, tab := range unicode.Scripts {
		if unicode.Is(tab, r) {
			return refKeep
		}
	}
	return refStrip // unassigned: script Unknown
}

func referenceRemovable(m rune, base int) bool {
	if unicode.Is(unicode.Mc, m) {
		return false
	}
	switch base {
	case refStrip:
		return true
	case refCyrillic:
		return m == 0x300 || m == 0x301
	case refCyrillicIe:
		return m == 0x300 || m == 0x301 || m == 0x308
	case refArabic, refArabicAlef, refArabicHeh:
		if !unicode.Is(unicode.Arabic, m) && !unicode.Is(unicode.Inherited, m) {
			return false
		}
		if m == 0x653 || m == 0x654 || m == 0x655 {
			return base == refArabicAlef || base == refArabicHeh && m == 0x654 // the ezafe
		}
		return true
	}
	return false
}

// referenceLetter folds a letter the way docs/tokenizer.md T5 to T8 say,
// from x/text's runenames and Go's tables: decimal digits to ASCII, the
// Arabic-script variants by their code points, and Latin letters by
// taking the attachments off their names.
func referenceLetter(r rune) string {
	if unicode.Is(unicode.Nd, r) {
		words := strings.Fields(runenames.Name(r))
		for v, w := range []string{"ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"} {
			if words[len(words)-1] == w {
				return string(rune('0' + v))
			}
		}
	}
	if f, ok := referenceArabic[r]; ok {
		return string(f)
	}
	if !unicode.Is(unicode.Latin, r) || !unicode.IsLetter(r) || norm.NFKD.String(string(r)) != string(r) {
		return string(r)
	}
	name := runenames.Name(r)
	if strings.HasSuffix(name, " LETTER ETH") {
		return "d"
	}
	rest := ""
	for _, form := range []string{"LATIN SMALL LETTER ", "LATIN CAPITAL LETTER ", "LATIN LETTER SMALL CAPITAL ",
		"LATIN SMALL CAPITAL LETTER ", "LATIN SMALL LIGATURE ", "LATIN CAPITAL LIGATURE "} {
		if after, ok := strings.CutPrefix(name, form); ok {
			rest = after
			break
		}
	}
	if rest == "" {
		return string(r)
	}
	for {
		if len(rest) <= 2 && strings.Trim(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			return strings.ToLower(rest)
		}
		if other, ok := latinSmallLetters()[rest]; ok && other != r {
			if norm.NFKD.String(string(other)) != string(other) {
				return cases.Fold().String(norm.NFKC.String(string(other)))
			}
			return referenceLetter(other)
		}
		// Take off one attachment.
		before := rest
		if head, _, ok := strings.Cut(rest, " WITH "); ok {
			rest = head
		} else {
			for _, p := range []string{"BARRED ", "DOTLESS ", "INSULAR ", "SCRIPT "} {
				rest = strings.TrimPrefix(rest, p)
			}
			for _, s := range []string{" BAR", " DIGRAPH", " ROTUNDA"} {
				rest = strings.TrimSuffix(rest, s)
			}
		}
		if rest == before {
			return string(r)
		}
	}
}

// referenceArabic: docs/tokenizer.md T7, by code point.
var referenceArabic = map[rune]rune{
	0x06CC: 0x064A, 0x0649: 0x064A, 0x06D2: 0x064A, // farsi yeh, alef maksura, yeh barree: yeh
	0x06A9: 0x0643,                                 // keheh: kaf
	0x06D5: 0x0647, 0x06C1: 0x0647, 0x06BE: 0x0647, // ae, heh goal, heh doachashmee: heh
	0x0629: 0x0647, 0x06C3: 0x0647, // teh marbuta (and its Urdu goal form): heh
	0x0692: 0x0695, // reh with small v: reh with small v below
}

var latinSmallLetters = sync.OnceValue(func() map[string]rune {
	m := map[string]rune{}
	for r := rune(0); r <= 0x1FFFF; r++ {
		if rest, ok := strings.CutPrefix(runenames.Name(r), "LATIN SMALL LETTER "); ok {
			m[rest] = r
		}
	}
	return m
})

func readDefaultIgnorables(t *testing.T) map[rune]bool {
	f, err := os.Open(ucdDir + "/DerivedCoreProperties.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set := map[rune]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Split(line, ";")
		if len(fields) < 2 || strings.TrimSpace(fields[1]) != "Default_Ignorable_Code_Point" {
			continue
		}
		lo, hi, found := strings.Cut(strings.TrimSpace(fields[0]), "..")
		if !found {
			hi = lo
		}
		a, _ := strconv.ParseUint(lo, 16, 32)
		b, _ := strconv.ParseUint(hi, 16, 32)
		for r := a; r <= b; r++ {
			set[rune(r)] = true
		}
	}
	return set
}

// TestFoldMatchesReference compares the generated folding with the reference
// for every assigned code point, alone and after bases of each diacritic
// policy (Latin, Cyrillic е and и, Arabic alef and beh, Devanagari, Thai).
func TestFoldMatchesReference(t *testing.T) {
	ignorable := readDefaultIgnorables(t)
	contexts := []string{"a", "е", "и", "ا", "ب", "ه", "ە", "क", "ก", "か", "α", "ש"}
	isAssigned := assignedSet()
	failed, checked := 0, 0
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || !isAssigned[r] {
			continue
		}
		texts := []string{""}
		if unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) {
			texts = append(texts, contexts...) // a mark's fold depends on its base
		}
		for _, ctx := range texts {
			s := ctx + string(r)
			got, want := foldString(s), referenceFold(s, ignorable)
			checked++
			if got != want {
				failed++
				if failed <= 20 {
					t.Errorf("fold(%+q) = %+q, reference %+q", s, got, want)
				}
			}
		}
	}
	t.Logf("%d texts checked", checked)
	if failed > 0 {
		t.Errorf("%d of %d differ", failed, checked)
	}
}

// assignedSet marks the code points assigned in Go's Unicode tables (the
// same version as the generated tables under Go 1.26).
func assignedSet() []bool {
	set := make([]bool, unicode.MaxRune+1)
	for _, tab := range unicode.Categories {
		for _, r16 := range tab.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				set[r] = true
			}
		}
		for _, r32 := range tab.R32 {
			for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
				set[r] = true
			}
		}
	}
	return set
}
