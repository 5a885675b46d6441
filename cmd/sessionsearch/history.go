package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

func runHistory(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("history"))
	db := fs.dbFlag()
	var opts driver.HistoryOptions
	fs.optionFlags(&opts, &opts.Options, sqlfuncs.HistoryOptionSpecs())
	asJSON := fs.Bool("json", false, "print the JSON of sessions_history")
	fs.notes = []string{operatorNote}
	keys, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(keys) != 1 {
		return usagef("history needs exactly one session KEY, got %d arguments", len(keys))
	}
	withOperator(&opts.Options)
	if err := opts.Validate(); err != nil {
		return usagef("%v", err)
	}
	store, err := openReader(e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := store.History(ctx, keys[0], opts)
	if err != nil {
		return fmt.Errorf("%w (%s; run 'sessionsearch sessions' to see the sessions and their keys)", err, who(opts.Options))
	}
	if *asJSON {
		return printJSON(e.stdout, res)
	}
	around := opts.MessageID != ""
	if res.HasMore && !around {
		fmt.Fprintln(e.stdout, "(earlier messages not shown: raise --limit)")
	}
	for _, m := range res.Messages {
		fmt.Fprintf(e.stdout, "── %s  %s  %s\n", formatTime(m.Timestamp), m.Role, m.ID)
		for _, line := range strings.Split(printable(m.Text), "\n") {
			fmt.Fprintf(e.stdout, "   %s\n", line)
		}
	}
	if len(res.Messages) == 0 {
		fmt.Fprintf(e.stdout, "no messages %s\n", who(opts.Options))
	}
	if res.HasMore && around {
		fmt.Fprintln(e.stdout, "(more messages on either side: raise --limit)")
	}
	if res.Truncated {
		fmt.Fprintln(e.stdout, "(some text was shortened to fit)")
	}
	return nil
}
