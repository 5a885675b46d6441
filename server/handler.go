package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/sessionsearch/sessionsearch/ui"
)

// Options configure a Handler; zero fields take the defaults below.
type Options struct {
	// Tokens authenticates requests. Nil means no authentication: every
	// request names its own caller and may write. Only the loopback
	// development mode of `sessionsearch serve` passes nil.
	Tokens *Tokens
	// MaxBodyBytes caps an append request (default 64 MiB, which holds a
	// 20 MB transcript escaped as JSON); MaxReadBodyBytes caps every other
	// request (default 64 KiB).
	MaxBodyBytes, MaxReadBodyBytes int64
	// RequestTimeout bounds the database work of one request (default 60s).
	RequestTimeout time.Duration
	// AccessLog receives one record per request: method, path, status,
	// duration and caller, never a query, a body or message text.
	// Nil logs nothing.
	AccessLog *slog.Logger
	// Unavailable reports database errors that mean "try again" (a cluster
	// without quorum, a node that is not the leader): they are answered 503
	// instead of 500. Nil treats no error so. SQLite's "database is locked"
	// is always answered so.
	Unavailable func(error) bool
	// OutcomeUnknown reports database errors of a write whose commit was
	// sent and got no answer (a cluster that lost its quorum meanwhile):
	// they are answered 504 outcome_unknown (docs/serve.md H20). Nil
	// treats no error so: a commit to an SQLite file either happens or
	// fails.
	OutcomeUnknown func(error) bool
	// Ready, if set, is asked by /readyz after the database answered.
	Ready func(context.Context) error
	// RateLimit is how many requests per second one token may make on
	// average, and RateBurst how many at once (docs/serve.md H15); over it
	// a request is answered 429 with Retry-After. Zero: no limit.
	RateLimit float64
	RateBurst int
	// Audit, if set, records every search and history read in the table
	// sessionsearch_audit (docs/serve.md H17).
	Audit *Audit
	// Page serves the web page (package ui, docs/ui.md) at / and its
	// files under /assets/; false leaves / to the API's 404.
	Page bool
	// BulkLoad: the database's connections are this process's own, with
	// the extension linked in (the Go driver), so an append of a session's
	// whole transcript uses the store's bulk load (docs/store.md S20).
	BulkLoad bool
}

const (
	defaultMaxBodyBytes     = 64 << 20
	defaultMaxReadBodyBytes = 64 << 10
	defaultRequestTimeout   = 60 * time.Second
)

// Handler serves the API of docs/serve.md.
type Handler struct {
	db       *sql.DB
	opts     Options
	mux      *http.ServeMux
	limiters sync.Map // token digest → *rate.Limiter
	metrics  metrics
}

// New returns the handler over db, whose connections must have the
// sessionsearch extension and a migrated schema.
func New(db *sql.DB, opts Options) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBodyBytes
	}
	if opts.MaxReadBodyBytes <= 0 {
		opts.MaxReadBodyBytes = defaultMaxReadBodyBytes
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = defaultRequestTimeout
	}
	h := &Handler{db: db, opts: opts, mux: http.NewServeMux()}
	h.route("GET /healthz", false, false, h.healthz)
	h.route("GET /readyz", false, false, h.readyz)
	h.route("POST /v1/search", true, false, h.search)
	h.route("POST /v1/history", true, false, h.history)
	h.route("GET /v1/status", true, false, h.status)
	h.route("POST /v1/append", true, true, h.append)
	h.route("POST /v1/reconcile", true, true, h.reconcile)
	h.route("POST /v1/watermarks", true, true, h.watermarks)
	h.route("DELETE /v1/sessions/{key}", true, true, h.deleteSession)
	h.route("GET /metrics", true, false, h.serveMetrics)
	// What the web page reads besides search and history (docs/ui.md).
	h.route("GET /v1/me", true, false, h.me)
	h.route("GET /v1/options", true, false, h.optionSchemas)
	h.route("POST /v1/highlight", true, false, h.highlight)
	h.route("POST /v1/session", true, false, h.session)
	h.route("POST /v1/activity", true, false, h.activity)
	if opts.Page {
		page := ui.Handler()
		h.mux.Handle("GET /{$}", page)
		h.mux.Handle("GET /assets/", page)
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, fail(http.StatusNotFound, "not_found", "path", r.URL.Path, "no such endpoint; see docs/openapi.json"))
	})
	return h
}

// call is one authenticated request.
type call struct {
	grant *Grant // nil in the development mode without tokens
	token tokenEntry
	w     http.ResponseWriter
	r     *http.Request
}

// endpoint answers a call with a JSON body or an error.
type endpoint func(ctx context.Context, c *call) ([]byte, int, *Error)

func (h *Handler) route(pattern string, auth, write bool, e endpoint) {
	method, path, _ := strings.Cut(pattern, " ")
	// The same path with any other method: a JSON 405, not the mux's text.
	h.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", method)
		writeError(w, fail(http.StatusMethodNotAllowed, "method_not_allowed", "method", r.Method,
			fmt.Sprintf("%s takes %s", path, method)))
	})
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r}
		if auth {
			if err := h.authenticate(c, pattern, write); err != nil {
				writeError(w, err)
				return
			}
			if err := h.limit(c); err != nil {
				writeError(w, err)
				return
			}
		}
		limit := h.opts.MaxReadBodyBytes
		if write {
			limit = h.opts.MaxBodyBytes
		}
		if r.ContentLength > limit {
			writeError(w, fail(http.StatusRequestEntityTooLarge, "too_large", "", limit,
				fmt.Sprintf("the request body is over the limit of %d bytes", limit)))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.RequestTimeout)
		defer cancel()
		body, status, err := h.guard(ctx, e, c)
		switch {
		case err != nil:
			writeError(w, err)
		case status != 0: // else the endpoint wrote an answer that is not JSON (/metrics)
			writeJSON(w, status, body)
		}
	})
}

