package sqlfuncs

import (
	"cmp"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/visibilitymodel"
)

// visibilityForest is one agent "ops" with a spawn tree, a second agent
// "dev" with a session spawned from ops, the default agent "main", a cycle
// and a link to a session without a row.
var visibilityForest = []SessionLinks{
	{Key: "agent:ops:main"},
	{Key: "agent:ops:subagent:a", SpawnedBy: "agent:ops:main"},
	{Key: "agent:ops:subagent:b", SpawnedBy: "agent:ops:subagent:a"},
	{Key: "agent:ops:subagent:c", ParentKey: "agent:ops:subagent:a"},
	{Key: "agent:ops:subagent:d", SpawnedBy: "agent:ops:telegram:group:1", ParentKey: "agent:ops:subagent:c"},
	{Key: "agent:ops:telegram:group:1"},
	{Key: "agent:ops:dashboard:incognito-x", SpawnedBy: "agent:ops:subagent:a"},
	{Key: "agent:dev:subagent:x", SpawnedBy: "agent:ops:subagent:a"},
	{Key: "agent:dev:main"},
	{Key: "agent:research:main"},
	{Key: "agent:main:main"},
	{Key: "main"},
	{Key: "cron:nightly"},
	{Key: "agent:ops:loop1", SpawnedBy: "agent:ops:loop2"},
	{Key: "agent:ops:loop2", SpawnedBy: "agent:ops:loop1"},
	{Key: "agent:ops:orphan", SpawnedBy: "agent:ops:ghost"},
}

