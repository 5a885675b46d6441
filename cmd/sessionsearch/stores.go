package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/importer"
)

// storeNames are the names --include and --exclude take: OpenClaw's stores
// and every other agent's (docs/cli.md C18).
func storeNames() []string {
	names := []string{importer.OpenClaw}
	for _, f := range agents.Formats() {
		names = append(names, f.Agent)
	}
	return names
}

// storeFilter is --include and --exclude.
type storeFilter struct{ include, exclude *string }

func (fs *flagSet) storeFlags() *storeFilter {
	known := strings.Join(storeNames(), ", ")
	return &storeFilter{
		include: fs.String("include", "", "read only these agents' stores: comma-separated `names` of "+known),
		exclude: fs.String("exclude", "", "leave these agents' stores out: comma-separated `names`, as --include"),
	}
}

// reads returns which stores to read, nil for all of them.
func (f *storeFilter) reads() (func(string) bool, error) {
	parse := func(flag, v string) (map[string]bool, error) {
		if strings.TrimSpace(v) == "" {
			return nil, nil
		}
		set := map[string]bool{}
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if !slices.Contains(storeNames(), name) {
				return nil, usagef("--%s: unknown agent %q (known: %s)", flag, name, strings.Join(storeNames(), ", "))
			}
			set[name] = true
		}
		return set, nil
	}
	inc, err := parse("include", *f.include)
	if err != nil {
		return nil, err
	}
	exc, err := parse("exclude", *f.exclude)
	if err != nil {
		return nil, err
	}
	if inc == nil && exc == nil {
		return nil, nil
	}
	return func(name string) bool { return (inc == nil || inc[name]) && !exc[name] }, nil
}

// defaultStores are the stores that exist where the agents keep them by
// default (OpenClaw's state directory, ~/.claude/projects, ~/.codex, ...),
// for import and sync without a PATH; looked lists every place looked at.
func defaultStores(e *env, reads func(string) bool) (found, looked []string) {
	try := func(name, path string) {
		if reads != nil && !reads(name) {
			return
		}
		looked = append(looked, name+" at "+path)
		if _, err := os.Stat(path); err == nil {
			found = append(found, path)
		}
	}
	if dir, err := stateDir(e); err == nil {
		try(importer.OpenClaw, dir)
	}
	env := agents.Env{Getenv: e.getenv, Home: e.getenv("HOME")}
	for _, f := range agents.Formats() {
		for _, root := range f.Roots(env) {
			try(f.Agent, root)
		}
	}
	return found, looked
}

// storesOrPaths returns paths, else the default stores, which it names on
// stderr unless quiet; with neither, a usage error that says where it
// looked.
func storesOrPaths(e *env, cmd string, paths []string, reads func(string) bool, quiet bool) ([]string, error) {
	if len(paths) > 0 {
		return paths, nil
	}
	found, looked := defaultStores(e, reads)
	if len(found) == 0 {
		return nil, usagef("%s needs at least one PATH (a state directory such as ~/.openclaw, a sessions directory, a .jsonl file, an agent .sqlite database, or another agent's store): none found where the agents keep them (%s)", cmd, strings.Join(looked, "; "))
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "%s: reading %s\n", cmd, strings.Join(found, ", "))
	}
	return found, nil
}
