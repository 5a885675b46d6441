package tests

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// An independent reference for word boundaries: the translated strings of
// the gettext catalogs under /usr/share/locale, segmented by ICU (Node's
// Intl.Segmenter, tests/node/icu_words.js) and by our UAX #29 segmenter
// (tokenizer.WordBoundaries). Only languages written with spaces are
// compared: ICU segments Thai, Lao, Khmer, Myanmar and CJK with dictionaries,
// which UAX #29 does not try to do (the tokenizer indexes those scripts by
// n-grams instead). Only the edges of word-like segments are compared: ICU and
// UAX #29 group punctuation and spaces differently, which no search sees.
//
// The catalogs come with the Debian image that CI uses too, so the sample and
// the agreement are the same on every run.

// icuLanguages are the languages compared, when the image has catalogs for them.
var icuLanguages = []string{"de", "fr", "es", "ru", "uk", "el", "ar", "he", "hi", "bn", "vi", "tr", "pl", "cs"}

const (
	// icuBytesPerLanguage caps the text sampled per language, to keep the
	// test fast; the sample is a deterministic hash selection of all strings.
	icuBytesPerLanguage = 1_000_000
	// icuMinLanguages and icuMinStrings: fewer means the catalogs are gone
	// (a changed image), and the test would compare nothing.
	icuMinLanguages = 12
	icuMinStrings   = 1_000
	// icuMinAgreement is the share of boundaries both segmenters must agree
	// on, per language. Measured with Node 20 (ICU 78.2, Unicode 17) against
	// our Unicode 15.0 tables: 100.000% in every language, about 2 million
	// boundaries in all. The margin leaves room for a newer ICU or Unicode
	// version moving a few rare characters, not for a change in the rules.
	icuMinAgreement = 0.999
)

func TestWordBoundariesAgreeWithICU(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: install Node.js 20 (apt-get install nodejs, or run scripts/install-deps): %v", err)
	}

	type item struct {
		Lang string `json:"lang"`
		Text string `json:"text"`
	}
	var items []item
	langs := 0
	for _, lang := range icuLanguages {
		texts, err := catalogStrings(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(texts) == 0 {
			t.Logf("%s: no catalogs in /usr/share/locale", lang)
			continue
		}
		texts = sampleTexts(texts, icuBytesPerLanguage)
		if len(texts) < icuMinStrings {
			t.Errorf("%s: only %d translated strings in /usr/share/locale/%s/LC_MESSAGES, want at least %d", lang, len(texts), lang, icuMinStrings)
		}
		langs++
		for _, s := range texts {
			items = append(items, item{lang, s})
		}
	}
	if langs < icuMinLanguages {
		t.Fatalf("catalogs found for %d of the languages %v, want at least %d: is the package locales-all or the usual Debian translations missing?", langs, icuLanguages, icuMinLanguages)
	}

	input, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("node", "icu_words.js"))
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node icu_words.js: %v\n%s", err, stderr.Bytes())
	}
	var icu [][]int
	if err := json.Unmarshal(out, &icu); err != nil {
		t.Fatalf("node icu_words.js: %v", err)
	}
	if len(icu) != len(items) {
		t.Fatalf("node icu_words.js returned %d results for %d texts", len(icu), len(items))
	}

	type tally struct{ strings, agree, total int }
	perLang := map[string]*tally{}
	patterns := map[string]*disagreement{}
	for i, it := range items {
		text := []byte(it.Text)
		theirs := utf16ToBytes(text, icu[i])
		ours := wordLikeEdges(text)
		tl := perLang[it.Lang]
		if tl == nil {
			tl = &tally{}
			perLang[it.Lang] = tl
		}
		tl.strings++
		for p := range union(ours, theirs) {
			tl.total++
			_, inOurs := ours[p]
			_, inICU := theirs[p]
			if inOurs && inICU {
				tl.agree++
				continue
			}
			side := "ICU only"
			if inOurs {
				side = "ours only"
			}
			key := side + ": " + boundaryPattern(text, p)
			d := patterns[key]
			if d == nil {
				d = &disagreement{pattern: key, example: it.Lang + ": " + boundaryExample(text, p)}
				patterns[key] = d
			}
			d.count++
		}
	}

	for _, lang := range icuLanguages {
		tl := perLang[lang]
		if tl == nil {
			continue
		}
		share := float64(tl.agree) / float64(max(1, tl.total))
		t.Logf("%s: %.3f%% of %d boundaries agree (%d strings)", lang, 100*share, tl.total, tl.strings)
		if share < icuMinAgreement {
			t.Errorf("%s: %.3f%% of word boundaries agree with ICU, want at least %.1f%%", lang, 100*share, 100*icuMinAgreement)
		}
	}
	top := make([]*disagreement, 0, len(patterns))
	for _, d := range patterns {
		top = append(top, d)
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].count != top[j].count {
			return top[i].count > top[j].count
		}
		return top[i].pattern < top[j].pattern
	})
	if len(top) == 0 {
		t.Logf("no disagreements")
		return
	}
	t.Logf("most frequent disagreements (a = letter, 0 = digit, _ = space; | = the boundary):")
	for _, d := range top[:min(10, len(top))] {
		t.Logf("%6d  %-28s e.g. %s", d.count, d.pattern, d.example)
	}
}

type disagreement struct {
	pattern, example string
	count            int
}

// wordLikeEdges returns the starts and ends of our word-like segments: those
// with a letter or a decimal digit, which is what ICU calls word-like.
func wordLikeEdges(text []byte) map[int]struct{} {
	edges := map[int]struct{}{}
	b := tokenizer.WordBoundaries(text)
	for i := 0; i+1 < len(b); i++ {
		if wordLike(text[b[i]:b[i+1]]) {
			edges[b[i]] = struct{}{}
			edges[b[i+1]] = struct{}{}
		}
	}
	return edges
}

