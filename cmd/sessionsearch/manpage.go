package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sessionsearch/sessionsearch/extension"
)

// runMan prints sessionsearch(1) in roff, made of the command table and each
// command's flags as its -h shows them (docs/cli.md C27).
func runMan(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, lookupCommand("man"))
	fs.notes = []string{"Read it with 'sessionsearch man | man -l -'; the packages install it as sessionsearch(1)."}
	if err := fs.noArgs(args); err != nil {
		return err
	}
	return writeMan(e.stdout, describeCommands())
}

// manEnvironment is what the commands read from the environment
// (docs/cli.md C3, C11; docs/sync.md; docs/store.md).
var manEnvironment = [][2]string{
	{"SESSIONSEARCH_DB", "the database, when --db is not given"},
	{"XDG_DATA_HOME", "the database is $XDG_DATA_HOME/sessionsearch/sessions.db when neither --db nor SESSIONSEARCH_DB is set (default ~/.local/share)"},
	{"OPENCLAW_STATE_DIR", "OpenClaw's state directory, which import and sync read when given no PATH (default ~/.openclaw)"},
	{"SESSIONSEARCH_SOURCE", "the state directory that search and mcp sync first, when --source is not given"},
	{"SESSIONSEARCH_TOKEN", "the bearer token of sync --to, when --token-file is not given"},
	{"NO_COLOR", "when set, no bold and no progress bar, even on a terminal"},
	{"SQLITE_TMPDIR, TMPDIR", "where temporary files go (default /tmp)"},
}

func writeMan(out io.Writer, docs []commandDoc) error {
	w := bufio.NewWriter(out)
	line := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	line(`.TH SESSIONSEARCH 1 "" "sessionsearch %s" "User Commands"`, roff(extension.Version))
	line(".SH NAME")
	line(`sessionsearch \- search AI agents' past conversations in every language`)
	line(".SH SYNOPSIS")
	line(`.B sessionsearch`)
	line(`.I command`)
	line(`.RI [ flags ]\ [ arguments ]`)
	line(".SH DESCRIPTION")
	line("%s", roff("sessionsearch imports the transcripts of OpenClaw and of other coding agents into a SQLite database, and searches them in any language, by the rules of the sessionsearch SQLite extension it links. It serves the search to agents over MCP (mcp) and to programs on other machines over HTTP (serve)."))
	line(".PP")
	line("%s", roff("Flags may come before, between or after the arguments; -- ends them. A flag is written -name or --name, its value as the next argument or after ="))
	line(".SH COMMANDS")
	for _, d := range docs {
		line(".SS %q", "sessionsearch "+d.Synopsis)
		line("%s.", roff(capitalize(d.Summary)))
		for _, f := range d.Flags {
			line(".TP")
			if f.Placeholder == "" {
				line(`.B \-\-%s`, roff(f.Name))
			} else {
				line(`.BI \-\-%s " %s"`, roff(f.Name), roff(f.Placeholder))
			}
			text := f.Usage
			if f.Default != "" {
				text += " (default " + f.Default + ")"
			}
			line("%s", roff(text))
		}
		for _, n := range d.Notes {
			line(".PP")
			line("%s", roff(n))
		}
	}
	line(".SH ENVIRONMENT")
	for _, v := range manEnvironment {
		line(".TP")
		line(".B %s", roff(v[0]))
		line("%s", roff(v[1]))
	}
	line(".SH EXIT STATUS")
	line("%s", roff("0 on success; 1 when something failed (the message on standard error names the file, line or session); 2 for a usage error."))
	line(".SH SEE ALSO")
	line(`.BR sqlite3 (1);`)
	line("%s", roff("the documentation in the docs/ directory of the sessionsearch source, and /usr/share/doc/sessionsearch where the package installed it."))
	return w.Flush()
}

// roff escapes text for a roff line: backslashes and hyphens, and a line
// that would start with a control character.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`, "\n", " ").Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
