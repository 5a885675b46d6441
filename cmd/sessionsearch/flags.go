package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// flagSet is a subcommand's flags. Flags may come before, between or after
// the arguments; "--" ends them.
type flagSet struct {
	*flag.FlagSet
	e        *env
	synopsis string // e.g. "search [flags] QUERY..."
	args     string // what the command takes after its flags, e.g. "QUERY..."
	summary  string
	notes    []string // paragraphs printed after the flags
}

func newFlagSet(e *env, c command) *flagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	synopsis := c.name + " [flags]"
	if c.args != "" {
		synopsis += " " + c.args
	}
	return &flagSet{FlagSet: fs, e: e, synopsis: synopsis, args: c.args, summary: c.summary}
}

// parse parses the flags and returns the arguments. -h prints the usage to
// stdout and ends the command with status 0.
func (fs *flagSet) parse(args []string) ([]string, error) {
	if fs.e.describe != nil {
		fs.e.describe(fs)
		return nil, errDescribed
	}
	var positional []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.usage(fs.e.stdout)
			return nil, exitError{0}
		}
		if err != nil {
			msg := err.Error()
			if fs.args == queryArgs && strings.HasPrefix(msg, "flag provided but not defined: ") {
				// Flags may follow the query's words, so an exclusion
				// (-case) or a word written with a dash (--continue, -1;
				// docs/search.md Q25) reads as a flag unless "--" ends them.
				msg += fmt.Sprintf(` (a query word that starts with "-" goes after "--": sessionsearch %s [flags] -- %s)`, fs.Name(), queryArgs)
			}
			return nil, usageError{msg}
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

// noArgs parses flags of a command without arguments.
func (fs *flagSet) noArgs(args []string) error {
	rest, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("%s takes no arguments, got %q", fs.Name(), rest[0])
	}
	return nil
}

func (fs *flagSet) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: sessionsearch %s\n\n%s.\n\nFlags:\n", fs.synopsis, capitalize(fs.summary))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	for _, n := range fs.notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
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

// toolsFlag is import's and sync's --tools (docs/cli.md C28): given, it
// switches the store's tool index on (or off, --tools=false) before the
// command writes; not given, the store keeps its setting.
type toolsFlag struct {
	fs *flagSet
	on *bool
}

func (fs *flagSet) toolsFlag() toolsFlag {
	return toolsFlag{fs, fs.Bool("tools", false, "also index tool calls and results, for search --scope: switches the store's tool index on, for every later write too (--tools=false switches it off and drops it)")}
}

// apply switches the store's tool index when the flag was given.
func (f toolsFlag) apply(ctx context.Context, store *driver.DB) error {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "tools" })
	if !given {
		return nil
	}
	return store.SetToolIndex(ctx, *f.on)
}