// guard runs an endpoint and turns a panic into a 500, so that one bad
// request never takes the server down.
func (h *Handler) guard(ctx context.Context, e endpoint, c *call) (body []byte, status int, err *Error) {
	defer func() {
		if p := recover(); p != nil {
			body, status, err = nil, 0, fail(http.StatusInternalServerError, "internal", "", nil, fmt.Sprintf("internal error: %v", p))
		}
	}()
	return e(ctx, c)
}

func (h *Handler) authenticate(c *call, pattern string, write bool) *Error {
	if h.opts.Tokens == nil {
		return nil
	}
	auth := c.r.Header.Get("Authorization")
	if auth == "" {
		return fail(http.StatusUnauthorized, "unauthenticated", "Authorization", nil, "send the header Authorization: Bearer <token>")
	}
	scheme, token, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return fail(http.StatusUnauthorized, "unauthenticated", "Authorization", scheme,
			"the Authorization header must be Bearer <token>")
	}
	e, ok := h.opts.Tokens.lookup(token)
	if !ok {
		// The value is never echoed: it may be someone's real token.
		return fail(http.StatusUnauthorized, "unauthenticated", "Authorization", nil, "the bearer token is not in the tokens file")
	}
	g := e.grant
	c.grant, c.token = &g, e
	setLogCaller(c.r, g.Caller)
	switch {
	case pattern == "GET /metrics" && !g.Metrics:
		return fail(http.StatusForbidden, "no_metrics", "Authorization", nil,
			fmt.Sprintf("the token of %q may not read /metrics (its grant has no \"metrics\": true)", g.Caller))
	case pattern != "GET /metrics" && g.Caller == "":
		return fail(http.StatusForbidden, "metrics_only", "Authorization", nil, "this token may read /metrics only (its grant has no caller)")
	case write && !g.Write:
		return fail(http.StatusForbidden, "read_only", "Authorization", nil,
			fmt.Sprintf("the token of %q may not write (its grant has no \"write\": true)", g.Caller))
	}
	return nil
}

// limit answers 429 when the call's token is over its rate (docs/serve.md
// H15). Each token has its own bucket, kept by the token's digest, so a
// reload of the tokens file keeps the buckets of the tokens it keeps.
func (h *Handler) limit(c *call) *Error {
	if h.opts.RateLimit <= 0 || c.grant == nil {
		return nil
	}
	l, ok := h.limiters.Load(c.token.hash)
	if !ok {
		l, _ = h.limiters.LoadOrStore(c.token.hash, rate.NewLimiter(rate.Limit(h.opts.RateLimit), max(h.opts.RateBurst, 1)))
	}
	r := l.(*rate.Limiter).Reserve()
	wait := r.Delay()
	if wait == 0 {
		return nil
	}
	r.Cancel() // refused: the request takes no token from the bucket
	seconds := int(math.Ceil(wait.Seconds()))
	c.w.Header().Set("Retry-After", strconv.Itoa(seconds))
	return fail(http.StatusTooManyRequests, "rate_limited", "Authorization", nil,
		fmt.Sprintf("the token of %q is over its limit of %g requests per second (bursts of %d); retry after %d s",
			c.grant.Caller, h.opts.RateLimit, max(h.opts.RateBurst, 1), seconds))
}

// dbError answers an error of the database that is not the request's
// fault. Every answer but 504 means that the request wrote nothing
// (docs/serve.md H3, H20).
func (h *Handler) dbError(ctx context.Context, err error) *Error {
	switch {
	case h.opts.OutcomeUnknown != nil && h.opts.OutcomeUnknown(err):
		return fail(http.StatusGatewayTimeout, "outcome_unknown", "", nil,
			"the write was sent to be committed and no answer came: it may or may not be stored; send the same request again: "+err.Error())
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fail(http.StatusServiceUnavailable, "timeout", "", nil,
			fmt.Sprintf("the request took longer than %s; nothing was written", h.opts.RequestTimeout))
	case locked(err) || h.opts.Unavailable != nil && h.opts.Unavailable(err):
		return fail(http.StatusServiceUnavailable, "unavailable", "", nil, "the database is unavailable, nothing was written: "+err.Error())
	}
	return fail(http.StatusInternalServerError, "internal", "", nil, "database error: "+err.Error())
}

// ServeHTTP serves the API and writes the access log.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	entry := &logEntry{}
	r = r.WithContext(context.WithValue(r.Context(), logKey{}, entry))
	h.mux.ServeHTTP(rec, r)
	h.metrics.observe(r.Pattern, rec.status, time.Since(start))
	if h.opts.AccessLog != nil {
		// docs/serve.md H8: the path, never the query string or the body.
		h.opts.AccessLog.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("caller", entry.caller))
	}
}

type logKey struct{}

type logEntry struct{ caller string }

func setLogCaller(r *http.Request, caller string) {
	if e, ok := r.Context().Value(logKey{}).(*logEntry); ok {
		e.caller = caller
	}
}

// logCaller is the caller of a request, as the access log shows it.
func logCaller(r *http.Request) string {
	if e, ok := r.Context().Value(logKey{}).(*logEntry); ok {
		return e.caller
	}
	return ""
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
