package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/server"
	"github.com/sessionsearch/sessionsearch/syncer"
)

// syncCommand is registered in main.go.
var syncCommand = command{"sync", "[PATH...]", "keep the database up to date with OpenClaw's state directory and other agents' stores (--follow: keep doing it)", runSync}

// stateDir is OpenClaw's state directory: $OPENCLAW_STATE_DIR, else
// ~/.openclaw, as OpenClaw's uninstall page spells it
// ("${OPENCLAW_STATE_DIR:-$HOME/.openclaw}"; docs/sync.md Y1).
func stateDir(e *env) (string, error) {
	if d := e.getenv("OPENCLAW_STATE_DIR"); strings.TrimSpace(d) != "" {
		return strings.TrimSpace(d), nil
	}
	home := e.getenv("HOME")
	if home == "" {
		return "", usagef("no PATH given, and neither OPENCLAW_STATE_DIR nor HOME is set")
	}
	return filepath.Join(home, ".openclaw"), nil
}

func runSync(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("sync"))
	db := fs.dbFlag()
	includeDeleted := fs.Bool("include-deleted", false, "also make deletion archives searchable (agent:<id>:deleted:... keys)")
	follow := fs.Bool("follow", false, "keep syncing: on file-system notifications, and every --poll")
	poll := fs.Duration("poll", 2*time.Second, "with --follow, sync at least this often (the only trigger where notifications are unavailable)")
	noNotify := fs.Bool("no-notify", false, "with --follow, poll only")
	budget := fs.Duration("budget", 0, "stop starting new work after this long (0: no limit); the next sync continues")
	quiet := fs.Bool("quiet", false, "print problems only")
	to := fs.String("to", "", "after syncing into --db, push it to the sessionsearch serve at this `url` (http://HOST:PORT)")
	tokenFile := fs.String("token-file", "", "with --to, a `file` holding a bearer token that may write (default $SESSIONSEARCH_TOKEN)")
	tools := fs.toolsFlag()
	stores := fs.storeFlags()
	paths, err := fs.parse(args)
	if err != nil {
		return err
	}
	if *poll <= 0 {
		return usagef("--poll must be positive, got %s", *poll)
	}
	if *budget < 0 {
		return usagef("--budget must not be negative, got %s", *budget)
	}
	push, err := pusher(e, *to, *tokenFile)
	if err != nil {
		return err
	}
	reads, err := stores.reads()
	if err != nil {
		return err
	}
	if paths, err = storesOrPaths(e, "sync", paths, reads, *quiet); err != nil {
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
	limitMemory()
	problems := 0
	s := &syncer.Syncer{
		DB:             store.DB,
		OpenSource:     syncer.OpenReadOnly(driver.DriverName),
		IncludeDeleted: *includeDeleted,
		Agents:         reads,
		Budget:         *budget,
		Report: func(p importer.Problem) {
			problems++
			fmt.Fprintln(e.stderr, p)
		},
	}
	defer s.Close()
	summary := func(st syncer.Stats, took time.Duration) {
		if *quiet {
			return
		}
		line := fmt.Sprintf("synced %d sources (%d unchanged, %d skipped): %d sessions written, %d removed, %d events, %.1f MB read",
			st.Sources, st.Unchanged, st.Skipped, st.Sessions, st.Removed, st.Events, float64(st.Bytes)/1e6)
		if took > 0 {
			line += " in " + took.Round(time.Millisecond).String()
		}
		if st.Adopted > 0 {
			line += fmt.Sprintf("; %d sessions an import had stored taken over as they were", st.Adopted)
		}
		if st.More {
			line += "; more to do: the next sync continues"
		}
		fmt.Fprintln(e.stdout, line)
	}
	if !*follow {
		start := time.Now()
		st, err := s.Sync(ctx, paths)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted; what was committed stays, run sync again to finish: %w", err)
			}
			return err
		}
		summary(st, time.Since(start))
		if err := push(ctx, store); err != nil {
			return err
		}
		if problems > 0 {
			fmt.Fprintf(e.stderr, "%d problems; the rest was synced\n", problems)
			return exitError{1}
		}
		return nil
	}
	// Following, the database is written for long: its upkeep runs beside
	// (docs/store.md S17).
	stop := store.Maintain(driver.MaintainOptions{})
	defer stop()
	if err := push(ctx, store); err != nil {
		fmt.Fprintln(e.stderr, err)
	}
	err = s.Follow(ctx, paths, syncer.FollowOptions{
		Poll:     *poll,
		NoNotify: *noNotify,
		Round: func(st syncer.Stats, err error) {
			if err == nil && (st.Sessions > 0 || st.Removed > 0) {
				summary(st, 0)
				if err := push(ctx, store); err != nil {
					fmt.Fprintln(e.stderr, err) // the next round tries again
				}
			}
		},
	})
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintln(e.stdout, "stopped")
	}
	return nil
}

