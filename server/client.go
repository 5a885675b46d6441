package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Client pushes to a service of this package: appends and watermarks,
// with retries. Appends are idempotent (docs/serve.md H6), so a request
// whose answer was lost is simply sent again: after a 504 outcome_unknown
// or a connection that failed once the request was on its way, the same
// request is sent again, and if no attempt settles it the error says so
// (OutcomeUnknown; docs/serve.md H21).
type Client struct {
	URL   string       // e.g. http://127.0.0.1:8420
	Token string       // a write token
	HTTP  *http.Client // nil: http.DefaultClient
	// Attempts is how many times a request is tried (default 5); the wait
	// starts at Backoff (default 200ms) and doubles up to 5s.
	Attempts int
	Backoff  time.Duration
}

// AppendRequest is the body of POST /v1/append.
type AppendRequest struct {
	Sessions []SessionRow `json:"sessions,omitempty"`
	Events   []EventRow   `json:"events,omitempty"`
}

// Append sends one append request: all of it is stored, or none.
func (c *Client) Append(ctx context.Context, req AppendRequest) (AppendResult, error) {
	var res AppendResult
	return res, c.post(ctx, "/v1/append", req, &res)
}

// Watermarks asks how far the service holds each session.
func (c *Client) Watermarks(ctx context.Context, keys []string) ([]Watermark, error) {
	var res WatermarksResult
	err := c.post(ctx, "/v1/watermarks", map[string][]string{"sessionKeys": keys}, &res)
	return res.Sessions, err
}

// post sends body as JSON and decodes the answer into out. A refusal is returned as
// *Error; network errors and 429, 502, 503 and 504 are retried.
func (c *Client) post(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, path, data, out)
}

func (c *Client) do(ctx context.Context, method, path string, data []byte, out any) error {
	attempts, wait := c.Attempts, c.Backoff
	if attempts <= 0 {
		attempts = 5
	}
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	httpc := c.HTTP
	if httpc == nil {
		httpc = http.DefaultClient
	}
	url := strings.TrimSuffix(c.URL, "/") + path
	var last error
	unknown := false // an attempt may have been applied
	for i := 0; i < attempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return settled(unknown, ctx.Err())
			case <-time.After(wait):
			}
			wait = min(2*wait, 5*time.Second)
		}
		var retry, maybe bool
		retry, maybe, last = c.once(ctx, httpc, method, url, data, out)
		unknown = unknown || maybe
		if !retry {
			if last != nil && ctx.Err() != nil {
				return settled(unknown, last)
			}
			return last
		}
	}
	return settled(unknown, fmt.Errorf("%s: gave up after %d attempts: %w", url, attempts, last))
}

// once sends the request once. maybe says that it may have been applied
// although no answer says so: 504 outcome_unknown, or a connection that
// failed after it was made.
func (c *Client) once(ctx context.Context, httpc *http.Client, method, url string, data []byte, out any) (retry, maybe bool, err error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
	if err != nil {
		return false, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := httpc.Do(req)
	if err != nil {
		var op *net.OpError
		sent := !(errors.As(err, &op) && op.Op == "dial")
		return ctx.Err() == nil, sent, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return true, true, err
	}
	if resp.StatusCode == http.StatusOK {
		return false, false, json.Unmarshal(answer, out)
	}
	var e struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(answer, &e) != nil || e.Error == nil {
		e.Error = &Error{Code: "bad_answer", Message: strings.TrimSpace(string(answer))}
	}
	e.Error.Status = resp.StatusCode
	switch resp.StatusCode {
	case http.StatusGatewayTimeout:
		return true, true, e.Error
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
		return true, false, e.Error
	}
	return false, false, e.Error
}

// unsettled is a failed request that may have been applied.
type unsettled struct{ err error }

func (u *unsettled) Error() string {
	return u.err.Error() + " (the request may or may not have been applied: send it again)"
}

func (u *unsettled) Unwrap() error { return u.err }

func settled(unknown bool, err error) error {
	if unknown {
		return &unsettled{err}
	}
	return err
}

// OutcomeUnknown reports whether err, from a Client, leaves it open whether
// the request was applied: an attempt was answered 504 outcome_unknown, or
// its connection failed once the request was on its way, and no later
// attempt settled it. Such a request is neither done nor refused: send it
// again (appends are idempotent by sessionKey and seq). Any other error
// from a Client is the service's answer to the request, or a refusal that
// wrote nothing (docs/serve.md H20, H21).
func OutcomeUnknown(err error) bool {
	var u *unsettled
	return errors.As(err, &u)
}

// ErrorCode returns the code of a refusal from the service, or "".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
