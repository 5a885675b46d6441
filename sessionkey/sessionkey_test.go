package sessionkey

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		key  string
		want Key
	}{
		{"agent:ops:main", Key{Agent: "ops", Rest: "main", Scoped: true}},
		{"agent:ops:subagent:a", Key{Agent: "ops", Rest: "subagent:a", Scoped: true}},
		{"Agent:Ops:Main", Key{Agent: "ops", Rest: "Main", Scoped: true}},
		{"AGENT:DEV:x", Key{Agent: "dev", Rest: "x", Scoped: true}},
		{"agent:ops:", Key{Agent: "ops", Rest: "", Scoped: true}},
		{"agent:ops::x", Key{Agent: "ops", Rest: ":x", Scoped: true}},
		{"agent:été:x", Key{Agent: "été", Rest: "x", Scoped: true}},
		// The agent:foo case: no second colon, so no agent.
		{"agent:foo", Key{Agent: "main", Rest: "agent:foo"}},
		{"Agent:Foo", Key{Agent: "main", Rest: "Agent:Foo"}},
		{"agent::x", Key{Agent: "main", Rest: "agent::x"}},
		{"agent:", Key{Agent: "main", Rest: "agent:"}},
		{"agent", Key{Agent: "main", Rest: "agent"}},
		{"agents:ops:x", Key{Agent: "main", Rest: "agents:ops:x"}},
		{" agent:ops:x", Key{Agent: "main", Rest: " agent:ops:x"}},
		{"main", Key{Agent: "main", Rest: "main"}},
		{"telegram:group:1", Key{Agent: "main", Rest: "telegram:group:1"}},
		{"", Key{Agent: "main", Rest: ""}},
		// Moved from sqlfuncs' TestAgentID.
		{"agent:OPS:subagent:1", Key{Agent: "ops", Rest: "subagent:1", Scoped: true}},
		{"AGENT:Ops:x", Key{Agent: "ops", Rest: "x", Scoped: true}},
		{"agent:ops", Key{Agent: "main", Rest: "agent:ops"}},
		{"cron:nightly", Key{Agent: "main", Rest: "cron:nightly"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.key); got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.key, got, tt.want)
		}
		if got := AgentID(tt.key); got != tt.want.Agent {
			t.Errorf("AgentID(%q) = %q, want %q", tt.key, got, tt.want.Agent)
		}
	}
}

func TestIsMain(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"agent:ops:main", true},
		{"agent:ops:MAIN", true},
		{"Agent:Ops:Main", true},
		{"agent:main:main", true},
		{"main", false}, // names no agent: granting an agent takes the canonical key
		{"agent:main", false},
		{"agent::main", false},
		{"agent:ops:main:x", false},
		{"agent:ops:mainly", false},
		{"agent:ops:subagent:main", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsMain(tt.key); got != tt.want {
			t.Errorf("IsMain(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	if got := Main("ops"); got != "agent:ops:main" || !IsMain(got) || AgentID(got) != "ops" {
		t.Errorf(`Main("ops") = %q`, got)
	}
}

func TestIsIncognito(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"agent:ops:dashboard:incognito-x", true},
		{"agent:ops:subagent:Incognito-1", true},
		{"agent:ops:INCOGNITO-", true},
		{"incognito-x", true},
		{"agent:ops:incognito", false},
		{"agent:ops:incognito-x:after", false}, // only the last part counts
		{"agent:ops:not-incognito-x", false},
		{"agent:ops:main", false},
		{"", false},
		// Moved from sqlfuncs' TestIsIncognito.
		{"agent:main:dashboard:incognito-abc", true},
		{"agent:main:subagent:INCOGNITO-abc", true},
		{"incognito-abc", true},
		{"agent:main:incognito-", true},
		{"agent:main:incognito", false},
		{"agent:main:incognito-abc:thread", false},
		{"agent:main:not-incognito-abc", false},
		{"agent:main:main", false},
	}
	for _, tt := range tests {
		if got := IsIncognito(tt.key); got != tt.want {
			t.Errorf("IsIncognito(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		agent, key, want string
	}{
		{"work", "main", "agent:work:main"},
		{"work", "telegram:group:1", "agent:work:telegram:group:1"},
		{"work", "agent:work:main", "agent:work:main"},
		{"work", "Agent:Work:Main", "Agent:Work:Main"},           // kept as written
		{"work", "agent:ops:subagent:a", "agent:ops:subagent:a"}, // a cross-agent link
		{"work", "agent:foo", "agent:work:agent:foo"},
		{"work", "agent::x", "agent:work:agent::x"},
		{"work", "", ""},
		{"Work", "main", "agent:Work:main"},
	}
	for _, tt := range tests {
		if got := Canonical(tt.agent, tt.key); got != tt.want {
			t.Errorf("Canonical(%q, %q) = %q, want %q", tt.agent, tt.key, got, tt.want)
		}
	}
}

func TestDerived(t *testing.T) {
	tests := []struct {
		agent, session, lineage, want string
	}{
		{"work", "abc", "", "agent:work:session:abc"},
		{"work", "abc", "agent:work:main", "agent:work:session:abc"},
		{"work", "abc", "agent:work:dashboard:incognito-x", "agent:work:session:incognito-abc"},
		{"main", "abc", "incognito-y", "agent:main:session:incognito-abc"},
	}
	for _, tt := range tests {
		got := Derived(tt.agent, tt.session, tt.lineage)
		if got != tt.want {
			t.Errorf("Derived(%q, %q, %q) = %q, want %q", tt.agent, tt.session, tt.lineage, got, tt.want)
		}
		if IsIncognito(got) != (tt.lineage != "" && IsIncognito(tt.lineage)) {
			t.Errorf("Derived(%q, %q, %q) = %q: incognito %v", tt.agent, tt.session, tt.lineage, got, IsIncognito(got))
		}
	}
}

// What the importer builds for an agent belongs to that agent, as
// visibility reads it, unless the key read names its agent itself.
func TestBuiltKeysBelongToTheirAgent(t *testing.T) {
	agents := []string{"main", "work", "Work", "ops-2", "a_b", ""}
	keys := []string{"main", "agent:foo", "Agent:Foo", "agent::x", "agent:", "telegram:group:1",
		"subagent:x", "session:abc", "incognito-x", "agent:ops:main", "AGENT:OPS:x", "agent:ops:"}
	for _, agent := range agents {
		want := strings.ToLower(agent)
		if want == "" {
			want = DefaultAgent
		}
		for _, key := range keys {
			got := Canonical(agent, key)
			if owner := AgentID(got); Parse(key).Scoped {
				if got != key || owner != AgentID(key) {
					t.Errorf("Canonical(%q, %q) = %q owned by %q: a key naming its agent is kept", agent, key, got, owner)
				}
			} else if owner != want {
				t.Errorf("Canonical(%q, %q) = %q belongs to %q, want %q", agent, key, got, owner, want)
			}
			if IsIncognito(got) != IsIncognito(key) {
				t.Errorf("Canonical(%q, %q) = %q changes incognito", agent, key, got)
			}
			if d := Derived(agent, key, ""); AgentID(d) != want {
				t.Errorf("Derived(%q, %q) = %q belongs to %q, want %q", agent, key, d, AgentID(d), want)
			}
		}
		if m := Main(agent); agent != "" && (!IsMain(m) || AgentID(m) != want) {
			t.Errorf("Main(%q) = %q", agent, m)
		}
	}
}
