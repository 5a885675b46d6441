package tokenizer

import "testing"

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		args string
		want Options
		err  string
	}{
		{"", Options{}, ""},
		{"cjk unigram", Options{}, ""},
		{"cjk trigram", Options{Trigram: true}, ""},
		{"CJK Trigram", Options{Trigram: true}, ""},
		{"cjk trigram cjk unigram", Options{}, ""}, // the last one wins, as in FTS5's own tokenizers
		{"cjk", Options{}, `option "cjk" needs a value`},
		{"cjk bigram", Options{}, `option cjk must be unigram or trigram, got "bigram"`},
		{"remove_diacritics 2", Options{}, `unknown option "remove_diacritics"`},
	} {
		got, err := ParseOptionString(tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseOptionString(%q): error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseOptionString(%q) = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}

// Every Options value survives the trip through the C tokenizer object and
// through its own String form.
func TestOptionsRoundTrip(t *testing.T) {
	for _, o := range []Options{{}, {Trigram: true}} {
		if got := DecodeOptions(o.Encode()); got != o {
			t.Errorf("DecodeOptions(%+v.Encode()) = %+v", o, got)
		}
		if got, err := ParseOptionString(o.String()); err != nil || got != o {
			t.Errorf("ParseOptionString(%q) = %+v, %v; want %+v", o.String(), got, err, o)
		}
	}
}
