package sqlfuncs

import (
	"slices"
	"testing"
)

func TestRedacted(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"export GITHUB_TOKEN=[REDACTED:github-token] first", true},
		{"[REDACTED:aws-secret-key]", true},
		{"a [REDACTED:] mask without a kind", false},
		{"[REDACTED:github-token", false},
		{"[REDACTED:Github-Token] is not a kind", false},
		{"[REDACTED:x y]", false},
		{"[REDACTED:] then [REDACTED:password]", true},
		{"plain text", false},
		{"", false},
	} {
		if got := Redacted(c.text); got != c.want {
			t.Errorf("Redacted(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestAnswerShown(t *testing.T) {
	search := SearchJSON([]SearchHit{
		{SessionKey: "agent:main:b", Snippet: "token [REDACTED:github-token] here"},
		{SessionKey: "agent:main:a", Snippet: "nothing"},
		{SessionKey: "agent:main:b", Snippet: "password=[REDACTED:password]"},
	}, false, false, 32768, nil)
	history := HistoryResult{SessionKey: "agent:main:c", Messages: []HistoryMessage{{Text: "[REDACTED:api-key]"}, {Text: "fine"}}}.JSON()
	for _, c := range []struct {
		name   string
		answer []byte
		want   Shown
	}{
		{"search", search, Shown{[]string{"agent:main:b", "agent:main:a"}, 2}},
		{"empty search", SearchJSON(nil, false, false, 32768, nil), Shown{[]string{}, 0}},
		{"history", history, Shown{[]string{"agent:main:c"}, 1}},
		{"empty history", HistoryResult{SessionKey: "agent:main:d"}.JSON(), Shown{[]string{"agent:main:d"}, 0}},
	} {
		got, err := AnswerShown(c.answer)
		if err != nil || !slices.Equal(got.SessionKeys, c.want.SessionKeys) || got.Redacted != c.want.Redacted {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []string{`{}`, `[]`, `{"results":`} {
		if got, err := AnswerShown([]byte(bad)); err == nil {
			t.Errorf("AnswerShown(%s) = %+v, want an error", bad, got)
		}
	}
}
