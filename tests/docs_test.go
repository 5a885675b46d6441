//go:build sqlite_fts5

package tests

// TestDocExamples runs every example of README.md and docs/*.md and compares
// the output each page shows with what the commands print, so that no page
// shows output the program does not give. The format is in
// docs/contributing.md ("Examples are tests"):
//
//   - ```sql blocks: the blocks of one page run in order, in one fresh
//     in-memory database of the sqlite3 shell, with ./dist/sessionsearch
//     loaded. A statement ends at a line ending with ';' (a trailing
//     `-- comment` after the ';' is allowed); a line starting with '.' is a
//     dot-command. The comment lines right after a statement, each starting
//     with "-- ", are its expected output; an error is shown as
//     "-- Error: <message>" (the shell's message without its "Parse error
//     near line N:" or "Runtime error near line N:" prefix).
//   - ```sh blocks: each line starting with "$ " is a command, run by one
//     bash per page from the repository root, with bin/ first on PATH and
//     HOME and SESSIONSEARCH_DB in one fresh temporary directory per page;
//     the lines after it, up to the next "$ ", are its expected output
//     (standard output and standard error as a terminal shows them).
//   - Lines are compared after trimming trailing space; "..." in an
//     expected line matches any run of characters, and a line that is only
//     "..." matches any number of lines. Blank lines at the end of an
//     output are not compared.
//   - A fence preceded by the line <!-- not-run --> (blank lines and other
//     <!-- ... --> lines may stand between) is not run. A ```sh block
//     without "$ " lines must be marked so.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// An example is one SQL statement (or dot-command) or one shell command,
// with the output its page shows.
type example struct {
	line int      // of the statement or command's first line in the page, from 1
	text string   // the statement or command as run
	want []string // the output lines the page shows
}

// page is what one Markdown file's examples are.
type page struct {
	path string
	sql  []example
	sh   []example
}

var notRun = "<!-- not-run -->"

// readPage parses the runnable examples of a Markdown file; errors name
// the page as path does.
func readPage(path string) (page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return page{}, err
	}
	p := page{path: path}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		lang := strings.TrimPrefix(open, "```")
		start := i + 1
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return p, fmt.Errorf("%s:%d: the fence that opens here is never closed", path, i+1)
		}
		body := lines[start:end]
		skip := markedNotRun(lines[:i])
		i = end
		if skip {
			continue
		}
		switch lang {
		case "sql":
			ex, err := sqlExamples(path, start+1, body)
			if err != nil {
				return p, err
			}
			p.sql = append(p.sql, ex...)
		case "sh":
			ex := shExamples(start+1, body)
			if len(ex) == 0 {
				return p, fmt.Errorf("%s:%d: a ```sh block without \"$ \" lines must be preceded by %s", path, start, notRun)
			}
			p.sh = append(p.sh, ex...)
		}
	}
	return p, nil
}

// markedNotRun says whether the lines before a fence end with the not-run
// marker, looking past blank lines and other HTML comments.
func markedNotRun(before []string) bool {
	for j := len(before) - 1; j >= 0; j-- {
		l := strings.TrimSpace(before[j])
		switch {
		case l == notRun:
			return true
		case l == "" || strings.HasPrefix(l, "<!--") && strings.HasSuffix(l, "-->"):
			continue
		}
		return false
	}
	return false
}

// statementEnd matches the last line of an SQL statement: it ends with ';',
// perhaps followed by a comment.
var statementEnd = regexp.MustCompile(`;\s*(--.*)?$`)

