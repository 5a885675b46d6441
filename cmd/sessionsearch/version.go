package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessionsearch/sessionsearch/driver"
)

// runVersion prints what this build is made of (docs/cli.md C26): the
// version and commit the Makefile stamps, the Go release, the SQLite it
// links, and the versions that decide whether a database's index is this
// build's (the tokenizer, its Unicode tables, redaction, the schema).
func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("version"))
	asJSON := fs.Bool("json", false, "print it as one JSON object")
	if err := fs.noArgs(args); err != nil {
		return err
	}
	b := driver.Build()
	if *asJSON {
		out, err := json.Marshal(b)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", out)
		return nil
	}
	fmt.Fprintf(e.stdout, "sessionsearch %s\n", b.Version)
	fmt.Fprintf(e.stdout, "commit     %s, built %s\n", b.Commit, b.BuildDate)
	fmt.Fprintf(e.stdout, "go         %s %s\n", b.Go, b.Platform)
	fmt.Fprintf(e.stdout, "sqlite     %s\n", b.SQLite)
	fmt.Fprintf(e.stdout, "unicode    %s\n", b.Unicode)
	fmt.Fprintf(e.stdout, "tokenizer  %d\n", b.Tokenizer)
	fmt.Fprintf(e.stdout, "index      %s (tokenizer.redaction: a database indexed by another is reindexed by 'sessionsearch reconcile')\n", b.Index)
	fmt.Fprintf(e.stdout, "schema     %d\n", b.Schema)
	return nil
}
