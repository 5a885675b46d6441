package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// The web page on this machine (docs/cli.md C24, C25): the handler of
// package server with its page, over the database read-only, for one
// grant (the operator's, or --caller's) whose token is drawn at start and
// handed over in the address's fragment.

// uiTimeout bounds the database work of one request of the page.
const uiTimeout = 60 * time.Second

func runUI(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("ui"))
	db := fs.dbFlag()
	var opts driver.Options
	fs.optionFlags(&opts, &opts, visibilitySpecs())
	listen := fs.String("listen", "127.0.0.1:0", "loopback `address` to listen on (port 0 picks a free port)")
	fs.notes = []string{operatorNote,
		"The page's address ends with #token=...: a token drawn at start, which\n" +
			"the page keeps in its tab and the browser never sends in an address.\n" +
			"Another user of this machine can reach the port but not read the page\n" +
			"without it. Ctrl-C stops the page."}
	if err := fs.noArgs(args); err != nil {
		return err
	}
	if !isLoopback(*listen) {
		return usagef("--listen must be a loopback address (127.0.0.1, ::1 or localhost) for the page of this machine's database, got %q; use 'sessionsearch serve' with --tokens for others", *listen)
	}
	withOperator(&opts)
	if err := (driver.SearchOptions{Options: opts}).Validate(); err != nil {
		return usagef("%v", err)
	}
	store, err := openReader(e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	token, err := drawToken()
	if err != nil {
		return err
	}
	tokens, err := server.NewTokens(token, grantOf(opts))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "http://%s/#token=%s\n", ln.Addr(), token)
	fmt.Fprintf(e.stdout, "open the address above in a browser: the page searches %s %s; Ctrl-C stops it\n", store.Path(), who(opts))
	return serveHTTP(ctx, e, "ui", ln, server.New(store.DB, server.Options{Tokens: tokens, Page: true, RequestTimeout: uiTimeout}), uiTimeout)
}

// drawToken is 32 random bytes, as URL-safe base64.
func drawToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// grantOf is the grant of the page's token: the caller and visibility of
// the command's flags, reading only.
func grantOf(o driver.Options) server.Grant { return server.Grant{Options: o} }
