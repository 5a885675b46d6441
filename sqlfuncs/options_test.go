package sqlfuncs

import (
	"reflect"
	"strings"
	"testing"
)

func defaultSearch(caller string) SearchOptions {
	return SearchOptions{
		Options: Options{Caller: caller, Visibility: "tree", SandboxVisibility: "spawned"},
		Limit:   10, SnippetChars: 300, MaxBytes: 32768, Order: "relevance", Group: "message", PerSession: 3, Syntax: "literal", Match: "all",
	}
}

func defaultHistory(caller string) HistoryOptions {
	return HistoryOptions{
		Options: Options{Caller: caller, Visibility: "tree", SandboxVisibility: "spawned"},
		Limit:   200, MaxChars: 4000, MaxBytes: 81920,
	}
}

func TestParseSearchOptions(t *testing.T) {
	with := func(f func(*SearchOptions)) SearchOptions {
		o := defaultSearch("agent:ops:main")
		f(&o)
		return o
	}
	tests := []struct {
		name, js string
		want     SearchOptions
	}{
		{"defaults", `{"caller":"agent:ops:main"}`, defaultSearch("agent:ops:main")},
		{"white space around", " \n{ \"caller\" : \"agent:ops:main\" }\t", defaultSearch("agent:ops:main")},
		{"null values take defaults", `{"caller":"agent:ops:main","limit":null,"visibility":null,"agentToAgent":null,"order":null}`, defaultSearch("agent:ops:main")},
		{"null values with spaces", "{\"caller\":\"agent:ops:main\",\"limit\" :\n null ,\"prefix\":\ttrue }", with(func(o *SearchOptions) { o.Prefix = true })},
		{"limit 1", `{"caller":"agent:ops:main","limit":1}`, with(func(o *SearchOptions) { o.Limit = 1 })},
		{"limit 25", `{"caller":"agent:ops:main","limit":25}`, with(func(o *SearchOptions) { o.Limit = 25 })},
		{"sessionKey", `{"caller":"agent:ops:main","sessionKey":"agent:ops:x"}`, with(func(o *SearchOptions) { o.SessionKey = "agent:ops:x" })},
		{"snippetChars 1", `{"caller":"agent:ops:main","snippetChars":1}`, with(func(o *SearchOptions) { o.SnippetChars = 1 })},
		{"snippetChars 4000", `{"caller":"agent:ops:main","snippetChars":4000}`, with(func(o *SearchOptions) { o.SnippetChars = 4000 })},
		{"maxBytes 256", `{"caller":"agent:ops:main","maxBytes":256}`, with(func(o *SearchOptions) { o.MaxBytes = 256 })},
		{"maxBytes 1048576", `{"caller":"agent:ops:main","maxBytes":1048576}`, with(func(o *SearchOptions) { o.MaxBytes = 1048576 })},
		{"prefix", `{"caller":"agent:ops:main","prefix":true}`, with(func(o *SearchOptions) { o.Prefix = true })},
		{"prefix false", `{"caller":"agent:ops:main","prefix":false}`, defaultSearch("agent:ops:main")},
		{"order recent", `{"caller":"agent:ops:main","order":"recent"}`, with(func(o *SearchOptions) { o.Order = "recent" })},
		{"order relevance", `{"caller":"agent:ops:main","order":"relevance"}`, defaultSearch("agent:ops:main")},
		{"visibility self", `{"caller":"agent:ops:main","visibility":"self"}`, with(func(o *SearchOptions) { o.Visibility = "self" })},
		{"visibility agent", `{"caller":"agent:ops:main","visibility":"agent"}`, with(func(o *SearchOptions) { o.Visibility = "agent" })},
		{"visibility all", `{"caller":"agent:ops:main","visibility":"all"}`, with(func(o *SearchOptions) { o.Visibility = "all" })},
		{"sandboxed", `{"caller":"agent:ops:main","sandboxed":true}`, with(func(o *SearchOptions) { o.Sandboxed = true })},
		{"sandboxVisibility all", `{"caller":"agent:ops:main","sandboxVisibility":"all"}`, with(func(o *SearchOptions) { o.SandboxVisibility = "all" })},
		{"agentToAgent", `{"caller":"agent:ops:main","agentToAgent":{"enabled":true,"allow":["*","o*"]}}`,
			with(func(o *SearchOptions) { o.AgentToAgent = AgentToAgent{Enabled: true, Allow: []string{"*", "o*"}} })},
		{"agentToAgent with spaces", "{\"caller\":\"agent:ops:main\",\"agentToAgent\": { \"allow\" : [ \"*\" ,\n\"o*\" ] , \"enabled\" : true } }",
			with(func(o *SearchOptions) { o.AgentToAgent = AgentToAgent{Enabled: true, Allow: []string{"*", "o*"}} })},
		{"agentToAgent empty", `{"caller":"agent:ops:main","agentToAgent":{}}`, defaultSearch("agent:ops:main")},
		{"ceiling with defaults", `{"caller":"agent:ops:main","ceiling":{}}`,
			with(func(o *SearchOptions) { o.Ceiling = &Options{Visibility: "tree", SandboxVisibility: "spawned"} })},
		{"ceiling", `{"caller":"agent:ops:main","visibility":"self","ceiling":{"visibility":"all","sandboxed":true,"agentToAgent":{"enabled":true,"allow":["ops"]}}}`,
			with(func(o *SearchOptions) {
				o.Visibility = "self"
				o.Ceiling = &Options{Visibility: "all", Sandboxed: true, SandboxVisibility: "spawned", AgentToAgent: AgentToAgent{Enabled: true, Allow: []string{"ops"}}}
			})},
		{"ceiling null is none", `{"caller":"agent:ops:main","ceiling":null}`, defaultSearch("agent:ops:main")},
		{"agentToAgent allow null", `{"caller":"agent:ops:main","agentToAgent":{"enabled":true,"allow":null}}`,
			with(func(o *SearchOptions) { o.AgentToAgent.Enabled = true })},
		{"unicode caller", `{"caller":"agent:ops:\u00e9t\u00e9"}`, defaultSearch("agent:ops:été")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSearchOptions(tt.js)
			if err != nil {
				t.Fatalf("ParseSearchOptions(%s): %v", tt.js, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSearchOptions(%s)\n got %+v\nwant %+v", tt.js, got, tt.want)
			}
		})
	}
}

