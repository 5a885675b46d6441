package query

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestLiteral: the literal syntax (docs/search.md Q1, CONTRACT.md): every
// white-space separated term is text matched as a phrase, all required.
func TestLiteral(t *testing.T) {
	tests := []struct {
		name, query string
		prefix      bool
		want        string
	}{
		{"terms are ANDed", "fold case", false, `"fold" AND "case"`},
		{"OR is a word", "cats OR dogs", false, `"cats" AND "OR" AND "dogs"`},
		{"minus is text", "fold -case", false, `"fold" AND "-case"`},
		{"star is text", "fo*", false, `"fo*"`},
		{"quotes are text", `say "hi there"`, false, `"say" AND """hi" AND "there"""`},
		{"NEAR group is text", "NEAR(a b, 2)", false, `"NEAR(a" AND "b," AND "2)"`},
		{"NUL splits", "a\x00b", false, `"a" AND "b"`},
		{"punctuation term dropped", "fold ... case", false, `"fold" AND "case"`},
		{"all punctuation matches nothing", `!!! ... -- --`, false, MatchNothing},
		{"prefix: the last term", "case fol", true, `"case" AND "fol"*`},
		{"prefix: the last term that holds a token", "case fol ...", true, `"case" AND "fol"*`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseSyntax(tt.query, tt.prefix, SyntaxLiteral)
			if err != nil {
				t.Fatalf("ParseLiteral(%q): %v", tt.query, err)
			}
			if got := NewPlan(q).All; got != tt.want {
				t.Errorf("ParseLiteral(%q, prefix=%v).All = %s, want %s", tt.query, tt.prefix, got, tt.want)
			}
		})
	}
}