// sqlExamples splits a ```sql block into statements and their shown output;
// first is the page line of body[0].
func sqlExamples(path string, first int, body []string) ([]example, error) {
	var out []example
	var cur *example // the statement being read, until its ';'
	var last *example
	for k, raw := range body {
		n := first + k
		l := strings.TrimRight(raw, " \t")
		t := strings.TrimSpace(l)
		switch {
		case cur != nil:
			cur.text += "\n" + l
			if statementEnd.MatchString(t) {
				out = append(out, *cur)
				last, cur = &out[len(out)-1], nil
			}
		case last != nil && (t == "--" || strings.HasPrefix(t, "-- ")):
			last.want = append(last.want, strings.TrimPrefix(strings.TrimPrefix(t, "--"), " "))
		case t == "" || strings.HasPrefix(t, "--"):
			last = nil
		case strings.HasPrefix(t, "."):
			out = append(out, example{line: n, text: t})
			last = &out[len(out)-1]
		default:
			cur = &example{line: n, text: l}
			if statementEnd.MatchString(t) {
				out = append(out, *cur)
				last, cur = &out[len(out)-1], nil
			}
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the statement that starts here does not end with ';' before the fence closes", path, cur.line)
	}
	return out, nil
}

// shExamples splits a ```sh block into commands and their shown output.
func shExamples(first int, body []string) []example {
	var out []example
	for k := 0; k < len(body); k++ {
		l := strings.TrimRight(body[k], " \t")
		if strings.HasPrefix(l, "$ ") {
			ex := example{line: first + k, text: strings.TrimPrefix(l, "$ ")}
			for strings.HasSuffix(ex.text, `\`) && k+1 < len(body) {
				k++
				ex.text += "\n" + strings.TrimRight(body[k], " \t")
			}
			out = append(out, ex)
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].want = append(out[len(out)-1].want, l)
		}
	}
	return out
}

// matchLines says whether got is what want shows ("..." rules above).
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got)
}

// outputLines splits an output into trimmed lines, without the blank lines
// at its end.
func outputLines(s string) []string {
	var ls []string
	for _, l := range strings.Split(s, "\n") {
		ls = append(ls, strings.TrimRight(l, " \t\r"))
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func trimBlankEnd(ls []string) []string {
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// marker separates the outputs of two examples.
func marker(i int) string { return fmt.Sprintf("@@sessionsearch-docs-example-%d@@", i) }

// splitOutputs cuts a run's output at the markers into one output per
// example; the markers are lines of their own, in order.
func splitOutputs(out string, n int) ([]string, error) {
	outs := make([]string, n)
	i := -1
	for _, l := range strings.SplitAfter(out, "\n") {
		if i+1 < n && strings.TrimSuffix(l, "\n") == marker(i+1) {
			i++
			continue
		}
		if i >= 0 {
			outs[i] += l
		}
	}
	if i < n-1 {
		return outs, fmt.Errorf("the run stopped before example %d of %d; its output:\n%s", i+2, n, out)
	}
	return outs, nil
}

// shellError matches the sqlite3 shell's report of a failing statement.
var shellError = regexp.MustCompile(`^(?:Parse|Runtime) error near line (\d+): (.*)$`)

// runSQL runs a page's statements in one sqlite3 shell and returns each
// one's output.
func runSQL(ctx context.Context, root string, exs []example) ([][]string, error) {
	var script strings.Builder
	line := 1
	starts := make([]int, len(exs)) // script line of each statement
	for i, ex := range exs {
		fmt.Fprintf(&script, ".print %s\n", marker(i))
		line++
		starts[i] = line
		script.WriteString(ex.text + "\n")
		line += strings.Count(ex.text, "\n") + 1
	}
	cmd := exec.CommandContext(ctx, "sqlite3", "-batch", "-cmd", ".load ./dist/sessionsearch", ":memory:")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(script.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the sqlite3 shell did not finish: %v", ctx.Err())
	}
	outs, serr := splitOutputs(stdout.String(), len(exs))
	if serr != nil {
		return nil, fmt.Errorf("%v\n%v\n%s", serr, err, stderr.String())
	}
	got := make([][]string, len(exs))
	for i := range exs {
		got[i] = outputLines(outs[i])
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		m := shellError.FindStringSubmatch(l)
		if m == nil {
			continue // blank, or the shell's echo of a statement that did not parse
		}
		n, _ := strconv.Atoi(m[1])
		i := len(starts) - 1
		for i > 0 && starts[i] > n {
			i--
		}
		got[i] = append(got[i], "Error: "+strings.TrimRight(m[2], " \t"))
	}
	return got, nil
}

// runSh runs a page's commands in one bash and returns each one's output.
func runSh(ctx context.Context, root, tmp string, exs []example) ([][]string, error) {
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for i, ex := range exs {
		fmt.Fprintf(&script, "printf '\\n%%s\\n' '%s'\n%s\n", marker(i), ex.text)
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	// The script is a file, so that a command reading its standard input
	// (which is empty) cannot swallow the commands after it.
	file := filepath.Join(tmp, "examples.sh")
	if err := os.WriteFile(file, []byte(script.String()), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", file)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home,
		"SESSIONSEARCH_DB="+filepath.Join(tmp, "sessions.db"),
		"XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
		"TZ=UTC", "LC_ALL=C.UTF-8", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("bash did not finish: %v", ctx.Err())
	}
	outs, serr := splitOutputs(string(out), len(exs))
	if serr != nil {
		return nil, fmt.Errorf("%v (%v)", serr, err)
	}
	got := make([][]string, len(exs))
	for i := range exs {
		got[i] = outputLines(outs[i])
	}
	return got, nil
}

// compare reports every example whose output differs from what its page shows.
func compare(t *testing.T, path string, exs []example, got [][]string) {
	t.Helper()
	for i, ex := range exs {
		want := trimBlankEnd(ex.want)
		if !matchLines(want, got[i]) {
			t.Errorf("%s:%d: the output differs from what the page shows\n%s\n--- the page shows:\n%s\n--- it prints:\n%s",
				path, ex.line, indent(ex.text), indent(strings.Join(want, "\n")), indent(strings.Join(got[i], "\n")))
		}
	}
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// docPages lists the pages whose examples are run.
func docPages(root string) ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...), nil
}

// buildForDocs builds dist/sessionsearch.so and bin/sessionsearch the way a
// reader does (make), since the pages run them by those names.
func buildForDocs(t *testing.T, root string) {
	t.Helper()
	cmd := exec.Command("make", "all")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make all (the pages run dist/sessionsearch.so and bin/sessionsearch): %v\n%s", err, out)
	}
}

func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := docPages(root)
	if err != nil {
		t.Fatal(err)
	}
	buildForDocs(t, root)
	for _, path := range paths {
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) {
			p, err := readPage(filepath.Join("..", rel))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if len(p.sql) > 0 {
				got, err := runSQL(ctx, root, p.sql)
				if err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				compare(t, rel, p.sql, got)
			}
			if len(p.sh) > 0 {
				got, err := runSh(ctx, root, t.TempDir(), p.sh)
				if err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				compare(t, rel, p.sh, got)
			}
		})
	}
}

// TestDocExampleFormat checks the reader of examples on a page written for
// it: what is run, what is shown, and that a wrong output is caught.
func TestDocExampleFormat(t *testing.T) {
	dir := t.TempDir()
	md := strings.Join([]string{
		"# A page",
		"```sql",
		"SELECT 1;",
		"-- 1",
		"",
		"-- a comment, not output",
		"SELECT 'a',",
		"  'b';   -- a trailing comment",
		"-- a|b",
		".print hi",
		"-- hi",
		"SELECT 2;",
		"```",
		"<!-- not-run -->",
		"```sql",
		"CREATE TABLE never(x)",
		"```",
		"```sh",
		"$ echo one; echo two",
		"one",
		"...",
		"$ printf 'x\\n' \\",
		"  && echo y",
		"x...",
		"y",
		"```",
		"```go",
		"not run",
		"```",
	}, "\n")
	path := filepath.Join(dir, "page.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := readPage(path)
	if err != nil {
		t.Fatal(err)
	}
	gotSQL := fmt.Sprintf("%#v", p.sql)
	wantSQL := fmt.Sprintf("%#v", []example{
		{3, "SELECT 1;", []string{"1"}},
		{7, "SELECT 'a',\n  'b';   -- a trailing comment", []string{"a|b"}},
		{10, ".print hi", []string{"hi"}},
		{12, "SELECT 2;", nil},
	})
	if gotSQL != wantSQL {
		t.Errorf("sql examples:\n got %s\nwant %s", gotSQL, wantSQL)
	}
	gotSh := fmt.Sprintf("%#v", p.sh)
	wantSh := fmt.Sprintf("%#v", []example{
		{19, "echo one; echo two", []string{"one", "..."}},
		{22, "printf 'x\\n' \\\n  && echo y", []string{"x...", "y"}},
	})
	if gotSh != wantSh {
		t.Errorf("sh examples:\n got %s\nwant %s", gotSh, wantSh)
	}
	for _, c := range []struct {
		want, got []string
		match     bool
	}{
		{[]string{"a...c"}, []string{"abbbc"}, true},
		{[]string{"a...c"}, []string{"abbbd"}, false},
		{[]string{"[1.2]"}, []string{"[1x2]"}, false},
		{[]string{"x", "...", "z"}, []string{"x", "z"}, true},
		{[]string{"x", "...", "z"}, []string{"x", "1", "2", "z"}, true},
		{[]string{"x", "...", "z"}, []string{"x", "1", "2"}, false},
		{nil, []string{"unexpected"}, false},
		{[]string{"1"}, nil, false},
	} {
		if matchLines(c.want, c.got) != c.match {
			t.Errorf("matchLines(%q, %q) = %v", c.want, c.got, !c.match)
		}
	}
	// A page whose shown output is wrong fails, naming the line.
	bad := filepath.Join(dir, "bad.md")
	if err := os.WriteFile(bad, []byte("```sh\n$ echo right\nwrong\n$ cat\n$ echo after cat\nafter cat\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bare.md"), []byte("```sh\nmake demo\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readPage(filepath.Join(dir, "bare.md")); err == nil || !strings.Contains(err.Error(), "bare.md:1:") {
		t.Errorf("a sh block without commands: %v", err)
	}
	bp, err := readPage(bad)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("..")
	got, err := runSh(context.Background(), root, t.TempDir(), bp.sh)
	if err != nil {
		t.Fatal(err)
	}
	if matchLines(bp.sh[0].want, got[0]) || fmt.Sprint(got[0]) != "[right]" {
		t.Errorf("echo right printed %q, and the page shows %q", got[0], bp.sh[0].want)
	}
	// A command that reads its standard input reads nothing, and the
	// commands after it still run.
	if len(got[1]) != 0 || !matchLines(bp.sh[2].want, got[2]) {
		t.Errorf("cat printed %q, and the echo after it %q", got[1], got[2])
	}
}

// A test reference on a page: the backticked names of a "Tests:" paragraph.
var (
	goFileRef  = regexp.MustCompile("^([\\w./-]+_test\\.go)(?: ((?:Test|Benchmark|Fuzz|Example)\\w*))?$")
	sqlFileRef = regexp.MustCompile("^((?:tests/)?golden/[\\w.-]+\\.sql)(?: ([a-z0-9_]+\\*?))?$")
	funcRef    = regexp.MustCompile("^(?:Test|Benchmark|Fuzz|Example)\\w*$")
	caseRef    = regexp.MustCompile("^[a-z0-9_]+\\*?$")
	backticked = regexp.MustCompile("`([^`]+)`")
)

// testRefProblems checks that every test a page names in its "Tests:"
// paragraphs exists: each file, each function named with its file, each
// function named alone (in some test file of the repository), and each
// golden case id or case id prefix (name_*), in the golden file named with
// it, or alone (in some golden file).
func testRefProblems(root, rel string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	goFuncs := map[string]map[string]bool{} // file → test functions
	readGo := func(file string) (map[string]bool, error) {
		if fs, ok := goFuncs[file]; ok {
			return fs, nil
		}
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return nil, err
		}
		fs := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`).FindAllSubmatch(b, -1) {
			fs[string(m[1])] = true
		}
		goFuncs[file] = fs
		return fs, nil
	}
	cases := map[string][]string{} // golden file → case ids
	readSQL := func(file string) ([]string, error) {
		if cs, ok := cases[file]; ok {
			return cs, nil
		}
		b, err := os.ReadFile(filepath.Join(root, "tests", strings.TrimPrefix(file, "tests/")))
		if err != nil {
			return nil, err
		}
		var cs []string
		for _, m := range regexp.MustCompile(`(?mi)^select '([^'|]+)', `).FindAllSubmatch(b, -1) {
			cs = append(cs, string(m[1]))
		}
		cases[file] = cs
		return cs, nil
	}
	allTests, _ := filepath.Glob(filepath.Join(root, "*", "*_test.go"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "*", "*_test.go"))
	allTests = append(allTests, more...)
	allGolden, _ := filepath.Glob(filepath.Join(root, "tests", "golden", "*.sql"))
	anyFunc := func(name string) bool {
		for _, f := range allTests {
			r, _ := filepath.Rel(root, f)
			if fs, err := readGo(r); err == nil && fs[name] {
				return true
			}
		}
		return false
	}
	hasCase := func(ids []string, ref string) bool {
		for _, id := range ids {
			if id == ref || strings.HasSuffix(ref, "*") && strings.HasPrefix(id, strings.TrimSuffix(ref, "*")) {
				return true
			}
		}
		return false
	}
	anyCase := func(ref string) bool {
		for _, f := range allGolden {
			if ids, err := readSQL("golden/" + filepath.Base(f)); err == nil && hasCase(ids, ref) {
				return true
			}
		}
		return false
	}
	var problems []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		at := strings.Index(lines[i], "Tests:")
		if at < 0 {
			continue
		}
		start := i + 1
		para := lines[i][at:]
		for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !strings.HasPrefix(lines[i+1], "```") {
			i++
			para += " " + lines[i]
		}
		curGo, curSQL := "", ""
		golden := false
		for _, m := range backticked.FindAllStringSubmatch(para, -1) {
			ref := m[1]
			switch {
			case goFileRef.MatchString(ref):
				g := goFileRef.FindStringSubmatch(ref)
				fs, err := readGo(g[1])
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %s does not exist", rel, start, g[1]))
					curGo = ""
					continue
				}
				curGo = g[1]
				if g[2] != "" && !fs[g[2]] {
					problems = append(problems, fmt.Sprintf("%s:%d: %s has no func %s", rel, start, g[1], g[2]))
				}
			case sqlFileRef.MatchString(ref):
				g := sqlFileRef.FindStringSubmatch(ref)
				ids, err := readSQL(g[1])
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %s does not exist", rel, start, g[1]))
					curSQL = ""
					continue
				}
				curSQL, golden = g[1], true
				if g[2] != "" && !hasCase(ids, g[2]) {
					problems = append(problems, fmt.Sprintf("%s:%d: %s has no case %s", rel, start, g[1], g[2]))
				}
			case funcRef.MatchString(ref):
				if !goFuncs[curGo][ref] && !anyFunc(ref) {
					problems = append(problems, fmt.Sprintf("%s:%d: no test file has func %s", rel, start, ref))
				}
			case caseRef.MatchString(ref) && (golden || strings.Contains(para, "golden")):
				if !hasCase(cases[curSQL], ref) && !anyCase(ref) {
					problems = append(problems, fmt.Sprintf("%s:%d: no golden file has case %s", rel, start, ref))
				}
			}
		}
	}
	return problems, nil
}

