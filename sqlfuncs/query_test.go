package sqlfuncs

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// hasLetterOrDigit stands in for the tokenizer: a term has tokens when it
// holds a letter or a digit.
func hasLetterOrDigit(term string) bool {
	return strings.IndexFunc(term, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		name, query string
		prefix      bool
		want        string
	}{
		{"one term", "fold", false, `"fold"`},
		{"terms are ANDed", "fold case", false, `"fold" AND "case"`},
		{"trimmed", "  fold\t", false, `"fold"`},
		{"runs of spaces", "fold   \t\n case", false, `"fold" AND "case"`},
		{"OR is literal", "cats OR dogs", false, `"cats" AND "OR" AND "dogs"`},
		{"AND NOT NEAR are literal", "AND NOT NEAR", false, `"AND" AND "NOT" AND "NEAR"`},
		{"NEAR group is literal", "NEAR(a b, 2)", false, `"NEAR(a" AND "b," AND "2)"`},
		{"star is literal", "fo*", false, `"fo*"`},
		{"caret is literal", "^start", false, `"^start"`},
		{"column filter is literal", "body:secret", false, `"body:secret"`},
		{"parentheses are literal", "(a OR b)", false, `"(a" AND "OR" AND "b)"`},
		{"minus is literal", "-foo foo-bar", false, `"-foo" AND "foo-bar"`},
		{"plus is literal", "a+b", false, `"a+b"`},
		{"quotes are doubled", `say "hi"`, false, `"say" AND """hi"""`},
		{"lone quote", `it"s`, false, `"it""s"`},
		{"no-break space splits", "fold\u00a0case", false, `"fold" AND "case"`},
		{"ideographic space splits", "東京\u3000大阪", false, `"東京" AND "大阪"`},
		{"em space and line separator split", "a\u2003b\u2028c", false, `"a" AND "b" AND "c"`},
		{"NUL splits", "a\x00b", false, `"a" AND "b"`},
		{"zero-width space does not split", "a\u200bb", false, "\"a\u200bb\""},
		{"punctuation term dropped", "fold ... case", false, `"fold" AND "case"`},
		{"quote-only term dropped", `fold """`, false, `"fold"`},
		{"all punctuation matches nothing", `!!! ... "" --`, false, MatchNothing},
		{"all punctuation with prefix matches nothing", `?? **`, true, MatchNothing},
		{"prefix on one term", "fol", true, `"fol"*`},
		{"prefix on the last term", "case fol", true, `"case" AND "fol"*`},
		{"prefix skips a dropped last term", "case fol ...", true, `"case" AND "fol"*`},
		{"prefix on a quoted term", `say "hi`, true, `"say" AND """hi"*`},
		{"CJK term kept whole", "ユーザIDを", false, `"ユーザIDを"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MatchExpr(tt.query, tt.prefix, hasLetterOrDigit)
			if err != nil {
				t.Fatalf("MatchExpr(%q): %v", tt.query, err)
			}
			if got != tt.want {
				t.Errorf("MatchExpr(%q, prefix=%v) = %s, want %s", tt.query, tt.prefix, got, tt.want)
			}
		})
	}
}

func TestMatchExprNilHasTokensKeepsEveryTerm(t *testing.T) {
	got, err := MatchExpr("a ...", false, nil)
	if err != nil || got != `"a" AND "..."` {
		t.Errorf(`MatchExpr("a ...", nil) = %s, %v`, got, err)
	}
}

func TestMatchExprErrors(t *testing.T) {
	tests := []struct {
		name, query string
		want        string
	}{
		{"empty", "", "query must not be empty"},
		{"white space only", " \t\n\u3000", "query must not be empty"},
		{"4097 characters", strings.Repeat("a", 4097), "query must be at most 4096 characters, got 4097"},
		{"4097 characters of two bytes", strings.Repeat("é", 4097), "query must be at most 4096 characters, got 4097"},
		{"long with spaces", strings.Repeat("ab ", 2000), "query must be at most 4096 characters, got 5999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MatchExpr(tt.query, false, hasLetterOrDigit)
			if err == nil || err.Error() != tt.want {
				t.Errorf("MatchExpr: got %q, error %v; want error %s", got, err, tt.want)
			}
		})
	}
}

func TestMatchExprLengthBoundary(t *testing.T) {
	tests := []struct {
		name, query string
		ok          bool
	}{
		{"4096 ASCII", strings.Repeat("a", 4096), true},
		{"4096 characters of three bytes", strings.Repeat("東", 4096), true},
		{"4096 after trimming", "  " + strings.Repeat("a", 4096) + "\n", true},
		{"4097 ASCII", strings.Repeat("a", 4097), false},
		{"4097 characters of three bytes", strings.Repeat("東", 4097), false},
	}
	for _, tt := range tests {
		_, err := MatchExpr(tt.query, false, hasLetterOrDigit)
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func ExampleMatchExpr() {
	expr, _ := MatchExpr(`deploy OR "rollback" staging*`, true, hasLetterOrDigit)
	fmt.Println(expr)
	// Output: "deploy" AND "OR" AND """rollback""" AND "staging*"*
}
