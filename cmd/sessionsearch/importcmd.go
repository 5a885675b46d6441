package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
	storepkg "github.com/sessionsearch/sessionsearch/store"
)

func runImport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("import"))
	db := fs.dbFlag()
	includeDeleted := fs.Bool("include-deleted", false, "also import the .deleted transcripts of state directories")
	tools := fs.toolsFlag()
	stores := fs.storeFlags()
	paths, err := fs.parse(args)
	if err != nil {
		return err
	}
	reads, err := stores.reads()
	if err != nil {
		return err
	}
	if paths, err = storesOrPaths(e, "import", paths, reads, false); err != nil {
		return err
	}
	store, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := tools.apply(ctx, store); err != nil {
		return err
	}
	return importPaths(ctx, e, store, paths, importer.PlanOptions{IncludeDeleted: *includeDeleted, Agents: reads})
}

// openAgentDB opens an OpenClaw agent database without writing to it.
func openAgentDB(path string) (*sql.DB, error) {
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

// Problems shown: the first few of each file and of the whole import;
// the rest are counted (docs/cli.md C7).
const (
	problemsPerFile = 5
	problemsShown   = 50
)

// problemLog prints the importer's problems to w, capped.
type problemLog struct {
	w       io.Writer
	prog    *progress
	total   int
	shown   int
	perFile map[string]int // problems per path
	hidden  map[string]int // problems per path not shown
	order   []string       // paths with hidden problems, in order
}

func (l *problemLog) report(p importer.Problem) {
	l.total++
	l.perFile[p.Path]++
	if l.perFile[p.Path] > problemsPerFile || l.shown >= problemsShown {
		if l.hidden[p.Path] == 0 {
			l.order = append(l.order, p.Path)
		}
		l.hidden[p.Path]++
		return
	}
	l.shown++
	if l.prog != nil {
		l.prog.clear()
	}
	fmt.Fprintln(l.w, p)
}

// summary prints the count of the problems not shown, per file.
func (l *problemLog) summary() {
	for _, path := range l.order {
		fmt.Fprintf(l.w, "%s: %d more problems not shown\n", path, l.hidden[path])
	}
}

// replayGCPercent is the garbage collector's percentage while reconcile
// reads a session whole into its replay (store.ReplayGCPercent): a quarter
// of the heap as room keeps the import's peak near the replay itself, where
// the default would let the heap reach twice it (docs/cli.md C19). GOGC,
// when set, wins.
const replayGCPercent = 25

// copyMemoryLimit is the Go heap's soft limit while import or sync copies
// (runtime/debug.SetMemoryLimit): what a copy holds is bounded (a bulk
// load's prepared events, its held index rows, a replay), and the
// collector keeps the heap near it rather than at twice it (docs/cli.md
// C22). 24 MiB, not 32: LoCoMo x20's import peaked at 61-64 MB with 32,
// at the 64 MB bound, and at 54-56 MB with 24, for about 3% more CPU
// (docs/performance.md). GOMEMLIMIT, when set, wins.
const copyMemoryLimit = 24 << 20

// limitMemory sets copyMemoryLimit unless GOMEMLIMIT is set.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(copyMemoryLimit)
	}
}

// importPaths imports paths: new transcripts with the store's bulk load
// beside the reading, others one transcript per transaction with deferred
// indexing; then it indexes what is still pending. Problems go to stderr as they
// happen (capped); any problem makes the exit status 1.
func importPaths(ctx context.Context, e *env, store *driver.DB, paths []string, opts importer.PlanOptions) error {
	start := time.Now()
	limitMemory()
	log := &problemLog{w: e.stderr, perFile: map[string]int{}, hidden: map[string]int{}}
	im := &importer.Importer{OpenDB: openAgentDB, Report: log.report}
	sink, err := importer.NewBulkSink(ctx, store.DB, im)
	if err != nil {
		return err
	}
	defer sink.Close()
	im.Sink = sink
	opts.SessionIDs = im.AgentDBSessionIDs
	plan, planProblems := importer.NewPlan(paths, opts)
	for _, p := range planProblems {
		log.report(p)
	}
	prog := newProgress(e, e.stderr, plan)
	log.prog = prog
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
	if os.Getenv("GOGC") == "" {
		defer func(p int) { storepkg.ReplayGCPercent = p }(storepkg.ReplayGCPercent)
		storepkg.ReplayGCPercent = replayGCPercent
	}
	indexed, err := reconcileAll(ctx, store, prog)
	prog.clear()
	if err != nil {
		return fmt.Errorf("indexing %s: %w (run 'sessionsearch reconcile' to finish)", store.Path(), err)
	}
	elapsed := time.Since(start)
	if stats.Transcripts == 0 {
		fmt.Fprintf(e.stdout, "nothing imported into %s: no transcript in %d files\n", store.Path(), len(plan.Sources))
	} else {
		fmt.Fprintf(e.stdout, "imported %d transcripts from %d files into %s: %d new events, %d already there; %.1f MB in %.1fs (%.1f MB/s): stored in %.1fs, indexed %d sessions in %.1fs\n",
			stats.Transcripts, len(plan.Sources), store.Path(), stats.Added, stats.Events-stats.Added,
			float64(stats.Bytes)/1e6, elapsed.Seconds(), float64(stats.Bytes)/1e6/max(elapsed.Seconds(), 1e-3),
			stored.Seconds(), indexed, (elapsed - stored).Seconds())
	}
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "skipped %d files: %s\n", len(plan.Skipped), skipSummary(plan.Skipped))
	}
	if log.total > 0 {
		log.summary()
		rest := "the rest was imported"
		if stats.Transcripts == 0 {
			rest = "nothing was imported"
		}
		fmt.Fprintf(e.stderr, "%d problems in %d files; %s\n", log.total, len(log.perFile), rest)
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
