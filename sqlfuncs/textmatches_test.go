package sqlfuncs

import (
	"reflect"
	"testing"
)

// TestTextMatches: the ranges the CLI and the page mark are where the
// search matches, by the real tokenizer: folded forms, CJK runs, prefixes,
// phrases; overlapping instances are merged; a query the search refuses is
// the same error.
func TestTextMatches(t *testing.T) {
	for _, c := range []struct {
		name, text, query string
		prefix            bool
		want              []string
	}{
		{"folded case and ß", "Straße and STRASSE", "strasse", false, []string{"Straße", "STRASSE"}},
		{"a CJK run inside a longer one", "東京都庁に行きました", "東京", false, []string{"東京"}},
		{"CJK letters apart do not match", "a 日报 and 日 报", "日报", false, []string{"日报"}},
		{"the last term as a prefix", "Перевіряю HEARTBEAT", "ПЕРЕВІР", true, []string{"Перевіряю"}},
		{"no prefix, no match", "Перевіряю HEARTBEAT", "ПЕРЕВІР", false, nil},
		{"two terms in text order", "two words here", "here two", false, []string{"two", "here"}},
		{"a phrase of several tokens is one range", "see report.txt now", "report.txt", false, []string{"report.txt"}},
		{"overlapping instances merge", "parseSessionKey", "parse parsesessionkey", false, []string{"parseSessionKey"}},
		{"Thai inside a run", "ฉันชอบกินข้าวผัด", "ข้าว", false, []string{"ข้าว"}},
		{"Devanagari words", "मैं हिंदी बोलता हूँ", "हिंदी", false, []string{"हिंदी"}},
		{"right-to-left text", "שלום עולם", "עולם", false, []string{"עולם"}},
		{"punctuation-only query finds nothing", "a - b", "-", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := TextMatches(c.text, c.query, c.prefix)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				got = append(got, c.text[r.Start:r.End])
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("TextMatches(%q, %q, %v) = %q, want %q", c.text, c.query, c.prefix, got, c.want)
			}
		})
	}
	if _, err := TextMatches("text", "   ", false); err == nil || err.Error() != "query must not be empty" {
		t.Errorf("an empty query: %v", err)
	}
}