// TestDocTestsExist: every test that a page's rules name exists, so that a
// renamed or removed test cannot leave a rule claiming a check it lost.
func TestDocTestsExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := docPages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(root, path)
		problems, err := testRefProblems(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}

// TestDocOptionTables: the options tables of docs/search.md (Q5 common, Q6
// search, Q7 history) state each option's type, range and default as the
// option tables of package sqlfuncs do, and name no option that does not
// exist: the page may restate a range, but never a different one.
func TestDocOptionTables(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "search.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]map[string][]string{} // rule → option → cells
	rule := ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := regexp.MustCompile(`^\*\*(Q\d+)\.`).FindStringSubmatch(line); m != nil {
			rule = m[1]
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if tables[rule] == nil {
			tables[rule] = map[string][]string{}
		}
		tables[rule][strings.Trim(cells[0], "`")] = cells
	}
	common := sqlfuncs.VisibilityOptionSpecs()
	if caller, ok := sqlfuncs.SearchOptionSpecs().Lookup("caller"); ok {
		common = append(sqlfuncs.OptionSpecs{caller}, common...)
	}
	without := func(specs, drop sqlfuncs.OptionSpecs) sqlfuncs.OptionSpecs {
		var out sqlfuncs.OptionSpecs
		for _, s := range specs {
			if _, ok := drop.Lookup(s.Name); !ok {
				out = append(out, s)
			}
		}
		return out
	}
	for _, c := range []struct {
		rule  string
		specs sqlfuncs.OptionSpecs
	}{
		{"Q5", common},
		{"Q6", without(sqlfuncs.SearchOptionSpecs(), common)},
		{"Q7", without(sqlfuncs.HistoryOptionSpecs(), common)},
	} {
		rows := tables[c.rule]
		for name := range rows {
			if _, ok := c.specs.Lookup(name); !ok {
				t.Errorf("docs/search.md %s lists option %q, which sqlfuncs does not have there", c.rule, name)
			}
		}
		for _, s := range c.specs {
			cells, ok := rows[s.Name]
			if !ok {
				t.Errorf("docs/search.md %s does not list option %q", c.rule, s.Name)
				continue
			}
			typ, def := cells[1], cells[2]
			var want []string
			switch s.Type {
			case sqlfuncs.TypeInteger:
				want = []string{fmt.Sprintf("integer %d..%d", s.Min, s.Max)}
			case sqlfuncs.TypeBoolean:
				want = []string{"boolean"}
			case sqlfuncs.TypeTime:
				want = []string{"epoch ms", "RFC 3339"}
			case sqlfuncs.TypeString:
				for _, v := range s.Enum {
					want = append(want, "`"+v+"`")
				}
				if s.Enum == nil {
					want = []string{"string"}
				}
			}
			if s.Required {
				want = append(want, "required")
			}
			for _, w := range want {
				if !strings.Contains(typ, w) {
					t.Errorf("docs/search.md %s: option %q has type %q, which does not say %q", c.rule, s.Name, typ, w)
				}
			}
			wantDef := ""
			switch d := s.Default.(type) {
			case nil:
			case string:
				wantDef = "`" + d + "`"
			default:
				wantDef = fmt.Sprint(d)
			}
			if s.Type == sqlfuncs.TypeObject {
				wantDef = def // described in words
			}
			if def != wantDef {
				t.Errorf("docs/search.md %s: option %q has default %q, sqlfuncs %q", c.rule, s.Name, def, wantDef)
			}
		}
	}
}
