package server

import (
	"encoding/json"
	"net/http"
)

// apiError is an answer that is not a success: an HTTP status and the JSON
// body {"error":{"code","field","value","message"}} (docs/serve.md H3).
type apiError struct {
	status  int
	Code    string          `json:"code"`
	Field   string          `json:"field,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Message string          `json:"message"`
}

func (e *apiError) Error() string { return e.Message }

// fail builds an apiError; value is encoded as JSON (nil leaves it out).
func fail(status int, code, field string, value any, message string) *apiError {
	e := &apiError{status: status, Code: code, Field: field, Message: message}
	switch v := value.(type) {
	case nil:
	case json.RawMessage:
		e.Value = v
	default:
		e.Value, _ = json.Marshal(v)
	}
	return e
}

func writeError(w http.ResponseWriter, e *apiError) {
	body, _ := json.Marshal(struct {
		Error *apiError `json:"error"`
	}{e})
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sessionsearch"`)
	}
	if e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.status, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte("\n"))
}
