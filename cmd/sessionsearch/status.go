package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/sessionkey"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("status"))
	db := fs.dbFlag()
	if err := fs.noArgs(args); err != nil {
		return err
	}
	store, err := openReader(e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	var schema string
	var sessions, events int64
	var debug string
	err = store.QueryRowContext(ctx, `SELECT (SELECT value FROM sessionsearch_meta WHERE key = 'schema_version'), sessionsearch_debug(),
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM transcript_events)`).
		Scan(&schema, &debug, &sessions, &events)
	if err != nil {
		return err
	}
	st, err := store.IndexStatus(ctx)
	if err != nil {
		return err
	}
	size := "?"
	if info, err := os.Stat(store.Path()); err == nil {
		size = fmt.Sprintf("%.1f MB", float64(info.Size())/1e6)
	}
	fmt.Fprintf(e.stdout, "database  %s (%s, schema %s)\n", store.Path(), size, schema)
	fmt.Fprintf(e.stdout, "sessions  %d\nevents    %d\n", sessions, events)
	if st.PendingSessions > 0 {
		fmt.Fprintf(e.stdout, "pending   %d sessions are not searchable yet: run 'sessionsearch reconcile'\n", st.PendingSessions)
	} else {
		fmt.Fprintln(e.stdout, "pending   none: every session is searchable")
	}
	fmt.Fprintf(e.stdout, "build     %s\n", debug)
	return nil
}

func runReconcile(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("reconcile"))
	db := fs.dbFlag()
	if err := fs.noArgs(args); err != nil {
		return err
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	prog := newProgress(e, e.stderr, importer.Plan{})
	indexed, err := reconcileAll(ctx, store, prog)
	prog.clear()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "indexed %d sessions in %s; none pending\n", indexed, store.Path())
	return nil
}

// reconcileBudget is the work of one sessions_reconcile call.
const reconcileBudget = 500 * time.Millisecond

// reconcileAll calls Reconcile until no session is pending, showing how
// many are left on prog (when not nil), and returns how many it indexed.
func reconcileAll(ctx context.Context, db *driver.DB, prog *progress) (int, error) {
	total := 0
	for {
		res, err := db.Reconcile(ctx, reconcileBudget)
		if err != nil {
			return total, err
		}
		total += int(res.Indexed)
		if res.Pending == 0 {
			return total, nil
		}
		if prog != nil {
			prog.status("indexing: %d sessions left", res.Pending)
		}
	}
}

// runSessions lists the sessions the caller sees, so a user knows the keys
// to pass to history and --caller.
func runSessions(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("sessions"))
	db := fs.dbFlag()
	var opts driver.Options
	fs.optionFlags(&opts, &opts, visibilitySpecs())
	asJSON := fs.Bool("json", false, "print the list as JSON")
	fs.notes = []string{operatorNote}
	if err := fs.noArgs(args); err != nil {
		return err
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
	list, err := store.Sessions(ctx, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		type row struct {
			SessionKey       string `json:"sessionKey"`
			Agent            string `json:"agent"`
			SpawnedBy        string `json:"spawnedBy,omitempty"`
			ParentSessionKey string `json:"parentSessionKey,omitempty"`
			Messages         int    `json:"messages"`
			Events           int    `json:"events"`
			LastActivity     int64  `json:"lastActivity"`
			Pending          bool   `json:"pending"`
		}
		rows := []row{}
		for _, s := range list {
			rows = append(rows, row{s.Key, sessionkey.AgentID(s.Key), s.SpawnedBy, s.ParentSessionKey, s.Messages, s.Events, s.LastActivity, s.Pending})
		}
		return printJSON(e.stdout, rows)
	}
	if len(list) == 0 {
		fmt.Fprintf(e.stdout, "no sessions %s\n", who(opts))
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tAGENT\tMESSAGES\tLAST ACTIVITY")
	for _, s := range list {
		note := ""
		switch {
		case s.Pending:
			note = "pending: run 'sessionsearch reconcile'"
		case s.SpawnedBy != "":
			note = "spawned by " + s.SpawnedBy
		case s.ParentSessionKey != "":
			note = "child of " + s.ParentSessionKey
		}
		if note != "" {
			note = "\t" + printable(note)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s%s\n", printable(s.Key), printable(sessionkey.AgentID(s.Key)), s.Messages, formatTime(s.LastActivity), note)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d sessions %s; incognito sessions are seen only by themselves\n", len(list), who(opts))
	return nil
}
