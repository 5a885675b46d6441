package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// storeEntry is the part of a sessions.json entry the importer uses
// (SessionEntry in openclaw/openclaw src/config/sessions/types.ts @005a4316).
type storeEntry struct {
	SessionID             string   `json:"sessionId"`
	SessionFile           string   `json:"sessionFile"`
	SpawnedBy             string   `json:"spawnedBy"`
	ParentSessionKey      string   `json:"parentSessionKey"`
	SessionStartedAt      int64    `json:"sessionStartedAt"`
	UsageFamilySessionIDs []string `json:"usageFamilySessionIds"`
}

// sessionStore is what one sessions.json says about the transcripts next to
// it, with keys already canonical.
type sessionStore struct {
	live    map[string]Session // transcript file name -> the session it is live for
	lineage map[string]string  // session id of an earlier generation -> its key
}

// readSessionStore reads path, a sessions.json of agent agentID. A missing
// file is an empty store. It streams the object entry by entry, so a large
// store costs the memory of its largest entry. On an error it also returns
// what it read before it, which callers may still use.
func readSessionStore(path, agentID string) (sessionStore, error) {
	s := sessionStore{live: map[string]Session{}, lineage: map[string]string{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, unwrapPathError(err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return s, errors.New("not a JSON object of session entries")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return s, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
		}
		key := tok.(string) // object member names are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return s, fmt.Errorf("entry %q: invalid JSON: %w", key, err)
		}
		var e storeEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return s, fmt.Errorf("entry %q: %w", key, err)
		}
		s.add(sessionkey.Canonical(agentID, key), e, agentID)
	}
	return s, nil
}

func (s sessionStore) add(key string, e storeEntry, agentID string) {
	live := Session{
		Key:              key,
		SpawnedBy:        sessionkey.Canonical(agentID, e.SpawnedBy),
		ParentSessionKey: sessionkey.Canonical(agentID, e.ParentSessionKey),
		CreatedAt:        e.SessionStartedAt,
	}
	// The first entry naming a file wins, so the result does not depend on
	// map order.
	for _, name := range []string{filepath.Base(e.SessionFile), e.SessionID + ".jsonl"} {
		if name != "." && name != ".jsonl" {
			if _, dup := s.live[name]; !dup {
				s.live[name] = live
			}
		}
	}
	for _, id := range e.UsageFamilySessionIDs {
		if _, dup := s.lineage[id]; !dup && id != e.SessionID {
			s.lineage[id] = key
		}
	}
}

// describe fills in what the store says about a JSONL source: the session
// it is the live transcript of, or the key an archived generation belonged
// to.
func (s sessionStore) describe(src *Source) {
	name := filepath.Base(src.Path)
	if !archiveRE.MatchString(name) {
		src.Live = s.live[name]
	}
	if src.Live.Key == "" {
		src.Lineage = s.lineage[src.SessionID]
	}
}
