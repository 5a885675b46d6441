package browsercheck

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// signIn opens the page of s and signs in with token through its form.
func signIn(t *testing.T, s *service, path, token string) *tab {
	t.Helper()
	tb := open(t, s.url+path)
	tb.wait(`!document.getElementById('signin').hidden`)
	tb.do(chromedp.SendKeys(chromedp.ID("token"), token), chromedp.Click(chromedp.CSS("#signin-form button")))
	tb.wait(`!document.getElementById('search').hidden && document.getElementById('who').textContent !== ''`)
	return tb
}

// search types a query into the search box and waits for its results.
func (tb *tab) search(query string) {
	tb.t.Helper()
	tb.do(chromedp.Focus(chromedp.ID("q")))
	tb.eval(`document.getElementById('q').select()`, nil)
	tb.key(query)
	tb.waitResults(query)
}

// waitResults waits until the results of the query are drawn.
func (tb *tab) waitResults(query string) {
	tb.t.Helper()
	tb.wait(`document.getElementById('results').dataset.query === ` + jsString(query) +
		` && /\d+ results?\b|No results/.test(document.getElementById('status').textContent)`)
}

// choose sets a filter as a person does, and waits for the results.
func (tb *tab) choose(id, value string) {
	tb.t.Helper()
	tb.wait(`[...document.getElementById(` + jsString(id) + `).options || [1]].some(o => o === 1 || o.value === ` + jsString(value) + `)`)
	tb.eval(`(() => { const e = document.getElementById(`+jsString(id)+`); if (e.type === 'checkbox') e.checked = `+jsString(value)+` === 'on'; else e.value = `+jsString(value)+`;
		document.getElementById('status').textContent = ''; e.dispatchEvent(new Event('input', {bubbles: true})); })()`, nil)
	tb.wait(`/\d+ results?\b|No results/.test(document.getElementById('status').textContent)`)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hitSessions are the session keys of the results shown.
func (tb *tab) hitSessions() []string {
	tb.t.Helper()
	var keys []string
	tb.eval(`[...new Set([...document.querySelectorAll('#results a.hit')].map(a => a.dataset.session))].sort()`, &keys)
	return keys
}

func sorted(keys ...string) []string {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return keys
}

// TestSignInAndSearch: without a token the page asks for one and shows
// nothing else; a wrong token is refused; with the operator's the search
// runs as the person types, marks the matched words and never shows an
// incognito session; signing out forgets the token (docs/ui.md U1, U4).
func TestSignInAndSearch(t *testing.T) {
	s, _ := serveFixture(t)
	tb := open(t, s.url+"/")
	tb.wait(`!document.getElementById('signin').hidden`)
	var hidden bool
	tb.eval(`document.getElementById('results-view').hidden && document.getElementById('search').hidden`, &hidden)
	if !hidden {
		t.Error("the search is shown before signing in")
	}
	tb.accessible("sign-in form")
	tb.do(chromedp.SendKeys(chromedp.ID("token"), "not-a-token-0123456789"), chromedp.Click(chromedp.CSS("#signin-form button")))
	tb.wait(`document.getElementById('signin-error').textContent.includes('did not accept')`)
	tb.do(chromedp.SendKeys(chromedp.ID("token"), tokOperator), chromedp.Click(chromedp.CSS("#signin-form button")))
	tb.wait(`document.getElementById('who').textContent.includes('agent:main:main')`)
	if who := tb.str(`document.getElementById('who').textContent`); who != "Searching as agent:main:main, visibility all" {
		t.Errorf("who: %q", who)
	}
	tb.search("zebr")
	want := sorted(keyMain, keyClaude, keySub, keyCodex, keyScripts, keyHostile, keyOps)
	if got := tb.hitSessions(); !slices.Equal(got, want) {
		t.Errorf("the operator's search for zebr* finds %v, want %v", got, want)
	}
	var marks []string
	tb.eval(`[...document.querySelectorAll('#results mark')].map(m => m.textContent.toLowerCase())`, &marks)
	if len(marks) == 0 {
		t.Fatal("no word is marked")
	}
	for _, m := range marks {
		if m != "zebra" {
			t.Errorf("marked %q, want only the matches of zebr*", m)
		}
	}
	if status := tb.str(`document.getElementById('status').textContent`); !strings.Contains(status, "results.") {
		t.Errorf("status: %q", status)
	}
	tb.wait(`document.querySelectorAll('#chart rect.bar').length > 0`)
	tb.shot("search-light")
	tb.accessible("search results")
	tb.do(chromedp.Click(chromedp.ID("signout")))
	tb.wait(`!document.getElementById('signin').hidden`)
	var stored bool
	tb.eval(`sessionStorage.getItem('sessionsearch.token') !== null`, &stored)
	if stored {
		t.Error("the token is still stored after signing out")
	}
}

// TestTokenThatSeesLess: a token whose grant sees less gets less in every
// part of the page: results, the picture's agents, a session named in the
// address (docs/ui.md U1).
func TestTokenThatSeesLess(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/", tokOps)
	tb.search("zebra")
	if got := tb.hitSessions(); !slices.Equal(got, []string{keyOps}) {
		t.Errorf("the ops token finds %v, want only %s", got, keyOps)
	}
	tb.wait(`document.querySelectorAll('#chart rect.bar').length > 0`)
	var legend []string
	tb.eval(`[...document.querySelectorAll('#legend li')].map(l => l.textContent)`, &legend)
	if !slices.Equal(legend, []string{"ops"}) {
		t.Errorf("the picture's agents: %v, want only ops", legend)
	}
	var agents []string
	tb.eval(`[...document.getElementById('project').options].map(o => o.value)`, &agents)
	if len(agents) != 1 {
		t.Errorf("the ops token is offered projects it cannot see: %v", agents)
	}

	hidden := signIn(t, s, "/?session="+url.QueryEscape(keyClaude), tokOps)
	hidden.wait(`document.getElementById('error').textContent.includes('no session')`)
	var shown int
	hidden.eval(`document.querySelectorAll('#messages li').length + document.querySelectorAll('#session-meta dd').length`, &shown)
	if shown != 0 {
		t.Errorf("a hidden session shows %d items", shown)
	}

	tree := signIn(t, s, "/", tokTree)
	tree.search("zebra")
	if got := tree.hitSessions(); !slices.Equal(got, sorted(keyClaude, keySub)) {
		t.Errorf("the Claude Code session's token finds %v, want itself and its sub-agent", got)
	}
}

// TestFiltersAndDeepLinks: the project, a time range, the order and the
// grouping narrow and arrange the results and the picture; the address
// holds them, and opening it again (after signing in) shows the same
// (docs/ui.md U4, U5, U7).
func TestFiltersAndDeepLinks(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/", tokOperator)
	tb.search("zebra")
	tb.choose("project", claudeCwd)
	if got := tb.hitSessions(); !slices.Equal(got, sorted(keyClaude, keySub)) {
		t.Errorf("project %s: %v", claudeCwd, got)
	}
	tb.choose("project", "")
	tb.choose("time", "range")
	tb.eval(`document.getElementById('from').value = '2026-03-15'; document.getElementById('to').value = '2026-03-16'`, nil)
	tb.choose("to", "2026-03-16")
	if got := tb.hitSessions(); !slices.Equal(got, sorted(keyCodex, keyScripts)) {
		t.Errorf("15 to 16 March: %v", got)
	}
	tb.wait(`document.getElementById('activity-caption').textContent.includes('2026-03-15') && document.getElementById('activity-caption').textContent.includes('2026-03-16')`)
	tb.choose("order", "recent")
	var times []string
	tb.eval(`[...document.querySelectorAll('#results a.hit time')].map(t => t.dateTime)`, &times)
	if !slices.IsSortedFunc(times, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("newest first: %v", times)
	}
	tb.choose("group", "on")
	var groups []string
	tb.eval(`[...document.querySelectorAll('#results > li.group h2 bdi')].map(b => b.textContent)`, &groups)
	if !slices.Equal(sorted(groups...), sorted(keyCodex, keyScripts)) {
		t.Errorf("grouped by session: %v", groups)
	}
	tb.accessible("results by session")
	tb.shot("filters-grouped")
	tb.wait(`location.search.includes('group=session') && location.search.includes('order=recent')`)
	address := tb.str(`location.pathname + location.search`)
	for _, want := range []string{"q=zebra", "time=range", "from=2026-03-15", "to=2026-03-16", "order=recent", "group=session"} {
		if !strings.Contains(address, want) {
			t.Errorf("the address %q lacks %s", address, want)
		}
	}
	again := signIn(t, s, address, tokOperator)
	again.waitResults("zebra")
	var form []string
	again.eval(`['q', 'time', 'from', 'to', 'order'].map(id => document.getElementById(id).value).concat([String(document.getElementById('group').checked)])`, &form)
	if !slices.Equal(form, []string{"zebra", "range", "2026-03-15", "2026-03-16", "recent", "true"}) {
		t.Errorf("the form after opening the address: %v", form)
	}
	again.eval(`[...document.querySelectorAll('#results > li.group h2 bdi')].map(b => b.textContent)`, &groups)
	if !slices.Equal(sorted(groups...), sorted(keyCodex, keyScripts)) {
		t.Errorf("the address's results: %v", groups)
	}
}

// TestSessionView: from the keyboard alone, / then a query, the arrow and
// Enter open a hit in its session, in context; the session shows its
// agent, project, links and the command that resumes it; earlier messages
// load on request; tool results are folded and open; copy buttons copy;
// Escape goes back (docs/ui.md U6, U8, U9, U10).
func TestSessionView(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/", tokOperator)
	origin := s.url
	tb.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{Origin: origin,
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted}); err != nil {
				return err
			}
		}
		return nil
	}))
	tb.eval(`document.activeElement.blur()`, nil)
	tb.press("/", "Slash", 191)
	var focused string
	tb.eval(`document.activeElement.id`, &focused)
	if focused != "q" {
		t.Fatalf("/ focused %q, want the search box", focused)
	}
	tb.key("quetzal")
	tb.waitResults("quetzal")
	tb.key(kb.ArrowDown)
	tb.eval(`document.activeElement.dataset.message || ''`, &focused)
	if focused != "c40" {
		t.Fatalf("the arrow focused %q, want the hit c40", focused)
	}
	tb.key(kb.Enter)
	tb.wait(`!document.getElementById('session-view').hidden && document.querySelector('#messages .hit') !== null`)
	if mark := tb.str(`document.querySelector('#messages .hit mark').textContent`); mark != "quetzal" {
		t.Errorf("the hit's mark: %q", mark)
	}
	var current bool
	tb.eval(`document.querySelector('#messages .hit').getAttribute('aria-current') === 'true' && document.activeElement.contains(document.querySelector('#messages .hit'))`, &current)
	if !current {
		t.Error("the hit is not the current, focused message")
	}
	var ids []string
	tb.eval(`[...document.querySelectorAll('#messages li')].map(li => li.id.slice(2))`, &ids)
	if !slices.Contains(ids, "c39") || !slices.Contains(ids, "c41") || slices.Contains(ids, "c00") {
		t.Errorf("the window around c40: %v", ids)
	}
	meta := tb.str(`document.getElementById('session-meta').innerText`)
	resume := "cd /home/ana/src/app && claude --resume 5b1e0c2a-1111-4222-8333-944445555666"
	for _, want := range []string{"claude-code", claudeCwd, keySub, resume} {
		if !strings.Contains(meta, want) {
			t.Errorf("the session's details lack %q:\n%s", want, meta)
		}
	}
	tb.accessible("session view")
	tb.shot("session-light")

	tb.do(chromedp.Click(chromedp.ID("earlier")))
	tb.wait(`document.getElementById('m-c00') !== null`)
	tb.wait(`document.getElementById('earlier').hidden`)

	tb.do(chromedp.Click(chromedp.CSS(`#session-meta code.resume + button`)))
	tb.wait(`document.querySelector('#session-meta code.resume + button').textContent === 'Copied'`)
	if clip := tb.str(`navigator.clipboard.readText()`); clip != resume {
		t.Errorf("the clipboard holds %q, want %q", clip, resume)
	}

	var folded bool
	tb.eval(`document.querySelector('#messages details') === null`, &folded)
	if !folded {
		t.Error("a tool result is shown without asking")
	}
	tb.do(chromedp.Focus(chromedp.ID("tools")))
	tb.key(" ")
	tb.wait(`document.querySelector('#messages details') !== null`)
	tb.eval(`!document.querySelector('#messages details').open`, &folded)
	if !folded {
		t.Error("a tool result is open before it is asked for")
	}
	tb.do(chromedp.Click(chromedp.CSS(`#messages details summary`)))
	tb.wait(`document.querySelector('#messages details').open && document.querySelector('#messages details .text').innerText.includes('panic: runtime error')`)

	tb.do(chromedp.Click(chromedp.CSS(`#session-meta a.session-link`)))
	tb.wait(`new URLSearchParams(location.search).get('session') === ` + jsString(keySub) + ` && document.getElementById('session-meta').innerText.includes('Spawned by')`)
	meta = tb.str(`document.getElementById('session-meta').innerText`)
	if !strings.Contains(meta, keyClaude) || !strings.Contains(meta, "cd /home/ana/src/app && claude --resume 5b1e0c2a-1111-4222-8333-944445555666") {
		t.Errorf("the sub-agent's details:\n%s", meta)
	}

	tb.key(kb.Escape)
	tb.wait(`!document.getElementById('results-view').hidden && document.querySelectorAll('#results a.hit').length > 0`)
	if q := tb.str(`document.getElementById('q').value`); q != "quetzal" {
		t.Errorf("back from the session, the query is %q", q)
	}
}

