//go:build libsqlite3 && sqlite_fts5

package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/canonical/go-dqlite/client"

	"github.com/sessionsearch/sessionsearch/dqlite/node"
)

// runDump answers `sessionsearch-dqlite dump --addr HOST:PORT --out FILE`:
// the copy of the database that the node at --addr holds, written as one
// SQLite file that any host opens (docs/cluster.md K8). dqlite serves a dump
// from the node's own copy, leader or not.
func runDump(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "HOST:PORT of the node whose copy to dump")
	out := fs.String("out", "", "file to write (must not exist)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *addr == "" || *out == "" {
		return errors.New("dump: --addr and --out are required (usage: sessionsearch-dqlite dump --addr HOST:PORT --out FILE)")
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("dump: --out %s exists: a dump never overwrites a file", *out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli, err := client.New(ctx, *addr, client.WithLogFunc(func(client.LogLevel, string, ...any) {}))
	if err != nil {
		return fmt.Errorf("dump: --addr %s: %w", *addr, err)
	}
	defer cli.Close()
	files, err := cli.Dump(ctx, node.Database)
	if err != nil {
		return fmt.Errorf("dump: --addr %s: %w", *addr, err)
	}
	for _, f := range files {
		name := *out
		if f.Name == node.Database+"-wal" {
			name += "-wal"
		} else if f.Name != node.Database {
			continue
		}
		if err := os.WriteFile(name, f.Data, 0o600); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
	}
	// Fold the WAL into the file and check it: the result is one file.
	db, err := sql.Open("sqlite3", *out)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA journal_mode=DELETE`); err != nil {
		return fmt.Errorf("dump: folding the WAL into %s: %w", *out, err)
	}
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		return fmt.Errorf("dump: %s fails PRAGMA integrity_check: %q %v", *out, ok, err)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n)
	fmt.Fprintf(stdout, "dumped node %s to %s: %d transcript events\n", *addr, *out, n)
	return nil
}
