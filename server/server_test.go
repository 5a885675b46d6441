//go:build sqlite_fts5

package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// The tokens of the tests, one per kind of grant.
const (
	tokWriter    = "writer-token-0123456789"   // agent:main:main, all, may write
	tokTask      = "task-token-0123456789abc"  // agent:main:task1, tree
	tokSandboxed = "sandbox-token-0123456789"  // agent:main:task1, sandboxed (spawned)
	tokA2A       = "a2a-token-0123456789abcd"  // agent:main:main, all, agentToAgent ops
	tokSelf      = "self-token-0123456789abcd" // agent:main:other, self
	tokReader    = "reader-token-0123456789ab" // agent:main:main, all, read only
	tokMetrics   = "metrics-token-0123456789a" // /metrics only
)

const tokensJSON = `{"tokens":[
 {"token":"` + tokWriter + `","caller":"agent:main:main","visibility":"all","write":true},
 {"token":"` + tokTask + `","caller":"agent:main:task1"},
 {"token":"` + tokSandboxed + `","caller":"agent:main:task1","visibility":"all","sandboxed":true},
 {"token":"` + tokA2A + `","caller":"agent:main:main","visibility":"all","agentToAgent":{"enabled":true,"allow":["main","ops"]}},
 {"token":"` + tokSelf + `","caller":"agent:main:other","visibility":"self"},
 {"token":"` + tokReader + `","caller":"agent:main:main","visibility":"all"},
 {"token":"` + tokMetrics + `","metrics":true}
]}`

// fixture is the sessions every test starts with: a tree under task1, a
// session outside it, another agent and an incognito session. Each has one
// message with the word "zebra" and its own word.
var fixture = `{"sessions":[
 {"sessionKey":"agent:main:main","createdAt":1},
 {"sessionKey":"agent:main:task1","spawnedBy":"agent:main:main","createdAt":2},
 {"sessionKey":"agent:main:task1:sub","spawnedBy":"agent:main:task1","createdAt":3},
 {"sessionKey":"agent:main:other","createdAt":4},
 {"sessionKey":"agent:ops:main","createdAt":5},
 {"sessionKey":"agent:main:incognito-x","createdAt":6}],
 "events":[` + strings.Join([]string{
	event("agent:main:main", 0, "m0", "zebra mainword"),
	event("agent:main:task1", 0, "t0", "zebra taskword"),
	event("agent:main:task1:sub", 0, "s0", "zebra subword"),
	event("agent:main:other", 0, "o0", "zebra otherword"),
	event("agent:ops:main", 0, "p0", "zebra opsword"),
	event("agent:main:incognito-x", 0, "i0", "zebra secretword"),
}, ",") + `]}`

func event(key string, seq int, id, text string) string {
	return fmt.Sprintf(`{"sessionKey":%q,"seq":%d,"event":{"type":"message","id":%q,"timestamp":"2026-01-0%dT00:00:00Z","message":{"role":"user","content":%q}}}`,
		key, seq, id, seq+1, text)
}

type testServer struct {
	url string
	log *bytes.Buffer
	db  *driver.DB
}

func newServer(t *testing.T, opts server.Options) *testServer {
	t.Helper()
	return serveFixture(t, opts, tokensJSON, fixture)
}

// serveFixture serves a new store with the tokens of tokensFile (unless
// opts has tokens), and appends load to it with tokWriter, which the
// tokens must grant writes.
func serveFixture(t *testing.T, opts server.Options, tokensFile, load string) *testServer {
	t.Helper()
	db, err := driver.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if opts.Tokens == nil {
		tokens, err := server.ParseTokens([]byte(tokensFile))
		if err != nil {
			t.Fatal(err)
		}
		opts.Tokens = tokens
	}
	log := &bytes.Buffer{}
	opts.AccessLog = slog.New(slog.NewJSONHandler(log, nil))
	ts := httptest.NewServer(server.New(db.DB, opts)) // listens on 127.0.0.1
	t.Cleanup(ts.Close)
	s := &testServer{url: ts.URL, log: log, db: db}
	if st, body := s.do(t, tokWriter, "POST", "/v1/append", load); st != 200 {
		t.Fatalf("loading the fixture: %d %s", st, body)
	}
	return s
}

// do sends a request and checks the answer against docs/openapi.json.
func (s *testServer) do(t *testing.T, token, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	checkResponse(t, method, path, resp.StatusCode, out)
	return resp.StatusCode, out
}

