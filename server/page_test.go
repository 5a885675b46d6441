//go:build sqlite_fts5

package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/server"
	"github.com/sessionsearch/sessionsearch/ui"
)

// The endpoints the web page reads (docs/serve.md H24–H26): each answers
// what a search by the same token could show, and refuses as search does.

// projectFixture adds a session with a project directory (a header with a
// cwd) in the caller's agent, and one of Claude Code.
const projectFixture = `{"sessions":[
 {"sessionKey":"agent:main:proj","createdAt":7},
 {"sessionKey":"agent:claude-code:5b1e","createdAt":8}],
 "events":[
 {"sessionKey":"agent:main:proj","seq":0,"event":{"type":"session","version":3,"id":"proj","cwd":"/src/app/web"}},
 {"sessionKey":"agent:main:proj","seq":1,"event":{"type":"message","id":"q1","timestamp":"2026-01-02T12:00:00Z","message":{"role":"assistant","content":"zebra projword"}}},
 {"sessionKey":"agent:claude-code:5b1e","seq":0,"event":{"type":"session","version":3,"id":"5b1e","cwd":"/home/ana/my app"}},
 {"sessionKey":"agent:claude-code:5b1e","seq":1,"event":{"type":"message","id":"c1","timestamp":"2026-01-03T12:00:00Z","message":{"role":"user","content":"zebra claudeword"}}}]}`

// tokEvery is a token of the main session that sees every agent.
const tokEvery = "every-agent-token-0123456789"

