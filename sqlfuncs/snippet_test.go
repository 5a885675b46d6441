package sqlfuncs

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/redact/redacttest"
)

func TestCutChars(t *testing.T) {
	family := "\U0001F468\u200d\U0001F469\u200d\U0001F467" // man ZWJ woman ZWJ girl: 5 runes
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"no limit", "hello", 0, "hello"},
		{"negative limit", "hello", -1, "hello"},
		{"exact length", "hello", 5, "hello"},
		{"length plus one", "hello", 6, "hello"},
		{"one short", "hello", 4, "hel…"},
		{"one character", "hello", 1, "…"},
		{"two characters", "hello", 2, "h…"},
		{"empty", "", 3, ""},
		{"CJK", "你好世界和平", 3, "你好…"},
		{"CJK exact", "你好世界", 4, "你好世界"},
		{"emoji", "👍👍👍", 2, "👍…"},
		{"combining mark kept with its letter", "e\u0301e\u0301e\u0301", 4, "e\u0301…"},
		{"combining at the cut", "cafe\u0301 noir", 5, "caf…"},
		{"skin tone", "👍🏽x", 2, "…"},
		{"ZWJ sequence", "ab" + family + "cd", 5, "ab…"},
		{"ZWJ sequence fits", "ab" + family + "cd", 8, "ab" + family + "…"},
		{"flags", "🇫🇷🇩🇪", 3, "🇫🇷…"},
		{"flags fit", "🇫🇷🇩🇪", 4, "🇫🇷🇩🇪"},
		{"half a flag", "🇫🇷🇩🇪", 2, "…"},
		{"invalid UTF-8", "ab\xffcd", 4, "ab\xff…"},
		{"mask left out whole", "see [REDACTED:github-token] now", 10, "see…"},
		{"mask fits", "see [REDACTED:github-token] now", 29, "see [REDACTED:github-token]…"},
		{"space before the ellipsis", "hello world", 7, "hello…"},
	}
	for _, tt := range tests {
		got := CutChars(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("%s: CutChars(%q, %d) = %q, want %q", tt.name, tt.in, tt.max, got, tt.want)
		}
		if tt.max > 0 && utf8.RuneCountInString(got) > tt.max {
			t.Errorf("%s: %q has more than %d characters", tt.name, got, tt.max)
		}
	}
}

// TestCutCharsBounds checks the invariants on random mixed-script text: at
// most maxChars characters, a prefix of the input, "…" only when cut.
func TestCutCharsBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	pieces := []string{"a", "Z", " ", "é", "e\u0301", "你", "한", "👍", "👍🏽", "🇫🇷", "\u200d", "\xff", "[REDACTED:jwt]"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := b.String()
		max := rng.IntN(40)
		got := CutChars(in, max)
		n := utf8.RuneCountInString(in)
		switch {
		case max <= 0 || n <= max:
			if got != in {
				t.Fatalf("CutChars(%q, %d) = %q, want the text unchanged", in, max, got)
			}
		case utf8.RuneCountInString(got) > max:
			t.Fatalf("CutChars(%q, %d) = %q: too long", in, max, got)
		case !strings.HasSuffix(got, ellipsis) || !strings.HasPrefix(in, strings.TrimSuffix(got, ellipsis)):
			t.Fatalf("CutChars(%q, %d) = %q: not a prefix and an ellipsis", in, max, got)
		}
	}
}

func TestSnippet(t *testing.T) {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	text := strings.Join(words, " ")
	at := func(w string) Range {
		i := strings.Index(text, w)
		return Range{i, i + len(w)}
	}
	tests := []struct {
		name    string
		matches []Range
		max     int
		want    string
	}{
		{"no cut needed", []Range{at("mike")}, 0, text},
		{"fits exactly", []Range{at("mike")}, utf8.RuneCountInString(text), text},
		{"match in the middle", []Range{at("mike")}, 30, "…kilo lima mike november…"},
		{"match at the start", []Range{at("alpha")}, 20, "alpha bravo charlie…"},
		{"match at the end", []Range{at("zulu")}, 20, "…xray yankee zulu"},
		{"most matches win", []Range{at("bravo"), at("sierra"), at("tango"), at("uniform")}, 30, "…sierra tango uniform…"},
		{"no matches: the start", nil, 20, "alpha bravo charlie…"},
		{"one character", []Range{at("mike")}, 1, "…"},
	}
	for _, tt := range tests {
		got := Snippet(text, tt.matches, tt.max)
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		checkSnippet(t, text, got, tt.max)
	}
}

