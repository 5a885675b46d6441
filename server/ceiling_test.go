//go:build sqlite_fts5

package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/visibilitymodel"
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

// TestGrantIsACeiling: docs/serve.md H2. Whatever a body says, a token
// sees no session its grant alone would not show.
func TestGrantIsACeiling(t *testing.T) {
	s := serveFixture(t, server.Options{}, ceilingTokens, ceilingFixture)
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

// grantJSON is a tokens file entry of a model's options.
func grantJSON(token string, g visibilitymodel.Options) map[string]any {
	e := map[string]any{"token": token, "caller": g.Caller, "sandboxed": g.Sandboxed,
		"agentToAgent": map[string]any{"enabled": g.AgentToAgent, "allow": g.Allow}}
	if g.Visibility != "" {
		e["visibility"] = g.Visibility
	}
	if g.SandboxVisibility != "" {
		e["sandboxVisibility"] = g.SandboxVisibility
	}
	return e
}

// randomBody is a body's visibility options: each left out, null, or a
// random value, and the options the read then asks for, which are the
// grant's where the body says nothing (docs/serve.md H2).
func randomBody(rng *rand.Rand, grant visibilitymodel.Options) (map[string]any, visibilitymodel.Options) {
	body, asked := map[string]any{}, grant
	other := visibilitymodel.RandomOptions(rng, grant.Caller)
	if other.Visibility == "bogus" {
		other.Visibility = "self"
	}
	pick := func(name string, value any, set func()) {
		switch rng.IntN(3) {
		case 0:
		case 1:
			// Left out, or null: the grant's.
			if rng.IntN(3) == 0 {
				body[name] = nil
			}
		default:
			if value != "" { // "" is the option left out
				body[name] = value
				set()
			}
		}
	}
	pick("visibility", other.Visibility, func() { asked.Visibility = other.Visibility })
	pick("sandboxed", other.Sandboxed, func() { asked.Sandboxed = other.Sandboxed })
	pick("sandboxVisibility", other.SandboxVisibility, func() { asked.SandboxVisibility = other.SandboxVisibility })
	pick("agentToAgent", map[string]any{"enabled": other.AgentToAgent, "allow": other.Allow}, func() {
		asked.AgentToAgent, asked.Allow = other.AgentToAgent, other.Allow
	})
	if rng.IntN(4) == 0 {
		body["caller"] = grant.Caller
	}
	return body, asked
}

// TestGrantCeilingProperty: docs/serve.md H2, end to end. Over random
// session forests, random grants and random bodies, a search through HTTP
// finds exactly the sessions that the visibility model shows under both
// the grant and what the body asks, and a history answers 200 exactly for
// those: never a session the grant alone hides.
func TestGrantCeilingProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2026))
	var reads, hidden, narrowed int
	for forest := range 12 {
		keys, rows, _ := visibilitymodel.RandomForest(rng, 12)
		entries := []map[string]any{{"token": tokWriter, "caller": "agent:main:main", "write": true}}
		var grants []visibilitymodel.Options
		for i := range 10 {
			g := visibilitymodel.RandomOptions(rng, keys[rng.IntN(len(keys))])
			if rng.IntN(5) == 0 {
				g.Caller = visibilitymodel.RandomKey(rng) // a caller without a row
			}
			if g.Visibility == "bogus" || rng.IntN(3) == 0 { // wide grants, for bodies to narrow
				g.Visibility, g.Sandboxed, g.AgentToAgent, g.Allow = "all", false, true, []string{"*"}
			}
			grants = append(grants, g)
			entries = append(entries, grantJSON(fmt.Sprintf("grant-token-%02d-%04d", i, forest), g))
		}
		file, _ := json.Marshal(map[string]any{"tokens": entries})
		var sessions, events []map[string]any
		for i, r := range rows {
			row := map[string]any{"sessionKey": r.Key}
			if r.SpawnedBy != "" {
				row["spawnedBy"] = r.SpawnedBy
			}
			if r.ParentKey != "" {
				row["parentSessionKey"] = r.ParentKey
			}
			sessions = append(sessions, row)
			events = append(events, map[string]any{"sessionKey": r.Key, "seq": 0, "event": map[string]any{
				"type": "message", "id": fmt.Sprint("m", i), "message": map[string]any{"role": "user", "content": "zebra"}}})
		}
		load, _ := json.Marshal(map[string]any{"sessions": sessions, "events": events})
		s := serveFixture(t, server.Options{}, string(file), string(load))
		for i, g := range grants {
			token := fmt.Sprintf("grant-token-%02d-%04d", i, forest)
			for range 6 {
				body, asked := randomBody(rng, g)
				var want []string
				for _, k := range keys {
					inGrant := visibilitymodel.Visible(g, rows, k)
					if visibilitymodel.VisibleWithin(asked, g, rows, k) {
						want = append(want, k)
					} else if inGrant {
						narrowed++
					} else {
						hidden++
					}
				}
				slices.Sort(want)
				body["query"], body["limit"] = "zebra", 25
				js, _ := json.Marshal(body)
				reads++
				if got := s.hits(t, token, string(js)); !slices.Equal(got, want) {
					t.Fatalf("grant %+v, body %s: found %q, want %q\nrows: %+v", g, js, got, want, rows)
				}
				delete(body, "query")
				delete(body, "limit")
				target := keys[rng.IntN(len(keys))]
				body["sessionKey"] = target
				js, _ = json.Marshal(body)
				wantStatus := 404
				if slices.Contains(want, target) {
					wantStatus = 200
				}
				if st, out := s.do(t, token, "POST", "/v1/history", string(js)); st != wantStatus {
					t.Fatalf("grant %+v, history %s: %d %s, want %d\nrows: %+v", g, js, st, out, wantStatus, rows)
				}
			}
		}
	}
	t.Logf("%d reads: %d sessions the grant hides, %d the body narrowed away", reads, hidden, narrowed)
	if hidden < 100 || narrowed < 100 {
		t.Errorf("the generator is too narrow: %d hidden, %d narrowed", hidden, narrowed)
	}
}
