// Package sessionkey owns the grammar of OpenClaw session keys: which agent
// a key belongs to, which key is an agent's main session, which keys are
// incognito, and how the importer names the sessions it stores. Visibility
// (package sqlfuncs) reads keys with it and the importer builds them with
// it, so a key the importer builds for an agent belongs to that agent.
//
// The grammar, decided once:
//
//   - A key "agent:<id>:<rest>" names agent <id>: the prefix "agent:" in any
//     case, a non-empty <id> without ":", then ":" and the rest (which may
//     be empty). The id is compared in lower case, so "Agent:Ops:x" belongs
//     to agent "ops".
//   - Every other key names no agent and belongs to agent "main"
//     (DefaultAgent). That includes "agent:foo" (no second colon) and
//     "agent::x" (an empty id), as OpenClaw's own key parser reads them: a
//     key must have three parts to name an agent.
//   - Keys themselves compare exactly (as the store's primary key does).
//   - An agent's main session is "agent:<id>:main" (rest "main", any case).
//     A key that names no agent is never a main session, not even "main".
//   - A key is incognito when its last ":"-separated part starts with
//     "incognito-" (any case).
//
// Canonical gives a key read from an agent's store its agent: a key that
// names no agent (so "agent:foo" too) gets the prefix "agent:<id>:", and a
// key that names an agent, which may be another one (a cross-agent spawn
// link), is kept as written.
package sessionkey

import "strings"

// DefaultAgent owns every key that names no agent, and the transcripts
// found outside agents/<agentId>/.
const DefaultAgent = "main"

const (
	agentPrefix     = "agent:"
	incognitoPrefix = "incognito-"
)

// Key is a parsed session key.
type Key struct {
	// Agent is the lower-case id of the agent the key belongs to.
	Agent string
	// Rest is what follows "agent:<id>:" as written, or the whole key when
	// it names no agent.
	Rest string
	// Scoped is set when the key names its agent ("agent:<id>:<rest>").
	Scoped bool
}

// Parse reads a session key. Every string is a key; one that names no agent
// belongs to DefaultAgent.
func Parse(key string) Key {
	if len(key) >= len(agentPrefix) && strings.EqualFold(key[:len(agentPrefix)], agentPrefix) {
		id, rest, ok := strings.Cut(key[len(agentPrefix):], ":")
		if ok && id != "" {
			return Key{Agent: strings.ToLower(id), Rest: rest, Scoped: true}
		}
	}
	return Key{Agent: DefaultAgent, Rest: key}
}

// AgentID returns the lower-case id of the agent that owns key.
func AgentID(key string) string { return Parse(key).Agent }

// IsMain reports whether key is its agent's main session, "agent:<id>:main".
func IsMain(key string) bool {
	k := Parse(key)
	return k.Scoped && strings.EqualFold(k.Rest, "main")
}

// IsIncognito reports whether the last ":"-separated part of key starts
// with "incognito-" (any case). Such sessions are seen only by themselves.
func IsIncognito(key string) bool {
	last := key[strings.LastIndexByte(key, ':')+1:]
	return len(last) >= len(incognitoPrefix) && strings.EqualFold(last[:len(incognitoPrefix)], incognitoPrefix)
}

// Main returns the key of an agent's main session.
func Main(agentID string) string { return Scope(agentID, "main") }

// Scope returns "agent:<agentID>:<rest>". agentID must not contain ":"
// (OpenClaw's agent ids are letters, digits, "_" and "-"): the key would
// belong to the part before it. An empty agent id gives a key that names no
// agent, so it belongs to DefaultAgent as well.
func Scope(agentID, rest string) string { return agentPrefix + agentID + ":" + rest }

// Canonical returns the store key of a session key read from agent
// agentID's store: a key that names an agent is kept, any other gets the
// prefix, so "main" in agent "work" becomes "agent:work:main" and
// "agent:foo" becomes "agent:work:agent:foo". An empty key stays empty (no
// link).
func Canonical(agentID, key string) string {
	if key == "" || Parse(key).Scoped {
		return key
	}
	return Scope(agentID, key)
}

// Derived is the key of a transcript generation that no session key names
// as its live transcript: "agent:<agentID>:session:<sessionID>". When
// lineage, the key the generation belonged to, is incognito, the last part
// starts with "incognito-" too, so the generation stays as private.
func Derived(agentID, sessionID, lineage string) string {
	if lineage != "" && IsIncognito(lineage) {
		sessionID = incognitoPrefix + sessionID
	}
	return Scope(agentID, "session:"+sessionID)
}

// Kinds of session (docs/search.md Q32).
const (
	KindMain      = "main"      // a person's session with an agent
	KindSpawned   = "spawned"   // a sub-agent's: spawned by another session
	KindAutomated = "automated" // a cron or scheduled run
)

// Kind says what a session is, from its key and whether it names the
// session that spawned it (spawned_by or parent_session_key):
//
//   - automated: OpenClaw's cron runs, "agent:<id>:cron:<job>..." (the part
//     after the agent id is "cron", in any case);
//   - spawned: a session with a spawning link, or whose key has a part
//     "subagent" (OpenClaw's "agent:<id>:subagent:<uuid>", with or without
//     its link stored);
//   - main: every other session.
func Kind(key string, linked bool) string {
	k := Parse(key)
	if k.Scoped {
		first, _, _ := strings.Cut(k.Rest, ":")
		if strings.EqualFold(first, "cron") {
			return KindAutomated
		}
	}
	if linked {
		return KindSpawned
	}
	for part := range strings.SplitSeq(key, ":") {
		if strings.EqualFold(part, "subagent") {
			return KindSpawned
		}
	}
	return KindMain
}
