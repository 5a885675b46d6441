package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// MinTokenBytes is the shortest token a tokens file may hold: a guessable
// token is no authentication (docs/serve.md H1).
const MinTokenBytes = 16

// Grant is what one token allows: the caller every read runs as, the
// widest visibility it may ask for, and whether it may write.
type Grant struct {
	Caller            string        `json:"caller"`
	Visibility        string        `json:"visibility,omitempty"`        // self, tree (default), agent, all
	Sandboxed         bool          `json:"sandboxed,omitempty"`         // see only what sandboxVisibility allows
	SandboxVisibility string        `json:"sandboxVisibility,omitempty"` // spawned (default), all
	AgentToAgent      *AgentToAgent `json:"agentToAgent,omitempty"`      // absent: no other agent's sessions
	Write             bool          `json:"write,omitempty"`             // may append and delete
}

// AgentToAgent lets the "all" visibility reach other agents' sessions whose
// agent ids match Allow.
type AgentToAgent struct {
	Enabled bool     `json:"enabled"`
	Allow   []string `json:"allow,omitempty"`
}

// Tokens maps bearer tokens to grants. The zero value admits nobody.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	hash  [sha256.Size]byte
	grant Grant
}

// tokensFile is the file the operator writes:
//
//	{"tokens":[{"token":"…","caller":"agent:main:main","visibility":"all","write":true}]}
type tokensFile struct {
	Tokens []struct {
		Token string `json:"token"`
		Grant
	} `json:"tokens"`
}

// LoadTokens reads a tokens file. It refuses a file that others than its
// owner can read or write, since the tokens in it are passwords.
func LoadTokens(path string) (*Tokens, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	if mode := info.Mode().Perm(); mode&0o077 != 0 {
		return nil, fmt.Errorf("tokens file %s: mode %04o lets others read it; run chmod 600 %s", path, mode, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	t, err := ParseTokens(data)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return t, nil
}

// ParseTokens parses the JSON of a tokens file. Unknown fields, a missing
// caller, short or repeated tokens and unknown visibilities are errors
// that name the entry and the field.
func ParseTokens(data []byte) (*Tokens, error) {
	var f tokensFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a tokens file: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a tokens file: data after the object")
	}
	if len(f.Tokens) == 0 {
		return nil, errors.New(`"tokens" lists no token`)
	}
	t := &Tokens{}
	seen := map[[sha256.Size]byte]int{}
	for i, e := range f.Tokens {
		at := fmt.Sprintf("tokens[%d]", i)
		if len(e.Token) < MinTokenBytes {
			return nil, fmt.Errorf("%s.token must be at least %d characters, got %d", at, MinTokenBytes, len(e.Token))
		}
		if strings.TrimSpace(e.Token) != e.Token || strings.ContainsAny(e.Token, " \t\r\n") {
			return nil, fmt.Errorf("%s.token must not contain white space", at)
		}
		h := sha256.Sum256([]byte(e.Token))
		if j, ok := seen[h]; ok {
			return nil, fmt.Errorf("%s.token is the same as tokens[%d].token", at, j)
		}
		seen[h] = i
		g := e.Grant
		if g.Caller == "" {
			return nil, fmt.Errorf("%s.caller must be a session key, got %q", at, g.Caller)
		}
		if g.Visibility == "" {
			g.Visibility = visibilityTree
		}
		if !oneOf(g.Visibility, visibilities...) {
			return nil, fmt.Errorf("%s.visibility must be one of %s, got %q", at, strings.Join(visibilities, ", "), g.Visibility)
		}
		if g.SandboxVisibility == "" {
			g.SandboxVisibility = sandboxSpawned
		}
		if !oneOf(g.SandboxVisibility, sandboxVisibilities...) {
			return nil, fmt.Errorf("%s.sandboxVisibility must be one of %s, got %q", at, strings.Join(sandboxVisibilities, ", "), g.SandboxVisibility)
		}
		t.entries = append(t.entries, tokenEntry{hash: h, grant: g})
	}
	return t, nil
}

// lookup finds the grant of a presented token. Tokens are compared as
// SHA-256 digests in constant time, and every entry is compared, so the
// time taken says nothing about which token, or how much of one, matched.
func (t *Tokens) lookup(token string) (Grant, bool) {
	h := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(h[:], t.entries[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Grant{}, false
	}
	return t.entries[found].grant, true
}

func oneOf(s string, set ...string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}