func wordLike(seg []byte) bool {
	for _, r := range string(seg) {
		if unicode.IsLetter(r) || unicode.Is(unicode.Nd, r) {
			return true
		}
	}
	return false
}

// utf16ToBytes turns ICU's UTF-16 offsets into byte offsets of text.
func utf16ToBytes(text []byte, offsets []int) map[int]struct{} {
	at := make([]int, 0, len(text)+1) // at[utf16 offset] = byte offset
	for i, r := range string(text) {
		at = append(at, i)
		if r >= 0x10000 {
			at = append(at, i)
		}
	}
	at = append(at, len(text))
	out := make(map[int]struct{}, len(offsets))
	for _, o := range offsets {
		out[at[o]] = struct{}{}
	}
	return out
}

func union(a, b map[int]struct{}) map[int]struct{} {
	u := make(map[int]struct{}, len(a)+len(b))
	for k := range a {
		u[k] = struct{}{}
	}
	for k := range b {
		u[k] = struct{}{}
	}
	return u
}

// boundaryPattern describes the two characters on each side of byte offset
// p by class: letters as a, digits as 0, space as _, others as themselves
// (invisible ones by code point).
func boundaryPattern(text []byte, p int) string {
	class := func(r rune) string {
		switch {
		case unicode.IsLetter(r):
			return "a"
		case unicode.Is(unicode.Nd, r):
			return "0"
		case unicode.IsSpace(r):
			return "_"
		case unicode.IsGraphic(r) && !unicode.Is(unicode.Mn, r):
			return string(r)
		}
		return fmt.Sprintf("<U+%04X>", r)
	}
	var before, after []string
	for i, k := p, 0; i > 0 && k < 2; k++ {
		r, n := utf8.DecodeLastRune(text[:i])
		before = append([]string{class(r)}, before...)
		i -= n
	}
	for i, k := p, 0; i < len(text) && k < 2; k++ {
		r, n := utf8.DecodeRune(text[i:])
		after = append(after, class(r))
		i += n
	}
	return strings.Join(before, "") + "|" + strings.Join(after, "")
}

// boundaryExample shows byte offset p in its text, a few characters each side.
func boundaryExample(text []byte, p int) string {
	a, b := p, p
	for k := 0; k < 12 && a > 0; k++ {
		_, n := utf8.DecodeLastRune(text[:a])
		a -= n
	}
	for k := 0; k < 12 && b < len(text); k++ {
		_, n := utf8.DecodeRune(text[b:])
		b += n
	}
	return fmt.Sprintf("%q", string(text[a:p])+"|"+string(text[p:b]))
}

// catalogStrings returns the distinct translations in the UTF-8 gettext
// catalogs /usr/share/locale/<lang>/LC_MESSAGES/*.mo, in file name order.
func catalogStrings(lang string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join("/usr/share/locale", lang, "LC_MESSAGES", "*.mo"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var texts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		translations, err := parseMO(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for _, s := range translations {
			if s != "" && !seen[s] {
				seen[s] = true
				texts = append(texts, s)
			}
		}
	}
	return texts, nil
}

// parseMO returns the translations of a GNU gettext .mo catalog (plural
// forms as separate strings), or none when its charset is not UTF-8. The
// format: a magic number that also gives the byte order, a revision, the
// number of strings N, and the offsets of two tables of N (length, offset)
// pairs, the original strings and their translations; the translation of
// the empty string is the header, with the charset.
func parseMO(data []byte) ([]string, error) {
	if len(data) < 28 {
		return nil, fmt.Errorf("not a .mo file: %d bytes", len(data))
	}
	var order binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0x950412de:
		order = binary.LittleEndian
	case 0xde120495:
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("not a .mo file: magic %#x", binary.LittleEndian.Uint32(data))
	}
	n := int(order.Uint32(data[8:]))
	origs, trans := int(order.Uint32(data[12:])), int(order.Uint32(data[16:]))
	str := func(table, i int) (string, error) {
		at := table + 8*i
		if at < 0 || at+8 > len(data) {
			return "", fmt.Errorf("string table entry %d out of range", i)
		}
		length, off := int(order.Uint32(data[at:])), int(order.Uint32(data[at+4:]))
		if off < 0 || length < 0 || off+length > len(data) {
			return "", fmt.Errorf("string %d out of range", i)
		}
		return string(data[off : off+length]), nil
	}
	var out []string
	for i := 0; i < n; i++ {
		id, err := str(origs, i)
		if err != nil {
			return nil, err
		}
		msg, err := str(trans, i)
		if err != nil {
			return nil, err
		}
		if id == "" {
			if !utf8Header(msg) {
				return nil, nil
			}
			continue
		}
		for _, form := range strings.Split(msg, "\x00") {
			if utf8.ValidString(form) {
				out = append(out, form)
			}
		}
	}
	return out, nil
}

func utf8Header(header string) bool {
	for _, line := range strings.Split(header, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Type") {
			_, cs, _ := strings.Cut(strings.ToLower(v), "charset=")
			return strings.TrimSpace(cs) == "utf-8"
		}
	}
	return false
}

// sampleTexts keeps about maxBytes of texts: when there are more, every
// k-th by hash, so the sample spreads over all catalogs and is the same on
// every run.
func sampleTexts(texts []string, maxBytes int) []string {
	total := 0
	for _, s := range texts {
		total += len(s)
	}
	k := uint32(total/maxBytes + 1)
	if k == 1 {
		return texts
	}
	var out []string
	for _, s := range texts {
		h := fnv.New32a()
		h.Write([]byte(s))
		if h.Sum32()%k == 0 {
			out = append(out, s)
		}
	}
	return out
}
