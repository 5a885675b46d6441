//go:build libsqlite3 && sqlite_fts5

package main

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	dqdriver "github.com/canonical/go-dqlite/driver"

	"github.com/sessionsearch/sessionsearch/dqlite/guard"
	"github.com/sessionsearch/sessionsearch/dqlite/node"
	"github.com/sessionsearch/sessionsearch/server"
)

// apiOptions checks the authentication flags, before the node starts.
func apiOptions(tokens string, noAuth bool, httpAddr string) (server.Options, error) {
	opts := server.Options{
		AccessLog:      slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Unavailable:    unavailable,
		OutcomeUnknown: func(err error) bool { return errors.As(err, new(*guard.UnknownOutcome)) },
	}
	switch {
	case noAuth && tokens != "":
		return opts, errors.New("serve: --tokens and --insecure-loopback-no-auth exclude each other")
	case noAuth:
		host, _, err := net.SplitHostPort(httpAddr)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return opts, fmt.Errorf("serve: --insecure-loopback-no-auth needs a loopback --http address, got %q", httpAddr)
		}
	case tokens == "":
		return opts, errors.New("serve: --tokens FILE is required (or --insecure-loopback-no-auth for development on loopback)")
	default:
		t, err := server.LoadTokens(tokens)
		if err != nil {
			return opts, err
		}
		opts.Tokens = t
	}
	return opts, nil
}

// apiHandler is the HTTP API of package server over the node's guarded
// database. A follower answers every request itself: its statements go to
// the leader over dqlite's protocol (docs/cluster.md K6).
func apiHandler(n *node.Node, opts server.Options) http.Handler {
	opts.Ready = func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		st, err := n.Status(ctx)
		if err != nil {
			return err
		}
		if st.Leader == nil {
			return errors.New("no leader: the cluster has no quorum")
		}
		if !st.Joined {
			return errors.New("this node has not joined the cluster yet")
		}
		return nil
	}
	// The web page too (docs/cluster.md K15): it reads only this API.
	opts.Page = true
	return server.New(n.DB, opts)
}

// dqlite's extended codes for "this node does not lead (any more)".
const (
	ioerrNotLeader       = 10 | 40<<8 // SQLITE_IOERR_NOT_LEADER
	ioerrLeadershipLost  = 10 | 41<<8 // SQLITE_IOERR_LEADERSHIP_LOST
	ioerrNotLeaderLegacy = 10 | 32<<8
	ioerrLostLegacy      = 10 | 33<<8
)

// unavailable reports the errors that mean "no leader now, try again": they
// are answered 503 with Retry-After (docs/cluster.md K7).
func unavailable(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, dqdriver.ErrNoAvailableLeader) {
		return true
	}
	var de dqdriver.Error
	if errors.As(err, &de) {
		switch de.Code {
		case ioerrNotLeader, ioerrLeadershipLost, ioerrNotLeaderLegacy, ioerrLostLegacy, 5 /* SQLITE_BUSY */ :
			return true
		}
	}
	return strings.Contains(err.Error(), "no available dqlite leader") || strings.Contains(err.Error(), "failed to create dqlite connection")
}