func TestVisibilityRules(t *testing.T) {
	f := NewForest(visibilityForest)
	a2a := func(allow ...string) AgentToAgent { return AgentToAgent{Enabled: true, Allow: allow} }
	tests := []struct {
		name   string
		opts   Options
		target string
		want   bool
	}{
		// 1. The caller always sees itself.
		{"self sees itself", Options{Caller: "agent:ops:subagent:a", Visibility: "self"}, "agent:ops:subagent:a", true},
		{"caller without a row sees itself", Options{Caller: "agent:ops:nowhere"}, "agent:ops:nowhere", true},
		{"incognito caller sees itself", Options{Caller: "agent:ops:dashboard:incognito-x"}, "agent:ops:dashboard:incognito-x", true},
		{"sandboxed caller sees itself", Options{Caller: "agent:ops:telegram:group:1", Sandboxed: true}, "agent:ops:telegram:group:1", true},
		{"keys compare exactly", Options{Caller: "agent:ops:subagent:a", Visibility: "self"}, "agent:ops:subagent:A", false},

		// 2. Incognito sessions are visible only to themselves.
		{"incognito hidden from its spawner", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:dashboard:incognito-x", false},
		{"incognito hidden from the main session", Options{Caller: "agent:ops:main"}, "agent:ops:dashboard:incognito-x", false},
		{"incognito hidden under agent", Options{Caller: "agent:ops:main", Visibility: "agent"}, "agent:ops:dashboard:incognito-x", false},
		{"incognito hidden under all", Options{Caller: "agent:dev:main", Visibility: "all", AgentToAgent: a2a("*")}, "agent:ops:dashboard:incognito-x", false},
		{"incognito prefix in any case", Options{Caller: "agent:ops:main", Visibility: "agent"}, "agent:ops:dashboard:Incognito-Y", false},
		{"incognito only in the last part", Options{Caller: "agent:ops:main", Visibility: "agent"}, "agent:ops:incognito-x:thread", true},

		// 3. A sandboxed caller sees only what it spawned.
		{"sandboxed sees a grandchild", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Visibility: "all", AgentToAgent: a2a("*")}, "agent:ops:subagent:b", true},
		{"sandboxed sees a cross-agent child", Options{Caller: "agent:ops:subagent:a", Sandboxed: true}, "agent:dev:subagent:x", true},
		{"sandboxed ignores visibility all", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Visibility: "all", AgentToAgent: a2a("*")}, "agent:dev:main", false},
		{"sandboxed ignores visibility agent", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Visibility: "agent"}, "agent:ops:telegram:group:1", false},
		{"sandboxed main session loses the agent", Options{Caller: "agent:ops:main", Sandboxed: true}, "agent:ops:telegram:group:1", false},
		{"sandboxed main session keeps its tree", Options{Caller: "agent:ops:main", Sandboxed: true}, "agent:ops:subagent:b", true},
		{"sandboxed with self sees only itself", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Visibility: "self"}, "agent:ops:subagent:b", false},
		{"sandboxed with self still sees itself", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Visibility: "self"}, "agent:ops:subagent:a", true},
		{"sandboxVisibility spawned is the default", Options{Caller: "agent:ops:main", Sandboxed: true, SandboxVisibility: "spawned"}, "agent:ops:telegram:group:1", false},
		{"sandboxVisibility all keeps the main rule", Options{Caller: "agent:ops:main", Sandboxed: true, SandboxVisibility: "all"}, "agent:ops:telegram:group:1", true},
		{"sandboxVisibility all keeps self", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, SandboxVisibility: "all", Visibility: "self"}, "agent:ops:subagent:b", false},
		{"unknown sandboxVisibility is spawned", Options{Caller: "agent:ops:main", Sandboxed: true, SandboxVisibility: "ALL"}, "agent:ops:telegram:group:1", false},

		// 4. self.
		{"self hides a child", Options{Caller: "agent:ops:subagent:a", Visibility: "self"}, "agent:ops:subagent:b", false},
		{"self from the main session hides the agent", Options{Caller: "agent:ops:main", Visibility: "self"}, "agent:ops:subagent:a", false},

		// 5. tree.
		{"tree sees a child", Options{Caller: "agent:ops:main", Visibility: "tree"}, "agent:ops:subagent:a", true},
		{"tree is the default", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:subagent:b", true},
		{"tree follows parent_session_key", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:subagent:c", true},
		{"tree mixes both links", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:subagent:d", true},
		{"tree crosses agents", Options{Caller: "agent:ops:subagent:a"}, "agent:dev:subagent:x", true},
		{"tree hides the parent", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:main", false},
		{"tree hides a sibling", Options{Caller: "agent:ops:subagent:b"}, "agent:ops:subagent:c", false},
		{"tree hides the same agent", Options{Caller: "agent:ops:subagent:a"}, "agent:ops:telegram:group:1", false},
		{"tree survives a cycle", Options{Caller: "agent:ops:loop1"}, "agent:ops:loop2", true},
		{"tree from a caller without a row", Options{Caller: "agent:ops:ghost"}, "agent:ops:orphan", true},
		{"main session sees its agent", Options{Caller: "agent:ops:main"}, "agent:ops:telegram:group:1", true},
		{"main session sees a cycle", Options{Caller: "agent:ops:main"}, "agent:ops:loop1", true},
		{"main session hides other agents", Options{Caller: "agent:ops:main"}, "agent:dev:main", false},
		{"main session sees spawned in other agents", Options{Caller: "agent:ops:main"}, "agent:dev:subagent:x", true},
		{"main session key in any case", Options{Caller: "Agent:OPS:Main"}, "agent:ops:telegram:group:1", true},
		{"main session needs the exact rest", Options{Caller: "agent:ops:main:thread"}, "agent:ops:telegram:group:1", false},
		{"agent:main:main sees bare keys", Options{Caller: "agent:main:main"}, "cron:nightly", true},
		{"agent:main:main sees the bare key main", Options{Caller: "agent:main:main"}, "main", true},
		{"bare key main is no main session", Options{Caller: "main"}, "cron:nightly", false},

		// 6. agent.
		{"agent sees the same agent", Options{Caller: "agent:ops:subagent:b", Visibility: "agent"}, "agent:ops:telegram:group:1", true},
		{"agent compares ids in lower case", Options{Caller: "agent:OPS:subagent:b", Visibility: "agent"}, "agent:Ops:telegram:group:1", true},
		{"agent hides other agents", Options{Caller: "agent:ops:main", Visibility: "agent"}, "agent:dev:main", false},
		{"agent hides spawned in other agents", Options{Caller: "agent:ops:subagent:a", Visibility: "agent"}, "agent:dev:subagent:x", false},
		{"bare keys belong to agent main", Options{Caller: "cron:nightly", Visibility: "agent"}, "agent:main:main", true},
		{"bare keys see bare keys", Options{Caller: "cron:nightly", Visibility: "agent"}, "main", true},
		{"empty agent id is agent main", Options{Caller: "agent::x", Visibility: "agent"}, "main", true},
		{"bare keys hide other agents", Options{Caller: "cron:nightly", Visibility: "agent"}, "agent:ops:main", false},

		// 7. all.
		{"all sees the same agent", Options{Caller: "agent:ops:subagent:b", Visibility: "all"}, "agent:ops:main", true},
		{"all without agentToAgent hides other agents", Options{Caller: "agent:ops:main", Visibility: "all"}, "agent:dev:main", false},
		{"all sees spawned in other agents", Options{Caller: "agent:ops:subagent:a", Visibility: "all"}, "agent:dev:subagent:x", true},
		{"all with allow *", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("*")}, "agent:dev:main", true},
		{"all with agentToAgent disabled", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: AgentToAgent{Allow: []string{"*"}}}, "agent:dev:main", false},
		{"all with an empty allow list", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a()}, "agent:dev:main", false},
		{"all with an empty pattern", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("")}, "agent:dev:main", false},
		{"all needs the target allowed", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("ops")}, "agent:dev:main", false},
		{"all needs the caller allowed", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("dev")}, "agent:dev:main", false},
		{"all with exact ids", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("ops", "dev")}, "agent:dev:main", true},
		{"all with exact ids in any case", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("OPS", "Dev")}, "agent:DEV:main", true},
		{"all with a prefix glob", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("o*", "d*")}, "agent:dev:main", true},
		{"all with an inner glob", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("o*s", "re*ch")}, "agent:research:main", true},
		{"all with a glob that misses", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("o*s", "re*ch")}, "agent:dev:main", false},
		{"all allow patterns for bare keys", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("ops", "main")}, "cron:nightly", true},

		// A ceiling: only what both the options and the ceiling show.
		{"ceiling self hides a child", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Ceiling: &Options{Visibility: "self"}}, "agent:ops:subagent:b", false},
		{"ceiling self keeps the caller", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Ceiling: &Options{Visibility: "self"}}, "agent:ops:subagent:a", true},
		{"ceiling agent hides a cross-agent child", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Ceiling: &Options{Visibility: "agent"}}, "agent:dev:subagent:x", false},
		{"ceiling agent keeps a same-agent child", Options{Caller: "agent:ops:subagent:a", Sandboxed: true, Ceiling: &Options{Visibility: "agent"}}, "agent:ops:subagent:b", true},
		{"ceiling sandbox bounds visibility all", Options{Caller: "agent:ops:main", Visibility: "all", Ceiling: &Options{Sandboxed: true}}, "agent:ops:telegram:group:1", false},
		{"ceiling without agentToAgent", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("*"), Ceiling: &Options{Visibility: "all"}}, "agent:dev:main", false},
		{"ceiling with fewer agents", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("*"), Ceiling: &Options{Visibility: "all", AgentToAgent: a2a("ops", "research")}}, "agent:dev:main", false},
		{"ceiling with the agent", Options{Caller: "agent:ops:main", Visibility: "all", AgentToAgent: a2a("*"), Ceiling: &Options{Visibility: "all", AgentToAgent: a2a("ops", "research")}}, "agent:research:main", true},
		{"ceiling narrower options", Options{Caller: "agent:ops:main", Visibility: "self", Ceiling: &Options{Visibility: "all"}}, "agent:ops:subagent:a", false},
		{"ceiling's caller is not read", Options{Caller: "agent:ops:subagent:a", Ceiling: &Options{Caller: "agent:ops:main", Visibility: "self"}}, "agent:ops:subagent:b", false},
		{"ceiling's ceiling is not read", Options{Caller: "agent:ops:subagent:a", Ceiling: &Options{Ceiling: &Options{Visibility: "self"}}}, "agent:ops:subagent:b", true},

		// Visibility values the parser rejects fall back to the narrowest.
		{"unknown visibility is self", Options{Caller: "agent:ops:main", Visibility: "everything"}, "agent:ops:subagent:a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.opts.Policy().VisibleSet(f)(tt.target); got != tt.want {
				t.Errorf("caller %q, options %+v: Visible(%q) = %v, want %v", tt.opts.Caller, tt.opts, tt.target, got, tt.want)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "ops", true},
		{"ops", "ops", true},
		{"ops", "opsx", false},
		{"o*", "ops", true},
		{"*s", "ops", true},
		{"*s", "opx", false},
		{"o*s", "os", true},
		{"o*p*s", "oxxpyys", true},
		{"o*p*s", "oxxsyyp", false},
		{"**", "x", true},
		{"*a*a*a*b", strings.Repeat("a", 200), false},
		{"", "", false},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestForestDescendants(t *testing.T) {
	f := NewForest(visibilityForest)
	tests := []struct {
		root string
		want []string
	}{
		{"agent:ops:subagent:a", []string{"agent:dev:subagent:x", "agent:ops:dashboard:incognito-x", "agent:ops:subagent:b", "agent:ops:subagent:c", "agent:ops:subagent:d"}},
		{"agent:ops:subagent:b", nil},
		{"agent:ops:telegram:group:1", []string{"agent:ops:subagent:d"}},
		{"agent:ops:loop1", []string{"agent:ops:loop2"}},
		{"agent:ops:ghost", []string{"agent:ops:orphan"}},
		{"agent:ops:nowhere", nil},
	}
	for _, tt := range tests {
		var got []string
		for key := range f.Descendants(tt.root) {
			got = append(got, key)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Descendants(%q) = %q, want %q", tt.root, got, tt.want)
		}
	}
	self := NewForest([]SessionLinks{{Key: "a", SpawnedBy: "a", ParentKey: "a"}})
	if got := self.Descendants("a"); len(got) != 0 {
		t.Errorf("a self-link made %v its own descendant", got)
	}
	var none *Forest
	if got := none.Descendants("a"); len(got) != 0 {
		t.Errorf("nil Forest has descendants %v", got)
	}
}

