package driver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessionsearch/sessionsearch/driver"
)

// message returns a linear user or assistant message event.
func message(id, parent, role, text string, ts int64) []byte {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	return []byte(fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%d,"message":{"role":%q,"content":%q}}`,
		id, p, ts, role, text))
}

// world is a small set of sessions for search tests.
type world struct {
	db  *driver.DB
	ctx context.Context
	t   *testing.T
}

func newWorld(t *testing.T) *world {
	db, ctx := openStore(t)
	return &world{db, ctx, t}
}

func (w *world) session(key, spawnedBy string, texts ...string) {
	w.t.Helper()
	if err := w.db.AddSession(w.ctx, driver.Session{Key: key, SpawnedBy: spawnedBy}); err != nil {
		w.t.Fatal(err)
	}
	prev := ""
	for i, text := range texts {
		id := fmt.Sprintf("%s#%d", key, i)
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		if _, err := w.db.Append(w.ctx, key, message(id, prev, role, text, int64(1_770_000_000_000+i*1000))); err != nil {
			w.t.Fatal(err)
		}
		prev = id
	}
}

func (w *world) search(query string, opts driver.SearchOptions) *driver.SearchResult {
	w.t.Helper()
	res, err := w.db.Search(w.ctx, query, opts)
	if err != nil {
		w.t.Fatalf("search %q: %v", query, err)
	}
	return res
}

func keys(res *driver.SearchResult) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.SessionKey)
	}
	return out
}

// Hidden sessions never take a result slot nor set truncated, however well
// they match.
func TestSearchHiddenSessionsNeverCounted(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:subagent:mine", "agent:main:caller", "kiwi once")
	w.session("agent:main:caller", "", "nothing here")
	for i := range 30 {
		w.session(fmt.Sprintf("agent:main:other%d", i), "", "kiwi kiwi kiwi kiwi")
		w.session(fmt.Sprintf("agent:ops:main%d", i), "", "kiwi kiwi kiwi kiwi papaya")
	}
	w.session("agent:main:dashboard:incognito-1", "agent:main:caller", "kiwi kiwi kiwi")
	res := w.search("kiwi", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:caller"}, Limit: 1})
	if got := keys(res); len(got) != 1 || got[0] != "agent:main:subagent:mine" || res.Truncated {
		t.Fatalf("results %v truncated=%v, want only the caller's subagent, not truncated", got, res.Truncated)
	}
	// The main session sees its whole agent but no other agent, and no
	// incognito session.
	res = w.search("kiwi", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}, Limit: 25})
	for _, k := range keys(res) {
		if strings.HasPrefix(k, "agent:ops:") || strings.Contains(k, "incognito") {
			t.Fatalf("agent:main:main sees %s", k)
		}
	}
	if len(res.Results) != 25 || !res.Truncated {
		t.Fatalf("%d results truncated=%v, want 25 and truncated (31 visible matches)", len(res.Results), res.Truncated)
	}
	// all + agentToAgent reaches the other agent.
	all := driver.Options{Caller: "agent:main:main", Visibility: "all",
		AgentToAgent: driver.AgentToAgent{Enabled: true, Allow: []string{"main", "o*"}}}
	if res = w.search("papaya", driver.SearchOptions{Options: all, Limit: 25}); len(res.Results) != 25 || !res.Truncated {
		t.Fatalf("visibility all with agentToAgent allow [main o*] finds %v", keys(res))
	}
	all.AgentToAgent.Allow = []string{"main"}
	if res = w.search("papaya", driver.SearchOptions{Options: all}); len(res.Results) != 0 {
		t.Fatalf("agentToAgent allow [main] finds %v", keys(res))
	}
}

func TestSearchLimitsAndErrors(t *testing.T) {
	w := newWorld(t)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40) + "kiwi " + strings.Repeat("consectetur adipiscing elit ", 40)
	for i := range 30 {
		w.session(fmt.Sprintf("agent:main:s%02d", i), "", long)
	}
	opts := func(limit, snippet, maxBytes int) driver.SearchOptions {
		return driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}, Limit: limit, SnippetChars: snippet, MaxBytes: maxBytes}
	}
	for _, limit := range []int{1, 25} {
		res := w.search("kiwi", opts(limit, 0, 0))
		if len(res.Results) != limit || !res.Truncated {
			t.Errorf("limit %d: %d results truncated=%v", limit, len(res.Results), res.Truncated)
		}
	}
	res := w.search("kiwi", opts(10, 40, 0))
	for _, r := range res.Results {
		if n := utf8.RuneCountInString(r.Snippet); n > 40 || !strings.Contains(r.Snippet, "kiwi") {
			t.Fatalf("snippet %q has %d characters, want at most 40 around kiwi", r.Snippet, n)
		}
	}
	// maxBytes drops whole results from the end and sets truncated.
	full := w.search("kiwi", opts(25, 100, 0))
	b, _ := json.Marshal(full)
	capped := w.search("kiwi", opts(25, 100, len(b)/2))
	if len(capped.Results) == 0 || len(capped.Results) >= len(full.Results) || !capped.Truncated {
		t.Fatalf("maxBytes %d kept %d of %d results, truncated=%v", len(b)/2, len(capped.Results), len(full.Results), capped.Truncated)
	}
	for i, r := range capped.Results {
		if !reflect.DeepEqual(r, full.Results[i]) {
			t.Fatalf("maxBytes changed result %d: %+v vs %+v", i, r, full.Results[i])
		}
	}
	for _, c := range []struct {
		query string
		opts  string
		want  string
	}{
		{"kiwi", `{"caller":"x","limit":0}`, "limit must be an integer 1..25, got 0"},
		{"kiwi", `{"caller":"x","limit":26}`, "limit must be an integer 1..25, got 26"},
		{"kiwi", `{"caller":"x","limt":3}`, `unknown option "limt"`},
		{"kiwi", `{"limit":3}`, `option "caller" is required`},
		{"kiwi", `{"caller":"x","order":"best"}`, `order`},
		{"kiwi", `not json`, "options must be a JSON object"},
		{"   ", `{"caller":"x"}`, "query must not be empty"},
		{strings.Repeat("a", 4097), `{"caller":"x"}`, "at most 4096 characters"},
		{"kiwi", `{"caller":"agent:main:main","sessionKey":"agent:ops:main"}`, `no session "agent:ops:main" visible`},
	} {
		var s string
		err := w.db.QueryRow(`SELECT sessions_search(?1, ?2)`, c.query, c.opts).Scan(&s)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "sessions_search") {
			t.Errorf("sessions_search(%.20q, %s): error %v, want one naming sessions_search and %q", c.query, c.opts, err, c.want)
		}
	}
}

func TestSearchOrderAndSessionFilter(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:a", "", "plum", "plum plum plum", "other")
	w.session("agent:main:b", "", "plum once in a long sentence about many other things entirely")
	main := driver.Options{Caller: "agent:main:main"}
	res := w.search("plum", driver.SearchOptions{Options: main})
	if len(res.Results) != 3 || res.Results[0].MessageID != "agent:main:a#1" {
		t.Fatalf("relevance order %+v, want the message with most plum first", res.Results)
	}
	for i := 1; i < len(res.Results); i++ {
		if res.Results[i].Score > res.Results[i-1].Score {
			t.Fatalf("scores not descending: %+v", res.Results)
		}
	}
	res = w.search("plum", driver.SearchOptions{Options: main, Order: "recent"})
	for i := 1; i < len(res.Results); i++ {
		if res.Results[i].Timestamp > res.Results[i-1].Timestamp {
			t.Fatalf("recent order not newest first: %+v", res.Results)
		}
	}
	res = w.search("plum", driver.SearchOptions{Options: main, SessionKey: "agent:main:b"})
	if got := keys(res); len(got) != 1 || got[0] != "agent:main:b" {
		t.Fatalf("sessionKey filter: %v", got)
	}
	res = w.search("plu", driver.SearchOptions{Options: main, Prefix: true})
	if len(res.Results) != 3 {
		t.Fatalf("prefix plu* found %d, want 3", len(res.Results))
	}
	res = w.search("OR plum", driver.SearchOptions{Options: main})
	if len(res.Results) != 0 {
		t.Fatalf("OR is a literal word, found %v", keys(res))
	}
}

func TestSearchIndexingFlag(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:a", "", "grape")
	conn, err := w.db.Conn(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	driver.DeferIndexing(w.ctx, conn, true)
	for _, key := range []string{"agent:main:pending", "agent:ops:pending"} {
		driver.AddSession(w.ctx, conn, driver.Session{Key: key})
		if _, err := driver.Append(w.ctx, conn, key, message("p", "", "user", "grape pending", 1)); err != nil {
			t.Fatal(err)
		}
	}
	res := w.search("grape", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}})
	if !res.Indexing || len(res.Results) != 1 {
		t.Fatalf("indexing=%v results %v, want true and only the indexed session", res.Indexing, keys(res))
	}
	res = w.search("grape", driver.SearchOptions{Options: driver.Options{Caller: "agent:ops:x", Visibility: "self"}})
	if res.Indexing {
		t.Fatal("indexing is true for a caller that sees no pending session")
	}
	if _, err := driver.Reconcile(w.ctx, conn, 1e9); err != nil {
		t.Fatal(err)
	}
	res = w.search("grape", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}})
	if res.Indexing || len(res.Results) != 2 {
		t.Fatalf("after reconcile indexing=%v results %v", res.Indexing, keys(res))
	}
}

// Secrets never reach snippets or history, wherever the window cuts.
func TestSearchRedactsSnippets(t *testing.T) {
	w := newWorld(t)
	secret := "ghp_Zq8mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8"
	texts := []string{
		"melon " + secret,
		secret + " melon",
		strings.Repeat("filler words here ", 10) + "melon token=" + secret + " " + strings.Repeat("more filler ", 10),
		"postgres://app:Xy7Qw9Zr2Lm5Np8K@db.example.com/prod melon",
	}
	for i, text := range texts {
		w.session(fmt.Sprintf("agent:main:r%d", i), "", text)
	}
	for _, chars := range []int{10, 17, 25, 40, 300} {
		res := w.search("melon", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}, SnippetChars: chars})
		if len(res.Results) != len(texts) {
			t.Fatalf("found %d of %d", len(res.Results), len(texts))
		}
		for _, r := range res.Results {
			for _, s := range []string{secret, "Xy7Qw9Zr2Lm5Np8K"} {
				for k := 0; k+8 <= len(s); k++ {
					if strings.Contains(r.Snippet, s[k:k+8]) {
						t.Fatalf("snippetChars %d: snippet %q leaks %q", chars, r.Snippet, s[k:k+8])
					}
				}
			}
		}
	}
	h, err := w.db.History(w.ctx, "agent:main:r0", driver.HistoryOptions{Options: driver.Options{Caller: "agent:main:main"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 1 || strings.Contains(h.Messages[0].Text, secret[4:12]) || !strings.Contains(h.Messages[0].Text, "[REDACTED:github-token]") {
		t.Fatalf("history %+v", h.Messages)
	}
}

func TestHistory(t *testing.T) {
	w := newWorld(t)
	const key = "agent:main:h"
	w.session(key, "", "first question", "first answer", "second question", "second answer")
	opts := driver.HistoryOptions{Options: driver.Options{Caller: "agent:main:main"}}
	h, err := w.db.History(w.ctx, key, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 4 || h.Messages[0].Text != "first question" || h.HasMore || h.Truncated {
		t.Fatalf("history %+v", h)
	}
	// A tool call alone has no text to show; its result appears only with
	// includeTools.
	w.db.Append(w.ctx, key, []byte(`{"type":"message","id":"call1","parentId":"agent:main:h#3","message":{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{}}]}}`))
	w.db.Append(w.ctx, key, []byte(`{"type":"message","id":"tool1","parentId":"call1","message":{"role":"toolResult","content":[{"type":"text","text":"tool output"}]}}`))
	h, _ = w.db.History(w.ctx, key, opts)
	if len(h.Messages) != 4 {
		t.Fatalf("without includeTools: %d messages", len(h.Messages))
	}
	opts.IncludeTools = true
	h, _ = w.db.History(w.ctx, key, opts)
	if len(h.Messages) != 5 || h.Messages[4].Role != "toolResult" || h.Messages[4].Text != "tool output" {
		t.Fatalf("with includeTools: %+v", h.Messages)
	}
	opts.IncludeTools = false
	// A rewind: the history is the active path only.
	if _, err := w.db.MoveLeaf(w.ctx, key, "agent:main:h#1"); err != nil {
		t.Fatal(err)
	}
	h, _ = w.db.History(w.ctx, key, opts)
	if len(h.Messages) != 2 || h.Messages[1].Text != "first answer" {
		t.Fatalf("after rewind: %+v", h.Messages)
	}
	// Limit and anchor.
	w.db.MoveLeaf(w.ctx, key, "agent:main:h#3")
	opts.Limit = 2
	h, _ = w.db.History(w.ctx, key, opts)
	if len(h.Messages) != 2 || h.Messages[0].Text != "second question" || !h.HasMore {
		t.Fatalf("limit 2: %+v", h)
	}
	opts.MessageID = "agent:main:h#1"
	h, _ = w.db.History(w.ctx, key, opts)
	if len(h.Messages) != 2 || h.Messages[1].ID != "agent:main:h#1" {
		t.Fatalf("anchored window: %+v", h.Messages)
	}
	// Missing and hidden sessions give the same error.
	w.session("agent:ops:secret", "", "hidden")
	_, errHidden := w.db.History(w.ctx, "agent:ops:secret", driver.HistoryOptions{Options: driver.Options{Caller: "agent:main:main"}})
	_, errMissing := w.db.History(w.ctx, "agent:ops:nothing", driver.HistoryOptions{Options: driver.Options{Caller: "agent:main:main"}})
	if errHidden == nil || errMissing == nil ||
		strings.ReplaceAll(errHidden.Error(), "secret", "X") != strings.ReplaceAll(errMissing.Error(), "nothing", "X") {
		t.Fatalf("hidden: %v, missing: %v; want the same error", errHidden, errMissing)
	}
}

// Visibility follows the sessions table, also inside the transaction that
// changes it.
func TestVisibilityFollowsChanges(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:caller", "", "nothing")
	w.session("agent:main:child", "", "quince")
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:caller"}}
	if res := w.search("quince", opts); len(res.Results) != 0 {
		t.Fatalf("an unrelated session is visible: %v", keys(res))
	}
	tx, err := w.db.BeginTx(w.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE sessions SET spawned_by = 'agent:main:caller' WHERE session_key = 'agent:main:child'`); err != nil {
		t.Fatal(err)
	}
	var js string
	if err := tx.QueryRow(`SELECT sessions_search('quince', '{"caller":"agent:main:caller"}')`).Scan(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js, "agent:main:child") {
		t.Fatalf("after spawned_by changed in the transaction: %s", js)
	}
}