// TestHostileText: markup, scripts, javascript: links, bidi overrides and
// escape sequences in a transcript are shown as text; a secret is masked;
// the page's policy refuses any HTML sink (docs/ui.md U2, U3).
func TestHostileText(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/?session="+url.QueryEscape(keyHostile), tokOperator)
	tb.wait(`document.querySelectorAll('#messages li').length === 8`)
	var injected int
	tb.eval(`document.querySelectorAll('#messages script, #messages img, #messages style, #messages a, #messages iframe').length + (window.__pwned === undefined ? 0 : 100)`, &injected)
	if injected != 0 {
		t.Errorf("transcript text became markup or ran: %d", injected)
	}
	text := tb.str(`document.getElementById('messages').innerText`)
	for _, want := range []string{`<script>window.__pwned = 1</script>`, `<img src=x onerror="window.__pwned = 2">`,
		`javascript:window.__pwned=3`, `<a href="javascript:window.__pwned=4">`, `<style>body{display:none}</style>`, "[REDACTED"} {
		if !strings.Contains(text, want) {
			t.Errorf("the messages do not show %q as text", want)
		}
	}
	if strings.Contains(text, "ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8") {
		t.Error("the secret is shown")
	}
	var controls []string
	tb.eval(`[...document.querySelectorAll('#messages .ctl')].map(c => c.textContent)`, &controls)
	for _, want := range []string{"U+202E", "U+202C", "U+2066", "U+2069", "U+001B"} {
		if !slices.Contains(controls, want) {
			t.Errorf("%s is not shown as a character: %v", want, controls)
		}
	}
	var refused string
	tb.allow("TrustedHTML")
	tb.eval(`(() => { try { document.body.innerHTML = '<b>x</b>'; return 'allowed'; } catch (e) { return e.name; } })()`, &refused)
	if refused != "TypeError" {
		t.Errorf("assigning HTML to innerHTML: %s, want a TypeError from Trusted Types", refused)
	}
	tb.shot("hostile")
	tb.accessible("hostile text")

	results := signIn(t, s, "/", tokOperator)
	results.search("zebra escape")
	results.eval(`document.querySelectorAll('#results script, #results img, #results style, #results a:not(.hit):not([href^="/"])').length + (window.__pwned === undefined ? 0 : 100)`, &injected)
	if injected != 0 {
		t.Errorf("a snippet became markup or ran: %d", injected)
	}
}

