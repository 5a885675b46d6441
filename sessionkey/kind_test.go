package sessionkey

import "testing"

// TestKind: the kind of a session a search's kind filter selects
// (docs/search.md Q32): automated runs (OpenClaw's cron jobs), sessions
// spawned by another, and main sessions, which are everything else.
func TestKind(t *testing.T) {
	tests := []struct {
		key    string
		linked bool
		want   string
	}{
		{"agent:main:main", false, KindMain},
		{"agent:ops:telegram:group:42", false, KindMain},
		{"telegram:group:42", false, KindMain},
		{"", false, KindMain},
		// OpenClaw's cron runs: the part after the agent id is "cron".
		{"agent:main:cron:nightly-digest", false, KindAutomated},
		{"agent:main:cron:nightly-digest:run:7f3a", false, KindAutomated},
		{"Agent:Ops:CRON:backup", false, KindAutomated},
		{"agent:main:cron", false, KindAutomated},
		// A cron run is automated even when it names the session that
		// scheduled it.
		{"agent:main:cron:heartbeat", true, KindAutomated},
		// cron elsewhere in a key is a name, not a cron run.
		{"agent:main:telegram:cron", false, KindMain},
		{"cron:nightly", false, KindMain}, // names no agent
		{"agent:cron", false, KindMain},   // no agent: "agent:foo" is a key of agent main
		{"agent:main:cronjobs", false, KindMain},
		// Spawned: a stored spawning link, or a subagent part.
		{"agent:main:subagent:0b7e", false, KindSpawned},
		{"agent:main:SubAgent:0b7e", false, KindSpawned},
		{"agent:main:telegram:dm:1", true, KindSpawned},
		{"agent:main:session:0b7e", true, KindSpawned},
		{"subagent:0b7e", false, KindSpawned},
		{"agent:main:subagents", false, KindMain},
		{"agent:main:main", true, KindSpawned},
	}
	for _, tt := range tests {
		if got := Kind(tt.key, tt.linked); got != tt.want {
			t.Errorf("Kind(%q, linked=%v) = %s, want %s", tt.key, tt.linked, got, tt.want)
		}
	}
}
