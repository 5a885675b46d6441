package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

func runHistory(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("history"))
	db := fs.dbFlag()
	who := fs.callerFlags(true)
	around := fs.String("around", "", "show the messages around the message with this `id`")
	limit := fs.Int("limit", 0, "at most `n` messages, 1..1000 (default 200)")
	asJSON := fs.Bool("json", false, "print the JSON of sessions_history as it is")
	keys, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(keys) != 1 {
		return usagef("history needs exactly one session KEY, got %d arguments", len(keys))
	}
	o := who.options(true)
	if *around != "" {
		o["messageId"] = *around
	}
	if *limit != 0 {
		o["limit"] = *limit
	}
	opts := optionsJSON(o)
	if _, err := sqlfuncs.ParseHistoryOptions(opts); err != nil {
		return usageError{"sessions_history: " + err.Error()}
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	var js string
	if err := store.QueryRowContext(ctx, `SELECT sessions_history(?, ?)`, keys[0], opts).Scan(&js); err != nil {
		return err
	}
	if *asJSON {
		fmt.Fprintln(e.stdout, js)
		return nil
	}
	var res driver.History
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return fmt.Errorf("sessions_history returned %q: %w", js, err)
	}
	if res.HasMore && *around == "" {
		fmt.Fprintln(e.stdout, "(earlier messages not shown: raise --limit)")
	}
	for _, m := range res.Messages {
		fmt.Fprintf(e.stdout, "── %s  %s  %s\n", formatTime(m.Timestamp), m.Role, m.ID)
		for _, line := range strings.Split(printable(m.Text), "\n") {
			fmt.Fprintf(e.stdout, "   %s\n", line)
		}
	}
	if len(res.Messages) == 0 {
		fmt.Fprintln(e.stdout, "no messages")
	}
	if res.HasMore && *around != "" {
		fmt.Fprintln(e.stdout, "(more messages on either side: raise --limit)")
	}
	if res.Truncated {
		fmt.Fprintln(e.stdout, "(some text was shortened to fit)")
	}
	return nil
}