// hits returns the session keys that a search finds, sorted.
func (s *testServer) hits(t *testing.T, token, body string) []string {
	t.Helper()
	st, out := s.do(t, token, "POST", "/v1/search", body)
	if st != 200 {
		t.Fatalf("search %s: %d %s", body, st, out)
	}
	var res struct {
		Results []struct {
			SessionKey string `json:"sessionKey"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range res.Results {
		keys = append(keys, r.SessionKey)
	}
	sort.Strings(keys)
	return keys
}

type apiErr struct {
	Error struct {
		Code    string          `json:"code"`
		Field   string          `json:"field"`
		Value   json.RawMessage `json:"value"`
		Message string          `json:"message"`
	} `json:"error"`
}

// TestVisibilityByToken: docs/serve.md H2, the caller and visibility of a
// read come from the token.
func TestVisibilityByToken(t *testing.T) {
	s := newServer(t, server.Options{})
	for _, c := range []struct {
		name, token, body string
		want              []string
	}{
		{"main session sees its agent", tokWriter, `{"query":"zebra","limit":25}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub"}},
		{"tree sees itself and what it spawned", tokTask, `{"query":"zebra","limit":25}`,
			[]string{"agent:main:task1", "agent:main:task1:sub"}},
		{"sandboxed sees what it spawned", tokSandboxed, `{"query":"zebra","limit":25}`,
			[]string{"agent:main:task1", "agent:main:task1:sub"}},
		{"agentToAgent reaches the allowed agent", tokA2A, `{"query":"zebra","limit":25}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub", "agent:ops:main"}},
		{"self sees only itself", tokSelf, `{"query":"zebra","limit":25}`, []string{"agent:main:other"}},
		{"naming its own caller is allowed", tokTask, `{"query":"zebra","caller":"agent:main:task1"}`,
			[]string{"agent:main:task1", "agent:main:task1:sub"}},
		{"narrowing to self is allowed", tokTask, `{"query":"zebra","visibility":"self"}`, []string{"agent:main:task1"}},
		{"narrowing to sandboxed is allowed", tokWriter, `{"query":"zebra","sandboxed":true}`, []string{"agent:main:main", "agent:main:task1", "agent:main:task1:sub"}},
		{"turning agentToAgent off is allowed", tokA2A, `{"query":"zebra","limit":25,"agentToAgent":{"enabled":false}}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub"}},
		{"incognito is never visible", tokA2A, `{"query":"secretword"}`, nil},
		// Asking for more than the grant sees what the grant sees.
		{"a wider visibility", tokTask, `{"query":"zebra","visibility":"agent"}`, []string{"agent:main:task1", "agent:main:task1:sub"}},
		{"leaving the sandbox", tokSandboxed, `{"query":"zebra","sandboxed":false}`, []string{"agent:main:task1", "agent:main:task1:sub"}},
		{"widening the sandbox", tokSandboxed, `{"query":"zebra","sandboxVisibility":"all"}`, []string{"agent:main:task1", "agent:main:task1:sub"}},
		{"agentToAgent without grant", tokWriter, `{"query":"zebra","limit":25,"agentToAgent":{"enabled":true,"allow":["*"]}}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub"}},
		{"agentToAgent beyond grant", tokA2A, `{"query":"zebra","limit":25,"agentToAgent":{"enabled":true,"allow":["*"]}}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub", "agent:ops:main"}},
		// Relaxed matching and results by session (docs/search.md Q26,
		// Q30) see what the grant sees, and their answers fit the spec.
		{"answers within the grant", tokTask, `{"query":"zebra -nothing","limit":25,"syntax":"query","match":"relaxed","group":"session","perSession":1}`,
			[]string{"agent:main:task1", "agent:main:task1:sub"}},
		{"null options are the grant's", tokA2A, `{"query":"zebra","limit":25,"visibility":null,"agentToAgent":null}`,
			[]string{"agent:main:main", "agent:main:other", "agent:main:task1", "agent:main:task1:sub", "agent:ops:main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.hits(t, c.token, c.body); !slices.Equal(got, c.want) {
				t.Errorf("%s found %v, want %v", c.body, got, c.want)
			}
		})
	}
	// History follows the same rules: task1 may read its child, not main.
	if st, out := s.do(t, tokTask, "POST", "/v1/history", `{"sessionKey":"agent:main:task1:sub"}`); st != 200 || !bytes.Contains(out, []byte("subword")) {
		t.Errorf("history of a spawned session: %d %s", st, out)
	}
	st, out := s.do(t, tokTask, "POST", "/v1/history", `{"sessionKey":"agent:main:main"}`)
	var e apiErr
	json.Unmarshal(out, &e)
	if st != 404 || e.Error.Field != "sessionKey" || string(e.Error.Value) != `"agent:main:main"` || bytes.Contains(out, []byte("mainword")) {
		t.Errorf("history of an invisible session: %d %s", st, out)
	}
}

// TestRefusals: docs/serve.md H1 (authentication), H2 (the grant) and H3
// (bad input): each refusal has its status, code, field and value, and
// none of them writes anything.
func TestRefusals(t *testing.T) {
	s := newServer(t, server.Options{MaxBodyBytes: 4096, MaxReadBodyBytes: 512})
	big := `{"query":"` + strings.Repeat("x", 600) + `"}`
	bigAppend := `{"events":[` + event("agent:main:main", 1, "m1", strings.Repeat("y", 5000)) + `]}`
	for _, c := range []struct {
		name, token, method, path, body string
		status                          int
		code, field, value              string
	}{
		{"no token", "", "POST", "/v1/search", `{"query":"zebra"}`, 401, "unauthenticated", "Authorization", ""},
		{"unknown token", "not-a-token-of-the-file", "POST", "/v1/search", `{"query":"zebra"}`, 401, "unauthenticated", "Authorization", ""},
		{"no token for status", "", "GET", "/v1/status", ``, 401, "unauthenticated", "Authorization", ""},
		{"read-only token appends", tokReader, "POST", "/v1/append", `{"events":[` + event("agent:main:main", 1, "m1", "x") + `]}`, 403, "read_only", "Authorization", ""},
		{"read-only token deletes", tokTask, "DELETE", "/v1/sessions/agent:main:task1", ``, 403, "read_only", "Authorization", ""},
		{"another caller", tokTask, "POST", "/v1/search", `{"query":"zebra","caller":"agent:main:main"}`, 403, "outside_grant", "caller", `"agent:main:main"`},
		{"another caller in history", tokTask, "POST", "/v1/history", `{"sessionKey":"agent:main:task1","caller":"agent:main:main"}`, 403, "outside_grant", "caller", `"agent:main:main"`},
		{"setting the ceiling", tokTask, "POST", "/v1/search", `{"query":"zebra","ceiling":{"visibility":"all"}}`, 403, "outside_grant", "ceiling", `{"visibility":"all"}`},
		{"setting the ceiling in history", tokTask, "POST", "/v1/history", `{"sessionKey":"agent:main:task1","ceiling":null}`, 403, "outside_grant", "ceiling", `null`},
		{"bad ceiling-bound option", tokSandboxed, "POST", "/v1/search", `{"query":"zebra","sandboxVisibility":"some"}`, 400, "invalid_field", "sandboxVisibility", `"some"`},
		{"a metrics token searches", tokMetrics, "POST", "/v1/search", `{"query":"zebra"}`, 403, "metrics_only", "Authorization", ""},
		{"a reader reads metrics", tokReader, "GET", "/metrics", ``, 403, "no_metrics", "Authorization", ""},
		{"malformed JSON", tokWriter, "POST", "/v1/search", `{"query":`, 400, "malformed_json", "", ""},
		{"not an object", tokWriter, "POST", "/v1/search", `["zebra"]`, 400, "malformed_json", "", ""},
		{"data after the object", tokWriter, "POST", "/v1/search", `{"query":"zebra"} {}`, 400, "malformed_json", "", ""},
		{"repeated field", tokTask, "POST", "/v1/search", `{"query":"zebra","caller":"agent:main:task1","caller":"agent:main:main"}`, 400, "duplicate_field", "caller", ""},
		{"unknown field", tokWriter, "POST", "/v1/search", `{"query":"zebra","limitt":3}`, 400, "unknown_field", "limitt", `3`},
		{"bad option value", tokWriter, "POST", "/v1/search", `{"query":"zebra","limit":40}`, 400, "invalid_field", "limit", `40`},
		{"bad visibility", tokWriter, "POST", "/v1/search", `{"query":"zebra","visibility":"everything"}`, 400, "invalid_field", "visibility", `"everything"`},
		{"missing query", tokWriter, "POST", "/v1/search", `{"limit":3}`, 400, "missing_field", "query", ""},
		{"empty query", tokWriter, "POST", "/v1/search", `{"query":"   "}`, 400, "invalid_field", "query", `"   "`},
		{"query not a string", tokWriter, "POST", "/v1/search", `{"query":7}`, 400, "invalid_field", "query", `7`},
		{"oversized search", tokWriter, "POST", "/v1/search", big, 413, "too_large", "", `512`},
		{"oversized append", tokWriter, "POST", "/v1/append", bigAppend, 413, "too_large", "", `4096`},
		{"unknown append field", tokWriter, "POST", "/v1/append", `{"rows":[]}`, 400, "unknown_field", "rows", ""},
		{"unknown event field", tokWriter, "POST", "/v1/append", `{"events":[{"sessionKey":"agent:main:main","seq":1,"event":{},"extra":1}]}`, 400, "unknown_field", "events[0].extra", ""},
		{"missing seq", tokWriter, "POST", "/v1/append", `{"events":[{"sessionKey":"agent:main:main","event":{"type":"message"}}]}`, 400, "missing_field", "events[0].seq", ""},
		{"negative seq", tokWriter, "POST", "/v1/append", `{"events":[{"sessionKey":"agent:main:main","seq":-1,"event":{}}]}`, 400, "invalid_field", "events[0].seq", `-1`},
		{"event not an object", tokWriter, "POST", "/v1/append", `{"events":[{"sessionKey":"agent:main:main","seq":1,"event":"hello"}]}`, 400, "invalid_field", "events[0].event", `"hello"`},
		{"bad session key", tokWriter, "POST", "/v1/append", `{"sessions":[{"sessionKey":""}]}`, 400, "invalid_field", "sessions[0].sessionKey", `""`},
		{"bad createdAt", tokWriter, "POST", "/v1/append", `{"sessions":[{"sessionKey":"k","createdAt":"today"}]}`, 400, "invalid_field", "sessions[0].createdAt", `"today"`},
		{"empty append", tokWriter, "POST", "/v1/append", `{}`, 400, "missing_field", "events", ""},
		{"unknown session", tokWriter, "POST", "/v1/append", `{"events":[` + event("agent:main:nobody", 0, "n0", "x") + `]}`, 422, "unknown_session", "events[0].sessionKey", `"agent:main:nobody"`},
		{"different event at a stored seq", tokWriter, "POST", "/v1/append", `{"events":[` + event("agent:main:main", 0, "m0", "zebra changed") + `]}`, 409, "conflict", "events[0].seq", `0`},
		{"a gap in seq", tokWriter, "POST", "/v1/append", `{"events":[` + event("agent:main:main", 2, "m2", "x") + `]}`, 409, "seq_gap", "events[0].seq", `2`},
		{"a session with other links", tokWriter, "POST", "/v1/append", `{"sessions":[{"sessionKey":"agent:main:task1","spawnedBy":"agent:main:other","createdAt":2}]}`, 409, "conflict", "sessions[0]", `"agent:main:task1"`},
		// All or nothing: the first event is fine, the second conflicts.
		{"partial append", tokWriter, "POST", "/v1/append", `{"sessions":[{"sessionKey":"agent:main:new"}],"events":[` +
			event("agent:main:new", 0, "n0", "zebra partialword") + "," + event("agent:main:main", 0, "m0", "zebra changed") + `]}`,
			409, "conflict", "events[1].seq", `0`},
		{"delete a missing session", tokWriter, "DELETE", "/v1/sessions/agent:main:nobody", ``, 404, "not_found", "sessionKey", `"agent:main:nobody"`},
		{"bad reconcile budget", tokWriter, "POST", "/v1/reconcile", `{"budgetMs":"soon"}`, 400, "invalid_field", "budgetMs", `"soon"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := s.do(t, c.token, c.method, c.path, c.body)
			var e apiErr
			if err := json.Unmarshal(out, &e); err != nil {
				t.Fatalf("not a JSON error: %s", out)
			}
			if st != c.status || e.Error.Code != c.code || e.Error.Field != c.field || string(e.Error.Value) != c.value || e.Error.Message == "" {
				t.Errorf("got %d %s\nwant %d code %q field %q value %s", st, out, c.status, c.code, c.field, c.value)
			}
			if bytes.Contains(out, []byte("not-a-token")) {
				t.Errorf("the error echoes the token: %s", out)
			}
		})
	}
	// Paths and methods outside the API get a JSON error too.
	for _, c := range []struct {
		method, path string
		status       int
	}{{"GET", "/v1/search", 405}, {"PUT", "/v1/sessions/k", 405}, {"GET", "/v2/search", 404}} {
		req, _ := http.NewRequest(c.method, s.url+c.path, nil)
		req.Header.Set("Authorization", "Bearer "+tokWriter)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e apiErr
		if resp.StatusCode != c.status || json.Unmarshal(out, &e) != nil || e.Error.Code == "" {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, out)
		}
	}
	// Nothing was written by any refused request.
	st, out := s.do(t, tokWriter, "GET", "/v1/status", "")
	var status server.Status
	json.Unmarshal(out, &status)
	if st != 200 || status.Sessions != 6 || status.Events != 6 {
		t.Errorf("after the refusals: %d %s, want the fixture's 6 sessions and 6 events", st, out)
	}
	if got := s.hits(t, tokWriter, `{"query":"partialword"}`); len(got) != 0 {
		t.Errorf("a refused append left searchable text: %v", got)
	}
	if got := s.hits(t, tokWriter, `{"query":"mainword"}`); !slices.Equal(got, []string{"agent:main:main"}) {
		t.Errorf("the stored event changed: %v", got)
	}
}

// TestAppendIdempotent: docs/serve.md H5, H6.
func TestAppendIdempotent(t *testing.T) {
	s := newServer(t, server.Options{})
	// The whole fixture again is a no-op success.
	st, out := s.do(t, tokWriter, "POST", "/v1/append", fixture)
	var res server.AppendResult
	json.Unmarshal(out, &res)
	if st != 200 || res != (server.AppendResult{SessionsUnchanged: 6, EventsUnchanged: 6}) {
		t.Errorf("re-sent fixture: %d %s", st, out)
	}
	// The same event encoded otherwise (member order, spacing) is the same event.
	reordered := `{"events":[{"seq":0,"event":{ "message":{"content":"zebra mainword","role":"user"},"timestamp":"2026-01-01T00:00:00Z","id":"m0","type":"message"},"sessionKey":"agent:main:main"}]}`
	if st, out := s.do(t, tokWriter, "POST", "/v1/append", reordered); st != 200 || !bytes.Contains(out, []byte(`"eventsUnchanged":1`)) {
		t.Errorf("re-encoded event: %d %s", st, out)
	}
	// New events append in order; a batch can repeat what it already sent.
	batch := `{"events":[` + event("agent:main:main", 0, "m0", "zebra mainword") + "," + event("agent:main:main", 1, "m1", "zebra nextword") + "," +
		event("agent:main:main", 2, "m2", "zebra lastword") + `]}`
	st, out = s.do(t, tokWriter, "POST", "/v1/append", batch)
	json.Unmarshal(out, &res)
	if st != 200 || res != (server.AppendResult{EventsAppended: 2, EventsUnchanged: 1}) {
		t.Errorf("batch: %d %s", st, out)
	}
	if got := s.hits(t, tokWriter, `{"query":"lastword"}`); !slices.Equal(got, []string{"agent:main:main"}) {
		t.Errorf("an appended event is not searchable: %v", got)
	}
	st, out = s.do(t, tokWriter, "POST", "/v1/history", `{"sessionKey":"agent:main:main"}`)
	if st != 200 || !bytes.Contains(out, []byte("mainword")) || !bytes.Contains(out, []byte("lastword")) {
		t.Errorf("history: %d %s", st, out)
	}
}

// TestDeleteStatusReconcile: docs/serve.md H7 and the status endpoints.
func TestDeleteStatusReconcile(t *testing.T) {
	s := newServer(t, server.Options{})
	if st, out := s.do(t, tokWriter, "DELETE", "/v1/sessions/agent:main:task1:sub", ""); st != 200 || !bytes.Contains(out, []byte(`"deleted":true`)) {
		t.Errorf("delete: %d %s", st, out)
	}
	if got := s.hits(t, tokWriter, `{"query":"subword"}`); len(got) != 0 {
		t.Errorf("a deleted session is still found: %v", got)
	}
	st, out := s.do(t, tokReader, "GET", "/v1/status", "")
	var status server.Status
	json.Unmarshal(out, &status)
	if st != 200 || status.Sessions != 5 || status.Events != 5 || status.Schema < 1 || status.Version == "" {
		t.Errorf("status: %d %s", st, out)
	}
	if st, out := s.do(t, tokWriter, "POST", "/v1/reconcile", `{"budgetMs":100}`); st != 200 || string(out) != "{\"pending\":0,\"indexed\":0}\n" {
		t.Errorf("reconcile: %d %s", st, out)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if st, _ := s.do(t, "", "GET", p, ""); st != 200 {
			t.Errorf("%s without a token: %d", p, st)
		}
	}
}

// TestAccessLog: docs/serve.md H8. One line per request with its method,
// path, status and caller; never a query, a body, a token or message text.
func TestAccessLog(t *testing.T) {
	s := newServer(t, server.Options{})
	s.hits(t, tokTask, `{"query":"taskword"}`)
	s.do(t, tokTask, "POST", "/v1/history", `{"sessionKey":"agent:main:task1"}`)
	s.do(t, tokWriter, "POST", "/v1/append", `{"events":[`+event("agent:main:main", 1, "m1", "zebra loggedword")+`]}`)
	s.do(t, "wrong-token-0123456789", "POST", "/v1/search", `{"query":"unauthword"}`)
	log := s.log.String()
	for _, secret := range []string{"taskword", "zebra", "loggedword", "unauthword", "mainword", tokTask, tokWriter, "wrong-token"} {
		if strings.Contains(log, secret) {
			t.Errorf("the access log contains %q:\n%s", secret, log)
		}
	}
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 5 { // the fixture's append and the four above
		t.Fatalf("%d log lines, want 5:\n%s", len(lines), log)
	}
	var rec struct {
		Method, Path, Caller string
		Status               int
	}
	json.Unmarshal([]byte(lines[1]), &rec)
	if rec.Method != "POST" || rec.Path != "/v1/search" || rec.Status != 200 || rec.Caller != "agent:main:task1" {
		t.Errorf("log line %s", lines[1])
	}
	json.Unmarshal([]byte(lines[4]), &rec)
	if rec.Status != 401 || rec.Caller != "" {
		t.Errorf("log line of a refused token %s", lines[4])
	}
}

// TestToolScope: a search of tool text on a store that does not index it
// is a 400 naming scope and how to switch it on; switched on while the
// service runs, the same request finds the tool result, saying its kind
// and tool (docs/serve.md H27, docs/search.md Q36).
func TestToolScope(t *testing.T) {
	s := newServer(t, server.Options{})
	result := `{"sessionKey":"agent:main:main","seq":1,"event":{"type":"message","id":"r1","timestamp":"2026-01-03T00:00:00Z","message":{"role":"toolResult","toolName":"exec","content":"--- FAIL: TestWombat"}}}`
	if st, out := s.do(t, tokWriter, "POST", "/v1/append", `{"events":[`+result+`]}`); st != 200 {
		t.Fatalf("append: %d %s", st, out)
	}
	body := `{"query":"wombat","scope":["toolResults"]}`
	st, out := s.do(t, tokWriter, "POST", "/v1/search", body)
	var e apiErr
	if err := json.Unmarshal(out, &e); err != nil || st != 400 || e.Error.Code != "invalid_field" || e.Error.Field != "scope" ||
		string(e.Error.Value) != `["toolResults"]` || !strings.Contains(e.Error.Message, "sessionsearch_tool_index(1)") {
		t.Fatalf("a tool scope without the tool index: %d %s", st, out)
	}
	if got := s.hits(t, tokWriter, `{"query":"wombat"}`); len(got) != 0 {
		t.Fatalf("the messages' search finds tool text: %v", got)
	}
	if err := s.db.SetToolIndex(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	st, out = s.do(t, tokWriter, "POST", "/v1/search", body)
	var res struct {
		Results []struct{ MessageID, Kind, Tool string }
	}
	if err := json.Unmarshal(out, &res); err != nil || st != 200 || len(res.Results) != 1 ||
		res.Results[0].MessageID != "r1" || res.Results[0].Kind != "toolResult" || res.Results[0].Tool != "exec" {
		t.Fatalf("with the tool index: %d %s", st, out)
	}
}
