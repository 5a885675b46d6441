package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sessionsearch/sessionsearch/importer"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("status"))
	db := fs.dbFlag()
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("status takes no arguments, got %q", rest[0])
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	var schema, sessions, events int64
	var debug, index string
	err = store.QueryRowContext(ctx, `SELECT sessionsearch_migrate(), sessionsearch_debug(),
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM transcript_events), sessions_index_status()`).
		Scan(&schema, &debug, &sessions, &events, &index)
	if err != nil {
		return err
	}
	var st struct {
		PendingSessions int `json:"pendingSessions"`
	}
	if err := json.Unmarshal([]byte(index), &st); err != nil {
		return fmt.Errorf("sessions_index_status returned %q: %w", index, err)
	}
	size := "?"
	if info, err := os.Stat(store.Path()); err == nil {
		size = fmt.Sprintf("%.1f MB", float64(info.Size())/1e6)
	}
	fmt.Fprintf(e.stdout, "database  %s (%s, schema %d)\n", store.Path(), size, schema)
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
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("reconcile takes no arguments, got %q", rest[0])
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	prog := newProgress(e.stderr, importer.Plan{})
	indexed, err := importer.Reconcile(ctx, store.DB, reconcileBudget, func(st importer.ReconcileStatus) {
		if st.Pending > 0 {
			prog.status("indexing: %d sessions left", st.Pending)
		}
	})
	prog.clear()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "indexed %d sessions; none pending\n", indexed)
	return nil
}