// A secret cannot be found by searching for it: the index holds the
// masked text, so a search cannot confirm a guess either.
func TestSecretsAreNotSearchable(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:main", "", "deploy with ghp_R8aK2mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8 and password=hunter2secret99")
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}}
	for _, q := range []string{"ghp_R8aK2mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8", "R8aK2mT3vL9xR2wN5kP7jH4cB6dF1gS0aY3eU8", "hunter2secret99"} {
		if res := w.search(q, opts); len(res.Results) != 0 {
			t.Errorf("search %q finds the secret's message", q)
		}
	}
	opts.Prefix = true
	if res := w.search("ghp_R8aK", opts); len(res.Results) != 0 {
		t.Errorf("a prefix of the secret finds its message")
	}
	opts.Prefix = false
	if res := w.search("deploy", opts); len(res.Results) != 1 || !strings.Contains(res.Results[0].Snippet, "[REDACTED:github-token]") {
		t.Fatalf("deploy: %+v", res.Results)
	}
}

// after and before keep messages strictly inside the range, and they are
// applied before the limit: better hits outside the range take no slot and
// do not set truncated.
func TestSearchTimeRange(t *testing.T) {
	w := newWorld(t)
	// Message i is written at base + i seconds (world.session). Messages
	// 30..34 match weakly; the rest, on both sides, match strongly.
	const base = int64(1_770_000_000_000)
	texts := make([]string, 65)
	for i := range texts {
		texts[i] = "fig fig fig fig"
		if i >= 30 && i < 35 {
			texts[i] = "fig " + strings.Repeat("filler words around it ", 20)
		}
	}
	w.session("agent:main:main", "", texts...)
	w.session("agent:main:other", "", "fig fig fig fig")
	main := driver.Options{Caller: "agent:main:main"}
	ms := func(i int) time.Time { return time.UnixMilli(base + int64(i)*1000) }
	ids := func(res *driver.SearchResult) []string {
		var out []string
		for _, r := range res.Results {
			out = append(out, strings.TrimPrefix(r.MessageID, "agent:main:main#"))
		}
		slices.Sort(out)
		return out
	}

	// The bounds are the timestamps of messages 29 and 35, which are left
	// out: strictly inside.
	inside := driver.SearchOptions{Options: main, After: ms(29), Before: ms(35), Limit: 5}
	res := w.search("fig", inside)
	if got := ids(res); !slices.Equal(got, []string{"30", "31", "32", "33", "34"}) || res.Truncated {
		t.Fatalf("after message 29, before message 35: %v truncated=%v, want 30..34, not truncated", got, res.Truncated)
	}
	inside.Limit = 3
	if res = w.search("fig", inside); len(res.Results) != 3 || !res.Truncated {
		t.Fatalf("limit 3 inside the range: %v truncated=%v, want 3 and truncated", ids(res), res.Truncated)
	}
	for _, r := range res.Results {
		if r.Timestamp <= base+29_000 || r.Timestamp >= base+35_000 {
			t.Fatalf("a hit at %d is outside the range", r.Timestamp)
		}
	}
	// One millisecond wider takes the boundary messages in.
	res = w.search("fig", driver.SearchOptions{Options: main, After: ms(29).Add(-time.Millisecond), Before: ms(35).Add(time.Millisecond), Limit: 25})
	if got := ids(res); !slices.Equal(got, []string{"29", "30", "31", "32", "33", "34", "35"}) {
		t.Fatalf("one millisecond wider: %v, want 29..35", got)
	}
	// One bound alone; the newest first with a bound.
	res = w.search("fig", driver.SearchOptions{Options: main, After: ms(60), Limit: 25})
	if got := ids(res); !slices.Equal(got, []string{"61", "62", "63", "64"}) {
		t.Fatalf("after message 60: %v", got)
	}
	res = w.search("fig", driver.SearchOptions{Options: main, Before: ms(2), Limit: 25, Order: "recent"})
	if len(res.Results) != 3 || res.Results[0].MessageID != "agent:main:main#1" || res.Results[2].Timestamp != base {
		t.Fatalf("before message 2, newest first: %+v, want main#1 then the two messages at the base time", res.Results)
	}

	// The same range in SQL, as epoch milliseconds and as RFC 3339 with an
	// offset, gives the same hits as the Go API.
	want := ids(w.search("fig", driver.SearchOptions{Options: main, After: ms(29), Before: ms(35), Limit: 25}))
	for _, opts := range []string{
		fmt.Sprintf(`{"caller":"agent:main:main","limit":25,"after":%d,"before":%d}`, base+29_000, base+35_000),
		fmt.Sprintf(`{"caller":"agent:main:main","limit":25,"after":%q,"before":%q}`,
			ms(29).In(time.FixedZone("", 9*3600)).Format(time.RFC3339), ms(35).UTC().Format(time.RFC3339)),
	} {
		var js string
		if err := w.db.QueryRow(`SELECT sessions_search('fig', ?1)`, opts).Scan(&js); err != nil {
			t.Fatal(err)
		}
		var got driver.SearchResult
		if err := json.Unmarshal([]byte(js), &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(&got), want) {
			t.Errorf("%s: %v, want %v", opts, ids(&got), want)
		}
	}

	// Bad bounds are errors that name the function, the option and the value.
	for opts, want := range map[string]string{
		`{"caller":"agent:main:main","after":"7d"}`:               `sessions_search: after must be epoch milliseconds 0..253402300799999 or an RFC 3339 time like "2026-11-01T09:30:00Z", got "7d"`,
		`{"caller":"agent:main:main","before":-5}`:                `sessions_search: before must be epoch milliseconds 0..253402300799999 or an RFC 3339 time like "2026-11-01T09:30:00Z", got -5`,
		`{"caller":"agent:main:main","after":2000,"before":1000}`: `sessions_search: after must be earlier than before, got "1970-01-01T00:00:02Z" and before "1970-01-01T00:00:01Z"`,
	} {
		var js string
		err := w.db.QueryRow(`SELECT sessions_search('fig', ?1)`, opts).Scan(&js)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got error %v\nwant error %s", opts, err, want)
		}
	}
	if _, err := w.db.Search(w.ctx, "fig", driver.SearchOptions{Options: main, After: ms(5), Before: ms(5)}); err == nil ||
		!strings.Contains(err.Error(), "after must be earlier than before") {
		t.Errorf("Search with after = before: %v", err)
	}
}

