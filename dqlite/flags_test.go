//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeFlags: bad flags stop the node before it starts, with exit code
// 2 and a message that names the flag and the value (docs/cluster.md K6).
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	tokensFile := filepath.Join(dir, "tokens.json")
	os.WriteFile(tokensFile, []byte(`{"tokens":[`+tokens["main"]+`]}`), 0o600)
	used := filepath.Join(dir, "used")
	os.Mkdir(used, 0o755)
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage: sessionsearch-dqlite"},
		{[]string{"serve", "--id", "1", "--dir", dir, "--http", "127.0.0.1:0", "--tokens", tokensFile}, "--addr is required"},
		{[]string{"serve", "--id", "2", "--addr", "127.0.0.1:1", "--dir", filepath.Join(dir, "new"), "--http", "127.0.0.1:0", "--tokens", tokensFile}, "--join: a new node with --id 2 joins a cluster"},
		{[]string{"serve", "--id", "1", "--addr", "127.0.0.1:1", "--dir", filepath.Join(dir, "new1"), "--http", "127.0.0.1:0", "--tokens", tokensFile, "--join", "127.0.0.1:2"}, "--id 1 bootstraps a new cluster and cannot --join"},
		{[]string{"serve", "--id", "2", "--addr", "127.0.0.1:1", "--dir", dir, "--http", "127.0.0.1:0", "--tokens", tokensFile, "--join", "localhost"}, `--join: "localhost" is not HOST:PORT`},
		{[]string{"serve", "--id", "1", "--addr", "127.0.0.1:1", "--dir", dir, "--http", "127.0.0.1:0", "--tokens", tokensFile, "--cache-mb", "1"}, "--cache-mb 1: must be at least 2"},
		{[]string{"serve", "--id", "1", "--addr", "127.0.0.1:1", "--dir", dir, "--http", "127.0.0.1:0"}, "--tokens FILE is required"},
		{[]string{"serve", "--id", "1", "--addr", "127.0.0.1:1", "--dir", dir, "--http", "0.0.0.0:8080", "--insecure-loopback-no-auth"}, `needs a loopback --http address, got "0.0.0.0:8080"`},
		{[]string{"serve", "--id", "3", "--addr", freeAddr(t), "--dir", used, "--http", "127.0.0.1:0", "--tokens", tokensFile}, "--id 3: the directory " + used + " belongs to node 1"},
	}
	// A directory that node 1 used.
	addrs := freeAddrs(t, 2)
	c := &cluster{t: t, tokens: tokensFile, nodes: []*proc{{id: 1, addr: addrs[0], http: addrs[1], dir: used}}}
	c.start(c.nodes[0])
	c.waitReady(c.nodes[0], 30*time.Second)
	c.kill(c.nodes[0])
	for _, tt := range tests {
		out, err := exec.Command(bin, tt.args...).CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), tt.want) {
			t.Errorf("sessionsearch-dqlite %s: %v\n%s\nwant exit code 2 and %q", strings.Join(tt.args, " "), err, out, tt.want)
		}
	}
}
