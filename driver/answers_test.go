package driver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// answers are the options of a search as people ask (docs/search.md Q31).
func answers(o driver.SearchOptions) driver.SearchOptions {
	o.Syntax, o.Match, o.Group = "query", "relaxed", "session"
	return o
}

func messageIDs(res *driver.SearchResult) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.MessageID)
	}
	return out
}

// docs/search.md Q25: phrases, OR, exclusions and prefixes in the query
// syntax; the same query read literally is text.
func TestSearchQuerySyntax(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:a", "", "the release notes are ready", "notes about the release of v2")
	w.session("agent:main:b", "", "cats and dogs", "only dogs here", "parrots")
	w.session("agent:main:c", "", "run git merge --continue after the fix", "git merge went fine")
	main := driver.Options{Caller: "agent:main:main"}
	query := driver.SearchOptions{Options: main, Syntax: "query"}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{`"release notes"`, []string{"agent:main:a#0"}},
		{`release notes`, []string{"agent:main:a#0", "agent:main:a#1"}},
		{`cats OR parrots`, []string{"agent:main:b#0", "agent:main:b#2"}},
		{`dogs -cats`, []string{"agent:main:b#1"}},
		{`parr*`, []string{"agent:main:b#2"}},
		{`-parrots`, []string{"agent:main:b#2"}}, // only exclusions: the words
		{`"release notes" OR parrots -ready`, []string{"agent:main:b#2"}},
		{`git merge --continue`, []string{"agent:main:c#0"}}, // an option is text, not an exclusion
	} {
		got := messageIDs(w.search(c.q, query))
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.q, got, c.want)
		}
	}
	// Read literally (the default), the operators are text.
	for _, q := range []string{`cats OR parrots`, `dogs -parrots`, `parr*`} {
		if got := messageIDs(w.search(q, driver.SearchOptions{Options: main})); len(got) != 0 {
			t.Errorf("literal %s found %v", q, got)
		}
	}
}

// docs/search.md Q26–Q29: a question finds the messages that answer it,
// whole matches first, then other word forms, then some of the words, the
// rarer words counting more; each result says how it matched.
func TestSearchRelaxed(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:trip", "",
		"We booked flights to Lisbon for the conference",
		"Noted: Lisbon, and a hotel near the venue",
		"the weather is nice today")
	w.session("agent:main:other", "",
		"book the flight to Lisbon",
		"the weather tomorrow",
		"the weather again, and a flight")
	main := driver.Options{Caller: "agent:main:main"}
	relaxed := driver.SearchOptions{Options: main, Syntax: "query", Match: "relaxed"}
	q := "When did we book the flight to Lisbon?"
	if res := w.search(q, driver.SearchOptions{Options: main}); len(res.Results) != 0 {
		t.Fatalf("the literal search found %v", messageIDs(res))
	}
	res := w.search(q, relaxed)
	got := map[string]driver.SearchHit{}
	for _, r := range res.Results {
		got[r.MessageID] = r
	}
	want := []struct {
		id, match string
		words     []string
	}{
		{"agent:main:other#0", "all", nil},
		{"agent:main:trip#0", "forms", []string{"book", "flight", "Lisbon"}},
		{"agent:main:trip#1", "some", []string{"Lisbon"}},
		{"agent:main:other#2", "some", []string{"flight"}},
	}
	for i, wnt := range want {
		r, ok := got[wnt.id]
		if !ok {
			t.Fatalf("%s not found: %+v", wnt.id, res.Results)
		}
		if r.Match != wnt.match || !slices.Equal(r.Words, wnt.words) {
			t.Errorf("%s: match %q words %v, want %q %v", wnt.id, r.Match, r.Words, wnt.match, wnt.words)
		}
		// The last two tie (one word each, of equal weight): either order.
		if i < 2 && res.Results[i].MessageID != wnt.id {
			t.Errorf("result %d is %s, want %s (order %v)", i, res.Results[i].MessageID, wnt.id, messageIDs(res))
		}
	}
	// Messages with only stopwords of the question are not hits.
	for _, id := range []string{"agent:main:trip#2", "agent:main:other#1"} {
		if _, ok := got[id]; ok {
			t.Errorf("%s holds only stopwords of the question, found: %+v", id, got[id])
		}
	}
	// The snippet shows the word forms it matched.
	if s := got["agent:main:trip#0"].Snippet; !strings.Contains(s, "booked flights") {
		t.Errorf("snippet %q", s)
	}
	// A rare word outweighs a common one: "venue" is in one message,
	// "weather" in three.
	res = w.search("weather venue", relaxed)
	if len(res.Results) == 0 || res.Results[0].MessageID != "agent:main:trip#1" {
		t.Errorf("weather venue: %v, want the venue message first", messageIDs(res))
	}
	// Excluded terms are excluded from every tier.
	res = w.search("flight Lisbon -hotel", relaxed)
	for _, r := range res.Results {
		if strings.Contains(r.Snippet, "hotel") {
			t.Errorf("-hotel found %s", r.MessageID)
		}
	}
	// match all (the default) carries no match field and no relaxed hits.
	res = w.search("flight Lisbon", driver.SearchOptions{Options: main, Syntax: "query"})
	if ids := messageIDs(res); len(ids) != 1 || ids[0] != "agent:main:other#0" || res.Results[0].Match != "" {
		t.Errorf("match all: %+v", res.Results)
	}
}

