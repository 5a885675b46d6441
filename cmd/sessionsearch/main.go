// Command sessionsearch imports OpenClaw transcripts into a sessionsearch
// database and searches them, from the command line or as an MCP server.
//
//	sessionsearch demo                       what it finds that unicode61 misses
//	sessionsearch import ~/.openclaw          import a state directory (or files, agent databases)
//	sessionsearch search "东京 hotel"         search as the operator
//	sessionsearch sessions                    the sessions, their agents and keys
//	sessionsearch history agent:main:main     read a session's active path
//	sessionsearch status | reconcile          index state; finish pending indexing
//	sessionsearch mcp --caller KEY            sessions_search and sessions_history for agents
//	sessionsearch ui                          a web page on 127.0.0.1 to search and read them
//
// Build: go build -tags sqlite_fts5 -o bin/sessionsearch ./cmd/sessionsearch
//
// The database is --db, else $SESSIONSEARCH_DB, else
// $XDG_DATA_HOME/sessionsearch/sessions.db (~/.local/share when
// XDG_DATA_HOME is unset). import, reconcile and demo create it (readable by
// its owner only) and migrate it; the other commands only read it, and
// never write it. docs/cli.md is the specification.
//
// Exit status: 0 on success, 1 when something failed (errors on stderr name
// the file and line), 2 for a usage error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis of the arguments
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

var commands []command

// queryArgs is what search takes after its flags: the words of a query.
const queryArgs = "QUERY..."

func init() {
	// Set here, not in the declaration: the help command lists commands.
	commands = []command{
		{"import", "PATH...", "import OpenClaw transcripts: JSONL files, state directories, agent databases", runImport},
		syncCommand,
		{"search", queryArgs, "search the transcripts", runSearch},
		{"sessions", "", "list the sessions: keys, agents, messages, last activity", runSessions},
		{"history", "KEY", "show a session's messages (its active path)", runHistory},
		{"status", "", "show the database and its index state", runStatus},
		{"reconcile", "", "index the sessions that are pending", runReconcile},
		{"mcp", "", "serve sessions_search and sessions_history over MCP on stdio", runMCP},
		{"serve", "", "serve search, history and appends over HTTP/JSON with bearer tokens", runServe},
		{"ui", "", "open a web page on 127.0.0.1 to search and read the transcripts", runUI},
		{"demo", "", "import the bundled transcripts and compare with unicode61", runDemo},
		{"version", "", "show the version, the commit and what this build is made of", runVersion},
		{"completion", "bash|zsh|fish", "print the shell completion script for bash, zsh or fish", runCompletion},
		{"man", "", "print the manual page (roff): every command and flag", runMan},
		{"help", "", "show this help", runHelp},
	}
}

// env is what commands read and write besides their arguments.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// describe, when set, receives the command's flags in place of a run:
	// the man page and the completions are made of them (describe.go).
	describe func(*flagSet)
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError carries an exit status after its messages were printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help":
		name = "help"
	case "--version", "-version":
		name = "version"
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var usage usageError
		var exit exitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &usage):
			fmt.Fprintf(e.stderr, "sessionsearch %s: %v\nRun 'sessionsearch %s -h' for usage.\n", name, err, name)
			return 2
		case errors.As(err, &exit):
			return exit.code
		default:
			fmt.Fprintf(e.stderr, "sessionsearch %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "sessionsearch: unknown command %q\n", args[0])
	printUsage(e.stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: sessionsearch COMMAND [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'sessionsearch COMMAND -h' for a command's flags. Start with 'sessionsearch demo'.")
}

func runHelp(_ context.Context, e *env, args []string) error {
	rest, err := newFlagSet(e, lookupCommand("help")).parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("help takes no arguments; run 'sessionsearch %s -h'", rest[0])
	}
	printUsage(e.stdout)
	return nil
}
