package main

import (
	"bytes"
	"sort"
	"strings"

	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// Terminal bold on and off.
const (
	boldOn  = "\x1b[1m"
	boldOff = "\x1b[0m"
)

// highlight puts terminal bold around the places of text that match the
// query the way the search does: each white-space term of the query is a
// phrase of the tokenizer's tokens, matched at consecutive token positions
// of the text (so a CJK term matches its characters in a row, and Straße
// matches STRASSE); with prefix the query's last token matches as a prefix.
func highlight(text, query string, prefix bool) string {
	var out tokenizer.Output
	var opts tokenizer.Options
	opts.Tokenize([]byte(text), false, &out)
	// positions[p] holds the tokens at position p: text and source span.
	type tok struct {
		text       string
		start, end int
	}
	var positions [][]tok
	for _, t := range out.Tokens {
		if t.Flags&tokenizer.Colocated == 0 || len(positions) == 0 {
			positions = append(positions, nil)
		}
		p := len(positions) - 1
		positions[p] = append(positions[p], tok{string(out.Text(t)), int(t.Start), int(t.End)})
	}
	var spans [][2]int
	terms := strings.Fields(query)
	for ti, term := range terms {
		var q tokenizer.Output
		opts.Tokenize([]byte(term), true, &q)
		var phrase []string
		for _, t := range q.Tokens {
			if t.Flags&tokenizer.Colocated == 0 {
				phrase = append(phrase, string(q.Text(t)))
			}
		}
		if len(phrase) == 0 {
			continue
		}
		lastIsPrefix := prefix && ti == len(terms)-1
		for p := 0; p+len(phrase) <= len(positions); p++ {
			start, end, ok := -1, -1, true
			for i, want := range phrase {
				found := false
				for _, t := range positions[p+i] {
					if t.text == want || lastIsPrefix && i == len(phrase)-1 && strings.HasPrefix(t.text, want) {
						if start < 0 || t.start < start {
							start = t.start
						}
						end = max(end, t.end)
						found = true
					}
				}
				if !found {
					ok = false
					break
				}
			}
			if ok && end > start {
				spans = append(spans, [2]int{start, end})
			}
		}
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b bytes.Buffer
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		start = max(start, at)
		b.WriteString(text[at:start])
		b.WriteString(boldOn)
		b.WriteString(text[start:end])
		b.WriteString(boldOff)
		at = end
	}
	b.WriteString(text[at:])
	return b.String()
}