// One connection keeps one visibility decision, keyed on the parsed policy:
// switching callers and options back and forth on it, through
// session_visible and sessions_search, always answers what a fresh
// connection answers, and spellings of one policy (allow patterns in
// another order or case) answer alike.
func TestVisibilityCacheNeverMixesPolicies(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:main", "", "lime")
	w.session("agent:main:child", "agent:main:main", "lime")
	w.session("agent:main:side", "", "lime")
	w.session("agent:ops:main", "", "lime")
	w.session("agent:ops:sub", "agent:ops:main", "lime")
	w.session("agent:dev:main", "", "lime")
	policies := []struct{ caller, options string }{
		{"agent:main:main", `{}`},
		{"agent:main:main", `{"visibility":"self"}`},
		{"agent:main:child", `{}`},
		{"agent:main:side", `{"visibility":"agent"}`},
		{"agent:ops:main", `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["main","ops"]}}`},
		{"agent:ops:main", `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["OPS","main","ops"]}}`},
		{"agent:ops:main", `{"visibility":"all","agentToAgent":{"enabled":true,"allow":["dev","ops"]}}`},
		{"agent:ops:main", `{"visibility":"all"}`},
		{"agent:ops:main", `{"sandboxed":true}`},
	}
	targets := []string{"agent:main:main", "agent:main:child", "agent:main:side", "agent:ops:main", "agent:ops:sub", "agent:dev:main"}
	answer := func(conn *sql.Conn, caller, options string) string {
		var b strings.Builder
		for _, target := range targets {
			var v int
			if err := conn.QueryRowContext(w.ctx, `SELECT session_visible(?1, ?2, ?3)`, caller, target, options).Scan(&v); err != nil {
				t.Fatal(err)
			}
			fmt.Fprint(&b, v)
		}
		var js string
		search := `{"caller":` + jsonString(caller) + `,` + strings.TrimPrefix(options, "{")
		if options == `{}` {
			search = `{"caller":` + jsonString(caller) + `}`
		}
		if err := conn.QueryRowContext(w.ctx, `SELECT sessions_search('lime', ?1)`, search).Scan(&js); err != nil {
			t.Fatal(err)
		}
		var res driver.SearchResult
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatal(err)
		}
		found := keys(&res)
		slices.Sort(found)
		return b.String() + " " + strings.Join(found, " ")
	}
	fresh := make([]string, len(policies))
	for i, p := range policies {
		conn, err := w.db.Conn(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		fresh[i] = answer(conn, p.caller, p.options)
		conn.Close()
	}
	if fresh[4] != fresh[5] {
		t.Errorf("allow [main ops] and [OPS main ops] answer %q and %q", fresh[4], fresh[5])
	}
	if fresh[4] == fresh[6] || fresh[0] == fresh[1] {
		t.Fatalf("the policies do not tell each other apart: %q", fresh)
	}
	conn, err := w.db.Conn(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		i := rng.IntN(len(policies))
		if got := answer(conn, policies[i].caller, policies[i].options); got != fresh[i] {
			t.Fatalf("%s %s on a used connection: %q, fresh: %q", policies[i].caller, policies[i].options, got, fresh[i])
		}
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// BenchmarkSearchCallers: sessions_search on one connection for one caller
// again and again (single) and for four callers in turn (turns), over 2,000
// sessions in four spawn trees of 500. The connection keeps the decisions of several
// policies, so taking turns should cost what a single caller costs.
func BenchmarkSearchCallers(b *testing.B) {
	db, ctx := openStore(b)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 2000)
	fruit := []string{"plum", "pear"} // one message in 5 has a plum, 100 in each tree
	for i := range keys {
		keys[i] = fmt.Sprintf("agent:a%d:s%d", i%4, i)
		spawnedBy := ""
		if i >= 4 {
			spawnedBy = keys[i%4+4*(i/8)]
		}
		if err := driver.AddSession(ctx, tx, driver.Session{Key: keys[i], SpawnedBy: spawnedBy}); err != nil {
			b.Fatal(err)
		}
		if _, err := driver.Append(ctx, tx, keys[i], message("m", "", "user", fmt.Sprintf("%s number %d", fruit[min(i%5, 1)], i), int64(i))); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	run := func(b *testing.B, callers []string) {
		opts := make([]string, len(callers))
		for i, c := range callers {
			opts[i] = `{"caller":"` + c + `","limit":5}`
		}
		i := 0
		for b.Loop() {
			var js string
			if err := conn.QueryRowContext(ctx, `SELECT sessions_search('plum', ?1)`, opts[i%len(opts)]).Scan(&js); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("single", func(b *testing.B) { run(b, keys[:1]) })
	b.Run("turns", func(b *testing.B) { run(b, keys[:4]) })
}

// docs/search.md Q19: the project is the cwd of the session's header, and
// a directory keeps itself and what is inside it, before any limit.
func TestSearchProject(t *testing.T) {
	w := newWorld(t)
	header := func(key, cwd string) {
		t.Helper()
		if err := w.db.AddSession(w.ctx, driver.Session{Key: key}); err != nil {
			t.Fatal(err)
		}
		ev := `{"type":"session","version":3,"id":"` + key + `"}`
		if cwd != "" {
			ev = `{"type":"session","version":3,"id":"` + key + `","cwd":"` + cwd + `"}`
		}
		if _, err := w.db.Append(w.ctx, key, []byte(ev)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.db.Append(w.ctx, key, message(key+"#m", "", "user", "kiwi in "+key, 1_770_000_000_000)); err != nil {
			t.Fatal(err)
		}
	}
	header("agent:a:app", "/home/ana/src/app")
	header("agent:a:web", "/home/ana/src/app/web")
	header("agent:a:apple", "/home/ana/src/apple")
	header("agent:a:nocwd", "")
	w.session("agent:a:noheader", "", "kiwi without a header")
	// A session event that is not at seq 0 is no header.
	if _, err := w.db.Append(w.ctx, "agent:a:noheader", []byte(`{"type":"session","version":3,"id":"x","cwd":"/home/ana/src/app"}`)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		header(fmt.Sprintf("agent:a:other%02d", i), "/srv/other")
	}
	all := driver.Options{Caller: "agent:a:main", Visibility: "agent"}
	for _, tt := range []struct {
		project string
		want    []string
	}{
		{"/home/ana/src/app", []string{"agent:a:app", "agent:a:web"}},
		{"/home/ana/src/app/", []string{"agent:a:app", "agent:a:web"}},
		{"/home/ana/src/app/web", []string{"agent:a:web"}},
		{"/home/ana/src/apple", []string{"agent:a:apple"}},
		{"/home/ana", []string{"agent:a:app", "agent:a:apple", "agent:a:web"}},
		{"/home/ana/src/ap", nil},
	} {
		res := w.search("kiwi", driver.SearchOptions{Options: all, Project: tt.project, Limit: 3})
		got := keys(res)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) || res.Truncated {
			t.Errorf("project %q: %v truncated=%v, want %v, not truncated", tt.project, got, res.Truncated, tt.want)
		}
	}
	if res := w.search("kiwi", driver.SearchOptions{Options: all, Project: "/", Limit: 25}); len(res.Results) != 15 {
		t.Errorf("project /: %d results, want the 15 sessions with a cwd", len(res.Results))
	}
}
