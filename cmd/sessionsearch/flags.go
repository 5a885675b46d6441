package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessionsearch/sessionsearch/driver"
)

// flagSet is a subcommand's flags. Flags may come before, between or after
// the arguments; "--" ends them.
type flagSet struct {
	*flag.FlagSet
	e        *env
	synopsis string // e.g. "search [flags] QUERY..."
	summary  string
}

func newFlagSet(e *env, c command) *flagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	synopsis := c.name + " [flags]"
	if c.args != "" {
		synopsis += " " + c.args
	}
	return &flagSet{FlagSet: fs, e: e, synopsis: synopsis, summary: c.summary}
}

// parse parses the flags and returns the arguments. -h prints the usage to
// stdout and ends the command with status 0.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var positional []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.usage(fs.e.stdout)
			return nil, exitError{0}
		}
		if err != nil {
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func (fs *flagSet) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: sessionsearch %s\n\n%s.\n\nFlags:\n", fs.synopsis, capitalize(fs.summary))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lookupCommand(name string) command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	panic("no command " + name)
}

// dbFlag adds --db.
func (fs *flagSet) dbFlag() *string {
	return fs.String("db", "", "database `file` (default $SESSIONSEARCH_DB, else $XDG_DATA_HOME/sessionsearch/sessions.db, else ~/.local/share/sessionsearch/sessions.db)")
}

// dbPath resolves the database location: the flag, then $SESSIONSEARCH_DB,
// then the per-user data directory of the XDG base directory spec.
func dbPath(e *env, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := e.getenv("SESSIONSEARCH_DB"); p != "" {
		return p, nil
	}
	data := e.getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(data) { // the spec says relative values are ignored
		home := e.getenv("HOME")
		if home == "" {
			return "", errors.New("no database location: use --db or set SESSIONSEARCH_DB (HOME is not set)")
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "sessionsearch", "sessions.db"), nil
}

// openStore opens (creating it, readable by its owner only, and migrating
// it) the database.
func openStore(ctx context.Context, e *env, flagValue string) (*driver.DB, error) {
	path, err := dbPath(e, flagValue)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// Transcripts are private: create the file before SQLite does, so it
	// does not get the umask's usual world-readable mode.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	db, err := driver.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `SELECT sessionsearch_migrate()`); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// The operator: a person at the command line sees every session but the
// incognito ones (which the contract shows to nobody else).
const operatorKey = "agent:main:main"

// callerFlags are the visibility options of search, history and mcp.
type callerFlags struct {
	caller, visibility, agentToAgent string
}

func (fs *flagSet) callerFlags(operatorDefault bool) *callerFlags {
	c := &callerFlags{}
	callerHelp := "search as this session `key`, with its visibility"
	visibilityHelp := "visibility `mode`: self, tree, agent or all (default tree)"
	if operatorDefault {
		callerHelp += " (default: the operator, who sees every session but incognito ones)"
		visibilityHelp = "visibility `mode`: self, tree, agent or all (default tree with --caller, else all)"
	}
	fs.StringVar(&c.caller, "caller", "", callerHelp)
	fs.StringVar(&c.visibility, "visibility", "", visibilityHelp)
	fs.StringVar(&c.agentToAgent, "agent-to-agent", "", "allow `patterns` (comma-separated agent ids or globs) for cross-agent visibility 'all'")
	return c
}

// options returns the common options of sessions_search and
// sessions_history. Without --caller (and operatorDefault), the caller is
// the operator: agent:main:main with visibility "all" and agent-to-agent
// access to every agent.
func (c *callerFlags) options(operatorDefault bool) map[string]any {
	o := map[string]any{}
	if c.caller == "" && operatorDefault {
		o = operatorOptions()
	}
	if c.caller != "" {
		o["caller"] = c.caller
	}
	if c.visibility != "" {
		o["visibility"] = c.visibility
	}
	if c.agentToAgent != "" {
		o["agentToAgent"] = map[string]any{"enabled": true, "allow": strings.Split(c.agentToAgent, ",")}
	}
	return o
}

// operatorOptions are the visibility options of the operator.
func operatorOptions() map[string]any {
	return map[string]any{
		"caller":       operatorKey,
		"visibility":   "all",
		"agentToAgent": map[string]any{"enabled": true, "allow": []string{"*"}},
	}
}

func optionsJSON(o map[string]any) string {
	b, _ := json.Marshal(o) // maps of strings, numbers and bools always encode
	return string(b)
}