// dbPath resolves the database location: the flag, then $SESSIONSEARCH_DB,
// then the per-user data directory of the XDG base directory spec. The
// location is a file name: a SQLite URI is refused, since the commands
// choose the open mode themselves (docs/cli.md C3).
func dbPath(e *env, flagValue string) (string, error) {
	from, path := "--db", flagValue
	if path == "" {
		from, path = "SESSIONSEARCH_DB", e.getenv("SESSIONSEARCH_DB")
	}
	if strings.HasPrefix(path, "file:") {
		return "", usagef("%s takes a file name, not a SQLite URI: got %q (read-only commands open the database read-only already)", from, path)
	}
	if path != "" {
		return path, nil
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

// openReader opens the database of a command that only reads (search,
// history, status, sessions, mcp): read-only, never created, never migrated
// (docs/cli.md C2).
func openReader(e *env, flagValue string) (*driver.DB, error) {
	path, err := dbPath(e, flagValue)
	if err != nil {
		return nil, err
	}
	db, err := driver.OpenReadOnly(path)
	if err != nil {
		return nil, explainOpen(path, err, true)
	}
	return db, nil
}

// openStore opens the database of a command that writes (import,
// reconcile, demo): created when missing (readable by its owner only) and
// migrated, but only when it is missing, empty or a sessionsearch database.
func openStore(ctx context.Context, e *env, flagValue string) (*driver.DB, error) {
	path, err := dbPath(e, flagValue)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		// Look before Open switches the journal mode: another program's
		// file is refused untouched.
		ro, err := driver.OpenReadOnly(path)
		var ns *driver.NotStoreError
		var se *driver.SchemaError
		var ie *driver.IndexError
		switch {
		case err == nil:
			ro.Close()
		case errors.As(err, &ns) && len(ns.Tables) == 0:
		case errors.As(err, &se) && se.Version < se.Build, errors.As(err, &ie): // migrate upgrades it
		default:
			return nil, explainOpen(path, err, false)
		}
	} else if err == nil || errors.Is(err, fs.ErrNotExist) {
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
	} else {
		return nil, err
	}
	db, err := driver.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// explainOpen adds what to do to the driver's account of a file.
func explainOpen(path string, err error, reading bool) error {
	var ns *driver.NotStoreError
	var se *driver.SchemaError
	var ie *driver.IndexError
	switch {
	case errors.As(err, &se) && se.Version < se.Build:
		return fmt.Errorf("%w; run 'sessionsearch reconcile' to upgrade it", err)
	case errors.As(err, &ie):
		return fmt.Errorf("%w; run 'sessionsearch reconcile' to rebuild it", err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no sessionsearch database at %s; run 'sessionsearch import' first", path)
	case errors.As(err, &ns) && isAgentDB(ns.Tables):
		return fmt.Errorf("%w; it looks like an OpenClaw agent database: import it with 'sessionsearch import %s'", err, shellQuote(path))
	case errors.As(err, &ns) && reading && len(ns.Tables) == 0:
		return fmt.Errorf("%w; run 'sessionsearch import' first (--db names the database to search, not a transcript)", err)
	case errors.As(err, &ns):
		return fmt.Errorf("%w; sessionsearch leaves it as it is: give --db another file", err)
	}
	return err
}

// isAgentDB tells an OpenClaw agent database by its tables.
func isAgentDB(tables []string) bool {
	return slices.Contains(tables, "session_windows") && slices.Contains(tables, "transcript_events")
}

// The option flags are built from the options' description tables
// (sqlfuncs.SearchOptionSpecs, HistoryOptionSpecs), which state each range,
// allowed value and default once (docs/cli.md C5). A flag sets its field of
// the options type and is checked as the JSON value would be, so
// "--limit 0" is refused as {"limit":0} is.

// flagNames are the flags whose name is not the option's in kebab case.
var flagNames = map[string]string{"sessionKey": "session", "messageId": "around", "agentToAgent": "agent-to-agent"}

// flagName is the command-line flag of an option: "snippetChars" is
// --snippet-chars.
func flagName(option string) string {
	if n, ok := flagNames[option]; ok {
		return n
	}
	var b strings.Builder
	for _, r := range option {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// visibilityNames are the options every command that searches takes: who
// asks, and what it may see.
var visibilityNames = []string{"caller", "visibility", "sandboxed", "sandboxVisibility", "agentToAgent"}

// ceilingOption is set by a service from what it granted (docs/search.md
// Q22), never by a flag or a tool argument: a person at the command line
// names the options themselves, and the MCP server's visibility flags are
// its tools' ceiling.
const ceilingOption = "ceiling"

// visibilitySpecs describes them.
func visibilitySpecs() sqlfuncs.OptionSpecs {
	return sqlfuncs.SearchOptionSpecs().Select(visibilityNames...)
}

// ownSpecs are a function's options other than the visibility ones.
func ownSpecs(specs sqlfuncs.OptionSpecs) sqlfuncs.OptionSpecs {
	var out sqlfuncs.OptionSpecs
	for _, s := range specs {
		if !slices.Contains(visibilityNames, s.Name) && s.Name != ceilingOption {
			out = append(out, s)
		}
	}
	return out
}

// optionFlags adds a flag for each option, setting its field in dst (a
// pointer to the options type of specs, whose Options are vis). The
// agentToAgent object is one flag, its allow patterns, comma-separated:
// giving them enables it (see enableAgentToAgent).
func (fs *flagSet) optionFlags(dst any, vis *driver.Options, specs sqlfuncs.OptionSpecs) {
	for _, s := range specs {
		if s.Name == ceilingOption {
			continue
		}
		if s.Name == "agentToAgent" {
			allow, _ := s.Fields.Lookup("allow")
			allow.Help = "with visibility all, also see other agents' sessions: agent id `patterns` (*, globs with *, or ids), comma-separated, that both agents must match"
			allow.Flag(fs.FlagSet, flagName(s.Name), &vis.AgentToAgent)
			continue
		}
		s.Flag(fs.FlagSet, flagName(s.Name), dst)
		if s.Type == sqlfuncs.TypeTime {
			humanTimes(fs.FlagSet, flagName(s.Name))
		}
	}
}

// enableAgentToAgent turns agent-to-agent access on when patterns were
// given.
func enableAgentToAgent(o *driver.Options) {
	if len(o.AgentToAgent.Allow) > 0 {
		o.AgentToAgent.Enabled = true
	}
}

// The operator: a person at the command line sees every session but the
// incognito ones (which only the incognito session itself sees).
const operatorKey = "agent:main:main"

// withOperator makes the operator the caller when --caller is not given:
// agent:main:main with visibility "all" and every other agent, unless the
// flags say otherwise.
func withOperator(o *driver.Options) {
	enableAgentToAgent(o)
	if o.Caller != "" {
		return
	}
	o.Caller = operatorKey
	if o.Visibility == "" {
		o.Visibility = sqlfuncs.VisibilityAll
	}
	if !o.AgentToAgent.Enabled {
		o.AgentToAgent = driver.AgentToAgent{Enabled: true, Allow: []string{"*"}}
	}
}

// operatorOptions are the operator's options.
func operatorOptions() driver.Options {
	var o driver.Options
	withOperator(&o)
	return o
}

// who says as whom a command searched, for an empty answer: "as
// agent:main:main (the operator), visibility all, other agents *".
func who(o driver.Options) string {
	s := "as " + o.Caller
	vis := o.Visibility
	if vis == "" {
		vis = sqlfuncs.VisibilityTree
	}
	if o.Caller == operatorKey && vis == sqlfuncs.VisibilityAll {
		s += " (the operator)"
	}
	s += ", visibility " + vis
	if o.Sandboxed {
		sv := o.SandboxVisibility
		if sv == "" {
			sv = sqlfuncs.SandboxSpawned
		}
		s += ", sandboxed (sees " + sv + ")"
	}
	if o.AgentToAgent.Enabled && vis == sqlfuncs.VisibilityAll {
		s += ", other agents " + strings.Join(o.AgentToAgent.Allow, ",")
	}
	return s
}
