package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseTokens: docs/serve.md H1. A tokens file with a mistake is
// refused with the entry and field named, never half loaded.
func TestParseTokens(t *testing.T) {
	const good = `"token":"0123456789abcdef0123","caller":"agent:main:main"`
	for _, c := range []struct{ file, want string }{
		{`{"tokens":[{` + good + `}]}`, ""},
		{`{"tokens":[]}`, `"tokens" lists no token`},
		{`[]`, "not a tokens file"},
		{`{"tokens":[{` + good + `,"admin":true}]}`, `unknown field "admin"`},
		{`{"tokens":[{"token":"short","caller":"agent:main:main"}]}`, "tokens[0].token must be at least 16 characters, got 5"},
		{`{"tokens":[{"token":"0123456789abcdef 0123","caller":"agent:main:main"}]}`, "tokens[0].token must not contain white space"},
		{`{"tokens":[{"token":"0123456789abcdef0123"}]}`, `tokens[0].caller must be a session key, got ""`},
		{`{"tokens":[{` + good + `,"visibility":"everything"}]}`, `tokens[0].visibility must be "self", "tree", "agent" or "all", got "everything"`},
		{`{"tokens":[{` + good + `,"sandboxVisibility":"some"}]}`, `tokens[0].sandboxVisibility must be "spawned" or "all", got "some"`},
		{`{"tokens":[{` + good + `,"agentToAgent":{"enabled":true,"allow":"*"}}]}`, `agentToAgent.allow of type []string`},
		{`{"tokens":[{` + good + `,"ceiling":{"visibility":"self"}}]}`, `tokens[0].ceiling: a grant is the ceiling of its reads`},
		{`{"tokens":[{"token":"0123456789abcdef0123","metrics":true}]}`, ""},
		{`{"tokens":[{"token":"0123456789abcdef0123","metrics":true,"write":true}]}`, `tokens[0].caller must be a session key, got ""`},
		{`{"tokens":[{"token":"0123456789abcdef0123","metrics":true,"visibility":"all"}]}`, `tokens[0].caller must be a session key, got ""`},
		{`{"tokens":[{` + good + `},{` + good + `}]}`, "tokens[1].token is the same as tokens[0].token"},
		{`{"tokens":[{` + good + `}]} {}`, "data after the object"},
	} {
		_, err := ParseTokens([]byte(c.file))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.file, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.file, err, c.want)
		}
	}
}

// TestTokenLookup: the grant of the token presented, and only of it.
func TestTokenLookup(t *testing.T) {
	tok, err := ParseTokens([]byte(`{"tokens":[
		{"token":"aaaaaaaaaaaaaaaaaaaa","caller":"agent:a:main","write":true},
		{"token":"bbbbbbbbbbbbbbbbbbbb","caller":"agent:b:main","sandboxed":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := tok.lookup("bbbbbbbbbbbbbbbbbbbb"); !ok || e.grant.Caller != "agent:b:main" || e.grant.Write || !e.grant.Sandboxed ||
		e.grant.Visibility != "tree" || e.grant.SandboxVisibility != "spawned" {
		t.Errorf("lookup b: %+v %v", e.grant, ok)
	}
	for _, bad := range []string{"", "aaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaa", "AAAAAAAAAAAAAAAAAAAA"} {
		if e, ok := tok.lookup(bad); ok {
			t.Errorf("lookup %q found %+v", bad, e.grant)
		}
	}
	if _, ok := (&Tokens{}).lookup(""); ok {
		t.Error("the zero Tokens admits the empty token")
	}
}

// TestLoadTokensMode: a tokens file that others can read is refused.
func TestLoadTokensMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(`{"tokens":[{"token":"0123456789abcdef0123","caller":"agent:main:main"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTokens(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable tokens file: %v", err)
	}
	os.Chmod(path, 0o600)
	if _, err := LoadTokens(path); err != nil {
		t.Errorf("a private tokens file: %v", err)
	}
}
