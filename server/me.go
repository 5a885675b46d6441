package server

import (
	"context"
	"encoding/json"
	"net/http"
)

// Me is the answer of GET /v1/me: the grant of the token that asks, so a
// client (the web page) can say as whom it reads (docs/serve.md H24).
// Without tokens (the loopback development mode) it is
// {"authenticated":false}, and every request names its own caller.
type Me struct {
	Authenticated bool `json:"authenticated"`
	*Grant
}

func (h *Handler) me(ctx context.Context, c *call) ([]byte, int, *Error) {
	body, _ := json.Marshal(Me{Authenticated: c.grant != nil, Grant: c.grant})
	return body, http.StatusOK, nil
}
