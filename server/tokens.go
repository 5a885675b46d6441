package server

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// MinTokenBytes is the shortest token a tokens file may hold: a guessable
// token is no authentication (docs/serve.md H1).
const MinTokenBytes = 16

// Grant is what one token allows: the caller every read runs as and the
// most it may see, which is the ceiling of every read (docs/serve.md H2),
// and whether it may write and read /metrics. A grant with Metrics and
// without a caller and Write reads /metrics only.
type Grant struct {
	sqlfuncs.Options      // caller, visibility, sandboxed, sandboxVisibility, agentToAgent; never a ceiling
	Write            bool `json:"write,omitempty"`   // may append, reconcile, read watermarks and delete
	Metrics          bool `json:"metrics,omitempty"` // may read /metrics
}

// scope is the grant's visibility without the caller: the ceiling of its
// reads, as the options JSON of sqlfuncs writes it.
func (g Grant) scope() json.RawMessage {
	b, _ := json.Marshal(sqlfuncs.Options{Visibility: g.Visibility, Sandboxed: g.Sandboxed,
		SandboxVisibility: g.SandboxVisibility, AgentToAgent: g.AgentToAgent})
	return b
}

// Tokens maps bearer tokens to grants. The zero value admits nobody.
// Replace swaps in another file's tokens while requests are served.
type Tokens struct {
	entries atomic.Pointer[[]tokenEntry]
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
	data, err := readPrivate(path, "tokens file")
	if err != nil {
		return nil, err
	}
	t, err := ParseTokens(data)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return t, nil
}

// readPrivate reads a file of secrets, refusing one that others than its
// owner can read or write.
func readPrivate(path, what string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if mode := info.Mode().Perm(); mode&0o077 != 0 {
		return nil, fmt.Errorf("%s %s: mode %04o lets others read it; run chmod 600 %s", what, path, mode, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return data, nil
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
	var entries []tokenEntry
	seen := map[[sha256.Size]byte]int{}
	for i, e := range f.Tokens {
		at := fmt.Sprintf("tokens[%d]", i)
		entry, err := newEntry(at, e.Token, e.Grant)
		if err != nil {
			return nil, err
		}
		if j, ok := seen[entry.hash]; ok {
			return nil, fmt.Errorf("%s.token is the same as tokens[%d].token", at, j)
		}
		seen[entry.hash] = i
		entries = append(entries, entry)
	}
	t := &Tokens{}
	t.entries.Store(&entries)
	return t, nil
}

// NewTokens is the tokens of one grant: what `sessionsearch ui` makes for
// the person who starts it, with a token it draws itself.
func NewTokens(token string, g Grant) (*Tokens, error) {
	entry, err := newEntry("token", token, g)
	if err != nil {
		return nil, err
	}
	t := &Tokens{}
	t.entries.Store(&[]tokenEntry{entry})
	return t, nil
}

// newEntry checks one token and its grant, and fills in the grant's
// defaults; at names the entry in errors.
func newEntry(at, token string, g Grant) (tokenEntry, error) {
	if len(token) < MinTokenBytes {
		return tokenEntry{}, fmt.Errorf("%s.token must be at least %d characters, got %d", at, MinTokenBytes, len(token))
	}
	if strings.TrimSpace(token) != token || strings.ContainsAny(token, " \t\r\n") {
		return tokenEntry{}, fmt.Errorf("%s.token must not contain white space", at)
	}
	switch {
	case g.Ceiling != nil:
		return tokenEntry{}, fmt.Errorf("%s.ceiling: a grant is the ceiling of its reads and has none of its own", at)
	case g.Caller == "" && g.Metrics && !g.Write && string(g.scope()) == "{}":
		// Reads /metrics only.
	case g.Caller == "":
		return tokenEntry{}, fmt.Errorf("%s.caller must be a session key, got %q", at, g.Caller)
	default:
		if err := g.Options.Validate(); err != nil {
			return tokenEntry{}, fmt.Errorf("%s.%w", at, err)
		}
		g.Visibility = cmp.Or(g.Visibility, sqlfuncs.VisibilityTree)
		g.SandboxVisibility = cmp.Or(g.SandboxVisibility, sqlfuncs.SandboxSpawned)
	}
	return tokenEntry{hash: sha256.Sum256([]byte(token)), grant: g}, nil
}

// Replace puts the tokens of n in place of t's, all at once (docs/serve.md
// H14): a request looks its token up once, when it starts, and keeps that
// grant to the end, so requests in flight finish with the grant they
// started with, and the next ones see only n's tokens.
func (t *Tokens) Replace(n *Tokens) { t.entries.Store(n.entries.Load()) }

// Len is how many tokens t holds.
func (t *Tokens) Len() int {
	if e := t.entries.Load(); e != nil {
		return len(*e)
	}
	return 0
}

// lookup finds the entry of a presented token. Tokens are compared as
// SHA-256 digests in constant time, and every entry is compared, so the
// time taken says nothing about which token, or how much of one, matched.
func (t *Tokens) lookup(token string) (tokenEntry, bool) {
	h := sha256.Sum256([]byte(token))
	var entries []tokenEntry
	if e := t.entries.Load(); e != nil {
		entries = *e
	}
	found := -1
	for i := range entries {
		if subtle.ConstantTimeCompare(h[:], entries[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return tokenEntry{}, false
	}
	return entries[found], true
}

func oneOf(s string, set ...string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}
