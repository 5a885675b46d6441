package syncer

import "github.com/sessionsearch/sessionsearch/sessionkey"

// Unit kinds: what a store session filled by sync is (docs/sync.md Y7).
const (
	kindLive    = "live"    // a session key's current generation
	kindHistory = "history" // an older generation still in the database or a JSONL file
	kindCold    = "cold"    // a generation whose events are in a cold archive
	kindReset   = "reset"   // a reset archive
	kindDeleted = "deleted" // a deletion archive (only with IncludeDeleted)
)

// ArchiveKey is the store key of an archived generation: its kind is a part
// of the key, so a search result says it comes from an archive
// (docs/sync.md Y7): "agent:<agentID>:cold:<sessionID>" for a cold archive,
// "agent:<agentID>:<kind>:<stamp>:<sessionID>" for reset and deletion
// archives, of which one session can have several. When lineage, the key
// the generation belonged to, is incognito, the last part starts with
// "incognito-" too, as for sessionkey.Derived.
func ArchiveKey(agentID, kind, stamp, sessionID, lineage string) string {
	if lineage != "" && sessionkey.IsIncognito(lineage) {
		sessionID = "incognito-" + sessionID
	}
	if stamp == "" {
		return sessionkey.Scope(agentID, kind+":"+sessionID)
	}
	return sessionkey.Scope(agentID, kind+":"+stamp+":"+sessionID)
}