// checkSnippet checks what every snippet must satisfy: at most max
// characters, valid UTF-8 where the text is, "…" exactly on the cut sides,
// and a middle that is a piece of the redacted text that does not cut a
// mask.
func checkSnippet(t *testing.T, text, got string, max int) {
	t.Helper()
	red, _ := redact.Text(text)
	if max > 0 && utf8.RuneCountInString(got) > max {
		t.Errorf("snippet %q has more than %d characters", got, max)
	}
	if utf8.ValidString(text) && !utf8.ValidString(got) {
		t.Errorf("snippet %q is not valid UTF-8", got)
	}
	core := strings.TrimSuffix(strings.TrimPrefix(got, ellipsis), ellipsis)
	at := strings.Index(red, core)
	if at < 0 {
		t.Errorf("snippet %q is not a piece of the redacted text %q", got, red)
		return
	}
	if strings.Count(red, core) > 1 {
		return // repeated text: where the window sits is ambiguous
	}
	if strings.HasPrefix(got, ellipsis) != (at > 0 || core == "") && core != "" {
		t.Errorf("snippet %q: leading ellipsis does not match a cut", got)
	}
	for _, m := range maskRanges(red) {
		if m.Start < at && at < m.End || m.Start < at+len(core) && at+len(core) < m.End {
			t.Errorf("snippet %q cuts the mask %q", got, red[m.Start:m.End])
		}
	}
}

func maskRanges(red string) []Range {
	var out []Range
	for i := 0; ; {
		j := strings.Index(red[i:], redact.MaskPrefix)
		if j < 0 {
			return out
		}
		s := i + j
		e := s + strings.IndexByte(red[s:], ']') + 1
		out = append(out, Range{s, e})
		i = e
	}
}

// TestSnippetSecretNextToMatch is the reason Snippet redacts first: the
// match is the word right before (or after) a secret, and whatever the
// window size, no 8 characters of the secret reach the snippet and no mask
// is cut.
func TestSnippetSecretNextToMatch(t *testing.T) {
	filler := strings.Repeat("the deploy went fine and the logs were quiet ", 4)
	for _, s := range redacttest.Samples() {
		for _, layout := range []string{"%s " + s.Text + " %s", "%s deploy:" + s.Text + ",deploy %s"} {
			text := strings.Replace(strings.Replace(layout, "%s", filler, 1), "%s", filler, 1)
			var matches []Range
			for i := 0; ; {
				j := strings.Index(text[i:], "deploy")
				if j < 0 {
					break
				}
				matches = append(matches, Range{i + j, i + j + len("deploy")})
				i += j + len("deploy")
			}
			for _, max := range []int{1, 5, 12, 20, 40, 80, 150, 300, 0} {
				got := Snippet(text, matches, max)
				if w := redacttest.Leak(got, s); w != "" {
					t.Errorf("%s: %q survives in the %d-character snippet %q", s.Family, w, max, got)
				}
				checkSnippet(t, text, got, max)
			}
		}
	}
}

func TestSnippetMatchInsideSecret(t *testing.T) {
	gh := "ghp_" + strings.Repeat("Zx9Q", 9)
	text := "before the line GITHUB_TOKEN=" + gh + " after the line and a lot more text to cut away"
	i := strings.Index(text, "Zx9Q")
	got := Snippet(text, []Range{{i, i + 4}}, 40)
	if !strings.Contains(got, "[REDACTED:github-token]") || strings.Contains(got, "Zx9Q") {
		t.Errorf("a match inside a secret should show its mask: %q", got)
	}
	checkSnippet(t, text, got, 40)
}

func TestSnippetMultibyte(t *testing.T) {
	text := strings.Repeat("数据库迁移已经完成。", 10) + "密码是 password=Xk9#pQ2mN7vB4zz! 请立即更换。" + strings.Repeat("日志没有错误。", 10)
	i := strings.Index(text, "更换")
	for _, max := range []int{1, 2, 3, 10, 25, 60} {
		got := Snippet(text, []Range{{i, i + len("更换")}}, max)
		checkSnippet(t, text, got, max)
		if strings.Contains(got, "Xk9#pQ2m") {
			t.Errorf("password survives in %q", got)
		}
	}
	if got := Snippet(text, []Range{{i, i + len("更换")}}, 25); !strings.Contains(got, "更换") {
		t.Errorf("the match is not in the snippet %q", got)
	}
}

func TestSnippetBadRanges(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	for _, m := range [][]Range{
		{{-5, 3}}, {{40, 400}}, {{10, 5}}, {{30, 35}, {0, 3}}, {{len(text), len(text)}},
	} {
		got := Snippet(text, m, 20)
		checkSnippet(t, text, got, 20)
	}
}

// TestSnippetLargeText: a big message with many matches. Only the
// characters near the chosen window are indexed, and matches are grouped in
// one pass, so this stays fast; the snippet still obeys every rule.
func TestSnippetLargeText(t *testing.T) {
	unit := "日志 log line with a match and a token=Xk9#pQ2mN7vB4zz! in it. "
	text := strings.Repeat(unit, 20000)
	var matches []Range
	for i := 0; i < len(text); i += len(unit) {
		j := i + strings.Index(unit, "match")
		matches = append(matches, Range{j, j + len("match")})
	}
	got := Snippet(text, matches, 120)
	if utf8.RuneCountInString(got) > 120 || !strings.Contains(got, "match") || strings.Contains(got, "Xk9#pQ2m") {
		t.Errorf("snippet of a large text: %q", got)
	}
	if !strings.HasPrefix(got, "日志") || !strings.HasSuffix(got, ellipsis) {
		t.Errorf("the densest window is the first one: %q", got)
	}
}