func withProjects(t *testing.T) *testServer {
	tokens, err := server.ParseTokens([]byte(strings.Replace(tokensJSON, "\n]}",
		`,{"token":"`+tokEvery+`","caller":"agent:main:main","visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]}}]}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, server.Options{Tokens: tokens})
	if st, out := s.do(t, tokWriter, "POST", "/v1/append", projectFixture); st != 200 {
		t.Fatalf("append: %d %s", st, out)
	}
	return s
}

// TestMeAndOptions (H24): a token learns its own grant, and the options
// this server's search and history take.
func TestMeAndOptions(t *testing.T) {
	s := newServer(t, server.Options{})
	st, out := s.do(t, tokSelf, "GET", "/v1/me", "")
	var me map[string]any
	json.Unmarshal(out, &me)
	if st != 200 || me["authenticated"] != true || me["caller"] != "agent:main:other" || me["visibility"] != "self" {
		t.Errorf("/v1/me of the self token: %d %s", st, out)
	}
	if st, _ := s.do(t, "", "GET", "/v1/me", ""); st != 401 {
		t.Errorf("/v1/me without a token: %d", st)
	}
	st, out = s.do(t, tokSelf, "GET", "/v1/options", "")
	var schemas struct {
		Search, History struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
	}
	json.Unmarshal(out, &schemas)
	if st != 200 || schemas.Search.Properties["project"] == nil || schemas.History.Properties["messageId"] == nil || schemas.Search.Properties["messageId"] != nil {
		t.Errorf("/v1/options: %d %s", st, out)
	}
}

// TestHighlight (H25): the matches of a query in texts, as the search
// matches them, in UTF-16 code units; refusals name the field.
func TestHighlight(t *testing.T) {
	s := newServer(t, server.Options{})
	for _, c := range []struct {
		body string
		want [][][2]int
	}{
		{`{"query":"zebra","texts":["a zebra and ZEBRA","none","東京 zebra","😀 zebra",""]}`,
			[][][2]int{{{2, 7}, {12, 17}}, {}, {{3, 8}}, {{3, 8}}, {}}},
		{`{"query":"zeb","prefix":true,"texts":["zebra zeb"]}`, [][][2]int{{{0, 5}, {6, 9}}}},
		{`{"query":"zeb","texts":["zebra zeb"]}`, [][][2]int{{{6, 9}}}},
		{`{"query":"東京","texts":["東京都庁"]}`, [][][2]int{{{0, 2}}}},
		{`{"query":"zebra"}`, [][][2]int{}},
	} {
		st, out := s.do(t, tokSelf, "POST", "/v1/highlight", c.body)
		var res struct{ Matches [][][2]int }
		json.Unmarshal(out, &res)
		if st != 200 || !reflect.DeepEqual(res.Matches, c.want) {
			t.Errorf("%s: %d %s, want %v", c.body, st, out, c.want)
		}
	}
	for _, c := range []struct{ body, code, field string }{
		{`{"texts":["x"]}`, "missing_field", "query"},
		{`{"query":"  ","texts":["x"]}`, "invalid_field", "query"},
		{`{"query":"x","texts":"x"}`, "invalid_field", "texts"},
		{`{"query":"x","colour":1}`, "unknown_field", "colour"},
	} {
		st, out := s.do(t, tokSelf, "POST", "/v1/highlight", c.body)
		if e := errorOf(out); st != 400 || e.Code != c.code || e.Field != c.field {
			t.Errorf("%s: %d %s, want 400 %s %s", c.body, st, out, c.code, c.field)
		}
	}
	if st, _ := s.do(t, "", "POST", "/v1/highlight", `{"query":"x"}`); st != 401 {
		t.Errorf("without a token: %d", st)
	}
}

func errorOf(body []byte) server.Error {
	var e struct{ Error server.Error }
	json.Unmarshal(body, &e)
	return e.Error
}

// TestSessionInfo (H26): a session's agent, project, links, messages and
// resume command; a link to a session the caller may not see is left out;
// a hidden, incognito or missing session is one 404.
func TestSessionInfo(t *testing.T) {
	s := withProjects(t)
	info := func(token, key string) server.SessionInfo {
		t.Helper()
		st, out := s.do(t, token, "POST", "/v1/session", `{"sessionKey":`+quote(key)+`}`)
		if st != 200 {
			t.Fatalf("/v1/session %s: %d %s", key, st, out)
		}
		var i server.SessionInfo
		json.Unmarshal(out, &i)
		return i
	}
	task := info(tokTask, "agent:main:task1")
	if task.SpawnedBy != "" || len(task.Children) != 1 || task.Children[0] != (server.SessionLink{SessionKey: "agent:main:task1:sub", Agent: "main", Link: "spawned"}) ||
		task.Messages != 1 || task.FirstMessage == 0 || task.Resume == nil || task.Resume.Shell != "openclaw resume agent:main:task1" {
		t.Errorf("task1 as itself (tree): %+v", task)
	}
	if byMain := info(tokWriter, "agent:main:task1"); byMain.SpawnedBy != "agent:main:main" {
		t.Errorf("task1 as the main session: spawnedBy %q", byMain.SpawnedBy)
	}
	proj := info(tokWriter, "agent:main:proj")
	if proj.Project != "/src/app/web" || proj.Agent != "main" || proj.CreatedAt != 7 {
		t.Errorf("proj: %+v", proj)
	}
	claude := info(tokEvery, "agent:claude-code:5b1e")
	if claude.Resume == nil || claude.Resume.Shell != "cd '/home/ana/my app' && claude --resume 5b1e" || claude.Agent != "claude-code" {
		t.Errorf("the Claude Code session: %+v", claude)
	}
	for _, c := range []struct{ token, key string }{
		{tokTask, "agent:main:other"}, {tokWriter, "agent:main:incognito-x"}, {tokWriter, "agent:main:nothing"}, {tokWriter, "agent:ops:main"},
	} {
		st, out := s.do(t, c.token, "POST", "/v1/session", `{"sessionKey":`+quote(c.key)+`}`)
		if e := errorOf(out); st != 404 || e.Code != "not_found" || !strings.HasPrefix(e.Message, "no session "+quote(c.key)+" visible to ") {
			t.Errorf("%s: %d %s", c.key, st, out)
		}
	}
	if st, out := s.do(t, tokTask, "POST", "/v1/session", `{"sessionKey":"agent:main:task1","caller":"agent:main:main"}`); st != 403 || errorOf(out).Code != "outside_grant" {
		t.Errorf("naming another caller: %d %s", st, out)
	}
	if st, out := s.do(t, tokTask, "POST", "/v1/session", `{"sessionKey":"agent:main:other","visibility":"all"}`); st != 404 {
		t.Errorf("a tree token asking for all sees another session: %d %s", st, out)
	}
	if st, out := s.do(t, tokTask, "POST", "/v1/session", `{}`); st != 400 || errorOf(out).Field != "sessionKey" {
		t.Errorf("no sessionKey: %d %s", st, out)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestActivity (H25): messages per day and agent among those the token's
// search reads, with every filter of the search; the choices of each
// filter count with the other filters only.
func TestActivity(t *testing.T) {
	s := withProjects(t)
	activity := func(token, body string) server.Activity {
		t.Helper()
		st, out := s.do(t, token, "POST", "/v1/activity", body)
		if st != 200 {
			t.Fatalf("/v1/activity %s: %d %s", body, st, out)
		}
		var a server.Activity
		json.Unmarshal(out, &a)
		return a
	}
	day := func(d, agent string, n int64) server.ActivityDay {
		return server.ActivityDay{Day: d, Agent: agent, Messages: n}
	}
	for _, c := range []struct {
		token, body string
		days        []server.ActivityDay
		agents      []server.ActivityCount
		projects    []string
	}{
		{tokWriter, `{}`, []server.ActivityDay{day("2026-01-01", "main", 4), day("2026-01-02", "main", 1)},
			[]server.ActivityCount{{Agent: "main", Messages: 5}}, []string{"/src/app/web"}},
		{tokA2A, `{}`, []server.ActivityDay{day("2026-01-01", "main", 4), day("2026-01-01", "ops", 1), day("2026-01-02", "main", 1)},
			[]server.ActivityCount{{Agent: "main", Messages: 5}, {Agent: "ops", Messages: 1}}, []string{"/src/app/web"}},
		{tokA2A, `{"agent":"OPS"}`, []server.ActivityDay{day("2026-01-01", "ops", 1)},
			[]server.ActivityCount{{Agent: "main", Messages: 5}, {Agent: "ops", Messages: 1}}, nil},
		{tokWriter, `{"query":"taskword"}`, []server.ActivityDay{day("2026-01-01", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, nil},
		{tokWriter, `{"query":"taskw","prefix":true}`, []server.ActivityDay{day("2026-01-01", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, nil},
		{tokWriter, `{"role":"assistant"}`, []server.ActivityDay{day("2026-01-02", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, []string{"/src/app/web"}},
		{tokWriter, `{"after":"2026-01-01T12:00:00Z"}`, []server.ActivityDay{day("2026-01-02", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, []string{"/src/app/web"}},
		{tokWriter, `{"before":1767225600000}`, []server.ActivityDay{}, []server.ActivityCount{}, nil},
		{tokWriter, `{"project":"/src/"}`, []server.ActivityDay{day("2026-01-02", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, []string{"/src/app/web"}},
		{tokWriter, `{"project":"/src/ap"}`, []server.ActivityDay{}, []server.ActivityCount{}, []string{"/src/app/web"}},
		{tokWriter, `{"utcOffsetMinutes":-60}`, []server.ActivityDay{day("2025-12-31", "main", 4), day("2026-01-02", "main", 1)},
			[]server.ActivityCount{{Agent: "main", Messages: 5}}, []string{"/src/app/web"}},
		{tokSelf, `{}`, []server.ActivityDay{day("2026-01-01", "main", 1)}, []server.ActivityCount{{Agent: "main", Messages: 1}}, nil},
		{tokSandboxed, `{}`, []server.ActivityDay{day("2026-01-01", "main", 2)}, []server.ActivityCount{{Agent: "main", Messages: 2}}, nil},
	} {
		a := activity(c.token, c.body)
		var projects []string
		for _, p := range a.Projects {
			projects = append(projects, p.Project)
		}
		var total int64
		for _, d := range a.Days {
			total += d.Messages
		}
		if !reflect.DeepEqual(a.Days, c.days) || !reflect.DeepEqual(a.Agents, c.agents) || !reflect.DeepEqual(projects, c.projects) || a.Messages != total {
			t.Errorf("%s as %s: %+v, want days %v agents %v projects %v", c.body, c.token, a, c.days, c.agents, c.projects)
		}
	}
	for _, c := range []struct{ body, code, field string }{
		{`{"role":"system"}`, "invalid_field", "role"},
		{`{"utcOffsetMinutes":10000}`, "invalid_field", "utcOffsetMinutes"},
		{`{"after":"next week"}`, "invalid_field", "after"},
		{`{"after":2,"before":1}`, "invalid_field", "after"},
		{`{"query":"   "}`, "invalid_field", "query"},
		{`{"limit":3}`, "unknown_field", "limit"},
	} {
		st, out := s.do(t, tokWriter, "POST", "/v1/activity", c.body)
		if e := errorOf(out); st != 400 || e.Code != c.code || e.Field != c.field {
			t.Errorf("%s: %d %s, want 400 %s %s", c.body, st, out, c.code, c.field)
		}
	}
	// The grant is the ceiling (H2): asking for more shows no more.
	if wide, own := activity(tokTask, `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]}}`), activity(tokTask, `{}`); !reflect.DeepEqual(wide, own) || own.Messages != 2 {
		t.Errorf("a tree token asking for all: %+v, its own: %+v", wide, own)
	}
	if st, out := s.do(t, tokTask, "POST", "/v1/activity", `{"ceiling":{"visibility":"all"}}`); st != 403 || errorOf(out).Code != "outside_grant" {
		t.Errorf("setting the ceiling: %d %s", st, out)
	}
}

// TestPageRoutes: with Options.Page the page is at / and its files under
// /assets/, with the policy of docs/ui.md U2; without it / is the API's
// 404.
func TestPageRoutes(t *testing.T) {
	with := newServer(t, server.Options{Page: true})
	resp, err := http.Get(with.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != ui.ContentSecurityPolicy ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), `<script type="module" src="/assets/app.js?v=`) {
		t.Errorf("GET /: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	resp, err = http.Get(with.url + "/assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("GET /assets/app.js: %d %v", resp.StatusCode, resp.Header)
	}
	without := newServer(t, server.Options{})
	for _, u := range []string{with.url + "/v1/nothing", with.url + "/favicon.ico", without.url + "/"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s, want the API's 404", u, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
