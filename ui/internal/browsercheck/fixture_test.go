package browsercheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The store the page is tested on: sessions of several agents and
// projects, linked, over several days, in several scripts, and one of
// hostile text; each has the word "zebra".

// The tokens of the tests.
const (
	tokOperator = "operator-token-0123456789abcdef" // agent:main:main, all, every agent; may write
	tokOps      = "ops-token-0123456789abcdef012"   // agent:ops:main, agent: sees only ops
	tokTree     = "tree-token-0123456789abcdef01"   // the Claude Code session, tree: itself and its sub-agent
)

const (
	keyMain     = "agent:main:main"
	keyClaude   = "agent:claude-code:5b1e0c2a-1111-4222-8333-944445555666"
	keySub      = keyClaude + ":subagent:a77"
	keyCodex    = "agent:codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	keyScripts  = "agent:main:scripts"
	keyHostile  = "agent:main:hostile"
	keyOps      = "agent:ops:main"
	keyIncog    = "agent:main:incognito-7f3a"
	claudeCwd   = "/home/ana/src/app"
	codexCwd    = "/home/ana/src/api"
	claudeLong  = 90 // messages of the Claude Code session
	claudeHitAt = 40 // the message of it with "quetzal"
)

// hostile are texts a transcript may hold to attack the page.
var hostile = []string{
	`<script>window.__pwned = 1</script> zebra script`,
	`<img src=x onerror="window.__pwned = 2"> zebra image`,
	`[click me](javascript:window.__pwned=3) zebra javascript:alert(1) link`,
	`<a href="javascript:window.__pwned=4">zebra anchor</a>`,
	"zebra \u202Eexe.txt\u202C and \u2066isolated\u2069 bidi",
	"zebra \x1b[31mred\x1b[0m escape",
	`<style>body{display:none}</style> zebra style`,
	`zebra token ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8 secret`,
}

// scripts are texts of several scripts, by name.
var scripts = map[string]string{
	"hebrew":     "שלום, הזברה בגן החיות zebra היום",
	"arabic":     "أين الحمار الوحشي؟ zebra في الحديقة",
	"chinese":    "斑马在东京动物园里 zebra",
	"japanese":   "シマウマは東京の動物園にいます zebra",
	"thai":       "ม้าลายอยู่ในสวนสัตว์ zebra",
	"devanagari": "ज़ेबरा चिड़ियाघर में है zebra",
	"long":       "zebra " + strings.Repeat("supercalifragilistic", 40),
}

var scriptOrder = []string{"hebrew", "arabic", "chinese", "japanese", "thai", "devanagari", "long"}

const tokensJSON = `{"tokens":[
 {"token":"` + tokOperator + `","caller":"agent:main:main","visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]},"write":true},
 {"token":"` + tokOps + `","caller":"agent:ops:main","visibility":"agent"},
 {"token":"` + tokTree + `","caller":"` + keyClaude + `"}
]}`

// day is a time of March 2026 in UTC.
func day(d, hour, minute int) int64 {
	return time.Date(2026, 3, d, hour, minute, 0, 0, time.UTC).UnixMilli()
}

type fixtureSession struct {
	key, spawnedBy, cwd string
	created             int64
	messages            []fixtureMessage
}

type fixtureMessage struct {
	id, role, text string
	at             int64
}

