//go:build sqlite_fts5

package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// checking is a transport that checks every answer against
// docs/openapi.json.
type checking struct{ t *testing.T }

func (c checking) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || bytes.HasPrefix(body, []byte(`{"error"`)) {
		checkResponse(c.t, req.Method, req.URL.Path, resp.StatusCode, body)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func events(key string, from, to int) []server.EventRow {
	var evs []server.EventRow
	for i := from; i < to; i++ {
		evs = append(evs, server.EventRow{SessionKey: key, Seq: int64(i),
			Event: []byte(fmt.Sprintf(`{"type":"message","id":"e%d","message":{"role":"user","content":"pushed word%d"}}`, i, i))})
	}
	return evs
}

// TestClientResumes: docs/serve.md H12. A client that lost its own
// watermarks asks the service, and a push that overlaps what is stored
// appends only the rest; answers that say "try again" are retried.
func TestClientResumes(t *testing.T) {
	db, err := driver.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	tokens, _ := server.ParseTokens([]byte(tokensJSON))
	h := server.New(db.DB, server.Options{Tokens: tokens})
	var refuse atomic.Int32 // answer this many requests 503 first
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Add(-1) >= 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":"unavailable","message":"no leader"}}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c := &server.Client{URL: ts.URL, Token: tokWriter, HTTP: &http.Client{Transport: checking{t}}, Backoff: time.Millisecond}
	ctx := t.Context()
	const key = "agent:main:pushed"
	refuse.Store(2)
	res, err := c.Append(ctx, server.AppendRequest{Sessions: []server.SessionRow{{SessionKey: key}}, Events: events(key, 0, 10)})
	if err != nil || res != (server.AppendResult{SessionsAdded: 1, EventsAppended: 10}) {
		t.Fatalf("append after two 503s: %+v %v", res, err)
	}
	marks, err := c.Watermarks(ctx, []string{key, "agent:main:nothing"})
	if err != nil || len(marks) != 2 || marks[0] != (server.Watermark{SessionKey: key, Exists: true, NextSeq: 10}) ||
		marks[1] != (server.Watermark{SessionKey: "agent:main:nothing"}) {
		t.Fatalf("watermarks: %+v %v", marks, err)
	}
	res, err = c.Append(ctx, server.AppendRequest{Events: events(key, 5, 15)})
	if err != nil || res != (server.AppendResult{EventsAppended: 5, EventsUnchanged: 5}) {
		t.Fatalf("an overlapping push: %+v %v", res, err)
	}
	// A refusal is not retried and says why.
	refuse.Store(0)
	_, err = c.Append(ctx, server.AppendRequest{Events: events(key, 20, 21)})
	if server.ErrorCode(err) != "seq_gap" {
		t.Errorf("a gap: %v", err)
	}
	// A service that stays unavailable is given up on.
	refuse.Store(100)
	c.Attempts = 3
	if _, err = c.Append(ctx, server.AppendRequest{Events: events(key, 15, 16)}); server.ErrorCode(err) != "unavailable" || refuse.Load() != 97 {
		t.Errorf("an unavailable service: %v, %d requests", err, 100-refuse.Load())
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_key = ?1`, key).Scan(&n)
	if n != 15 {
		t.Errorf("%d events stored, want 15", n)
	}
	refuse.Store(0)
	ro := &server.Client{URL: ts.URL, Token: tokReader, Backoff: time.Millisecond}
	if _, err := ro.Watermarks(ctx, []string{key}); server.ErrorCode(err) != "read_only" {
		t.Errorf("watermarks with a read-only token: %v", err)
	}
}

// TestClientOutcomeUnknown: docs/serve.md H21. A request that the service
// applied but whose answer was lost (the connection dropped, or 504
// outcome_unknown) is sent again, the same; when no attempt settles it, the
// error says that it may have been applied. A request that never reached
// the service, or was refused 503, is not so.
func TestClientOutcomeUnknown(t *testing.T) {
	db, err := driver.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	tokens, _ := server.ParseTokens([]byte(tokensJSON))
	h := server.New(db.DB, server.Options{Tokens: tokens})
	var lose atomic.Int32 // apply this many requests, then lose their answers
	var how atomic.Value  // "drop" the connection, or answer "504", or "503" without applying
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lose.Add(-1) < 0 {
			h.ServeHTTP(w, r)
			return
		}
		if how.Load() == "503" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":"unavailable","message":"the database is unavailable, nothing was written"}}`)
			return
		}
		h.ServeHTTP(httptest.NewRecorder(), r) // applied; its answer is lost
		if how.Load() == "504" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGatewayTimeout)
			io.WriteString(w, `{"error":{"code":"outcome_unknown","message":"no answer from the commit"}}`)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer ts.Close()
	ctx := t.Context()
	const key = "agent:main:lost"
	c := &server.Client{URL: ts.URL, Token: tokWriter, Backoff: time.Millisecond, Attempts: 3}
	stored := func() int {
		var n int
		db.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_key = ?1`, key).Scan(&n)
		return n
	}

	// One lost answer: the same request again settles it, unchanged.
	how.Store("drop")
	lose.Store(1)
	res, err := c.Append(ctx, server.AppendRequest{Sessions: []server.SessionRow{{SessionKey: key}}, Events: events(key, 0, 2)})
	if err != nil || res != (server.AppendResult{SessionsUnchanged: 1, EventsUnchanged: 2}) || stored() != 2 {
		t.Fatalf("after a dropped connection: %+v %v, %d stored", res, err, stored())
	}
	// Every answer lost: the error says the request may have been applied,
	// and it was.
	for _, way := range []string{"drop", "504"} {
		how.Store(way)
		lose.Store(3)
		from := stored()
		_, err = c.Append(ctx, server.AppendRequest{Events: events(key, from, from+1)})
		if !server.OutcomeUnknown(err) || stored() != from+1 {
			t.Errorf("every answer lost (%s): OutcomeUnknown(%v) = %v, %d stored", way, err, server.OutcomeUnknown(err), stored())
		}
	}
	// 503s only: nothing written, and the error says nothing else.
	how.Store("503")
	lose.Store(3)
	from := stored()
	if _, err = c.Append(ctx, server.AppendRequest{Events: events(key, from, from+1)}); server.OutcomeUnknown(err) || server.ErrorCode(err) != "unavailable" || stored() != from {
		t.Errorf("503s only: %v (OutcomeUnknown %v), %d stored, want %d", err, server.OutcomeUnknown(err), stored(), from)
	}
	// A service that is not there: nothing was sent.
	ts.Close()
	if _, err = c.Append(ctx, server.AppendRequest{Events: events(key, from, from+1)}); err == nil || server.OutcomeUnknown(err) {
		t.Errorf("a closed port: %v (OutcomeUnknown %v)", err, server.OutcomeUnknown(err))
	}
}
