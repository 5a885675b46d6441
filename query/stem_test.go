package query

import (
	"strings"
	"testing"
)

// TestForms: the other forms of a word that a relaxed search also finds
// (docs/search.md Q28). For each word, every form must lie where the
// search looks for forms (it starts with FormPrefix) and be accepted by
// IsForm; the other words share the start but are no forms, and IsForm
// refuses them.
func TestForms(t *testing.T) {
	tests := []struct {
		name, lang, word string
		forms            []string
		others           []string
	}{
		{"English: a verb's forms", "en", "running", []string{"run", "runs"}, []string{"runner", "rung", "ran"}},
		{"English: the issue's example", "en", "research", []string{"researching", "researched", "researches"}, []string{"resea"}},
		{"English: a stem that ends in e", "en", "hope", []string{"hoping", "hoped", "hopes", "hopeful"}, []string{"hop", "hopeless"}},
		{"English: make and making", "en", "make", []string{"making", "makes"}, []string{"maker", "makeup"}},
		{"English: y and ies", "en", "studies", []string{"study", "studied", "studying"}, []string{"student", "studio"}},
		{"English: a plural of y", "en", "cities", []string{"city"}, []string{"citizen", "cite"}},
		{"English: news is not new", "en", "new", nil, []string{"news", "newer"}},
		{"English: an arm is not an army", "en", "arm", []string{"arms", "armed"}, []string{"army", "armies"}},
		{"English: a plan is not a planet", "en", "plan", []string{"plans", "planned", "planning"}, []string{"planet", "plane", "plant"}},
		{"French", "fr", "voyager", []string{"voyage", "voyages", "voyagé"}, []string{"voyageur", "voyant"}},
		{"French: envoyer", "fr", "envoie", []string{"envoyer", "envoi"}, []string{"envol"}},
		{"German", "de", "reisen", []string{"reise", "reisens"}, []string{"reisende", "reiste", "reißen"}},
		{"German: a folded umlaut", "de", "haus", []string{"häuser", "hauses"}, []string{"hausaufgabe"}},
		{"Spanish", "es", "hablar", []string{"hablamos", "hablaba", "habla"}, []string{"habitación"}},
		{"Spanish: a noun", "es", "viaje", []string{"viajes", "viajar"}, []string{"viajero"}},
		{"Russian", "ru", "поездке", []string{"поездка", "поездки", "поездку"}, []string{"поезд", "поездной"}},
		{"Russian: a verb", "ru", "говорил", []string{"говорить", "говорила"}, []string{"говорун"}},
		{"Russian: a city is not peas", "ru", "города", []string{"город", "городе"}, []string{"горох"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Word{Token: fold(t, tt.word), Lang: tt.lang}
			prefix := w.FormPrefix()
			if prefix == "" {
				t.Fatalf("%s: FormPrefix(%q) = \"\": its forms are never looked up", tt.lang, w.Token)
			}
			for _, f := range tt.forms {
				f = fold(t, f)
				if !strings.HasPrefix(f, prefix) {
					t.Errorf("%s: form %q of %q lies outside the prefix %q looked up", tt.lang, f, w.Token, prefix)
				}
				if !w.IsForm(f) {
					t.Errorf("%s: IsForm(%q, %q) = false, want a form", tt.lang, w.Token, f)
				}
			}
			for _, o := range tt.others {
				if o = fold(t, o); w.IsForm(o) {
					t.Errorf("%s: IsForm(%q, %q) = true, want no form", tt.lang, w.Token, o)
				}
			}
		})
	}
}

// TestFormsRefused: when a word has no forms looked up, and what is never
// a form of it (docs/search.md Q28).
func TestFormsRefused(t *testing.T) {
	// A word whose common start with its stem is shorter than
	// MinFormPrefix characters is not expanded: it would read too much of
	// the vocabulary.
	for _, w := range []Word{
		{Token: "go", Lang: "en"},
		{Token: "try", Lang: "en"},   // stem tri: "tr" is the common start of try and tri
		{Token: "using", Lang: "en"}, // stem use: "us"
		{Token: "дн", Lang: "ru"},    // two letters, though four bytes
		{Token: "plan", Lang: "zh"},  // no stemmer
		{Token: "plan", Lang: ""},    // no language
		{Lang: "en"},                 // no token: a phrase or an n-gram piece
	} {
		if p := w.FormPrefix(); p != "" {
			t.Errorf("FormPrefix(%q, %q) = %q, want none", w.Token, w.Lang, p)
		}
	}
	// Three letters is enough.
	if p := (Word{Token: "run", Lang: "en"}).FormPrefix(); p != "run" {
		t.Errorf("FormPrefix(run) = %q, want run", p)
	}
	// A prefix is whole characters, never a cut UTF-8 sequence.
	if p := (Word{Token: "городе", Lang: "ru"}).FormPrefix(); p != "горо" {
		t.Errorf("FormPrefix(городе) = %q, want горо", p)
	}

	w := Word{Token: "plan", Lang: "en"}
	for _, term := range []string{
		"plan",      // the word itself is no other form
		"plans x",   // a phrase of the vocabulary
		"plans\x00", // not a term
	} {
		if w.IsForm(term) {
			t.Errorf("IsForm(plan, %q) = true, want false", term)
		}
	}
	for _, lang := range []string{"", "zh"} {
		if (Word{Token: "plan", Lang: lang}).IsForm("plans") {
			t.Errorf("IsForm(plan, plans) in %q = true: a language without a stemmer has no forms", lang)
		}
	}
}

// TestFormsOverstemmed records what Snowball's English stemmer conflates
// that a person would not (docs/search.md Q28): universe, universal and
// university are one stem, univers, and organ and organization are organ.
// A search for one finds the others as forms; the exact form still ranks
// first (package ranking: MatchAll before MatchForms).
func TestFormsOverstemmed(t *testing.T) {
	for _, c := range [][2]string{{"universe", "university"}, {"universe", "universal"}, {"organ", "organization"}} {
		if !(Word{Token: c[0], Lang: "en"}).IsForm(c[1]) {
			t.Errorf("IsForm(%q, %q) = false: Snowball's English stemmer changed; docs/search.md Q28 says it conflates them", c[0], c[1])
		}
	}
}

// TestStem: the languages with a stemmer, and one without.
func TestStem(t *testing.T) {
	tests := []struct{ lang, word, want string }{
		{"en", "researching", "research"},
		{"fr", "parlons", "parlon"},
		{"de", "häuser", "haus"},
		{"es", "hablamos", "habl"},
		{"ru", "говорила", "говор"},
		{"it", "parlando", "parl"},
		{"pt", "falando", "fal"},
	}
	for _, tt := range tests {
		if got, ok := Stem(tt.lang, tt.word); !ok || got != tt.want {
			t.Errorf("Stem(%s, %q) = %q, %v, want %q", tt.lang, tt.word, got, ok, tt.want)
		}
	}
	if _, ok := Stem("zh", "计划"); ok {
		t.Error("Stem(zh) has a stemmer: Snowball has none for Chinese")
	}
}

// fold returns a word as a query reads it (the tokenizer's folding: lower
// case, no diacritics), so that the tests write words as people do.
func fold(t *testing.T, s string) string {
	t.Helper()
	var tk tokens
	toks := tk.lead(s)
	if len(toks) != 1 {
		t.Fatalf("%q is %d tokens, want one", s, len(toks))
	}
	return toks[0]
}
