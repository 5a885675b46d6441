package tokenizer

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// ucdDir is Debian's unicode-data, the same Unicode version as the tables
// (checked below). CI installs it.
const ucdDir = "/usr/share/unicode"

// readUCDTest returns the test lines of a UCD test file, after checking that
// the file is the version the tables were generated from.
func readUCDTest(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (install Debian's unicode-data package)", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			if !strings.Contains(line, "-"+UnicodeVersion+".txt") {
				t.Fatalf("%s is %q, the tables are Unicode %s", path, line, UnicodeVersion)
			}
			first = false
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestWordBreakConformance replays every line of Unicode's WordBreakTest.txt:
// the segmenter implements UAX #29 without tailoring.
func TestWordBreakConformance(t *testing.T) {
	lines := readUCDTest(t, ucdDir+"/auxiliary/WordBreakTest.txt")
	if len(lines) < 1800 {
		t.Fatalf("only %d test lines", len(lines))
	}
	failed := 0
	for _, line := range lines {
		var text []byte
		var want []int
		for _, f := range strings.Fields(line) {
			switch f {
			case "÷":
				want = append(want, len(text))
			case "×":
			default:
				v, err := strconv.ParseUint(f, 16, 32)
				if err != nil {
					t.Fatalf("bad line %q", line)
				}
				text = appendRune(text, rune(v))
			}
		}
		got := []int{0}
		for pos := 0; pos < len(text); {
			pos = segmentEnd(text, pos)
			got = append(got, pos)
		}
		if !reflect.DeepEqual(got, want) {
			failed++
			if failed <= 10 {
				t.Errorf("%s: boundaries %v, want %v", line, got, want)
			}
		}
	}
	t.Logf("%d of %d WordBreakTest lines pass", len(lines)-failed, len(lines))
}

func appendRune(b []byte, r rune) []byte { return append(b, string(r)...) }

// tokensBySegments is the reference for emitter.run: every word-boundary
// segment through the segmenter, without short cuts.
func tokensBySegments(opts Options, src []byte, query bool) *Output {
	o, camel := segmentPass(opts, src, query, false)
	if camel && len(o.Tokens) > 1 { // as Tokenize does
		o, _ = segmentPass(opts, src, query, true)
	}
	return o
}

func segmentPass(opts Options, src []byte, query, queryParts bool) (*Output, bool) {
	o := &Output{src: src}
	fb, pieces := o.fold([]byte{separator}, nil, src, 0, len(src))
	e := emitter{o: o, fb: fb, src: src, offs: offsets{pieces: pieces, delta: -1}, query: query, trigram: opts.Trigram, queryParts: queryParts}
	for pos := 1; pos < len(fb); {
		end := segmentEnd(fb, pos)
		e.segment(fb, pos, end)
		pos = end
	}
	e.flushRun()
	o.Tokens, o.Folded = e.tokens, e.fb
	return o, e.camel
}

// TestShortCutsMatchSegmenter: the short cuts of emitter.run give exactly the
// tokens that segmenting every word boundary gives.
func TestShortCutsMatchSegmenter(t *testing.T) {
	pieces := []string{"a", "Z", "9", "é", "д", "Ж", "ש", "ا", "क", "ि", "्", "東", "カ", "ナ", "ひ", "한", "ก", "่",
		"\u0301", "\u0308", "_", ".", "'", "’", ",", ":", " ", "-", "\u200d", "\u00ad", "👍", "🏽", "🇫", "🇮", "#", "\u20e3",
		"\u0600", "\ufeff", "ﷺ", "①", "ｶ", "ﾞ", "\xff", "\u3099", "・", "ー"}
	var o Output
	randomTexts(3, 60000, 10, pieces, func(src []byte) { checkTokenize(t, src, &o) })
}

// randomTexts calls f with n texts of one to most pieces drawn at random.
func randomTexts(seed int64, n, most int, pieces []string, f func(src []byte)) {
	r := rand.New(rand.NewSource(seed))
	for range n {
		var b strings.Builder
		for range 1 + r.Intn(most) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		f([]byte(b.String()))
	}
}

// checkTokenize tokenizes src in both modes with both options and fails t
// unless the tokens keep checkTokens' rules and are exactly those that
// segmenting every word boundary gives (tokensBySegments, no short cuts).
func checkTokenize(t *testing.T, src []byte, o *Output) {
	t.Helper()
	for _, opts := range []Options{{}, {Trigram: true}} {
		for _, query := range []bool{false, true} {
			opts.Tokenize(src, query, o)
			checkTokens(t, src, o, query)
			if got, want := fmt.Sprint(tokenList(o)), fmt.Sprint(tokenList(tokensBySegments(opts, src, query))); got != want {
				t.Fatalf("%+q (%s, query=%v):\n got %s\nwant %s", src, opts, query, got, want)
			}
		}
	}
}

func tokenList(o *Output) []string {
	var l []string
	for _, t := range o.Tokens {
		l = append(l, fmt.Sprintf("%q@%d-%d/%d", o.Text(t), t.Start, t.End, t.Flags&Colocated))
	}
	return l
}

// TestASCIIMatchesGeneral: the ASCII path (ascii) gives the tokens of the
// general path.
func TestASCIIMatchesGeneral(t *testing.T) {
	// Long pieces and texts make words cross the 64-byte blocks of ascii.
	pieces := []string{"a", "b", "Z", "Q", "0", "9", "_", ".", " ", "'", "-", "\n", "\x00", "xY", "HTTPServer", "0x1F", "base64Encode", "iOS",
		"   ", "abcdefghijklmnopqrstuvwxyz", "Abcdefghijklmnopqrstuvwxyz0123456789", "getHTTPResponseCodeFromServerWithRetry", "é",
		"s", "IDs", "URLsFor"}
	var o Output
	randomTexts(5, 20000, 40, pieces, func(src []byte) { checkTokenize(t, src, &o) })
}