// TestScripts: each message keeps its own direction, isolated from the
// page; CJK, Thai and Devanagari are marked where the search matched them;
// a long token wraps; in light and dark (docs/ui.md U11).
func TestScripts(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/?session="+url.QueryEscape(keyScripts), tokOperator)
	tb.wait(`document.querySelectorAll('#messages li').length === 7`)
	var dirs map[string]bool
	tb.eval(`Object.fromEntries([...document.querySelectorAll('#messages li')].map(li => [li.id.slice(2), li.querySelector('.text').matches(':dir(rtl)')]))`, &dirs)
	for name, rtl := range dirs {
		if want := name == "hebrew" || name == "arabic"; rtl != want {
			t.Errorf("%s: right-to-left %v, want %v", name, rtl, want)
		}
	}
	var overflow bool
	tb.eval(`(() => { const e = document.querySelector('#m-long .text'); return e.scrollWidth > e.clientWidth + 1; })()`, &overflow)
	if overflow {
		t.Error("the long token does not wrap")
	}
	tb.shot("scripts-light")
	tb.scheme("dark")
	tb.shot("scripts-dark")
	tb.scheme("light")

	for _, c := range []struct{ query, mark string }{{"東京", "東京"}, {"สวนสัตว์", "สวนสัตว์"}, {"चिड़ियाघर", "चिड़ियाघर"}, {"זברה", ""}, {"הזברה", "הזברה"}} {
		results := signIn(t, s, "/?q="+url.QueryEscape(c.query), tokOperator)
		results.waitResults(c.query)
		var marks []string
		results.eval(`[...document.querySelectorAll('#results mark')].map(m => m.textContent)`, &marks)
		for _, m := range marks {
			if m != c.mark {
				t.Errorf("%s: marked %q, want %q", c.query, m, c.mark)
			}
		}
		if (len(marks) > 0) != (c.mark != "") {
			t.Errorf("%s: marks %q, want %q", c.query, marks, c.mark)
		}
	}
}

