package query

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestContentWords: the words of a question that a relaxed search counts
// (docs/search.md Q27): its stopwords go, in the language its script's
// words choose, and the words that carry the question stay.
func TestContentWords(t *testing.T) {
	tests := []struct {
		name, query string
		want        []string // Text@Lang of each counted word
		langs       map[string]string
	}{
		{"English: only the content words", "what did she say about the trip",
			[]string{"say@en", "trip@en"}, map[string]string{"Latin": "en"}},
		{"English: the issue's question", "what did we decide about the heartbeat file",
			[]string{"decide@en", "heartbeat@en", "file@en"}, map[string]string{"Latin": "en"}},
		{"French", "qu'a-t-elle dit sur le voyage",
			[]string{"dit@fr", "voyage@fr"}, map[string]string{"Latin": "fr"}},
		{"German", "was hat sie über die Reise gesagt",
			[]string{"Reise@de", "gesagt@de"}, map[string]string{"Latin": "de"}},
		{"Spanish", "qué dijo ella sobre el viaje",
			[]string{"dijo@es", "viaje@es"}, map[string]string{"Latin": "es"}},
		// Catalan's list holds que and el too: the tie goes to Spanish,
		// which has a stemmer.
		{"Spanish over Catalan on a tie", "que el viaje",
			[]string{"viaje@es"}, map[string]string{"Latin": "es"}},
		{"Russian", "что она говорила о поездке",
			[]string{"говорила@ru", "поездке@ru"}, map[string]string{"Cyrillic": "ru"}},
		{"Ukrainian: two of its words outweigh Russian", "що вона сказала про подорож",
			[]string{"сказала@uk", "подорож@uk"}, map[string]string{"Cyrillic": "uk"}},
		{"Arabic", "ماذا قالت عن الرحلة في الصيف",
			[]string{"ماذا@ar", "قالت@ar", "الرحلة@ar", "الصيف@ar"}, map[string]string{"Arabic": "ar"}},
		{"Persian: Arabic script, another language", "این کتاب از من است",
			[]string{"کتاب@fa"}, map[string]string{"Arabic": "fa"}},
		// Greek and Hebrew are each the only language of their script: one
		// stopword is evidence enough.
		{"Greek, the one language of its script", "ταξίδι και",
			[]string{"ταξίδι@el"}, map[string]string{"Greek": "el"}},
		{"Hebrew", "מה היא אמרה על הטיול",
			[]string{"אמרה@he", "הטיול@he"}, map[string]string{"Hebrew": "he"}},
		{"each script its own language", "what did Иван say про поездку",
			[]string{"Иван@ru", "say@en", "поездку@ru"}, map[string]string{"Latin": "en", "Cyrillic": "ru"}},
		// will and may are English words a person asks about (a will, the
		// month of May), and no English stopwords.
		{"will is a content word in English", "what is in the will",
			[]string{"will@en"}, map[string]string{"Latin": "en"}},
		{"May is a content word in English", "what happened in May",
			[]string{"happened@en", "May@en"}, map[string]string{"Latin": "en"}},
		{"may, the verb, too", "she may come",
			[]string{"may@en", "come@en"}, map[string]string{"Latin": "en"}},
		// will is a German stopword (ich will): with two other German
		// stopwords the query is German, and it goes.
		{"will in German", "ich will nach Hause",
			[]string{"Hause@de"}, map[string]string{"Latin": "de"}},
		// One stopword of another language than the script's usual one is
		// no evidence: nothing is dropped, and the word's forms are
		// English's.
		{"one German stopword alone", "will", []string{"will@en"}, map[string]string{}},
		// A query of nothing but stopwords keeps them all (NewPlan), in
		// their language, once each.
		{"only stopwords: kept", "the", []string{"the@en"}, map[string]string{"Latin": "en"}},
		{"only stopwords: kept once each", "it is what it is",
			[]string{"it@en", "is@en", "what@en"}, map[string]string{"Latin": "en"}},
		{"only German stopwords", "der die das",
			[]string{"der@de", "die@de", "das@de"}, map[string]string{"Latin": "de"}},
		{"only French stopwords", "je suis", []string{"je@fr", "suis@fr"}, map[string]string{"Latin": "fr"}},
		// A one-letter word is never counted, stopword or not (the s of
		// Caroline's, the t of don't), unless every word is one.
		{"one letter: not counted", "don't forget Caroline's keys",
			[]string{"don@en", "forget@en", "caroline@en", "keys@en"}, map[string]string{}},
		// Nor is it evidence of a language: French's list holds s and t,
		// and an English question with two of them is no French one.
		{"one letter: no evidence", "Caroline's dog's name",
			[]string{"caroline@en", "dog@en", "name@en"}, map[string]string{}},
		{"a Russian letter neither", "я и ты в магазине", []string{"магазине@ru"}, map[string]string{"Cyrillic": "ru"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.query, false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range NewPlan(q).Words {
				got = append(got, w.Text+"@"+w.Lang)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("words of %q = %q, want %q", tt.query, got, tt.want)
			}
			var tk tokens
			if _, langs := Stopwords(tk.lead(tt.query)); !reflect.DeepEqual(langs, tt.langs) {
				t.Errorf("languages of %q = %v, want %v", tt.query, langs, tt.langs)
			}
		})
	}
}

// TestStopwordsUseNoSlots: the MaxWords a relaxed search counts are
// content words; the stopwords dropped before them take none of the slots
// (docs/search.md Q27).
func TestStopwordsUseNoSlots(t *testing.T) {
	words := strings.Fields("what did she say about the")
	for i := range MaxWords + 3 {
		words = append(words, fmt.Sprintf("topic%d", i))
	}
	q, _ := Parse(strings.Join(words, " "), false)
	got := NewPlan(q).Words
	if len(got) != MaxWords {
		t.Fatalf("%d words counted, want %d", len(got), MaxWords)
	}
	if got[0].Text != "say" || got[MaxWords-1].Text != fmt.Sprintf("topic%d", MaxWords-2) {
		t.Errorf("words counted run %q..%q, want say..topic%d", got[0].Text, got[MaxWords-1].Text, MaxWords-2)
	}
}

// TestStopwordsNoWords: nothing to decide.
func TestStopwordsNoWords(t *testing.T) {
	stop, langs := Stopwords(nil)
	if len(stop) != 0 || len(langs) != 0 {
		t.Errorf("Stopwords(nil) = %v, %v, want nothing", stop, langs)
	}
	q, _ := Parse("... !!!", false)
	if w := NewPlan(q).Words; len(w) != 0 {
		t.Errorf("a query of punctuation counts %d words, want none", len(w))
	}
}

// TestStopwordLanguages: every language whose words the tokenizer is
// tested in has a list, from the maintained source the generator read
// (query/internal/gen): Lucene's where it has one, stopwords-iso
// otherwise.
func TestStopwordLanguages(t *testing.T) {
	got := StopwordLanguages()
	for code, source := range map[string]string{
		"en": "lucene", "fr": "lucene", "de": "lucene", "es": "lucene", "ru": "lucene", "ar": "lucene",
		"fa": "lucene", "el": "lucene", "zh": "stopwords-iso", "ja": "stopwords-iso",
		"ko": "stopwords-iso", "th": "stopwords-iso", "he": "stopwords-iso", "uk": "stopwords-iso", "vi": "stopwords-iso",
	} {
		if got[code] != source {
			t.Errorf("stopwords of %s: source %q, want %q", code, got[code], source)
		}
	}
}
