//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/canonical/go-dqlite/client"
	dqdriver "github.com/canonical/go-dqlite/driver"

	"github.com/sessionsearch/sessionsearch/dqlite/guard"
)

// bin is the sessionsearch-dqlite binary TestMain builds for the tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sessionsearch-dqlite-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "sessionsearch-dqlite")
	build := exec.Command("go", "build", "-tags", "libsqlite3 sqlite_fts5", "-o", bin, "./cmd/sessionsearch-dqlite")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building sessionsearch-dqlite:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is one node, a real process on 127.0.0.1.
type proc struct {
	id        uint64
	addr      string // dqlite
	http      string
	dir       string
	cmd       *exec.Cmd
	exited    chan struct{}
	extraArgs []string
}

type cluster struct {
	t      testing.TB
	nodes  []*proc
	db     *sql.DB // guarded, through the dqlite driver, to the leader
	tokens string  // the tokens file every node reads
}

// The bearer tokens of the tests, by name.
var tokens = map[string]string{
	"main": `{"token":"main-token-0123456789abcdef","caller":"agent:main:main","write":true}`,
	"tele": `{"token":"tele-token-0123456789abcdef","caller":"agent:main:en-telegram-rewind-fad751fa","visibility":"self"}`,
	"big":  `{"token":"big-token-0123456789abcdefg","caller":"agent:big:main","write":true}`,
}

func bearer(name string) string {
	var v struct{ Token string }
	json.Unmarshal([]byte(tokens[name]), &v)
	return v.Token
}

// post sends a JSON body to p's HTTP API with the named token and returns
// the status and body.
func (c *cluster) post(p *proc, path, token string, body any) (int, []byte, error) {
	var b []byte
	switch v := body.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		b, _ = json.Marshal(v)
	}
	req, _ := http.NewRequest("POST", "http://"+p.http+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer(token))
	cl := http.Client{Timeout: 60 * time.Second}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

func freeAddr(t testing.TB) string {
	t.Helper()
	return freeAddrs(t, 1)[0]
}

// freeAddrs returns n distinct loopback addresses that were free a moment
// ago. All n listeners stay open until every address is chosen: closing each
// one before asking for the next lets the kernel hand the same port out twice
// (two nodes once got the same HTTP port and the second could not bind).
func freeAddrs(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out = append(out, l.Addr().String())
	}
	return out
}