// pusher returns what sync --to does after each sync: bring the remote
// service up to date with the local database (server.Push resumes from the
// service's watermarks), or nothing without --to.
func pusher(e *env, to, tokenFile string) (func(context.Context, *driver.DB) error, error) {
	if to == "" {
		if tokenFile != "" {
			return nil, usagef("--token-file needs --to")
		}
		return func(context.Context, *driver.DB) error { return nil }, nil
	}
	u, err := url.Parse(to)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("--to must be an http:// or https:// URL of a sessionsearch serve, got %q", to)
	}
	token := e.getenv("SESSIONSEARCH_TOKEN")
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, usagef("--token-file: %v", err)
		}
		token = strings.TrimSpace(string(data))
	}
	if token == "" {
		return nil, usagef("--to needs a token that may write: --token-file FILE or $SESSIONSEARCH_TOKEN")
	}
	client := &server.Client{URL: strings.TrimRight(to, "/"), Token: token}
	return func(ctx context.Context, db *driver.DB) error {
		st, err := server.Push(ctx, db.DB, client, server.PushOptions{})
		if server.OutcomeUnknown(err) {
			return fmt.Errorf("push to %s: %w; the next sync sends it again, and the service keeps one copy", to, err)
		}
		if err != nil {
			return fmt.Errorf("push to %s: %w (what was sent stays; the next sync goes on from there)", to, err)
		}
		if st.Events > 0 || st.Replaced > 0 {
			fmt.Fprintf(e.stdout, "pushed %d events of %d sessions to %s (%d sessions sent again)\n", st.Events, st.Sessions, to, st.Replaced)
		}
		return nil
	}, nil
}

// defaultSyncBudget is how long search and mcp sync their source before
// answering (docs/sync.md Y12).
const defaultSyncBudget = 250 * time.Millisecond

// sourceFlags are the sync-on-search flags of search and mcp.
type sourceFlags struct {
	e      *env
	source *string
	budget *time.Duration
	s      *syncer.Syncer
}

func (fs *flagSet) sourceFlags() *sourceFlags {
	return &sourceFlags{
		e:      fs.e,
		source: fs.String("source", "", "sync this OpenClaw state directory (or database, or file: a `path`) first, within --sync-budget (default $SESSIONSEARCH_SOURCE)"),
		budget: fs.Duration("sync-budget", defaultSyncBudget, "with --source, how long to sync before answering; the next call continues"),
	}
}

// syncFirst syncs the source, if there is one, within the budget. It
// reports whether the sync could not finish, so that the answer says
// indexing; a human line on stderr says so too. Problems with sources go to
// stderr and do not fail the search.
func (sf *sourceFlags) syncFirst(ctx context.Context, db *sql.DB) (bool, error) {
	if sf == nil {
		return false, nil
	}
	source := *sf.source
	if source == "" {
		source = sf.e.getenv("SESSIONSEARCH_SOURCE")
	}
	if source == "" {
		return false, nil
	}
	if *sf.budget <= 0 {
		return false, usagef("--sync-budget must be positive, got %s", *sf.budget)
	}
	if sf.s == nil {
		sf.s = &syncer.Syncer{DB: db, OpenSource: syncer.OpenReadOnly(driver.DriverName),
			Report: func(p importer.Problem) { fmt.Fprintln(sf.e.stderr, "sync:", p) }}
	}
	sf.s.Budget = *sf.budget
	st, err := sf.s.Sync(ctx, []string{source})
	if err != nil {
		return false, fmt.Errorf("sync %s: %w", source, err)
	}
	if st.More {
		fmt.Fprintf(sf.e.stderr, "sessionsearch: still syncing %s; results may be incomplete (the next search continues)\n", source)
	}
	return st.More, nil
}

// open opens the database of search or mcp: for reading only, unless
// they sync a source into it.
func (sf *sourceFlags) open(ctx context.Context, e *env, flagValue string) (*driver.DB, error) {
	if *sf.source != "" || sf.e.getenv("SESSIONSEARCH_SOURCE") != "" {
		return openStore(ctx, e, flagValue)
	}
	return openReader(e, flagValue)
}

func (sf *sourceFlags) close() {
	if sf != nil && sf.s != nil {
		sf.s.Close()
	}
}
