package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// underDir reports whether path or one of the directories above it is a
// directory is accepts (say, one named .copilot): a reader claims every
// path inside its agent's own directory by name.
func underDir(path string, is func(dir string) bool) bool {
	for d := filepath.Clean(path); ; {
		if is(d) {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// named is the test of underDir for a directory called name.
func named(name string) func(string) bool {
	return func(dir string) bool { return filepath.Base(dir) == name }
}

// errNoFirstLine: a session file whose first line is missing or is not
// one JSON object.
var errNoFirstLine = errors.New("the file has no first line of JSON")

// readFirstLine decodes the first line of the file at path (at most 64 KiB
// are looked at) into v, the header of a session file.
func readFirstLine(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return errNoFirstLine
	}
	if json.Unmarshal(line, v) != nil {
		return errNoFirstLine
	}
	return nil
}

// sessionFiles lists the session files a reader reads under path: path
// itself when it is a file; else every regular file below it whose name
// want accepts, below path/sub instead when path holds that directory.
// A directory that cannot be read is a problem of its own.
func sessionFiles(ctx context.Context, path, sub string, want func(name string) bool) ([]string, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	if s := filepath.Join(path, sub); sub != "" && filepath.Base(path) != sub && ccIsDir(s) {
		path = s
	}
	var files []string
	problems := walkFiles(ctx, path, func(p, name string) bool {
		if want(name) {
			files = append(files, p)
		}
		return true
	})
	return files, problems
}

// errEnough stops a walk that found what it looks for.
var errEnough = errors.New("enough")

// walkFiles calls visit with each regular file below root, in lexical
// order, until visit returns false or ctx ends; a directory that cannot be
// read is a problem of its own, and the walk goes on.
func walkFiles(ctx context.Context, root string, visit func(path, name string) bool) []Problem {
	var problems []Problem
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, Problem{Path: p, Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Type().IsRegular() && !visit(p, d.Name()) {
			return errEnough
		}
		return nil
	})
	if err != nil && err != errEnough {
		problems = append(problems, Problem{Path: root, Err: err})
	}
	return problems
}