func fixtureSessions() []fixtureSession {
	claude := fixtureSession{key: keyClaude, cwd: claudeCwd, created: day(10, 9, 0)}
	for i := range claudeLong {
		m := fixtureMessage{id: fmt.Sprintf("c%02d", i), role: []string{"user", "assistant"}[i%2],
			text: fmt.Sprintf("step %d of the parser refactor", i), at: day(10, 9, 0) + int64(i)*60000}
		switch i {
		case 0:
			m.text = "Why does the zebra parser crash on empty input?"
		case 1:
			m.text = "The zebra parser reads past the end of the buffer when the input is empty."
		case claudeHitAt - 2:
			m.role, m.text = "toolResult", "go test ./parser\n--- FAIL: TestEmpty (0.00s)\npanic: runtime error: index out of range [0] with length 0"
		case claudeHitAt:
			m.text = "the quetzal check now runs before the zebra parser"
		}
		claude.messages = append(claude.messages, m)
	}
	var hostileMessages []fixtureMessage
	for i, h := range hostile {
		hostileMessages = append(hostileMessages, fixtureMessage{fmt.Sprintf("h%d", i), "user", h, day(18, 10, i)})
	}
	var scriptMessages []fixtureMessage
	for i, name := range scriptOrder {
		scriptMessages = append(scriptMessages, fixtureMessage{name, []string{"user", "assistant"}[i%2], scripts[name], day(16, 12, i)})
	}
	return []fixtureSession{
		{key: keyMain, created: day(2, 9, 0), messages: []fixtureMessage{
			{"m1", "user", "Please summarise the zebra migration plan for the warehouse.", day(2, 9, 0)},
			{"m2", "assistant", "The zebra migration moves the catalogue in three steps.", day(2, 9, 1)},
			{"m3", "user", "And the okapi migration?", day(5, 14, 0)},
		}},
		claude,
		{key: keySub, spawnedBy: keyClaude, cwd: claudeCwd, created: day(10, 9, 30), messages: []fixtureMessage{
			{"s1", "assistant", "Sub-agent report: the zebra fixtures are regenerated.", day(10, 9, 31)},
		}},
		{key: keyCodex, cwd: codexCwd, created: day(15, 8, 0), messages: []fixtureMessage{
			{"x1", "user", "The zebra endpoint answers 500 on a missing id.", day(15, 8, 0)},
			{"x2", "assistant", "It now answers 404 for a zebra it does not know.", day(15, 8, 1)},
		}},
		{key: keyScripts, created: day(16, 12, 0), messages: scriptMessages},
		{key: keyHostile, created: day(18, 10, 0), messages: hostileMessages},
		{key: keyOps, created: day(19, 7, 0), messages: []fixtureMessage{
			{"o1", "user", "Who is on the zebra rota this week?", day(19, 7, 0)},
		}},
		{key: keyIncog, created: day(20, 7, 0), messages: []fixtureMessage{
			{"i1", "user", "zebra incognito secret", day(20, 7, 0)},
		}},
	}
}

// appendBody is the POST /v1/append body of the fixture.
func appendBody() string {
	type session struct {
		SessionKey string `json:"sessionKey"`
		SpawnedBy  string `json:"spawnedBy,omitempty"`
		CreatedAt  int64  `json:"createdAt"`
	}
	type event struct {
		SessionKey string `json:"sessionKey"`
		Seq        int    `json:"seq"`
		Event      any    `json:"event"`
	}
	var body struct {
		Sessions []session `json:"sessions"`
		Events   []event   `json:"events"`
	}
	for _, s := range fixtureSessions() {
		body.Sessions = append(body.Sessions, session{s.key, s.spawnedBy, s.created})
		seq := 0
		if s.cwd != "" {
			body.Events = append(body.Events, event{s.key, seq, map[string]any{"type": "session", "version": 3,
				"id": s.key[strings.LastIndex(s.key, ":")+1:], "timestamp": time.UnixMilli(s.created).UTC().Format(time.RFC3339), "cwd": s.cwd}})
			seq++
		}
		for _, m := range s.messages {
			body.Events = append(body.Events, event{s.key, seq, map[string]any{"type": "message", "id": m.id,
				"timestamp": m.at, "message": map[string]any{"role": m.role, "content": m.text}}})
			seq++
		}
	}
	b, _ := json.Marshal(body)
	return string(b)
}

// serveFixture starts `serve` over a new database and loads the fixture
// through its API; it returns the service and the database's path.
func serveFixture(t *testing.T) (*service, string) {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(tokens, []byte(tokensJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "sessions.db")
	s, _ := start(t, "serve", "--listen", "127.0.0.1:0", "--db", db, "--tokens", tokens)
	if st, out := s.post(t, tokOperator, "/v1/append", appendBody()); st != 200 {
		t.Fatalf("loading the fixture: %d %s", st, out)
	}
	return s, db
}