// docs/store.md S36: a connection keeps what weighing words and finding
// their forms read while the database is unchanged; a message written
// after, on any connection, is weighed and found by the next search.
func TestSearchRelaxedAfterWrite(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:a", "", "book the flight to Lisbon", "the weather tomorrow")
	relaxed := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}, Syntax: "query", Match: "relaxed"}
	q := "booking flights"
	if got := messageIDs(w.search(q, relaxed)); !slices.Equal(got, []string{"agent:main:a#0"}) {
		t.Fatalf("before: %v, want the first message, by its forms", got)
	}
	// New forms of both words, and a message holding both as written.
	w.session("agent:main:b", "", "booking flights for May", "flights booked")
	res := w.search(q, relaxed)
	if got := messageIDs(res); len(got) != 3 || got[0] != "agent:main:b#0" {
		t.Fatalf("after: %v, want agent:main:b#0 first of 3", got)
	}
	if r := res.Results[0]; r.Match != "all" {
		t.Errorf("agent:main:b#0: match %q, want all", r.Match)
	}
	for _, r := range res.Results[1:] {
		if r.Match != "forms" {
			t.Errorf("%s: match %q, want forms (booked and flight are forms found after the write)", r.MessageID, r.Match)
		}
	}
}

// docs/search.md Q30: results by session; the limit counts sessions, each
// with at most perSession hits; a session whose messages together hold the
// question comes first; near-identical hits fold into one with repeats.
func TestSearchGroupSession(t *testing.T) {
	w := newWorld(t)
	var beats []string
	for i := range 6 {
		beats = append(beats, fmt.Sprintf("heartbeat check at 0%d:00, all systems nominal", i))
	}
	w.session("agent:main:cron", "", beats...)
	w.session("agent:main:answer", "", "the heartbeat of the deploy pipeline", "the pipeline failed at the migration step", "we fixed the migration")
	w.session("agent:main:one", "", "the migration guide")
	main := driver.Options{Caller: "agent:main:main"}
	opts := answers(driver.SearchOptions{Options: main, Limit: 2, PerSession: 2})
	res := w.search("pipeline migration heartbeat", opts)
	var sessions []string
	perSession := map[string]int{}
	for _, r := range res.Results {
		if !slices.Contains(sessions, r.SessionKey) {
			sessions = append(sessions, r.SessionKey)
		}
		perSession[r.SessionKey]++
		if r.SessionScore <= 0 {
			t.Errorf("%s has no session score", r.MessageID)
		}
	}
	if len(sessions) != 2 || sessions[0] != "agent:main:answer" || !res.Truncated {
		t.Fatalf("sessions %v truncated %v, want agent:main:answer first, 2 of 3", sessions, res.Truncated)
	}
	for k, n := range perSession {
		if n > 2 {
			t.Errorf("%s shows %d hits, perSession 2", k, n)
		}
	}
	// The heartbeats differ only in a time: one hit of each role (the
	// world alternates them), with two repeats each.
	res = w.search("heartbeat nominal", answers(driver.SearchOptions{Options: main, SessionKey: "agent:main:cron"}))
	if len(res.Results) != 2 || res.Results[0].Repeats != 2 || res.Results[1].Repeats != 2 || res.Results[0].Role == res.Results[1].Role {
		t.Errorf("heartbeats: %+v", res.Results)
	}
	// Messages are not folded without grouping.
	res = w.search("heartbeat nominal", driver.SearchOptions{Options: main, SessionKey: "agent:main:cron", Syntax: "query", Match: "relaxed"})
	if len(res.Results) != 6 {
		t.Errorf("message results folded: %d of 6", len(res.Results))
	}
	// order recent: the session with the newest hit first.
	res = w.search("migration", answers(driver.SearchOptions{Options: main, Order: "recent"}))
	if len(res.Results) == 0 || res.Results[0].SessionKey != "agent:main:answer" {
		t.Errorf("recent: %v", keys(res))
	}
}

