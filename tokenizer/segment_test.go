package tokenizer

import (
	"bufio"
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