func TestNeedsForest(t *testing.T) {
	tests := []struct {
		opts Options
		want bool
	}{
		{Options{Caller: "c", Visibility: "self"}, false},
		{Options{Caller: "c", Visibility: "agent"}, false},
		{Options{Caller: "c", Visibility: "tree"}, true},
		{Options{Caller: "c"}, true},
		{Options{Caller: "c", Visibility: "all"}, true},
		{Options{Caller: "c", Visibility: "self", Sandboxed: true}, false},
		{Options{Caller: "c", Visibility: "agent", Sandboxed: true}, true},
		{Options{Caller: "c", Visibility: "agent", Ceiling: &Options{Visibility: "tree"}}, true},
		{Options{Caller: "c", Visibility: "agent", Ceiling: &Options{Visibility: "agent", Sandboxed: true, SandboxVisibility: "all"}}, false},
		{Options{Caller: "c", Visibility: "agent", Sandboxed: true, SandboxVisibility: "all"}, false},
	}
	for _, tt := range tests {
		p := tt.opts.Policy()
		if got := p.NeedsForest(); got != tt.want {
			t.Errorf("%+v: NeedsForest() = %v, want %v", tt.opts, got, tt.want)
		}
		// Without the forest the decisions must not change.
		if !tt.want {
			full, bare := p.VisibleSet(NewForest(visibilityForest)), p.VisibleSet(nil)
			for _, row := range visibilityForest {
				if full(row.Key) != bare(row.Key) {
					t.Errorf("%+v: %q depends on the forest although NeedsForest is false", tt.opts, row.Key)
				}
			}
		}
	}
}