// TestThemes: the page follows the system's light or dark scheme.
func TestThemes(t *testing.T) {
	s, _ := serveFixture(t)
	tb := signIn(t, s, "/?q=zebra", tokOperator)
	tb.waitResults("zebra")
	tb.wait(`document.querySelectorAll('#chart rect.bar').length > 0`)
	backgrounds := map[string]string{}
	for _, scheme := range []string{"dark", "light"} {
		tb.scheme(scheme)
		backgrounds[scheme] = tb.str(`getComputedStyle(document.body).backgroundColor`)
		tb.shot("search-" + scheme)
		tb.accessible("search results, " + scheme)
	}
	if backgrounds["light"] != "rgb(255, 255, 255)" || backgrounds["dark"] != "rgb(13, 17, 23)" {
		t.Errorf("backgrounds: %v", backgrounds)
	}
	tb.scheme("dark")
	tb.do(chromedp.Click(chromedp.CSS("#results a.hit")))
	tb.wait(`document.querySelector('#messages .hit') !== null`)
	tb.shot("session-dark")
	tb.accessible("session view, dark")
}

// TestUICommand: `sessionsearch ui` prints an address whose fragment holds
// its token; the page signs in with it, takes it out of the address, and
// searches as the command's caller; without the token the API refuses
// (docs/cli.md C24, C25).
func TestUICommand(t *testing.T) {
	_, db := serveFixture(t)
	ui, address := start(t, "ui", "--db", db)
	if !strings.HasPrefix(address, ui.url+"/#token=") {
		t.Fatalf("ui printed %q", address)
	}
	tb := open(t, address)
	tb.wait(`document.getElementById('who').textContent !== ''`)
	if hash := tb.str(`location.hash`); hash != "" {
		t.Errorf("the token is still in the address: %q", hash)
	}
	if who := tb.str(`document.getElementById('who').textContent`); who != "Searching as agent:main:main, visibility all" {
		t.Errorf("who: %q", who)
	}
	tb.search("zebra")
	if got := tb.hitSessions(); len(got) != 7 {
		t.Errorf("the operator finds %v", got)
	}
	if st, _ := ui.post(t, "", "/v1/search", `{"query":"zebra"}`); st != 401 {
		t.Errorf("a search without the token: %d", st)
	}
	if st, _ := ui.post(t, tokOperator, "/v1/search", `{"query":"zebra"}`); st != 401 {
		t.Errorf("a search with another token: %d", st)
	}
	token := strings.TrimPrefix(address, ui.url+"/#token=")
	if st, _ := ui.post(t, token, "/v1/append", `{"sessions":[{"sessionKey":"agent:main:x"}]}`); st != 403 {
		t.Errorf("an append with the page's token: %d, want 403", st)
	}

	ops, opsAddress := start(t, "ui", "--db", db, "--caller", keyOps, "--visibility", "agent")
	_ = ops
	narrow := open(t, opsAddress)
	narrow.wait(`document.getElementById('who').textContent !== ''`)
	narrow.search("zebra")
	if got := narrow.hitSessions(); !slices.Equal(got, []string{keyOps}) {
		t.Errorf("ui --caller %s finds %v", keyOps, got)
	}

	out, err := exec.Command(binary, "ui", "--db", db, "--listen", "0.0.0.0:0").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "--listen must be a loopback address") {
		t.Errorf("ui --listen 0.0.0.0:0: status %d, %s", code, out)
	}
}

