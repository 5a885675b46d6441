package importer

import (
	"strings"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// DefaultAgentID owns transcripts found outside agents/<agentId>/, as in
// the contract: keys without an agent belong to agent "main".
const DefaultAgentID = "main"

// CanonicalKey returns the store key of a session key read from agent
// agentID's store: keys with the "agent:" prefix (any case) are kept, others
// get the prefix, so "main" in agent "work" becomes "agent:work:main". An
// empty key stays empty.
func CanonicalKey(agentID, key string) string {
	if key == "" || strings.HasPrefix(strings.ToLower(key), "agent:") {
		return key
	}
	return "agent:" + agentID + ":" + key
}

// DerivedKey is the key of a transcript generation that no session key
// names as its live transcript: "agent:<agentID>:session:<sessionID>". When
// lineage, the key the generation belonged to, is incognito, the last part
// starts with "incognito-" too, so the generation stays as private.
func DerivedKey(agentID, sessionID, lineage string) string {
	if lineage != "" && sqlfuncs.IsIncognito(lineage) {
		sessionID = "incognito-" + sessionID
	}
	return "agent:" + agentID + ":session:" + sessionID
}