// The model of internal/visibilitymodel restates the rules with other
// machinery; TestVisibilityProperty compares the two on random forests.

// model is o as the model reads it.
func model(o Options) visibilitymodel.Options {
	return visibilitymodel.Options{Caller: o.Caller, Visibility: o.Visibility, Sandboxed: o.Sandboxed,
		SandboxVisibility: o.SandboxVisibility, AgentToAgent: o.AgentToAgent.Enabled, Allow: o.AgentToAgent.Allow}
}

// fromModel is a model's options as sqlfuncs.Options.
func fromModel(m visibilitymodel.Options) Options {
	return Options{Caller: m.Caller, Visibility: m.Visibility, Sandboxed: m.Sandboxed, SandboxVisibility: m.SandboxVisibility,
		AgentToAgent: AgentToAgent{Enabled: m.AgentToAgent, Allow: m.Allow}}
}

// randomForest is visibilitymodel.RandomForest as SessionLinks.
func randomForest(rng *rand.Rand) (keys []string, rows []visibilitymodel.Row, links []SessionLinks, targets []string) {
	keys, rows, targets = visibilitymodel.RandomForest(rng, 12)
	for _, r := range rows {
		links = append(links, SessionLinks{Key: r.Key, SpawnedBy: r.SpawnedBy, ParentKey: r.ParentKey})
	}
	return keys, rows, links, targets
}

func TestVisibilityProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2026))
	var cases, decisions, visibleOthers, sandboxed, viaSpawn, viaMain, viaA2A int
	for range 1500 {
		keys, rows, links, targets := randomForest(rng)
		forest := NewForest(links)

		for _, caller := range append(slices.Clone(keys), visibilitymodel.RandomKey(rng)) {
			for range 3 {
				o := fromModel(visibilitymodel.RandomOptions(rng, caller))
				p := o.Policy()
				if o.Visibility != "bogus" && rng.IntN(2) == 0 {
					// The same options through the SQL-facing parser.
					js, err := json.Marshal(map[string]any{
						"visibility": cmp.Or(o.Visibility, "tree"), "sandboxed": o.Sandboxed,
						"sandboxVisibility": cmp.Or(o.SandboxVisibility, "spawned"),
						"agentToAgent":      map[string]any{"enabled": o.AgentToAgent.Enabled, "allow": o.AgentToAgent.Allow},
					})
					if err != nil {
						t.Fatal(err)
					}
					if p, err = ParseVisibilityOptions(caller, string(js)); err != nil {
						t.Fatalf("ParseVisibilityOptions(%s): %v", js, err)
					}
				}
				visible := p.VisibleSet(forest)
				cases++
				for _, target := range targets {
					decisions++
					got, want := visible(target), visibilitymodel.Visible(model(o), rows, target)
					if got != want {
						kind := "miss"
						if got {
							kind = "leak"
						}
						t.Fatalf("%s: caller %q, options %+v, target %q: got %v, model %v\nrows: %+v", kind, caller, o, target, got, want, rows)
					}
					if want && target != caller {
						visibleOthers++
						switch {
						case o.Sandboxed && o.SandboxVisibility != "all":
							sandboxed++
						case visibilitymodel.SpawnedFrom(rows, caller, target) && visibilitymodel.Agent(caller) != visibilitymodel.Agent(target):
							viaSpawn++
						case visibilitymodel.Agent(caller) != visibilitymodel.Agent(target):
							viaA2A++
						case o.Visibility == "tree" || o.Visibility == "":
							viaMain++
						}
					}
				}
			}
		}
	}
	// A generator that never exercises a rule would make this test pass
	// vacuously.
	t.Logf("%d cases, %d decisions, %d visible others (sandboxed %d, cross-agent spawn %d, agentToAgent %d, same-agent tree %d)",
		cases, decisions, visibleOthers, sandboxed, viaSpawn, viaA2A, viaMain)
	for name, n := range map[string]int{"sandboxed": sandboxed, "cross-agent spawn": viaSpawn, "agentToAgent": viaA2A, "same-agent tree": viaMain} {
		if n < 100 {
			t.Errorf("only %d visible targets via %s: the generator is too narrow", n, name)
		}
	}
}

