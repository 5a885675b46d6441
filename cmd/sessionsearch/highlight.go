package main

import (
	"strings"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// Terminal bold on and off.
const (
	boldOn  = "\x1b[1m"
	boldOff = "\x1b[0m"
)

// highlight puts terminal bold around the places of text that match the
// query the way the search does (sqlfuncs.TextMatches, the rule the
// snippets and the web page follow): each white-space term of the query is
// a phrase of the tokenizer's tokens, matched at consecutive token
// positions of the text (so a CJK term matches its characters in a row,
// and Straße matches STRASSE); with prefix the query's last token matches
// as a prefix.
func highlight(text, query string, prefix bool) string {
	spans, err := sqlfuncs.TextMatches(text, query, prefix)
	if err != nil || len(spans) == 0 {
		return text
	}
	var b strings.Builder
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.Start])
		b.WriteString(boldOn)
		b.WriteString(text[s.Start:s.End])
		b.WriteString(boldOff)
		at = s.End
	}
	b.WriteString(text[at:])
	return b.String()
}
