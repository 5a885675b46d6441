//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperatorFlags: the node takes the operator flags of `sessionsearch
// serve` (docs/serve.md H15–H17). A bad value stops it before it starts;
// with --audit-key its reads are rows of sessionsearch_audit, written as
// execs and replicated, within --audit-rows; a token without "metrics"
// may not read /metrics.
func TestOperatorFlags(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "audit.key")
	os.WriteFile(key, []byte("node-audit-key-0123456789abcdefghij"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-limit", "-1"}, "--rate-limit must be a number of requests per second, 0 or more, got -1"},
		{[]string{"--audit-key", filepath.Join(dir, "missing")}, "audit key file"},
	} {
		args := append([]string{"serve", "--id", "1", "--addr", "127.0.0.1:1", "--dir", filepath.Join(dir, "n"), "--http", "127.0.0.1:0", "--insecure-loopback-no-auth"}, c.args...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("sessionsearch-dqlite %v: %v\n%s\nwant exit 2 and %q", c.args, err, out, c.want)
		}
	}

	c := newCluster(t, 1, "--audit-key", key, "--audit-rows", "2", "--rate-limit", "1000")
	p := c.nodes[0]
	if st, out, err := c.post(p, "/v1/append", "main", `{"sessions":[{"sessionKey":"agent:main:main"}],"events":[{"sessionKey":"agent:main:main","seq":0,"event":{"type":"message","id":"m0","message":{"role":"user","content":"weather"}}}]}`); err != nil || st != 200 {
		t.Fatalf("append: %d %s %v", st, out, err)
	}
	for range 3 {
		if st, out, err := c.post(p, "/v1/search", "main", `{"query":"weather","sandboxed":true}`); err != nil || st != 200 || !strings.Contains(string(out), "agent:main:main") {
			t.Fatalf("search: %d %s %v", st, out, err)
		}
	}
	var rows int
	var keys, callers string
	if err := c.db.QueryRow(`SELECT count(*), group_concat(DISTINCT session_keys), group_concat(DISTINCT caller) FROM sessionsearch_audit`).Scan(&rows, &keys, &callers); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || keys != `["agent:main:main"]` || callers != "agent:main:main" {
		t.Errorf("the audit trail: %d rows, keys %s, callers %s", rows, keys, callers)
	}
	req, _ := http.NewRequest("GET", "http://"+p.http+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+bearer("main"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("/metrics with a token without \"metrics\": %d", resp.StatusCode)
	}
}
