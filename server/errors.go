package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Error is an answer that is not a success: an HTTP status and the JSON
// body {"error":{"code","field","value","message"}} (docs/serve.md H3).
type Error struct {
	Status  int             `json:"-"` // the HTTP status
	Code    string          `json:"code"`
	Field   string          `json:"field,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Message string          `json:"message"`
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%d %s: %s (field %s)", e.Status, e.Code, e.Message, e.Field)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// fail builds an Error; value is encoded as JSON (nil leaves it out).
func fail(status int, code, field string, value any, message string) *Error {
	e := &Error{Status: status, Code: code, Field: field, Message: message}
	switch v := value.(type) {
	case nil:
	case json.RawMessage:
		e.Value = v
	default:
		e.Value, _ = json.Marshal(v)
	}
	return e
}

func writeError(w http.ResponseWriter, e *Error) {
	body, _ := json.Marshal(struct {
		Error *Error `json:"error"`
	}{e})
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sessionsearch"`)
	}
	if e.Status == http.StatusServiceUnavailable || e.Status == http.StatusGatewayTimeout {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte("\n"))
}

// locked reports SQLite's SQLITE_BUSY and SQLITE_LOCKED, by their messages,
// which every driver passes on: another connection held a lock for longer
// than the connection waits. The statement did nothing, and the same
// request later may succeed: it is answered 503, never 500 (docs/serve.md
// H20).
func locked(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "database table is locked") ||
		strings.Contains(msg, "database schema is locked")
}
