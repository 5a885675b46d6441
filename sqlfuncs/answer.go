package sqlfuncs

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/redact"
)

// What an answer showed, for an audit trail (docs/serve.md H17): which
// sessions, and how many of its texts had a secret masked.

// Redacted reports whether a snippet or history text holds a mask of the
// redaction, "[REDACTED:<kind>]". The index keeps only masked text
// (docs/store.md S3), so a mask is the only record a search has of the
// secret it hid; a message that itself contains such a mask counts too.
func Redacted(text string) bool {
	for {
		i := strings.Index(text, redact.MaskPrefix)
		if i < 0 {
			return false
		}
		text = text[i+len(redact.MaskPrefix):]
		kind := 0
		for kind < len(text) && (text[kind] >= 'a' && text[kind] <= 'z' || text[kind] >= '0' && text[kind] <= '9' || text[kind] == '-') {
			kind++
		}
		if kind > 0 && kind < len(text) && text[kind] == ']' {
			return true
		}
	}
}

// Shown is what one answer of sessions_search or sessions_history showed:
// the keys of the sessions it holds, in the order they first appear, and
// how many of its snippets or texts are Redacted.
type Shown struct {
	SessionKeys []string
	Redacted    int
}

// AnswerShown reads an answer of sessions_search (results) or
// sessions_history (sessionKey and messages).
func AnswerShown(answer []byte) (Shown, error) {
	var a struct {
		Results    []SearchHit      `json:"results"`
		SessionKey string           `json:"sessionKey"`
		Messages   []HistoryMessage `json:"messages"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return Shown{}, err
	}
	var s Shown
	switch {
	case a.SessionKey != "":
		s.SessionKeys = []string{a.SessionKey}
		for _, m := range a.Messages {
			if Redacted(m.Text) {
				s.Redacted++
			}
		}
	case a.Results != nil:
		s.SessionKeys = []string{}
		for _, r := range a.Results {
			if !slices.Contains(s.SessionKeys, r.SessionKey) {
				s.SessionKeys = append(s.SessionKeys, r.SessionKey)
			}
			if Redacted(r.Snippet) {
				s.Redacted++
			}
		}
	default:
		return Shown{}, errors.New("not an answer of sessions_search or sessions_history")
	}
	return s, nil
}
