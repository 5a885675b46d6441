//go:build libsqlite3 && sqlite_fts5

// Package node runs one dqlite node with the sessionsearch extension linked
// statically, and opens the guarded *sql.DB that reaches the cluster's
// leader from it (docs/cluster.md).
package node

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	dqlite "github.com/canonical/go-dqlite"
	"github.com/canonical/go-dqlite/client"
	dqdriver "github.com/canonical/go-dqlite/driver"

	"github.com/sessionsearch/sessionsearch/dqlite/guard"
)

// Database is the name of the database every node serves.
const Database = "sessionsearch"

// Config is what serve's flags give.
type Config struct {
	ID       uint64   // --id: this node's raft id; 1 bootstraps a new cluster
	Address  string   // --addr: HOST:PORT of the dqlite protocol
	Dir      string   // --dir: raft log, snapshots and the node store
	Join     []string // --join: addresses of nodes already in the cluster
	CacheKiB int64    // --cache-mb × 1024: page cache of each connection
	Log      func(format string, args ...any)
}

// Node is a running node.
type Node struct {
	cfg    Config
	node   *dqlite.Node
	store  client.NodeStore
	DB     *sql.DB // guarded; its statements go to the leader
	stop   context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	joined bool
}

// identity is the file that ties a data directory to its id and address.
type identity struct {
	ID      uint64 `json:"id"`
	Address string `json:"address"`
}

const identityFile = "sessionsearch-node.json"
const joinFile = "join-pending"
const storeFile = "cluster.yaml"

// Start starts the node and its background work: joining the cluster if
// the directory is new and --join was given, and keeping the node store
// (the addresses the driver tries to find the leader) up to date.
func Start(cfg Config) (*Node, error) {
	if cfg.ID == 0 {
		return nil, fmt.Errorf("--id: must be a positive integer, got 0")
	}
	if err := register(cfg.CacheKiB); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("--dir %s: %w", cfg.Dir, err)
	}
	idPath := filepath.Join(cfg.Dir, identityFile)
	fresh := false
	if b, err := os.ReadFile(idPath); err == nil {
		var id identity
		if err := json.Unmarshal(b, &id); err != nil {
			return nil, fmt.Errorf("--dir %s: %s is not valid JSON: %w", cfg.Dir, identityFile, err)
		}
		if id.ID != cfg.ID {
			return nil, fmt.Errorf("--id %d: the directory %s belongs to node %d", cfg.ID, cfg.Dir, id.ID)
		}
		if id.Address != cfg.Address {
			return nil, fmt.Errorf("--addr %s: the directory %s belongs to the node at %s", cfg.Address, cfg.Dir, id.Address)
		}
	} else if errors.Is(err, os.ErrNotExist) {
		fresh = true
		if len(cfg.Join) == 0 && cfg.ID != 1 {
			return nil, fmt.Errorf("--join: a new node with --id %d joins a cluster: name one of its nodes (only --id 1 bootstraps a new cluster)", cfg.ID)
		}
		if len(cfg.Join) > 0 && cfg.ID == 1 {
			return nil, fmt.Errorf("--id 1 bootstraps a new cluster and cannot --join one: give the joining node another id")
		}
	} else {
		return nil, err
	}

	store, err := client.NewYamlNodeStore(filepath.Join(cfg.Dir, storeFile))
	if err != nil {
		return nil, fmt.Errorf("--dir %s: node store: %w", cfg.Dir, err)
	}
	if fresh {
		nodes := []client.NodeInfo{{ID: cfg.ID, Address: cfg.Address, Role: client.Voter}}
		if len(cfg.Join) > 0 {
			nodes = nodes[:0]
			for _, a := range cfg.Join {
				nodes = append(nodes, client.NodeInfo{Address: a})
			}
			if err := os.WriteFile(filepath.Join(cfg.Dir, joinFile), nil, 0o644); err != nil {
				return nil, err
			}
		}
		if err := store.Set(context.Background(), nodes); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(identity{cfg.ID, cfg.Address})
		if err := os.WriteFile(idPath, b, 0o644); err != nil {
			return nil, err
		}
	}

	dn, err := dqlite.New(cfg.ID, cfg.Address, cfg.Dir, dqlite.WithBindAddress(cfg.Address))
	if err != nil {
		return nil, fmt.Errorf("dqlite node %d at %s: %w", cfg.ID, cfg.Address, err)
	}
	if err := dn.Start(); err != nil {
		return nil, fmt.Errorf("dqlite node %d at %s: start: %w", cfg.ID, cfg.Address, err)
	}
	// Without a leader, a statement fails after 5 s instead of waiting for
	// the request's whole timeout (docs/cluster.md K7).
	drv, err := dqdriver.New(store, dqdriver.WithLogFunc(quietLog), dqdriver.WithConnectionTimeout(5*time.Second))
	if err != nil {
		dn.Close()
		return nil, err
	}
	conn, err := drv.OpenConnector(Database)
	if err != nil {
		dn.Close()
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	n := &Node{cfg: cfg, node: dn, store: store, DB: sql.OpenDB(guard.Connector(conn)), stop: stop, done: make(chan struct{})}
	_, err = os.Stat(filepath.Join(cfg.Dir, joinFile))
	n.joined = err != nil
	go n.run(ctx)
	return n, nil
}

