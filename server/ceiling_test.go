//go:build sqlite_fts5

package server_test

import (
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// The grant is a ceiling (docs/serve.md H2): the cases of issue 24, where
// a body's sandboxed or visibility widened what a token sees.
const (
	tokChatSelf    = "chat-self-token-0123456789"   // agent:main:chat, self
	tokWorkerAgent = "worker-agent-token-012345678" // agent:ops:worker, agent
	tokChatSandbox = "chat-sandbox-token-01234567"  // agent:main:chat, sandboxed
)

var ceilingTokens = `{"tokens":[
 {"token":"` + tokWriter + `","caller":"agent:main:main","visibility":"all","write":true},
 {"token":"` + tokChatSelf + `","caller":"agent:main:chat","visibility":"self"},
 {"token":"` + tokWorkerAgent + `","caller":"agent:ops:worker","visibility":"agent"},
 {"token":"` + tokChatSandbox + `","caller":"agent:main:chat","sandboxed":true}
]}`

var ceilingFixture = `{"sessions":[
 {"sessionKey":"agent:main:chat"},
 {"sessionKey":"agent:main:subagent:a1","spawnedBy":"agent:main:chat"},
 {"sessionKey":"agent:ops:worker"},
 {"sessionKey":"agent:ops:other"},
 {"sessionKey":"agent:main:subagent:w1","spawnedBy":"agent:ops:worker"}],
 "events":[` + strings.Join([]string{
	event("agent:main:chat", 0, "c0", "weather in the chat"),
	event("agent:main:subagent:a1", 0, "a0", "weather in a1"),
	event("agent:ops:worker", 0, "w0", "weather in the worker"),
	event("agent:ops:other", 0, "o0", "weather in another ops session"),
	event("agent:main:subagent:w1", 0, "s0", "weather the worker spawned"),
}, ",") + `]}`

func newCeilingServer(t *testing.T) *testServer {
	t.Helper()
	db, err := driver.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.ParseTokens([]byte(ceilingTokens))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(db.DB, server.Options{Tokens: tokens}))
	t.Cleanup(ts.Close)
	s := &testServer{url: ts.URL, db: db}
	if st, body := s.do(t, tokWriter, "POST", "/v1/append", ceilingFixture); st != 200 {
		t.Fatalf("loading the fixture: %d %s", st, body)
	}
	return s
}

// TestGrantIsACeiling: docs/serve.md H2. Whatever a body says, a token
// sees no session its grant alone would not show.
func TestGrantIsACeiling(t *testing.T) {
	s := newCeilingServer(t)
	for _, c := range []struct {
		name, token, body string
		want              []string
	}{
		{"self grant", tokChatSelf, `{"query":"weather"}`, []string{"agent:main:chat"}},
		{"self grant with sandboxed", tokChatSelf, `{"query":"weather","sandboxed":true}`, []string{"agent:main:chat"}},
		{"agent grant", tokWorkerAgent, `{"query":"weather"}`, []string{"agent:ops:other", "agent:ops:worker"}},
		{"agent grant with sandboxed", tokWorkerAgent, `{"query":"weather","sandboxed":true}`, []string{"agent:ops:worker"}},
		{"sandboxed grant", tokChatSandbox, `{"query":"weather"}`, []string{"agent:main:chat", "agent:main:subagent:a1"}},
		{"sandboxed grant asking for self", tokChatSandbox, `{"query":"weather","visibility":"self"}`, []string{"agent:main:chat"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.hits(t, c.token, c.body); !slices.Equal(got, c.want) {
				t.Errorf("%s found %v, want %v", c.body, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, token, body string
		status            int
	}{
		{"self grant reads a spawned session", tokChatSelf, `{"sessionKey":"agent:main:subagent:a1","sandboxed":true}`, 404},
		{"agent grant reads another agent's spawned session", tokWorkerAgent, `{"sessionKey":"agent:main:subagent:w1","sandboxed":true}`, 404},
		{"sandboxed self reads a spawned session", tokChatSandbox, `{"sessionKey":"agent:main:subagent:a1","visibility":"self"}`, 404},
		{"sandboxed grant reads a spawned session", tokChatSandbox, `{"sessionKey":"agent:main:subagent:a1"}`, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			if st, out := s.do(t, c.token, "POST", "/v1/history", c.body); st != c.status {
				t.Errorf("history %s: %d %s, want %d", c.body, st, out, c.status)
			}
		})
	}
}
