//go:build libsqlite3 && sqlite_fts5

// Command sessionsearch-dqlite runs one node of a sessionsearch cluster on
// dqlite and serves the HTTP API from it (docs/cluster.md):
//
//	sessionsearch-dqlite dump --addr HOST:PORT --out FILE
//	sessionsearch-dqlite serve --id N --addr HOST:PORT --dir DIR --http ADDR [--join HOST:PORT,...] [--tokens FILE]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sessionsearch/sessionsearch/dqlite/guard"
	"github.com/sessionsearch/sessionsearch/dqlite/node"
	"github.com/sessionsearch/sessionsearch/server"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sessionsearch-dqlite:", err)
		os.Exit(2)
	}
}

const usage = "usage: sessionsearch-dqlite dump --addr HOST:PORT --out FILE\n       sessionsearch-dqlite serve --id N --addr HOST:PORT --dir DIR --http ADDR [--join HOST:PORT,...] [--tokens FILE | --insecure-loopback-no-auth] [--cache-mb N] [--rate-limit N] [--rate-burst N] [--audit-key FILE] [--audit-rows N]"

func run(args []string, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "dump" {
		return runDump(args[1:], os.Stdout, stderr)
	}
	if len(args) == 0 || args[0] != "serve" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.Uint64("id", 0, "this node's id: 1 bootstraps a new cluster, others --join it")
	addr := fs.String("addr", "", "HOST:PORT of this node's dqlite protocol")
	dir := fs.String("dir", "", "directory of this node's raft log and snapshots")
	httpAddr := fs.String("http", "", "HOST:PORT of the HTTP API")
	join := fs.String("join", "", "comma-separated HOST:PORT of nodes already in the cluster (a new node only)")
	tokens := fs.String("tokens", "", "tokens file: bearer token to caller grant (see docs/serve.md)")
	cacheMB := fs.Int64("cache-mb", 256, "page cache of each SQLite connection, MiB: bounds a transaction's changed pages (docs/cluster.md K5)")
	timeout := fs.Duration("timeout", 30*time.Second, "longest database work of one request")
	noAuth := fs.Bool("insecure-loopback-no-auth", false, "DEVELOPMENT ONLY: no tokens; every request names its own caller and may write (needs a loopback --http)")
	operator := server.AddOperatorFlags(fs) // docs/serve.md H14–H17
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	for _, f := range []struct{ name, v string }{{"--addr", *addr}, {"--dir", *dir}, {"--http", *httpAddr}} {
		if f.v == "" {
			return fmt.Errorf("serve: %s is required (%s)", f.name, usage)
		}
	}
	if *cacheMB < 2 {
		return fmt.Errorf("serve: --cache-mb %d: must be at least 2", *cacheMB)
	}
	joinAddrs, err := node.ParseJoin(*join)
	if err != nil {
		return err
	}
	opts, err := apiOptions(*tokens, *noAuth, *httpAddr)
	if err != nil {
		return err
	}
	if *timeout <= 0 {
		return fmt.Errorf("serve: --timeout must be positive, got %s", *timeout)
	}
	opts.RequestTimeout = *timeout
	if err := operator.Apply(&opts); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger := log.New(stderr, fmt.Sprintf("node %d: ", *id), log.LstdFlags|log.Lmicroseconds)
	n, err := node.Start(node.Config{ID: *id, Address: *addr, Dir: *dir, Join: joinAddrs, CacheKiB: *cacheMB * 1024, Log: logger.Printf})
	if err != nil {
		return err
	}
	defer n.Close()

	api := apiHandler(n, opts)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cluster", func(w http.ResponseWriter, r *http.Request) { clusterStatus(n, w, r) })
	mux.Handle("/", api)
	srv := &http.Server{Addr: *httpAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	// The store's schema, once a leader is there: through the exec path
	// (docs/cluster.md K2). Every node does it; it is idempotent.
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			v, err := guard.Migrate(ctx, n.DB)
			cancel()
			if err == nil {
				logger.Printf("transcript store at schema %d", v)
				return
			}
			logger.Printf("migrate: %v (retrying)", err)
			time.Sleep(time.Second)
		}
	}()

	reload := opts.Tokens
	if reload == nil {
		reload = &server.Tokens{}
	}
	defer server.ReloadTokensOnHangup(*tokens, reload, logger.Printf)()

	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	logger.Printf("dqlite at %s, HTTP at %s", *addr, *httpAddr)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err := <-errc:
		return fmt.Errorf("--http %s: %w", *httpAddr, err)
	case s := <-sig:
		logger.Printf("%v: shutting down", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// clusterStatus answers GET /cluster: this node, the leader it knows and
// the nodes with their roles.
func clusterStatus(n *node.Node, w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	st, err := n.Status(ctx)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": "no_cluster", "message": err.Error()}})
		return
	}
	type nodeJSON struct {
		ID      uint64 `json:"id"`
		Address string `json:"address"`
		Role    string `json:"role"`
	}
	out := struct {
		ID      uint64     `json:"id"`
		Address string     `json:"address"`
		Joined  bool       `json:"joined"`
		Leader  *nodeJSON  `json:"leader"`
		Nodes   []nodeJSON `json:"nodes"`
	}{ID: st.ID, Address: st.Address, Joined: st.Joined, Nodes: []nodeJSON{}}
	if st.Leader != nil {
		out.Leader = &nodeJSON{st.Leader.ID, st.Leader.Address, ""}
	}
	for _, x := range st.Nodes {
		j := nodeJSON{x.ID, x.Address, x.Role.String()}
		if out.Leader != nil && x.ID == out.Leader.ID {
			out.Leader.Role = j.Role
		}
		out.Nodes = append(out.Nodes, j)
	}
	json.NewEncoder(w).Encode(out)
}