// newCluster starts n nodes, one at a time: each joins and becomes a voter
// before the next one starts (docs/cluster.md K6).
func newCluster(t testing.TB, n int, extra ...string) *cluster {
	c := &cluster{t: t, tokens: filepath.Join(t.TempDir(), "tokens.json")}
	var list []string
	for _, v := range tokens {
		list = append(list, v)
	}
	if err := os.WriteFile(c.tokens, []byte(`{"tokens":[`+strings.Join(list, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addrs := freeAddrs(t, 2*n)
	for i := 0; i < n; i++ {
		c.nodes = append(c.nodes, &proc{id: uint64(i + 1), addr: addrs[2*i], http: addrs[2*i+1], dir: t.TempDir(), extraArgs: extra})
	}
	t.Cleanup(func() {
		for _, p := range c.nodes {
			c.kill(p)
		}
		if t.Failed() {
			for _, p := range c.nodes {
				b, _ := os.ReadFile(filepath.Join(p.dir, "node.log"))
				t.Logf("node %d log (tail):\n%s", p.id, tail(string(b), 3000))
			}
		}
	})
	for i, p := range c.nodes {
		c.start(p)
		c.waitVoter(p.id, 30*time.Second)
		if i == 0 {
			c.waitMigrated(30 * time.Second)
		}
	}
	store := client.NewInmemNodeStore()
	var infos []client.NodeInfo
	for _, p := range c.nodes {
		infos = append(infos, client.NodeInfo{ID: p.id, Address: p.addr})
	}
	store.Set(context.Background(), infos)
	drv, err := dqdriver.New(store, dqdriver.WithLogFunc(func(client.LogLevel, string, ...any) {}))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := drv.OpenConnector("sessionsearch")
	if err != nil {
		t.Fatal(err)
	}
	c.db = sql.OpenDB(guard.Connector(conn))
	t.Cleanup(func() { c.db.Close() })
	return c
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (c *cluster) start(p *proc) {
	c.t.Helper()
	args := []string{"serve", "--id", fmt.Sprint(p.id), "--addr", p.addr, "--dir", p.dir, "--http", p.http, "--tokens", c.tokens}
	if p.id != 1 {
		args = append(args, "--join", c.nodes[0].addr)
	}
	args = append(args, p.extraArgs...)
	logf, err := os.OpenFile(filepath.Join(p.dir, "node.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	p.exited = make(chan struct{})
	go func(cmd *exec.Cmd, ch chan struct{}) { cmd.Wait(); logf.Close(); close(ch) }(p.cmd, p.exited)
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *cluster) kill(p *proc) {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	p.cmd = nil
}

func (c *cluster) alive(p *proc) bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// leader asks the running nodes who leads; 0 when none is known.
func (c *cluster) leader(ctx context.Context) (uint64, error) {
	var last error = fmt.Errorf("no node running")
	for _, p := range c.nodes {
		if !c.alive(p) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		cli, err := client.New(cctx, p.addr, client.WithLogFunc(func(client.LogLevel, string, ...any) {}))
		if err != nil {
			cancel()
			last = err
			continue
		}
		info, err := cli.Leader(cctx)
		cli.Close()
		cancel()
		if err == nil && info != nil && info.ID != 0 {
			return info.ID, nil
		}
		last = err
	}
	return 0, last
}

// waitLeader waits for a leader among the running nodes other than not.
func (c *cluster) waitLeader(timeout time.Duration, not uint64) uint64 {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		id, _ := c.leader(context.Background())
		if id != 0 && id != not && c.alive(c.nodes[id-1]) {
			return id
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("no leader other than %d within %v", not, timeout)
	return 0
}

// leaderClient is a client connected to the leader.
func (c *cluster) leaderClient(ctx context.Context) *client.Client {
	c.t.Helper()
	store := client.NewInmemNodeStore()
	var infos []client.NodeInfo
	for _, p := range c.nodes {
		if c.alive(p) {
			infos = append(infos, client.NodeInfo{ID: p.id, Address: p.addr})
		}
	}
	store.Set(ctx, infos)
	cli, err := client.FindLeader(ctx, store, client.WithLogFunc(func(client.LogLevel, string, ...any) {}))
	if err != nil {
		c.t.Fatalf("find leader: %v", err)
	}
	return cli
}

func (c *cluster) waitVoter(id uint64, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		st, err := c.status(c.nodes[id-1])
		if err == nil && st.Leader != nil {
			for _, n := range st.Nodes {
				if n.ID == id && n.Role == "voter" {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("node %d is not a voter after %v", id, timeout)
}

type nodeJSON struct {
	ID      uint64 `json:"id"`
	Address string `json:"address"`
	Role    string `json:"role"`
}

type clusterJSON struct {
	ID     uint64     `json:"id"`
	Leader *nodeJSON  `json:"leader"`
	Nodes  []nodeJSON `json:"nodes"`
}

// status is GET /cluster of p's HTTP server.
func (c *cluster) status(p *proc) (clusterJSON, error) {
	var st clusterJSON
	cl := http.Client{Timeout: 3 * time.Second}
	resp, err := cl.Get("http://" + p.http + "/cluster")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return st, fmt.Errorf("GET /cluster: %s %s", resp.Status, b)
	}
	return st, json.Unmarshal(b, &st)
}

func (c *cluster) waitMigrated(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(c.nodes[0].dir, "node.log"))
		if strings.Contains(string(b), "transcript store at schema") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("node 1 did not migrate the store within %v", timeout)
}

// transfer makes id the leader, so that the next statements read its copy.
func (c *cluster) transfer(id uint64) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cur, _ := c.leader(ctx)
		if cur == id {
			cancel()
			// The pool's connections are to the old leader's gateway.
			c.db.SetMaxIdleConns(0)
			c.db.SetMaxIdleConns(2)
			return
		}
		cli := c.leaderClient(ctx)
		cli.Transfer(ctx, id)
		cli.Close()
		cancel()
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("leadership did not move to node %d", id)
}

// waitReady waits for p's GET /readyz to answer 200.
func (c *cluster) waitReady(p *proc, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	cl := http.Client{Timeout: 3 * time.Second}
	for time.Now().Before(deadline) {
		resp, err := cl.Get("http://" + p.http + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("node %d is not ready after %v", p.id, timeout)
}
