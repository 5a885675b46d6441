package server

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

// search answers POST /v1/search: {"query": …, options…} → the JSON of
// sessions_search, byte for byte (docs/serve.md H4).
func (h *Handler) search(ctx context.Context, c *call) ([]byte, int, *Error) {
	return h.read(ctx, c, "query", `SELECT sessions_search(?1, ?2)`)
}

// history answers POST /v1/history: {"sessionKey": …, options…} → the JSON
// of sessions_history.
func (h *Handler) history(ctx context.Context, c *call) ([]byte, int, *Error) {
	return h.read(ctx, c, "sessionKey", `SELECT sessions_history(?1, ?2)`)
}

func (h *Handler) read(ctx context.Context, c *call, argField, stmt string) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	arg, err := stringField(o, argField)
	if err != nil {
		return nil, 0, err
	}
	opts, err := bindIdentity(o, argField, c.grant)
	if err != nil {
		return nil, 0, err
	}
	if c.grant == nil {
		if raw, ok := o.get("caller"); ok {
			var s string
			json.Unmarshal(raw, &s)
			setLogCaller(c.r, s)
		}
	}
	var out string
	if dbErr := h.db.QueryRowContext(ctx, stmt, arg, string(opts)).Scan(&out); dbErr != nil {
		if e := requestError(dbErr.Error(), o, argField); e != nil {
			return nil, 0, e
		}
		return nil, 0, h.dbError(ctx, dbErr)
	}
	if h.opts.Audit != nil {
		// An answer that cannot be recorded is not given (docs/serve.md H17).
		var query *string
		if argField == "query" {
			query = &arg
		}
		if err := h.opts.Audit.record(ctx, h.db, logCaller(c.r), c.r.URL.Path, query, []byte(out)); err != nil {
			return nil, 0, h.dbError(ctx, err)
		}
	}
	return []byte(out), http.StatusOK, nil
}

// The SQL functions' own messages for a bad request (docs/search.md); the
// field they name is looked up in the body to give its value.
var (
	unknownOption  = regexp.MustCompile(`unknown option "([^"]+)"`)
	requiredOption = regexp.MustCompile(`option "([^"]+)" is required`)
	invalidOption  = regexp.MustCompile(`^(?:sessions_\w+: )?([A-Za-z.]+) must `)
	notVisible     = regexp.MustCompile(`^sessions_\w+: no session "`)
)

// requestError turns an error of sessions_search or sessions_history that
// is the request's fault into a 400 or 404; it returns nil for others.
func requestError(msg string, o object, argField string) *Error {
	value := func(field string) any {
		top, _, _ := strings.Cut(field, ".")
		if raw, ok := o.get(top); ok {
			return raw
		}
		return nil
	}
	switch {
	case notVisible.MatchString(msg):
		field := "sessionKey"
		return fail(http.StatusNotFound, "not_found", field, value(field), msg)
	case unknownOption.MatchString(msg):
		f := unknownOption.FindStringSubmatch(msg)[1]
		return fail(http.StatusBadRequest, "unknown_field", f, value(f), msg)
	case requiredOption.MatchString(msg):
		f := requiredOption.FindStringSubmatch(msg)[1]
		return fail(http.StatusBadRequest, "missing_field", f, nil, msg)
	case invalidOption.MatchString(msg):
		f := invalidOption.FindStringSubmatch(msg)[1]
		if f == "query" {
			f = argField
		}
		return fail(http.StatusBadRequest, "invalid_field", f, value(f), msg)
	case strings.Contains(msg, store.ToolIndexSwitch):
		// A tool scope on a store without the tool index (H27).
		return fail(http.StatusBadRequest, "invalid_field", "scope", value("scope"), msg)
	case strings.Contains(msg, "options must be a JSON object"):
		return fail(http.StatusBadRequest, "invalid_field", "", nil, msg)
	}
	return nil
}

// Status is the answer of GET /v1/status.
type Status struct {
	Version         string `json:"version"`
	Schema          int64  `json:"schema"`
	Sessions        int64  `json:"sessions"`
	Events          int64  `json:"events"`
	PendingSessions int    `json:"pendingSessions"`
}

func (h *Handler) status(ctx context.Context, c *call) ([]byte, int, *Error) {
	var st Status
	var index string
	err := h.db.QueryRowContext(ctx, `SELECT sessionsearch_version(),
		(SELECT CAST(value AS INTEGER) FROM sessionsearch_meta WHERE key = 'schema_version'),
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM transcript_events), sessions_index_status()`).
		Scan(&st.Version, &st.Schema, &st.Sessions, &st.Events, &index)
	if err != nil {
		return nil, 0, h.dbError(ctx, err)
	}
	var pending struct {
		PendingSessions int `json:"pendingSessions"`
	}
	if err := json.Unmarshal([]byte(index), &pending); err != nil {
		return nil, 0, h.dbError(ctx, err)
	}
	st.PendingSessions = pending.PendingSessions
	body, _ := json.Marshal(st)
	return body, http.StatusOK, nil
}

// healthz says the process answers; it touches nothing.
func (h *Handler) healthz(ctx context.Context, c *call) ([]byte, int, *Error) {
	return []byte(`{"status":"ok"}`), http.StatusOK, nil
}

// readyz says the database answers a read with the extension loaded.
func (h *Handler) readyz(ctx context.Context, c *call) ([]byte, int, *Error) {
	var v string
	if err := h.db.QueryRowContext(ctx, `SELECT sessions_index_status()`).Scan(&v); err != nil {
		return nil, 0, fail(http.StatusServiceUnavailable, "not_ready", "", nil, "the database does not answer: "+err.Error())
	}
	if h.opts.Ready != nil {
		if err := h.opts.Ready(ctx); err != nil {
			return nil, 0, fail(http.StatusServiceUnavailable, "not_ready", "", nil, err.Error())
		}
	}
	return []byte(`{"status":"ready"}`), http.StatusOK, nil
}
