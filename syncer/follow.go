package syncer

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/sessionsearch/sessionsearch/agents"
)

// FollowOptions tune Follow.
type FollowOptions struct {
	// Poll is the interval of a sync without any notification, the only
	// trigger where file-system notifications are not available (default
	// 2s).
	Poll time.Duration
	// Debounce is how long Follow waits after a notification for more
	// before it syncs (default 20ms): a gateway commit touches the -wal and
	// -shm files several times.
	Debounce time.Duration
	// Round receives the result of each sync.
	Round func(Stats, error)
	// NoNotify turns file-system notifications off (polling only).
	NoNotify bool
}

// Follow syncs paths, then again whenever a file under them changes
// (fsnotify) or Poll has passed, until ctx ends (docs/sync.md Y10). A sync
// under way when ctx ends finishes its current transaction; nothing is left
// half-written. It returns nil when ctx ended, or the first error of the
// sessionsearch database.
func (s *Syncer) Follow(ctx context.Context, paths []string, opts FollowOptions) error {
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 20 * time.Millisecond
	}
	var events <-chan fsnotify.Event
	var watcher *fsnotify.Watcher
	if !opts.NoNotify {
		if w, err := fsnotify.NewWatcher(); err == nil {
			watcher = w
			defer w.Close()
			events = w.Events
		}
	}
	watched := map[string]bool{}
	watch := func() {
		if watcher == nil {
			return
		}
		for _, dir := range watchDirs(paths) {
			if !watched[dir] {
				if watcher.Add(dir) == nil {
					watched[dir] = true
				}
			}
		}
	}
	round := func() error {
		watch()
		st, err := s.Sync(ctx, paths)
		if opts.Round != nil {
			opts.Round(st, err)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err == nil && st.More {
			return nil // the next tick continues
		}
		return err
	}
	if err := round(); err != nil {
		return err
	}
	poll := time.NewTicker(opts.Poll)
	defer poll.Stop()
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Op&fsnotify.Create != 0 {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					watch()
				}
			}
			if debounce == nil {
				debounce = time.After(opts.Debounce)
			}
		case <-debounce:
			debounce = nil
			if err := round(); err != nil {
				return err
			}
		case <-poll.C:
			if err := round(); err != nil {
				return err
			}
		}
	}
}

// watchDirs lists the directories whose entries can change what sync
// reads: each path, and in a state directory agents/, each agent's
// directory, its agent/ and sessions/ directories (fsnotify is not
// recursive; cold archives are named by the database, which changes with
// them).
func watchDirs(paths []string) []string {
	var dirs []string
	add := func(d string) {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			dirs = append(dirs, d)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			add(filepath.Dir(p))
			continue
		}
		if agents.Claimed(p) != nil {
			// Another agent's store: its directories, a few levels down
			// (Codex keeps sessions/YYYY/MM/DD/); --poll covers the rest.
			dirs = append(dirs, storeDirs(p, 5, maxWatchDirs)...)
			continue
		}
		add(p)
		add(filepath.Join(p, "agent"))
		add(filepath.Join(p, "sessions"))
		agentsDir := filepath.Join(p, "agents")
		add(agentsDir)
		entries, _ := os.ReadDir(agentsDir)
		for _, e := range entries {
			if e.IsDir() {
				a := filepath.Join(agentsDir, e.Name())
				add(a)
				add(filepath.Join(a, "agent"))
				add(filepath.Join(a, "sessions"))
			}
		}
	}
	return dirs
}

// maxWatchDirs bounds the directories one agent store adds to the watch.
const maxWatchDirs = 2000

// storeDirs lists root and its directories down to depth levels, at most
// limit of them, shallowest first.
func storeDirs(root string, depth, limit int) []string {
	out := []string{root}
	level := []string{root}
	for d := 0; d < depth && len(level) > 0; d++ {
		var next []string
		for _, dir := range level {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.IsDir() {
					if len(out) >= limit {
						return out
					}
					sub := filepath.Join(dir, e.Name())
					out = append(out, sub)
					next = append(next, sub)
				}
			}
		}
		level = next
	}
	return out
}
