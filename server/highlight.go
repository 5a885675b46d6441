package server

import (
	"context"
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// highlightSpecs are the fields of POST /v1/highlight.
var highlightSpecs = sqlfuncs.OptionSpecs{
	{Name: "query", Type: sqlfuncs.TypeString, Required: true, Help: "the query whose matches to find"},
	{Name: "prefix", Type: sqlfuncs.TypeBoolean, Default: false, Help: "match the query's last term as a prefix"},
	{Name: "texts", Type: sqlfuncs.TypeStrings, Help: "the texts to find the matches in: snippets or messages the client has"},
}

// highlightRequest is the body of POST /v1/highlight.
type highlightRequest struct {
	Query  string   `json:"query"`
	Prefix bool     `json:"prefix"`
	Texts  []string `json:"texts"`
}

// highlight answers POST /v1/highlight {"query","prefix","texts"} with
// {"matches":[[[start,end],...],...]}: for each text, where the query
// matches it as the search matches (sqlfuncs.TextMatches: the store's
// tokenizer, folding, CJK runs, the prefix), in UTF-16 code units, which is
// how a browser's strings count (docs/serve.md H25). It reads no database:
// the texts are the client's own.
func (h *Handler) highlight(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	// No identity to bind: the body as it is (bindIdentity without a grant).
	js, err := bindIdentity(o, "", nil)
	if err != nil {
		return nil, 0, err
	}
	var req highlightRequest
	if err := decodeOptions(o, js, highlightSpecs, &req); err != nil {
		return nil, 0, err
	}
	matches := make([][][2]int, len(req.Texts))
	for i, text := range req.Texts {
		ranges, qErr := sqlfuncs.TextMatches(text, req.Query, req.Prefix)
		if qErr != nil {
			return nil, 0, fail(http.StatusBadRequest, "invalid_field", "query", req.Query, qErr.Error())
		}
		matches[i] = utf16Ranges(text, ranges)
	}
	body, _ := json.Marshal(map[string]any{"matches": matches})
	return body, http.StatusOK, nil
}

// utf16Ranges turns byte ranges of text into UTF-16 code unit offsets.
func utf16Ranges(text string, ranges []sqlfuncs.Range) [][2]int {
	out := make([][2]int, 0, len(ranges))
	units, at := 0, 0
	advance := func(to int) int {
		for at < to {
			r, size := utf8.DecodeRuneInString(text[at:])
			at += size
			units += utf16Len(r)
		}
		return units
	}
	for _, r := range ranges {
		start := advance(r.Start)
		out = append(out, [2]int{start, advance(r.End)})
	}
	return out
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