// docs/search.md Q32: role, agent, kind and exclude filter before the limit.
func TestSearchFilters(t *testing.T) {
	w := newWorld(t)
	w.session("agent:main:main", "", "plum question", "plum answer")
	w.session("agent:main:subagent:s1", "agent:main:main", "plum in a sub-agent")
	w.session("agent:main:cron:nightly", "", "plum at night")
	w.session("agent:ops:main", "", "plum for ops")
	all := driver.Options{Caller: "agent:main:main", Visibility: "all", AgentToAgent: driver.AgentToAgent{Enabled: true, Allow: []string{"*"}}}
	sorted := func(res *driver.SearchResult) []string {
		ids := messageIDs(res)
		slices.Sort(ids)
		return ids
	}
	for _, c := range []struct {
		name string
		opts driver.SearchOptions
		want []string
	}{
		{"role user", driver.SearchOptions{Role: "user"}, []string{"agent:main:cron:nightly#0", "agent:main:main#0", "agent:main:subagent:s1#0", "agent:ops:main#0"}},
		{"role assistant", driver.SearchOptions{Role: "assistant"}, []string{"agent:main:main#1"}},
		{"agent", driver.SearchOptions{Agent: []string{"OPS"}}, []string{"agent:ops:main#0"}},
		{"kind spawned", driver.SearchOptions{Kind: []string{"spawned"}}, []string{"agent:main:subagent:s1#0"}},
		{"kind automated", driver.SearchOptions{Kind: []string{"automated"}}, []string{"agent:main:cron:nightly#0"}},
		{"kind main", driver.SearchOptions{Kind: []string{"main"}}, []string{"agent:main:main#0", "agent:main:main#1", "agent:ops:main#0"}},
		{"exclude", driver.SearchOptions{Exclude: []string{"agent:main:main", "agent:ops:main"}}, []string{"agent:main:cron:nightly#0", "agent:main:subagent:s1#0"}},
		{"limit after filters", driver.SearchOptions{Kind: []string{"automated", "spawned"}, Limit: 2}, []string{"agent:main:cron:nightly#0", "agent:main:subagent:s1#0"}},
	} {
		c.opts.Options = all
		for _, mode := range []string{"literal", "answers"} {
			opts := c.opts
			if mode == "answers" {
				opts = answers(opts)
				opts.PerSession = 3
			}
			res := w.search("plum", opts)
			if got := sorted(res); !slices.Equal(got, c.want) || res.Truncated {
				t.Errorf("%s (%s): %v truncated %v, want %v", c.name, mode, got, res.Truncated, c.want)
			}
		}
	}
	// A filter never widens visibility.
	res := w.search("plum", driver.SearchOptions{Options: driver.Options{Caller: "agent:main:subagent:s1"}, Agent: []string{"ops"}})
	if len(res.Results) != 0 {
		t.Errorf("agent filter widened visibility: %v", messageIDs(res))
	}
}