// Policy.Key tells apart what decides differently and only that: the
// connection's visibility cache is keyed on it.
func TestPolicyKey(t *testing.T) {
	a2a := func(allow ...string) AgentToAgent { return AgentToAgent{Enabled: true, Allow: allow} }
	base := Options{Caller: "agent:ops:main"}
	with := func(f func(*Options)) Options { o := base; f(&o); return o }
	same := [][2]Options{
		{base, with(func(o *Options) { o.Visibility = "tree" })},
		{base, with(func(o *Options) { o.SandboxVisibility = "spawned" })},
		{with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", a2a("o*", "dev") }),
			with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", a2a("DEV", "o*", "dev") })},
		{with(func(o *Options) { o.AgentToAgent = a2a("*") }), base}, // agentToAgent counts under "all" only
		{with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", AgentToAgent{Allow: []string{"*"}} }),
			with(func(o *Options) { o.Visibility = "all" })}, // not enabled
		{with(func(o *Options) { o.Sandboxed, o.SandboxVisibility = true, "all" }), base},
		{with(func(o *Options) { o.Ceiling = &Options{Visibility: "tree"} }), base}, // the same policy twice
		{with(func(o *Options) { o.Visibility, o.Ceiling = "self", &Options{Visibility: "all"} }), with(func(o *Options) { o.Visibility = "self" })},
		{with(func(o *Options) { o.Visibility, o.Sandboxed = "self", true }), with(func(o *Options) { o.Visibility = "self" })},
	}
	for _, p := range same {
		if a, b := p[0].Policy().Key(), p[1].Policy().Key(); a != b {
			t.Errorf("%+v and %+v decide alike but have keys %q and %q", p[0], p[1], a, b)
		}
	}
	different := []Options{
		base,
		{Caller: "agent:ops:Main"},
		{Caller: `agent:ops:main" all`},
		with(func(o *Options) { o.Visibility = "self" }),
		with(func(o *Options) { o.Visibility = "agent" }),
		with(func(o *Options) { o.Visibility = "all" }),
		with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", a2a("*") }),
		with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", a2a("* dev") }),
		with(func(o *Options) { o.Visibility, o.AgentToAgent = "all", a2a("*", "dev") }),
		with(func(o *Options) { o.Sandboxed = true }),
		with(func(o *Options) {
			o.Visibility, o.AgentToAgent, o.Ceiling = "all", a2a("*"), &Options{Visibility: "all", AgentToAgent: a2a("ops", "dev")}
		}),
	}
	seen := map[string]Options{}
	for _, o := range different {
		k := o.Policy().Key()
		if prev, ok := seen[k]; ok {
			t.Errorf("%+v and %+v share the key %q", prev, o, k)
		}
		seen[k] = o
	}
}

// scopeJSON is the options object of o's scope, as a service sends it.
func scopeJSON(o Options) map[string]any {
	return map[string]any{
		"visibility": cmp.Or(o.Visibility, "tree"), "sandboxed": o.Sandboxed,
		"sandboxVisibility": cmp.Or(o.SandboxVisibility, "spawned"),
		"agentToAgent":      map[string]any{"enabled": o.AgentToAgent.Enabled, "allow": o.AgentToAgent.Allow},
	}
}

// TestCeilingProperty: docs/search.md Q22. Over random forests, random
// grants as ceilings and random request options, a session is visible
// exactly when the model shows it under both, so never one the grant
// alone hides; a request of the grant's own options sees what the grant
// sees; and two policies with one cache key decide alike.
func TestCeilingProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2026))
	var cases, narrowed, grantOnly, widerAsked int
	for range 1000 {
		keys, rows, links, targets := randomForest(rng)
		forest := NewForest(links)
		byKey := map[string][]bool{}
		for _, caller := range append(slices.Clone(keys), visibilitymodel.RandomKey(rng)) {
			for range 4 {
				grant := fromModel(visibilitymodel.RandomOptions(rng, caller))
				if grant.Visibility == "bogus" {
					grant.Visibility = "all"
				}
				request := fromModel(visibilitymodel.RandomOptions(rng, caller))
				switch rng.IntN(4) {
				case 0: // the grant's own options, as a body that narrows nothing sends
					request = grant
				case 1: // the grant with one more option, as the bodies
					request = grant
					request.Sandboxed = true
					if rng.IntN(2) == 0 {
						request.Sandboxed, request.Visibility = grant.Sandboxed, "self"
					}
				}
				ceiling := grant
				ceiling.Caller = ""
				o := request
				o.Ceiling = &ceiling
				p := o.Policy()
				if request.Visibility != "bogus" && rng.IntN(2) == 0 {
					// The same through the SQL-facing parser.
					m := scopeJSON(request)
					m["ceiling"] = scopeJSON(grant)
					js, _ := json.Marshal(m)
					var err error
					if p, err = ParseVisibilityOptions(caller, string(js)); err != nil {
						t.Fatalf("ParseVisibilityOptions(%s): %v", js, err)
					}
				}
				visible := p.VisibleSet(forest)
				decisions := make([]bool, len(targets))
				cases++
				for i, target := range targets {
					got := visible(target)
					decisions[i] = got
					inGrant, inRequest := visibilitymodel.Visible(model(grant), rows, target), visibilitymodel.Visible(model(request), rows, target)
					if got && !inGrant {
						t.Fatalf("widening: caller %q, grant %+v, request %+v, target %q: visible, but the grant alone hides it\nrows: %+v",
							caller, grant, request, target, rows)
					}
					if got != (inGrant && inRequest) {
						t.Fatalf("caller %q, grant %+v, request %+v, target %q: got %v, model %v under the grant and %v under the request\nrows: %+v",
							caller, grant, request, target, got, inGrant, inRequest, rows)
					}
					switch {
					case target == caller:
					case inGrant && !inRequest:
						narrowed++
					case inRequest && !inGrant:
						widerAsked++
					case got:
						grantOnly++
					}
				}
				if prev, ok := byKey[p.Key()]; ok && !slices.Equal(prev, decisions) {
					t.Fatalf("key %q decides %v and %v", p.Key(), prev, decisions)
				}
				byKey[p.Key()] = decisions
			}
		}
	}
	t.Logf("%d cases: %d targets narrowed away, %d asked for beyond the grant and hidden, %d seen", cases, narrowed, widerAsked, grantOnly)
	for name, n := range map[string]int{"narrowed": narrowed, "asked beyond the grant": widerAsked, "seen": grantOnly} {
		if n < 100 {
			t.Errorf("only %d targets %s: the generator is too narrow", n, name)
		}
	}
}