func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestToolScope: the scope control searches tool calls and results when
// asked; on a store that does not index them the page shows the server's
// refusal, which names the switch; once `import --tools` has switched it
// on (while serve runs), a tool hit says what it is and which tool, opens
// its session with the tools shown, and the scope is in the address
// (docs/ui.md U13, U14; docs/serve.md H27).
func TestToolScope(t *testing.T) {
	s, db := serveFixture(t)
	tb := signIn(t, s, "/", tokOperator)
	tb.wait(`!document.getElementById('scope-filter').hidden`)
	tb.search("runtime")
	if got := tb.hitSessions(); len(got) != 0 {
		t.Errorf("messages alone: %v", got)
	}
	tb.eval(`(() => { const e = document.getElementById('scope'); e.value = 'toolResults'; e.dispatchEvent(new Event('input', {bubbles: true})); })()`, nil)
	tb.wait(`document.getElementById('error').textContent.includes('sessionsearch_tool_index(1)')`)

	// A person imports a transcript with --tools: the store indexes the
	// tool text it had and the new transcript's.
	dir := t.TempDir()
	transcript := strings.Join([]string{
		`{"type":"session","version":3,"id":"7d1c2b3a-0000-4000-8000-000000000001","timestamp":"2026-03-21T08:00:00Z","cwd":"/home/ana/src/app"}`,
		`{"type":"message","id":"k1","parentId":null,"timestamp":1774080000000,"message":{"role":"user","content":"run the tests"}}`,
		`{"type":"message","id":"k2","parentId":"k1","timestamp":1774080001000,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"go test ./runtime/..."}}]}}`,
		`{"type":"message","id":"k3","parentId":"k2","timestamp":1774080002000,"message":{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":[{"type":"text","text":"ok  runtime/sched 0.2s"}]}}`,
	}, "\n") + "\n"
	file := filepath.Join(dir, "7d1c2b3a-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(file, []byte(transcript), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binary, "import", "--db", db, "--tools", file).CombinedOutput(); err != nil {
		t.Fatalf("import --tools: %v\n%s", err, out)
	}
	tb.choose("order", "recent")
	tb.waitResults("runtime")
	if e := tb.str(`document.getElementById('error').textContent`); e != "" {
		t.Errorf("an error after switching on: %q", e)
	}
	var heads []string
	tb.eval(`[...document.querySelectorAll('#results a.hit')].map(a => a.dataset.message + ' ' + a.querySelector('.role').textContent)`, &heads)
	if !slices.Equal(heads, []string{"k3 tool result exec", "c38 tool result "}) {
		t.Errorf("tool results: %q", heads)
	}
	tb.choose("scope", "toolCalls")
	tb.eval(`[...document.querySelectorAll('#results a.hit')].map(a => a.dataset.message + ' ' + a.querySelector('.role').textContent)`, &heads)
	if !slices.Equal(heads, []string{"k2 tool call exec"}) {
		t.Errorf("tool calls: %q", heads)
	}
	tb.choose("scope", "all")
	tb.eval(`[...document.querySelectorAll('#results a.hit')].map(a => a.dataset.message)`, &heads)
	if !slices.Equal(heads, []string{"k3", "k2", "c38"}) {
		t.Errorf("messages and tools: %q", heads)
	}
	tb.accessible("tool hits")
	tb.shot("tool-scope")
	address := tb.str(`location.pathname + location.search`)
	if !strings.Contains(address, "scope=all") {
		t.Errorf("the address %q lacks the scope", address)
	}

	// A tool hit opens its session with the tools shown, at the hit.
	tb.do(chromedp.Click(chromedp.CSS(`#results a.hit[data-message="c38"]`)))
	tb.wait(`!document.getElementById('session-view').hidden && document.getElementById('tools').checked && document.querySelector('#messages .hit') !== null`)
	if id := tb.str(`document.querySelector('#messages .hit').closest('li').id`); id != "m-c38" {
		t.Errorf("the tool hit opened at %q", id)
	}
	var open bool
	tb.eval(`document.querySelector('#messages .hit details').open`, &open)
	if !open {
		t.Error("the tool result of the hit is folded")
	}

	again := signIn(t, s, address, tokOperator)
	again.waitResults("runtime")
	if scope := again.str(`document.getElementById('scope').value`); scope != "all" {
		t.Errorf("the scope after opening the address: %q", scope)
	}
}
