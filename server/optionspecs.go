package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// optionSchemas answers GET /v1/options: the JSON Schema of the options of
// search and history, from the option tables the SQL functions parse with
// (docs/serve.md H24). A client learns from it which options this server's
// search takes, so the web page offers a filter only where the search has
// it.
func (h *Handler) optionSchemas(ctx context.Context, c *call) ([]byte, int, *Error) {
	body, _ := json.Marshal(map[string]any{
		"search":  sqlfuncs.SearchOptionSpecs().Schema(),
		"history": sqlfuncs.HistoryOptionSpecs().Schema(),
	})
	return body, http.StatusOK, nil
}
