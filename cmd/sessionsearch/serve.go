package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// The HTTP service (docs/serve.md): the handler of package server over the
// database of --db, on --listen, with the callers of --tokens.

// shutdownGrace is how long a stopping server lets in-flight requests
// finish (docs/serve.md H10).
const shutdownGrace = 30 * time.Second

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("serve"))
	db := fs.dbFlag()
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to listen on (port 0 picks a free port; the bound address is printed)")
	tokensFile := fs.String("tokens", "", "tokens `file` (JSON, mode 0600) mapping each bearer token to its caller, visibility and write grant")
	noAuth := fs.Bool("insecure-loopback-no-auth", false, "DEVELOPMENT ONLY: no tokens; every request names its own caller and may write (refused unless --listen is a loopback address)")
	maxBody := fs.Int64("max-body", 64<<20, "largest append request in `bytes`")
	timeout := fs.Duration("timeout", 60*time.Second, "longest database work of one request")
	operator := server.AddOperatorFlags(fs.FlagSet)
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("serve takes no arguments, got %q", rest[0])
	}
	opts := server.Options{MaxBodyBytes: *maxBody, RequestTimeout: *timeout,
		AccessLog: slog.New(slog.NewJSONHandler(e.stderr, nil)), BulkLoad: true}
	switch {
	case *noAuth && *tokensFile != "":
		return usagef("--tokens and --insecure-loopback-no-auth exclude each other")
	case *noAuth:
		if !isLoopback(*listen) {
			return usagef("--insecure-loopback-no-auth needs a loopback --listen address (127.0.0.1, ::1 or localhost), got %q", *listen)
		}
		fmt.Fprintln(e.stderr, "sessionsearch serve: WARNING: --insecure-loopback-no-auth: no authentication; any local process may read and write every session")
	case *tokensFile == "":
		return usagef("--tokens FILE is required (or --insecure-loopback-no-auth for development on loopback)")
	default:
		t, err := server.LoadTokens(*tokensFile)
		if err != nil {
			return err
		}
		opts.Tokens = t
	}
	if *maxBody <= 0 {
		return usagef("--max-body must be positive, got %d", *maxBody)
	}
	if *timeout <= 0 {
		return usagef("--timeout must be positive, got %s", *timeout)
	}
	if err := operator.Apply(&opts); err != nil {
		return err
	}
	// The tokens file is read again on SIGHUP (docs/serve.md H14).
	tokens := opts.Tokens
	if tokens == nil {
		tokens = &server.Tokens{}
	}
	stopReload := server.ReloadTokensOnHangup(*tokensFile, tokens, func(format string, args ...any) {
		fmt.Fprintf(e.stderr, "sessionsearch serve: "+format+"\n", args...)
	})
	defer stopReload()
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	// A service writes for long: pending sessions are reconciled and the
	// log kept bounded beside it (docs/store.md S17).
	stopMaintain := store.Maintain(driver.MaintainOptions{})
	defer stopMaintain()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	opts.Page = true
	fmt.Fprintf(e.stdout, "listening on %s\n", ln.Addr())
	return serveHTTP(ctx, e, "serve", ln, server.New(store.DB, opts), *timeout)
}

// serveHTTP serves h on ln until ctx ends, then stops accepting
// connections and lets the requests in flight finish (docs/serve.md H10).
func serveHTTP(ctx context.Context, e *env, name string, ln net.Listener, h http.Handler, timeout time.Duration) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       timeout + 60*time.Second,
		WriteTimeout:      timeout + 60*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	// Said once the listener is closed: from then on only requests in
	// flight are answered.
	srv.RegisterOnShutdown(func() {
		fmt.Fprintf(e.stderr, "sessionsearch %s: stopping; finishing requests in flight\n", name)
	})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// isLoopback reports whether a listen address can only be reached from this
// machine.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
