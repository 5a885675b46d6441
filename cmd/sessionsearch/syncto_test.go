package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/sync.md: sync --to pushes what it synced into --db to a sessionsearch
// serve, which then answers the same searches as the local database; a
// second run sends nothing new, and a wrong token is refused with nothing
// half sent.
func TestSyncToServe(t *testing.T) {
	state := syncState(t, 6, 6)
	s := startServe(t, "--db", filepath.Join(t.TempDir(), "remote.db"), "--tokens", writeTokens(t, "agent:main:s0"))
	local := filepath.Join(t.TempDir(), "local.db")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(serveWriter+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.addr
	r := mustRun(t, "sync", "--db", local, "--to", url, "--token-file", tokenFile, state)
	if !strings.Contains(r.stdout, "pushed ") || !strings.Contains(r.stdout, url) {
		t.Fatalf("sync --to printed:\n%s", r.stdout)
	}
	db := openDB(t, local)
	for _, q := range []string{"the", "after the reset", "forked"} {
		var want string
		if err := db.QueryRow(`SELECT sessions_search(?1, ?2)`, q,
			`{"limit":25,"caller":"agent:main:main","visibility":"all","sandboxed":false,"sandboxVisibility":"spawned"}`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		st, out := s.request(t, serveWriter, "POST", "/v1/search", []byte(fmt.Sprintf(`{"query":%q,"limit":25}`, q)))
		if st != 200 || strings.TrimSuffix(string(out), "\n") != want {
			t.Errorf("search %q: the service answered %d\n%s\nthe local database\n%s", q, st, out, want)
		}
		if !strings.Contains(want, `"sessionKey"`) {
			t.Errorf("search %q found nothing locally: the test tests nothing", q)
		}
	}
	if r := mustRun(t, "sync", "--db", local, "--to", url, "--token-file", tokenFile, state); strings.Contains(r.stdout, "pushed ") {
		t.Errorf("a second sync --to pushed again:\n%s", r.stdout)
	}
	if r := runBinary(t, []string{"SESSIONSEARCH_TOKEN=not-a-token-of-the-service"}, "sync", "--db", local, "--to", url, state); r.code != 1 || !strings.Contains(r.stderr, "push to "+url) {
		t.Errorf("a bad token: exit %d\n%s", r.code, r.stderr)
	}
	if r := runBinary(t, nil, "sync", "--db", local, "--to", "ftp://x", state); r.code != 2 || !strings.Contains(r.stderr, `--to must be an http:// or https:// URL`) {
		t.Errorf("a bad --to: exit %d\n%s", r.code, r.stderr)
	}
	if r := runBinary(t, nil, "sync", "--db", local, "--to", url, state); r.code != 2 || !strings.Contains(r.stderr, "--to needs a token") {
		t.Errorf("no token: exit %d\n%s", r.code, r.stderr)
	}
}