func TestParseHistoryOptions(t *testing.T) {
	with := func(f func(*HistoryOptions)) HistoryOptions {
		o := defaultHistory("c")
		f(&o)
		return o
	}
	tests := []struct {
		name, js string
		want     HistoryOptions
	}{
		{"defaults", `{"caller":"c"}`, defaultHistory("c")},
		{"limit 1", `{"caller":"c","limit":1}`, with(func(o *HistoryOptions) { o.Limit = 1 })},
		{"limit 1000", `{"caller":"c","limit":1000}`, with(func(o *HistoryOptions) { o.Limit = 1000 })},
		{"messageId", `{"caller":"c","messageId":"m1"}`, with(func(o *HistoryOptions) { o.MessageID = "m1" })},
		{"includeTools", `{"caller":"c","includeTools":true}`, with(func(o *HistoryOptions) { o.IncludeTools = true })},
		{"maxChars 1", `{"caller":"c","maxChars":1}`, with(func(o *HistoryOptions) { o.MaxChars = 1 })},
		{"maxChars 100000", `{"caller":"c","maxChars":100000}`, with(func(o *HistoryOptions) { o.MaxChars = 100000 })},
		{"maxBytes 256", `{"caller":"c","maxBytes":256}`, with(func(o *HistoryOptions) { o.MaxBytes = 256 })},
		{"maxBytes 4194304", `{"caller":"c","maxBytes":4194304}`, with(func(o *HistoryOptions) { o.MaxBytes = 4194304 })},
		{"common options", `{"caller":"c","visibility":"agent","sandboxed":true,"sandboxVisibility":"all","agentToAgent":{"enabled":false,"allow":[]}}`,
			with(func(o *HistoryOptions) {
				o.Visibility, o.Sandboxed, o.SandboxVisibility = "agent", true, "all"
				o.AgentToAgent.Allow = nil
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHistoryOptions(tt.js)
			if err != nil {
				t.Fatalf("ParseHistoryOptions(%s): %v", tt.js, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseHistoryOptions(%s)\n got %+v\nwant %+v", tt.js, got, tt.want)
			}
		})
	}
}

const searchKnown = "(known: caller, visibility, sandboxed, sandboxVisibility, agentToAgent, ceiling, limit, sessionKey, snippetChars, maxBytes, prefix, order, after, before, project, role, agent, kind, exclude, group, perSession, syntax, match, timePhrases, now, scope)"

func TestOptionErrors(t *testing.T) {
	search := func(js string) error { _, err := ParseSearchOptions(js); return err }
	history := func(js string) error { _, err := ParseHistoryOptions(js); return err }
	visible := func(js string) error {
		_, err := ParseVisibilityOptions("agent:ops:main", js)
		return err
	}
	long := `"` + strings.Repeat("é", 100) + `"`
	tests := []struct {
		parse func(string) error
		js    string
		want  string
	}{
		// Missing caller.
		{search, ``, `option "caller" is required`},
		{search, `null`, `option "caller" is required`},
		{search, `{}`, `option "caller" is required`},
		{search, `{"caller":null}`, `option "caller" is required`},
		{history, `  `, `option "caller" is required`},
		{search, `{"caller":""}`, `caller must be a non-empty string, got ""`},
		{search, `{"caller":1}`, `caller must be a non-empty string, got 1`},

		// Malformed JSON.
		{search, `[1]`, `options must be a JSON object: got [1]`},
		{search, `"x"`, `options must be a JSON object: got "x"`},
		{search, `42`, `options must be a JSON object: got 42`},
		{history, `{"caller":`, `options must be a JSON object: unexpected end of input`},
		{history, `{"caller":"c"`, `options must be a JSON object: unexpected end of input`},
		{search, `{"caller":"c"} x`, `options must be a JSON object: unexpected data after the object`},
		{search, `{"caller":"c"}{}`, `options must be a JSON object: unexpected data after the object`},
		{search, `{caller:"c"}`, `options must be a JSON object: invalid character 'c'`},
		{search, `{"caller":"c",}`, `options must be a JSON object: invalid character '}' looking for beginning of object key string`},
		{search, `{"caller":'c'}`, `options must be a JSON object: invalid character '\'' looking for beginning of value`},

		// Unknown and repeated names, reported before values.
		{search, `{"caller":"c","limt":3}`, `unknown option "limt" ` + searchKnown},
		{search, `{"limit":40,"Caller":"c"}`, `unknown option "Caller" ` + searchKnown},
		{search, `{"caller":"c","includeTools":true}`, `unknown option "includeTools" ` + searchKnown},
		{history, `{"caller":"c","prefix":true}`, `unknown option "prefix" (known: caller, visibility, sandboxed, sandboxVisibility, agentToAgent, ceiling, limit, messageId, includeTools, maxChars, maxBytes)`},
		{search, `{"caller":"c","limit":3,"limit":4}`, `option "limit" is given twice`},
		{search, `{"caller":"c","agentToAgent":{"x":1}}`, `unknown option "agentToAgent.x" (known: enabled, allow)`},
		{search, `{"caller":"c","agentToAgent":{"allow":[],"allow":["*"]}}`, `option "agentToAgent.allow" is given twice`},
		{search, `{"caller":"c","ceiling":"all"}`, `ceiling must be an object like {"visibility":"tree","sandboxed":true}, got "all"`},
		{search, `{"caller":"c","ceiling":{"caller":"d"}}`, `unknown option "ceiling.caller" (known: visibility, sandboxed, sandboxVisibility, agentToAgent)`},
		{history, `{"caller":"c","ceiling":{"ceiling":{}}}`, `unknown option "ceiling.ceiling" (known: visibility, sandboxed, sandboxVisibility, agentToAgent)`},
		{search, `{"caller":"c","ceiling":{"visibility":"everything"}}`, `ceiling.visibility must be "self", "tree", "agent" or "all", got "everything"`},
		{search, `{"caller":"c","ceiling":{"agentToAgent":{"allow":"*"}}}`, `ceiling.agentToAgent.allow must be an array of strings, got "*"`},
		{search, `{"caller":"c","agentToAgent":{"caller":"x"}}`, `unknown option "agentToAgent.caller" (known: enabled, allow)`},

		// Search values.
		{search, `{"caller":"c","limit":0}`, `limit must be an integer 1..25, got 0`},
		{search, `{"caller":"c","limit":26}`, `limit must be an integer 1..25, got 26`},
		{search, `{"caller":"c","limit":40}`, `limit must be an integer 1..25, got 40`},
		{search, `{"caller":"c","limit":-1}`, `limit must be an integer 1..25, got -1`},
		{search, `{"caller":"c","limit":"10"}`, `limit must be an integer 1..25, got "10"`},
		{search, `{"caller":"c","limit":10.5}`, `limit must be an integer 1..25, got 10.5`},
		{search, `{"caller":"c","limit":10.0}`, `limit must be an integer 1..25, got 10.0`},
		{search, `{"caller":"c","limit":1e1}`, `limit must be an integer 1..25, got 1e1`},
		{search, `{"caller":"c","limit":true}`, `limit must be an integer 1..25, got true`},
		{search, `{"caller":"c","limit":[10]}`, `limit must be an integer 1..25, got [10]`},
		{search, `{"caller":"c","limit":99999999999999999999}`, `limit must be an integer 1..25, got 99999999999999999999`},
		{search, `{"caller":"c","snippetChars":0}`, `snippetChars must be an integer 1..4000, got 0`},
		{search, `{"caller":"c","snippetChars":4001}`, `snippetChars must be an integer 1..4000, got 4001`},
		{search, `{"caller":"c","maxBytes":255}`, `maxBytes must be an integer 256..1048576, got 255`},
		{search, `{"caller":"c","maxBytes":1048577}`, `maxBytes must be an integer 256..1048576, got 1048577`},
		{search, `{"caller":"c","sessionKey":""}`, `sessionKey must be a non-empty string, got ""`},
		{search, `{"caller":"c","sessionKey":["a"]}`, `sessionKey must be a non-empty string, got ["a"]`},
		{search, `{"caller":"c","prefix":"yes"}`, `prefix must be true or false, got "yes"`},
		{search, `{"caller":"c","prefix":1}`, `prefix must be true or false, got 1`},
		{search, `{"caller":"c","order":"Recent"}`, `order must be "relevance", "recent" or "blend", got "Recent"`},
		{search, `{"caller":"c","order":"newest"}`, `order must be "relevance", "recent" or "blend", got "newest"`},

		// History values.
		{history, `{"caller":"c","limit":0}`, `limit must be an integer 1..1000, got 0`},
		{history, `{"caller":"c","limit":1001}`, `limit must be an integer 1..1000, got 1001`},
		{history, `{"caller":"c","maxChars":0}`, `maxChars must be an integer 1..100000, got 0`},
		{history, `{"caller":"c","maxChars":100001}`, `maxChars must be an integer 1..100000, got 100001`},
		{history, `{"caller":"c","maxBytes":255}`, `maxBytes must be an integer 256..4194304, got 255`},
		{history, `{"caller":"c","maxBytes":4194305}`, `maxBytes must be an integer 256..4194304, got 4194305`},
		{history, `{"caller":"c","messageId":""}`, `messageId must be a non-empty string, got ""`},
		{history, `{"caller":"c","messageId":7}`, `messageId must be a non-empty string, got 7`},
		{history, `{"caller":"c","includeTools":"true"}`, `includeTools must be true or false, got "true"`},

		// Common values.
		{search, `{"caller":"c","visibility":"everyone"}`, `visibility must be "self", "tree", "agent" or "all", got "everyone"`},
		{search, `{"caller":"c","visibility":"Tree"}`, `visibility must be "self", "tree", "agent" or "all", got "Tree"`},
		{history, `{"caller":"c","sandboxed":"no"}`, `sandboxed must be true or false, got "no"`},
		{history, `{"caller":"c","sandboxVisibility":"tree"}`, `sandboxVisibility must be "spawned" or "all", got "tree"`},
		{search, `{"caller":"c","agentToAgent":true}`, `agentToAgent must be an object like {"enabled":true,"allow":["*"]}, got true`},
		{search, `{"caller":"c","agentToAgent":["*"]}`, `agentToAgent must be an object like {"enabled":true,"allow":["*"]}, got ["*"]`},
		{search, `{"caller":"c","agentToAgent":{"enabled":1}}`, `agentToAgent.enabled must be true or false, got 1`},
		{search, `{"caller":"c","agentToAgent":{"allow":"*"}}`, `agentToAgent.allow must be an array of strings, got "*"`},
		{search, `{"caller":"c","agentToAgent":{"allow":["*",1]}}`, `agentToAgent.allow must be an array of strings, got ["*",1]`},
		{search, `{"caller":"c","agentToAgent":{"allow":[null]}}`, `agentToAgent.allow must be an array of strings, got [null]`},

		// A long bad value is cut on a character boundary.
		{search, `{"caller":"c","order":` + long + `}`, `order must be "relevance", "recent" or "blend", got "` + strings.Repeat("é", 29) + `…`},
		// The first problem wins: names before values, values in table order.
		{search, `{"limit":40,"order":"x","caller":"c"}`, `limit must be an integer 1..25, got 40`},
		{search, `{"order":"x","bogus":1}`, `unknown option "bogus" ` + searchKnown},

		// session_visible: the caller is an argument.
		{visible, `{"caller":"agent:ops:main"}`, `unknown option "caller": the caller is the first argument`},
		{visible, `{"limit":3}`, `unknown option "limit" (known: visibility, sandboxed, sandboxVisibility, agentToAgent, ceiling)`},
		{visible, `{"visibility":"most"}`, `visibility must be "self", "tree", "agent" or "all", got "most"`},
		{visible, `[]`, `options must be a JSON object: got []`},
	}
	for _, tt := range tests {
		err := tt.parse(tt.js)
		if err == nil || err.Error() != tt.want {
			t.Errorf("options %s:\n got error %v\nwant error %s", tt.js, err, tt.want)
		}
	}
}

func TestParseVisibilityOptions(t *testing.T) {
	if _, err := ParseVisibilityOptions("", ""); err == nil || err.Error() != "caller must be a non-empty session key" {
		t.Errorf("empty caller: got error %v", err)
	}
	f := NewForest(visibilityForest)
	tests := []struct {
		js, target string
		want       bool
	}{
		{``, "agent:ops:subagent:b", true},
		{``, "agent:dev:main", false},
		{`null`, "agent:ops:subagent:b", true},
		{`{}`, "agent:ops:subagent:b", true},
		{`{"visibility":"self"}`, "agent:ops:subagent:b", false},
		{`{"visibility":"agent"}`, "agent:ops:telegram:group:1", true},
		{`{"sandboxed":true}`, "agent:ops:subagent:b", true},
		{`{"sandboxed":true,"visibility":"agent"}`, "agent:ops:telegram:group:1", false},
		{`{"sandboxed":true,"sandboxVisibility":"all","visibility":"agent"}`, "agent:ops:telegram:group:1", true},
		{`{"visibility":"all","agentToAgent":{"enabled":true,"allow":["*"]}}`, "agent:dev:main", true},
		{`{"visibility":"all","agentToAgent":{"enabled":true}}`, "agent:dev:main", false},
		{`{"visibility":"all","agentToAgent":{"allow":["*"]}}`, "agent:dev:main", false},
	}
	for _, tt := range tests {
		p, err := ParseVisibilityOptions("agent:ops:subagent:a", tt.js)
		if err != nil {
			t.Fatalf("options %s: %v", tt.js, err)
		}
		if p.Caller() != "agent:ops:subagent:a" {
			t.Errorf("options %s: Caller() = %q", tt.js, p.Caller())
		}
		if got := p.VisibleSet(f)(tt.target); got != tt.want {
			t.Errorf("options %s: visible(%q) = %v, want %v", tt.js, tt.target, got, tt.want)
		}
	}
}

func TestSQLProject(t *testing.T) {
	for _, tt := range []struct {
		project      string
		exact, under any
	}{
		{"", nil, nil},
		{"/home/ana/src/app", "/home/ana/src/app", "/home/ana/src/app/"},
		{"/home/ana/src/app//", "/home/ana/src/app", "/home/ana/src/app/"},
		{"/", "/", "/"},
		{`C:\Users\ana\app\`, `C:\Users\ana\app`, `C:\Users\ana\app\`},
		{`C:\`, `C:\`, `C:\`},
		{"relative/dir", "relative/dir", "relative/dir/"},
	} {
		exact, under := SearchOptions{Project: tt.project}.SQLProject()
		if exact != tt.exact || under != tt.under {
			t.Errorf("SQLProject(%q) = %v, %v; want %v, %v", tt.project, exact, under, tt.exact, tt.under)
		}
	}
}

// docs/search.md Q31: where people ask (the CLI, the MCP tool) the query
// language, relaxed matching and results by session are the defaults; an
// option given explicitly wins; SQL's defaults are unchanged.
func TestAnswerOptions(t *testing.T) {
	o, err := ParseAnswerOptions(`{"caller":"c"}`)
	if err != nil || o.Syntax != "query" || o.Match != MatchRelaxed || o.Group != GroupSession || o.Limit != 10 {
		t.Errorf("ParseAnswerOptions defaults: %+v, %v", o, err)
	}
	o, err = ParseAnswerOptions(`{"caller":"c","syntax":"literal","match":"all","group":"message"}`)
	if err != nil || o.Syntax != "literal" || o.Match != MatchAll || o.Group != GroupMessage {
		t.Errorf("ParseAnswerOptions with the options set back: %+v, %v", o, err)
	}
	if _, err := ParseAnswerOptions(`{"caller":"c","match":"fuzzy"}`); err == nil || !strings.Contains(err.Error(), `match must be "all" or "relaxed", got "fuzzy"`) {
		t.Errorf("a bad match: %v", err)
	}
	o, _ = ParseSearchOptions(`{"caller":"c"}`)
	if o.Syntax != "literal" || o.Match != MatchAll || o.Group != GroupMessage {
		t.Errorf("SQL defaults changed: %+v", o)
	}
	filled := SearchOptions{Match: MatchAll}
	AnswerOptionSpecs().FillDefaults(&filled)
	if filled.Match != MatchAll || filled.Syntax != "query" || filled.Group != GroupSession || filled.PerSession != 3 {
		t.Errorf("FillDefaults: %+v", filled)
	}
	for _, name := range []string{"syntax", "match", "group"} {
		a, _ := AnswerOptionSpecs().Lookup(name)
		s, _ := SearchOptionSpecs().Lookup(name)
		if a.Default == s.Default {
			t.Errorf("%s: the answer default is SQL's, %v", name, a.Default)
		}
	}
}