// TestAll: what a query matches in the exact tier (docs/search.md Q25): the
// FTS5 expression of every clause.
func TestAll(t *testing.T) {
	tests := []struct {
		name, query string
		prefix      bool
		want        string
	}{
		{"one term", "fold", false, `"fold"`},
		{"terms are ANDed", "fold case", false, `"fold" AND "case"`},
		{"trimmed", "  fold\t", false, `"fold"`},
		{"runs of spaces", "fold   \t\n case", false, `"fold" AND "case"`},
		{"OR joins two terms", "cats OR dogs", false, `("cats" OR "dogs")`},
		{"OR chains", "a OR b OR c d", false, `("a" OR "b" OR "c") AND "d"`},
		{"lower-case or is a word", "cats or dogs", false, `"cats" AND "or" AND "dogs"`},
		{"OR at the start is a word", "OR dogs", false, `"OR" AND "dogs"`},
		{"OR at the end is a word", "dogs OR", false, `"dogs" AND "OR"`},
		{"OR OR", "a OR OR b", false, `"a" AND ("OR" OR "b")`},
		{"AND NOT NEAR are words", "AND NOT NEAR", false, `"AND" AND "NOT" AND "NEAR"`},
		{"NEAR group is text", "NEAR(a b, 2)", false, `"NEAR(a" AND "b," AND "2)"`},
		{"star makes a prefix", "fo*", false, `"fo"*`},
		{"a lone star is text, and dropped", "fold *", false, `"fold"`},
		{"two stars are text", "fo**", false, `"fo**"`},
		{"caret is text", "^start", false, `"^start"`},
		{"column filter is text", "body:secret", false, `"body:secret"`},
		{"parentheses are text", "(a OR b)", false, `("(a" OR "b)")`},
		{"minus excludes", "fold -case", false, `"fold" NOT "case"`},
		{"minus excludes a phrase", `fold -"case by case"`, false, `"fold" NOT "case by case"`},
		{"two exclusions", "a b -c -d", false, `("a" AND "b") NOT "c" NOT "d"`},
		{"a hyphen inside is text", "foo-bar", false, `"foo-bar"`},
		{"a command's option is text", "git merge --continue", false, `"git" AND "merge" AND "--continue"`},
		{"a negative number is text", "exit code -1", false, `"exit" AND "code" AND "-1"`},
		{"minus before a letter of any script excludes", "東京 -大阪", false, `"東京" NOT "大阪"`},
		{"only exclusions are words", "-v -x", false, `"v" AND "x"`},
		{"a lone minus is text, and dropped", "a -", false, `"a"`},
		{"plus is text", "a+b", false, `"a+b"`},
		{"quotes make a phrase", `say "hi there"`, false, `"say" AND "hi there"`},
		{"a quoted prefix", `"hi the"*`, false, `"hi the"*`},
		{"a quote not closed is text", `it"s`, false, `"it""s"`},
		{"a quote closed inside a term is text", `"a"b`, false, `"""a""b"`},
		{"an open quote is text", `"hi there`, false, `"""hi" AND "there"`},
		{"no-break space splits", "fold\u00a0case", false, `"fold" AND "case"`},
		{"ideographic space splits", "東京\u3000大阪", false, `"東京" AND "大阪"`},
		{"NUL splits", "a\x00b", false, `"a" AND "b"`},
		{"zero-width space does not split", "a\u200bb", false, "\"a\u200bb\""},
		{"punctuation term dropped", "fold ... case", false, `"fold" AND "case"`},
		{"all punctuation matches nothing", `!!! ... -- --`, false, MatchNothing},
		{"prefix option: the last term", "case fol", true, `"case" AND "fol"*`},
		{"prefix option skips exclusions", "case fol -x", true, `("case" AND "fol"*) NOT "x"`},
		{"prefix option: the last term that holds a token", "case fol ...", true, `"case" AND "fol"*`},
		{"CJK term kept whole", "ユーザIDを", false, `"ユーザIDを"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.query, tt.prefix)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.query, err)
			}
			if got := NewPlan(q).All; got != tt.want {
				t.Errorf("Parse(%q, prefix=%v).All = %s, want %s", tt.query, tt.prefix, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, q := range []string{"", "   ", "\t\n"} {
		if _, err := Parse(q, false); err == nil || err.Error() != "query must not be empty" {
			t.Errorf("Parse(%q) error = %v, want query must not be empty", q, err)
		}
	}
}

// TestLengthBoundary: MaxChars characters (not bytes) are accepted, one more
// is refused, after trimming.
func TestLengthBoundary(t *testing.T) {
	for _, r := range []string{"a", "é", "東", "🙂"} {
		ok := " " + strings.Repeat(r, MaxChars) + " "
		if _, err := Parse(ok, false); err != nil {
			t.Errorf("%d × %q: %v", MaxChars, r, err)
		}
		long := strings.Repeat(r, MaxChars+1)
		want := fmt.Sprintf("query must be at most %d characters, got %d", MaxChars, MaxChars+1)
		if _, err := Parse(long, false); err == nil || err.Error() != want {
			t.Errorf("%d × %q: error %v, want %s", MaxChars+1, r, err, want)
		}
	}
}

// TestWords: the words a relaxed search counts (docs/search.md Q26), and
// their language.
func TestWords(t *testing.T) {
	tests := []struct {
		name, query string
		want        []string // Text, with "@lang" when the word has one
	}{
		{"English stopwords go", "What did Caroline research?", []string{"Caroline@en", "research@en"}},
		{"the parts of a word count", "What is Caroline's identity", []string{"caroline@en", "identity@en"}},
		{"a slash and a hyphen cut parts", "artists/bands transgender-specific", []string{"artists@en", "bands@en", "transgender@en", "specific@en"}},
		{"every word a stopword: all kept", "what is it", []string{"what@en", "is@en", "it@en"}},
		{"a stopword of another language needs two words", "instruments Tim play", []string{"instruments@en", "Tim@en", "play@en"}},
		{"German", "was hat der Hund gegessen", []string{"Hund@de", "gegessen@de"}},
		{"war is a word in English", "the war in the east", []string{"war@en", "east@en"}},
		{"Spanish", "qué dijo el médico sobre la dieta", []string{"dijo@es", "médico@es", "dieta@es"}},
		{"Russian", "что сказал врач о диете", []string{"врач@ru", "диете@ru"}},
		{"OR group is one word", "cats OR dogs the", []string{"cats OR dogs"}},
		{"quoted phrase is one word", `"the plan" was chosen`, []string{"the plan", "chosen@en"}},
		{"prefix is one word", "deploy* the", []string{"deploy"}},
		{"exclusions count for nothing", "deploy -staging", []string{"deploy@en"}},
		{"CJK run: bigrams", "部署问题", []string{"部署", "署问", "问题"}},
		{"CJK stopwords cut the run", "我们的部署", []string{"部署"}},
		{"short CJK run: whole", "東京", []string{"東京"}},
		{"punctuation ends a run", "部署>问题", []string{"部署", "问题"}},
		{"punctuation leaves no word of its own", "<파일>에 “%s”이(가) 설정", []string{"파", "설정"}},
		{"runs of stopwords only: each whole", "이(가)", []string{"이", "가"}},
		{"Thai: stopwords cut, then trigrams", "รายงานประจำ", []string{"งาน", "านป", "นปร", "ประ", "ระจ", "ะจ\u0e4d", "จ\u0e4dา"}},
		{"mixed scripts", "ユーザIDを確認", []string{"ユー", "ーザ", "id@en", "確認"}},
		{"one letter does not count", "plan B for q", []string{"plan@en"}},
		{"one digit does not count", "error 404 on v2.3.1", []string{"error@en", "404", "v2@en"}},
		{"repeated words count once", "plan plan PLAN", []string{"plan@en"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.query, false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range NewPlan(q).Words {
				s := w.Text
				if w.Lang != "" {
					s += "@" + w.Lang
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("words of %q = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
}

// TestRelaxed: the relaxed expression and its coverage groups.
func TestRelaxed(t *testing.T) {
	q, _ := Parse("Caroline research -cron", false)
	p := NewPlan(q)
	expr, groups := p.Relaxed([][]string{nil, {`"researching"`, `"researched"`}})
	if want := `("Caroline" OR "research" OR "researching" OR "researched") NOT "cron"`; expr != want {
		t.Errorf("Relaxed = %s, want %s", expr, want)
	}
	if want := []byte{0, 1, 1 | FormBit, 1 | FormBit}; !reflect.DeepEqual(groups, want) {
		t.Errorf("groups = %v, want %v", groups, want)
	}
	if expr, _ := NewPlan(Query{}).Relaxed(nil); expr != "" {
		t.Errorf("no words: %q, want none", expr)
	}
}

// TestMaxWords: the words past MaxWords are not counted.
func TestMaxWords(t *testing.T) {
	var words []string
	for i := range MaxWords + 5 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	q, _ := Parse(strings.Join(words, " "), false)
	if got := len(NewPlan(q).Words); got != MaxWords {
		t.Errorf("%d words counted, want %d", got, MaxWords)
	}
}

// TestWordsAreAll: the exact tier is the words' own only when every clause
// is one word, none dropped (docs/search.md Q37).
func TestWordsAreAll(t *testing.T) {
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"heartbeat", true},
		{"heartbeat cron -daily", true},
		{"flight OR flights lisbon", true},
		{`"heartbeat file" cron`, true},
		{"deploy*", true},
		{"東京", true},
		{"the heartbeat file", false},  // a stopword in the exact tier only
		{"caroline's research", false}, // a term counted by its parts
		{"東京で会議", false},               // a run counted by its pieces
		{"cron cron", false},           // a word counted once
		{"?!", false},                  // no word
	} {
		q, err := ParseSyntax(c.query, false, SyntaxQuery)
		if err != nil {
			t.Fatal(err)
		}
		if got := NewPlan(q).WordsAreAll(); got != c.want {
			t.Errorf("%q: WordsAreAll = %v, want %v", c.query, got, c.want)
		}
	}
}