func quietLog(l client.LogLevel, format string, a ...any) {}

func (n *Node) logf(format string, args ...any) {
	if n.cfg.Log != nil {
		n.cfg.Log(format, args...)
	}
}

// run joins the cluster if needed, then refreshes the node store every
// second from the leader's list of nodes.
func (n *Node) run(ctx context.Context) {
	defer close(n.done)
	for {
		n.tick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (n *Node) tick(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cli, err := client.FindLeader(ctx, n.store, client.WithLogFunc(quietLog))
	if err != nil {
		return
	}
	defer cli.Close()
	n.mu.Lock()
	joined := n.joined
	n.mu.Unlock()
	if !joined {
		if err := n.join(ctx, cli); err != nil {
			n.logf("join: %v (retrying)", err)
			return
		}
		os.Remove(filepath.Join(n.cfg.Dir, joinFile))
		n.mu.Lock()
		n.joined = true
		n.mu.Unlock()
		n.logf("joined the cluster as voter %d", n.cfg.ID)
	}
	nodes, err := cli.Cluster(ctx)
	if err == nil && len(nodes) > 0 {
		n.store.Set(ctx, nodes)
	}
}

// join adds this node as a spare, then makes it a voter once it has caught
// up: one configuration change at a time, as raft requires; the leader
// refuses a second change while one is in progress, and join retries.
func (n *Node) join(ctx context.Context, cli *client.Client) error {
	nodes, err := cli.Cluster(ctx)
	if err != nil {
		return err
	}
	var me *client.NodeInfo
	for i := range nodes {
		if nodes[i].ID == n.cfg.ID {
			me = &nodes[i]
		} else if nodes[i].Address == n.cfg.Address {
			return fmt.Errorf("--addr %s: the cluster has node %d at this address", n.cfg.Address, nodes[i].ID)
		}
	}
	if me == nil {
		if err := cli.Add(ctx, client.NodeInfo{ID: n.cfg.ID, Address: n.cfg.Address, Role: client.Spare}); err != nil {
			return fmt.Errorf("add node %d: %w", n.cfg.ID, err)
		}
	} else if me.Role == client.Voter {
		return nil
	}
	if err := cli.Assign(ctx, n.cfg.ID, client.Voter); err != nil {
		return fmt.Errorf("make node %d a voter: %w", n.cfg.ID, err)
	}
	return nil
}

// Status is what the node knows of the cluster.
type Status struct {
	ID      uint64            `json:"id"`
	Address string            `json:"address"`
	Joined  bool              `json:"joined"`
	Leader  *client.NodeInfo  `json:"leader"`
	Nodes   []client.NodeInfo `json:"nodes"`
}

// Status asks this node (not the leader) who leads and who is in the cluster.
func (n *Node) Status(ctx context.Context) (Status, error) {
	n.mu.Lock()
	st := Status{ID: n.cfg.ID, Address: n.cfg.Address, Joined: n.joined}
	n.mu.Unlock()
	cli, err := client.New(ctx, n.cfg.Address, client.WithLogFunc(quietLog))
	if err != nil {
		return st, err
	}
	defer cli.Close()
	leader, err := cli.Leader(ctx)
	if err != nil {
		return st, err
	}
	if leader != nil && leader.Address != "" {
		st.Leader = leader
	}
	if st.Nodes, err = cli.Cluster(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// Close stops the node; the cluster goes on without it.
func (n *Node) Close() error {
	n.stop()
	<-n.done
	n.DB.Close()
	return n.node.Close()
}

// ParseJoin splits --join's comma-separated addresses.
func ParseJoin(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if !strings.Contains(a, ":") {
			return nil, fmt.Errorf("--join: %q is not HOST:PORT", a)
		}
		out = append(out, a)
	}
	return out, nil
}
