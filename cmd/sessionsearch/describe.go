package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The man page and the shell completions are made of the command table and
// of each command's flags as its -h shows them (docs/cli.md C27): every
// command is run with env.describe set, and hands over its flag set at the
// point where it would parse its arguments.

// errDescribed ends a command whose flags were described instead of parsed.
var errDescribed = errors.New("flags described")

// commandDoc is one command as the man page and the completions show it.
// Its fields are exported for the templates of completion.go.
type commandDoc struct {
	Name, Args, Summary string
	Synopsis            string // "search [flags] QUERY..."
	Flags               []flagDoc
	Notes               []string // the paragraphs -h prints after the flags
}

// flagDoc is one flag.
type flagDoc struct {
	Name        string
	Placeholder string   // the value's name in the help ("file", "n"); empty for a boolean flag
	Usage       string   // the help, without the placeholder's backquotes
	Default     string   // the default as -h shows it; empty when -h shows none
	Choices     []string // the values the flag takes, when they are a fixed set
}

// Files says whether the flag's value is a file or directory name.
func (f flagDoc) Files() bool {
	return slices.Contains([]string{"file", "dir", "directory", "path"}, f.Placeholder)
}

// choicer is a flag value with a fixed set of values: the options'
// enumerations (sqlfuncs.OptionSpec.Flag).
type choicer interface{ Choices() []string }

// ArgFiles says whether the command's arguments are file names.
func (c commandDoc) ArgFiles() bool { return strings.HasPrefix(strings.Trim(c.Args, "[]"), "PATH") }

// ArgWords are the words the command's argument is one of (completion's
// shells), or nil.
func (c commandDoc) ArgWords() []string {
	if !strings.Contains(c.Args, "|") {
		return nil
	}
	return strings.Split(strings.Trim(c.Args, "[]"), "|")
}

// describeCommands describes every command of the table, in its order.
func describeCommands() []commandDoc {
	docs := make([]commandDoc, 0, len(commands))
	for _, c := range commands {
		var got *flagSet
		e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
			describe: func(fs *flagSet) { got = fs }}
		if err := c.run(context.Background(), e, nil); got == nil || !errors.Is(err, errDescribed) {
			// Every command parses its arguments with a flagSet before it
			// does anything; one that does not is a bug in this package.
			panic(fmt.Sprintf("sessionsearch %s: no flags described (%v)", c.name, err))
		}
		d := commandDoc{Name: c.name, Args: c.args, Summary: c.summary, Synopsis: got.synopsis, Notes: got.notes}
		got.VisitAll(func(f *flag.Flag) { d.Flags = append(d.Flags, describeFlag(f)) })
		docs = append(docs, d)
	}
	return docs
}

func describeFlag(f *flag.Flag) flagDoc {
	placeholder, usage := flag.UnquoteUsage(f)
	d := flagDoc{Name: f.Name, Placeholder: placeholder, Usage: usage}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		d.Placeholder = ""
	} else if !slices.Contains([]string{"", "0", "0s"}, f.DefValue) {
		d.Default = f.DefValue
	}
	if c, ok := f.Value.(choicer); ok {
		d.Choices = c.Choices()
	}
	return d
}
