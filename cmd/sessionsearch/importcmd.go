package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
)

// reconcileBudget is the work of one sessions_reconcile call.
const reconcileBudget = 500 * time.Millisecond

func runImport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("import"))
	db := fs.dbFlag()
	includeDeleted := fs.Bool("include-deleted", false, "also import the .deleted transcripts of state directories")
	paths, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("import needs at least one PATH (a state directory such as ~/.openclaw, a sessions directory, a .jsonl file or an agent .sqlite database)")
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	return importPaths(ctx, e, store.DB, paths, *includeDeleted)
}

// openReadOnly opens an OpenClaw agent database without writing to it.
func openReadOnly(path string) (*sql.DB, error) {
	db, err := sql.Open(driver.DriverName, "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// importPaths imports paths with deferred indexing, one transcript per
// transaction, then indexes what it imported. Problems go to stderr as they
// happen; any problem makes the exit status 1.
func importPaths(ctx context.Context, e *env, db *sql.DB, paths []string, includeDeleted bool) error {
	start := time.Now()
	sink, err := importer.NewSQLSink(ctx, db, true)
	if err != nil {
		return err
	}
	defer sink.Close()
	var prog *progress
	problems := 0
	report := func(p importer.Problem) {
		problems++
		if prog != nil {
			prog.clear()
		}
		fmt.Fprintln(e.stderr, p)
	}
	im := &importer.Importer{Sink: sink, OpenDB: openReadOnly, Report: report}
	plan, planProblems := importer.NewPlan(paths, importer.PlanOptions{IncludeDeleted: includeDeleted, SessionIDs: im.AgentDBSessionIDs})
	for _, p := range planProblems {
		report(p)
	}
	prog = newProgress(e.stderr, plan)
	im.Progress = prog.update
	for i, src := range plan.Sources {
		prog.nextFile()
		if err := im.Import(ctx, src); err != nil {
			prog.clear()
			return fmt.Errorf("interrupted after %d of %d files; run the same import again to finish it: %w", i, len(plan.Sources), err)
		}
	}
	if err := sink.Close(); err != nil {
		return err
	}
	stats := im.Stats()
	stored := time.Since(start)
	indexed, err := importer.Reconcile(ctx, db, reconcileBudget, func(st importer.ReconcileStatus) {
		if st.Pending > 0 {
			prog.status("indexing: %d sessions left", st.Pending)
		}
	})
	prog.clear()
	if err != nil {
		return fmt.Errorf("indexing: %w (run 'sessionsearch reconcile' to finish)", err)
	}
	elapsed := time.Since(start)
	fmt.Fprintf(e.stdout, "imported %d transcripts from %d files: %d new events, %d already there; %.1f MB in %.1fs (%.1f MB/s): stored in %.1fs, indexed %d sessions in %.1fs\n",
		stats.Transcripts, len(plan.Sources), stats.Added, stats.Events-stats.Added,
		float64(stats.Bytes)/1e6, elapsed.Seconds(), float64(stats.Bytes)/1e6/max(elapsed.Seconds(), 1e-3),
		stored.Seconds(), indexed, (elapsed - stored).Seconds())
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "skipped %d files: %s\n", len(plan.Skipped), skipSummary(plan.Skipped))
	}
	if problems > 0 {
		fmt.Fprintf(e.stderr, "%d problems; the rest was imported\n", problems)
		return exitError{1}
	}
	return nil
}

// skipSummary counts skipped files by reason: "backup copy of a transcript: 2; ...".
func skipSummary(skipped []importer.Skip) string {
	counts := map[string]int{}
	for _, s := range skipped {
		counts[s.Reason]++
	}
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%s: %d", r, counts[r])
	}
	return strings.Join(parts, "; ")
}
