//go:build sqlite_fts5

// Package tests holds sessionsearch's cross-host tests: the same SQL runs in
// the four hosts README.md names, and each must give the same rows.
//
//   - sqlite3: Debian's shell, `.load` of the loadable extension
//   - python: Debian's /usr/bin/python3 and its sqlite3 module (hosts/run_sql.py)
//   - node: better-sqlite3 from node/node_modules (node/run_sql.js)
//   - go: database/sql with the driver package, the extension linked statically
//
// Golden files (golden/*.sql) hold one statement a line, and checks of the
// form `select 'case_id', <expr> = <expected>;`, which print `case_id|1`;
// the plain sqlite3 shell runs them too:
//
//	sqlite3 -cmd '.load dist/sessionsearch' :memory: < tests/golden/tokenizer.sql
//
// TestMain builds the loadable extension into a temporary directory and
// checks that every host is installed; a missing host fails the tests, with
// the command that installs it (scripts/install-deps installs them all).
// icu_test.go compares our word boundaries with ICU's.
package tests

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// extension is the loadable extension built by TestMain, without its
// suffix (as `.load` and Python's load_extension take it).
var extension string

const pythonPath = "/usr/bin/python3"

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sessionsearch-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	extension = filepath.Join(dir, "sessionsearch")
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", extension+".so", "./extension/loadable")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "tests: cannot build the loadable extension (go build -buildmode=c-shared ./extension/loadable): %v\n%s", err, out)
		return 1
	}
	if problems := checkHosts(); len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "tests: every host must be installed; run scripts/install-deps, or:")
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "  -", p)
		}
		return 1
	}
	return m.Run()
}

// checkHosts returns what is missing, each with how to install it.
func checkHosts() []string {
	var problems []string
	if _, err := exec.LookPath("sqlite3"); err != nil {
		problems = append(problems, "the sqlite3 shell: apt-get install sqlite3")
	}
	py := exec.Command(pythonPath, "-c", "import sqlite3; sqlite3.connect(':memory:').enable_load_extension(True)")
	if out, err := py.CombinedOutput(); err != nil {
		problems = append(problems, fmt.Sprintf("%s with a sqlite3 module that can load extensions (Debian's): apt-get install python3 (%v: %s)",
			pythonPath, err, errorSummary(out)))
	}
	if _, err := exec.LookPath("node"); err != nil {
		problems = append(problems, "Node.js 20: apt-get install nodejs npm")
	} else {
		nd := exec.Command("node", "-e", "require('better-sqlite3')")
		nd.Dir = "node"
		if out, err := nd.CombinedOutput(); err != nil {
			problems = append(problems, fmt.Sprintf("better-sqlite3 in tests/node: (cd tests/node && npm ci) (%v: %s)", err, errorSummary(out)))
		}
	}
	return problems
}

// errorSummary returns the line of a program's output that says what went
// wrong: the first that mentions an error, else the first.
func errorSummary(out []byte) []byte {
	all := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for _, line := range all {
		if bytes.Contains(line, []byte("Error")) {
			return bytes.TrimSpace(line)
		}
	}
	return all[0]
}

// A host runs SQL, one statement a line (blank lines and `--` comments
// skipped), and prints each result row in the sqlite3 shell's list mode:
// values joined by `|`, NULL as nothing, integers in decimal, text as is.
type host struct {
	name string
	// run runs script on the database db (a file, or ":memory:"); load
	// says whether to load the extension (the go host always has it). It
	// stops at the first failing statement unless keepGoing.
	run func(db, script string, load, keepGoing bool) result
}

// result is what a host printed, and the failing statements by line.
type result struct {
	out    []byte
	errs   map[int]string // line number → error message
	failed error          // the host itself failed (could not start, crashed, printed junk)
}

var hosts = []host{
	{"sqlite3", runShell},
	{"python", runPython},
	{"node", runNode},
	{"go", runGo},
}

// errorLine is how every host reports a failing statement on stderr, the
// sqlite3 shell's way: "Runtime error near line 3: message".
var errorLine = regexp.MustCompile(`near line (\d+): (.*)$`)

func runProcess(cmd *exec.Cmd, script string, keepGoing bool) result {
	cmd.Stdin = strings.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{out: stdout.Bytes(), errs: map[int]string{}}
	var other []string
	for _, line := range lines(stderr.Bytes()) {
		if m := errorLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			r.errs[n] = m[2]
		} else if !strings.HasPrefix(line, "  ") { // the shell's echo of a statement that failed to parse
			other = append(other, line)
		}
	}
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		r.failed = err
	case err != nil && !exit.Exited():
		r.failed = fmt.Errorf("%v\n%s", err, stderr.Bytes())
	case err != nil && len(r.errs) == 0:
		r.failed = fmt.Errorf("%v, without an error for a statement:\n%s", err, stderr.Bytes())
	case len(other) > 0 && !keepGoing:
		r.failed = fmt.Errorf("unexpected output on stderr:\n%s", strings.Join(other, "\n"))
	}
	return r
}

func runShell(db, script string, load, keepGoing bool) result {
	args := []string{"-batch"}
	if !keepGoing {
		args = append(args, "-bail")
	}
	if load {
		args = append(args, "-cmd", ".load '"+extension+"'")
	}
	return runProcess(exec.Command("sqlite3", append(args, db)...), script, keepGoing)
}

func runPython(db, script string, load, keepGoing bool) result {
	args := []string{filepath.Join("hosts", "run_sql.py"), "", "--db", db}
	if load {
		args[1] = extension
	}
	if keepGoing {
		args = append(args, "--keep-going")
	}
	return runProcess(exec.Command(pythonPath, args...), script, keepGoing)
}

func runNode(db, script string, load, keepGoing bool) result {
	args := []string{filepath.Join("node", "run_sql.js"), "", "--db", db}
	if load {
		args[1] = extension + ".so"
	}
	if keepGoing {
		args = append(args, "--keep-going")
	}
	return runProcess(exec.Command("node", args...), script, keepGoing)
}

// runGo runs script on one connection of the driver, which links the
// extension statically and so always has it.
func runGo(dbPath, script string, load, keepGoing bool) result {
	r := result{errs: map[int]string{}}
	if !load {
		r.failed = errors.New("the go host always has the extension: the driver links it into every connection")
		return r
	}
	db, err := sql.Open(driver.DriverName, dbPath)
	if err != nil {
		r.failed = err
		return r
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var out bytes.Buffer
	for i, line := range strings.Split(script, "\n") {
		stmt := strings.TrimSpace(line)
		if stmt == "" || strings.HasPrefix(stmt, "--") {
			continue
		}
		if err := queryInto(&out, db, stmt); err != nil {
			r.errs[i+1] = err.Error()
			if !keepGoing {
				break
			}
		}
	}
	r.out = out.Bytes()
	return r
}

func queryInto(out *bytes.Buffer, db *sql.DB, stmt string) error {
	rows, err := db.Query(stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				row[i] = ""
			case int64:
				row[i] = strconv.FormatInt(v, 10)
			case string:
				row[i] = v
			default:
				return fmt.Errorf("golden SQL prints only integers, text and NULL, got %T %v", v, v)
			}
		}
		out.WriteString(strings.Join(row, "|") + "\n")
	}
	return rows.Err()
}

// runAll runs script in every host at once, each on a database of its own
// in memory.
func runAll(script string, load, keepGoing bool, hs []host) []result {
	results := make([]result, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.run(":memory:", script, load, keepGoing)
		}()
	}
	wg.Wait()
	return results
}

func lines(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// golden is a parsed golden SQL file.
type golden struct {
	script string
	checks []string // the case ids, in order
}

// checkStatement is a check: `select 'case_id', <expr> = <expected>;`.
var checkStatement = regexp.MustCompile(`^(?i:select) '([^'|]+)', `)

func readGolden(t *testing.T, path string) golden {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := golden{script: string(data)}
	seen := map[string]int{}
	for i, line := range strings.Split(g.script, "\n") {
		stmt := strings.TrimSpace(line)
		if stmt == "" || strings.HasPrefix(stmt, "--") {
			continue
		}
		if !strings.HasSuffix(stmt, ";") || strings.HasPrefix(stmt, ".") {
			t.Fatalf("%s:%d: a golden file has one SQL statement a line, ending with ';': %s", path, i+1, stmt)
		}
		if strings.HasPrefix(strings.ToLower(stmt), "select '") {
			m := checkStatement.FindStringSubmatch(stmt)
			if m == nil {
				t.Fatalf("%s:%d: a check is `select 'case_id', <expr> = <expected>;`: %s", path, i+1, stmt)
			}
			if prev, dup := seen[m[1]]; dup {
				t.Fatalf("%s:%d: case id %q already used on line %d", path, i+1, m[1], prev)
			}
			seen[m[1]] = i + 1
			g.checks = append(g.checks, m[1])
		}
	}
	if len(g.checks) == 0 {
		t.Fatalf("%s: no checks", path)
	}
	return g
}

// caseID returns the case id of an output line.
func caseID(line string) string {
	id, _, _ := strings.Cut(line, "|")
	return id
}

// TestGoldenSQL runs each tests/golden/*.sql file in every host: each host
// prints exactly one passing line `case_id|1` per check, in order, and all
// print the same bytes.
func TestGoldenSQL(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("golden", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in tests/golden (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			g := readGolden(t, file)
			results := runAll(g.script, true, false, hosts)
			for i, h := range hosts {
				r := results[i]
				if r.failed != nil {
					t.Errorf("%s: %v", h.name, r.failed)
					continue
				}
				for n, msg := range r.errs {
					t.Errorf("%s: line %d failed: %s", h.name, n, msg)
				}
				checkLines(t, h.name, g.checks, lines(r.out))
			}
			ref := results[0]
			for i, h := range hosts[1:] {
				if r := results[i+1]; r.failed == nil && ref.failed == nil && !bytes.Equal(r.out, ref.out) {
					t.Errorf("%s and %s print different rows:\n%s", h.name, hosts[0].name, diffLines(hosts[0].name, lines(ref.out), h.name, lines(r.out)))
				}
			}
		})
	}
}

// checkLines checks one host's output against the checks of a golden file:
// one passing line per check, in order, and nothing else.
func checkLines(t *testing.T, host string, checks, got []string) {
	t.Helper()
	if len(got) != len(checks) {
		t.Errorf("%s: %d lines for %d checks", host, len(got), len(checks))
	}
	index := make(map[string]int, len(checks))
	for i, id := range checks {
		index[id] = i
	}
	j := 0
	for i := 0; i < len(checks); {
		switch k, known := index[caseID(get(got, j))]; {
		case j < len(got) && k == i:
			if !strings.HasSuffix(got[j], "|1") {
				t.Errorf("%s: case %s failed: %q", host, checks[i], got[j])
			}
			i, j = i+1, j+1
		case j < len(got) && (!known || k < i):
			t.Errorf("%s: output line %d is not a check that comes next: %q", host, j+1, got[j])
			j++
		default:
			t.Errorf("%s: case %s printed nothing", host, checks[i])
			i++
		}
	}
	for ; j < len(got); j++ {
		t.Errorf("%s: output line %d is not a check: %q", host, j+1, got[j])
	}
}

func get(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// diffLines lists, by case id, the lines that differ between two outputs.
func diffLines(nameA string, a []string, nameB string, b []string) string {
	var d strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		la, lb := get(a, i), get(b, i)
		if la != lb {
			id := caseID(la)
			if id == "" {
				id = caseID(lb)
			}
			fmt.Fprintf(&d, "  case %s (line %d): %s %q, %s %q\n", id, i+1, nameA, la, nameB, lb)
		}
	}
	return d.String()
}

// TestErrorsAcrossHosts: bad input is an SQL error in every host, and a
// function's message names the function and the bad value.
func TestErrorsAcrossHosts(t *testing.T) {
	setup := []string{
		"create virtual table e using fts5(x, tokenize='sessionsearch');",
		"insert into e values ('alpha beta');",
		// The transcript store (prints nothing): one session with one event.
		"select 1 from (select sessionsearch_migrate() as version) where version <> 3;",
		"insert into sessions(session_key) values ('agent:main:err');",
		`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 0, '{"type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"stored event"}}');`,
		// The session after it, whose first entry's id is err's seq 2^32.
		"insert into sessions(session_key) values ('agent:main:next');",
		`insert into transcript_events(session_key, seq, event) values ('agent:main:next', 0, '{"type":"message","id":"n1","parentId":null,"message":{"role":"user","content":"next event"}}');`,
	}
	cases := []struct {
		stmt string
		want []string // substrings of the message; nil: the statement must succeed
	}{
		// FTS5 replaces a tokenizer constructor's message with its own.
		{"create virtual table e1 using fts5(x, tokenize='sessionsearch cjk bogus');", []string{"error in tokenizer constructor"}},
		{"create virtual table e2 using fts5(x, tokenize='sessionsearch color red');", []string{"error in tokenizer constructor"}},
		{"create virtual table e3 using fts5(x, tokenize='sessionsearch cjk');", []string{"error in tokenizer constructor"}},
		// sessionsearch_tokens says what the constructor would have said.
		{"select sessionsearch_tokens('x', 'color red');", []string{"sessionsearch_tokens", `"color"`}},
		{"select sessionsearch_tokens('x', 'cjk bogus');", []string{"sessionsearch_tokens", `"bogus"`}},
		{"select sessionsearch_tokens('x', 'cjk');", []string{"sessionsearch_tokens", `"cjk"`}},
		{"select sessionsearch_tokens('x', NULL, 'sentence');", []string{"sessionsearch_tokens", `"sentence"`}},
		{"select sessionsearch_tokens();", []string{"sessionsearch_tokens", "got 0 arguments"}},
		{"select sessionsearch_tokens(printf('%.1048577c', 'a'));", []string{"sessionsearch_tokens", "text must be at most 1048576 bytes, got 1048577"}},
		{`select sessions_search('x', '{"caller":"agent:main:err","visibility":"' || printf('%.65536c', 'a') || '"}');`, []string{"sessions_search", "options must be at most 65536 bytes of JSON, got 65579"}},
		{"select redact_snippet('x', 0);", []string{"redact_snippet", "max_chars", "got 0"}},
		{"select redact_snippet('x', -5);", []string{"redact_snippet", "max_chars", "got -5"}},
		{"select redact_snippet('x', 'ten');", []string{"redact_snippet", "max_chars", `"ten"`}},
		{"select redact_snippet('x', 1, 2);", []string{"redact_snippet", "got 3 arguments"}},
		{"select sessions_match('');", []string{"sessions_match", "empty"}},
		{"select sessions_match('   ');", []string{"sessions_match", "empty"}},
		{"select sessions_match(NULL);", []string{"sessions_match", "empty"}},
		{"select sessions_match(printf('%.5000c', 'a'));", []string{"sessions_match", "4096", "5000"}},
		{"select sessions_match('a', 'yes');", []string{"sessions_match", "prefix", `"yes"`}},
		{"select sessionsearch_snippet(e) from e where e match 'alpha';", []string{"sessionsearch_snippet"}},
		{"select sessionsearch_version(1);", []string{"sessionsearch_version"}},
		// The transcript store refuses bad events, naming the session and seq,
		// and edits of stored events.
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:nobody', 0, '{"type":"message","id":"x"}');`,
			[]string{"transcript_events", "unknown session", `"agent:main:nobody"`, "seq 0"}},
		{"insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, 'not json');",
			[]string{"transcript_events", "not a JSON object", `"agent:main:err"`, "seq 1"}},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, '[{"type":"message"}]');`,
			[]string{"transcript_events", "not a JSON object", `"agent:main:err"`, "seq 1"}},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, '{"type":"message"} trailing');`,
			[]string{"transcript_events", "not a JSON object", `"agent:main:err"`, "seq 1"}},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, '{"id":"e2","message":{"role":"user","content":"no type"}}');`,
			[]string{"transcript_events", `"type"`, `"agent:main:err"`, "seq 1"}},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', -1, '{"type":"message"}');`,
			[]string{"transcript_events", "seq must be 0..4294967295", `"agent:main:err"`, "seq -1"}},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 4294967296, '{"type":"message"}');`,
			[]string{"transcript_events", "seq must be 0..4294967295", `"agent:main:err"`, "seq 4294967296"}},
		{`update transcript_events set event = '{"type":"message","id":"e1","message":{"role":"user","content":"edited"}}' where session_key = 'agent:main:err' and seq = 0;`,
			[]string{"transcript_events", "append-only", `"agent:main:err"`, "seq 0"}},
		{"delete from transcript_events where session_key = 'agent:main:err' and seq = 0;",
			[]string{"transcript_events", "append-only", "delete the whole session", `"agent:main:err"`, "seq 0"}},
		{`insert or replace into transcript_events(session_key, seq, event) values ('agent:main:err', 0, '{"type":"message","id":"e1","message":{"role":"user","content":"replaced"}}');`,
			[]string{"transcript_events", "stored before", "INSERT OR IGNORE", `"agent:main:err"`, "seq 0"}},
		{"update sessions set session_key = 'agent:main:renamed' where session_key = 'agent:main:err';",
			[]string{"sessions", "session_key cannot change", `"agent:main:err"`}},
		// Session keys are text (docs/store.md S2).
		{"insert into sessions(session_key) values (cast('agent:main:err' as blob));",
			[]string{"sessions", "session_key must be text, got a blob"}},
		{"insert into sessions(session_key) values ('');", []string{"sessions", "session_key must not be empty"}},
		{"insert into sessions(session_key) values (cast(x'6b6579ff' as text));", []string{"sessions", "session_key must be valid UTF-8"}},
		{"insert into sessions(session_key, spawned_by) values ('agent:main:child', x'00');", []string{"sessions", "spawned_by must be text, got a blob"}},
		{"update sessions set parent_session_key = x'01' where session_key = 'agent:main:err';", []string{"sessions", "parent_session_key must be text, got a blob"}},
		// INSERT OR REPLACE never deletes a transcript (docs/store.md S18):
		// refused where it would, an update of the row where it would not.
		{"pragma recursive_triggers = on;", nil},
		{"insert or replace into sessions(session_key, created_at) values ('agent:main:err', 5);",
			[]string{"sessions", "INSERT OR REPLACE would delete the session and its transcript", "ON CONFLICT(session_key) DO UPDATE", `"agent:main:err"`}},
		{"pragma recursive_triggers = off;", nil},
		{"pragma foreign_keys = on;", nil},
		{"replace into sessions(session_key, created_at) values ('agent:main:err', 6);",
			[]string{"sessions", "INSERT OR REPLACE would delete the session and its transcript", `"agent:main:err"`}},
		{"pragma foreign_keys = off;", nil},
		{"insert or replace into sessions(session_key, created_at) values ('agent:main:err', 7);", nil},
		{"select sessionsearch_refuse('check', 'the events were deleted', 'agent:main:err', NULL) where (select count(*) from transcript_events where session_key = 'agent:main:err') <> 1;", nil},
		// sessions_search: options, query and sessionKey.
		{`select sessions_search('stored', '{"caller":"agent:main:err","limit":0}');`, []string{"sessions_search", "limit", "1..25", "got 0"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","limit":26}');`, []string{"sessions_search", "limit", "1..25", "got 26"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","colour":"red"}');`, []string{"sessions_search", "unknown option", `"colour"`}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","limit":"10"}');`, []string{"sessions_search", "limit", `got "10"`}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","prefix":"yes"}');`, []string{"sessions_search", "prefix", "true or false", `got "yes"`}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","order":"newest"}');`, []string{"sessions_search", "order", `"recent"`, `got "newest"`}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","snippetChars":0}');`, []string{"sessions_search", "snippetChars", "got 0"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","maxBytes":100}');`, []string{"sessions_search", "maxBytes", "got 100"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","agentToAgent":true}');`, []string{"sessions_search", "agentToAgent", "got true"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err","limit":5,"limit":6}');`, []string{"sessions_search", `"limit"`, "twice"}},
		{`select sessions_search('stored', '{"visibility":"all"}');`, []string{"sessions_search", `"caller"`, "required"}},
		{"select sessions_search('stored', NULL);", []string{"sessions_search", `"caller"`, "required"}},
		{`select sessions_search('stored', '{"caller":""}');`, []string{"sessions_search", "caller", "non-empty"}},
		{`select sessions_search('stored', '{"caller":"agent:main:err"');`, []string{"sessions_search", "JSON object"}},
		{`select sessions_search('', '{"caller":"agent:main:err"}');`, []string{"sessions_search", "empty"}},
		{`select sessions_search('   ', '{"caller":"agent:main:err"}');`, []string{"sessions_search", "empty"}},
		{`select sessions_search(printf('%.4097c', 'a'), '{"caller":"agent:main:err"}');`, []string{"sessions_search", "4096", "4097"}},
		{`select sessions_search('stored', '{"caller":"agent:ops:main","sessionKey":"agent:main:err"}');`,
			[]string{"sessions_search", `no session "agent:main:err" visible to "agent:ops:main"`}},
		{`select sessions_search('stored', '{"caller":"agent:ops:main","sessionKey":"agent:ops:missing"}');`,
			[]string{"sessions_search", `no session "agent:ops:missing" visible to "agent:ops:main"`}},
		// sessions_history: a hidden and a missing session give the same message.
		{`select sessions_history('agent:main:err', '{"caller":"agent:ops:main"}');`,
			[]string{`sessions_history: no session "agent:main:err" visible to "agent:ops:main"`}},
		{`select sessions_history('agent:ops:missing', '{"caller":"agent:ops:main"}');`,
			[]string{`sessions_history: no session "agent:ops:missing" visible to "agent:ops:main"`}},
		{`select sessions_history('agent:main:err', '{"caller":"agent:main:err","limit":0}');`, []string{"sessions_history", "limit", "1..1000", "got 0"}},
		{`select sessions_history('agent:main:err', '{"caller":"agent:main:err","limit":1001}');`, []string{"sessions_history", "limit", "1..1000", "got 1001"}},
		{`select sessions_history('agent:main:err', '{"caller":"agent:main:err","maxChars":0}');`, []string{"sessions_history", "maxChars", "got 0"}},
		{`select sessions_history('agent:main:err', '{"caller":"agent:main:err","includeTools":1}');`, []string{"sessions_history", "includeTools", "got 1"}},
		{`select sessions_history('agent:main:err', '{"caller":"agent:main:err","snippetChars":10}');`, []string{"sessions_history", "unknown option", `"snippetChars"`}},
		{"select sessions_history('agent:main:err', '{}');", []string{"sessions_history", `"caller"`, "required"}},
		// session_visible.
		{`select session_visible('agent:main:err', 'agent:main:err', '{"visibility":"everyone"}');`, []string{"session_visible", "visibility", `got "everyone"`}},
		{`select session_visible('agent:main:err', 'agent:main:err', '{"sandboxVisibility":"none"}');`, []string{"session_visible", "sandboxVisibility", `got "none"`}},
		{`select session_visible('agent:main:err', 'agent:main:err', '{"caller":"agent:main:err"}');`, []string{"session_visible", `"caller"`}},
		{"select session_visible('', 'agent:main:err');", []string{"session_visible", "caller"}},
		{"select session_visible('agent:main:err');", []string{"session_visible", "got 1 arguments"}},
		{"select sessions_reconcile(-1);", []string{"sessions_reconcile", "budget_ms", "got -1"}},
		// An index built by another version (other tokens or masking) is
		// never written: every write asks for sessionsearch_migrate().
		{"update sessionsearch_meta set value = '0.0' where key = 'index_version';", nil},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, '{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"after upgrade"}}');`,
			[]string{"transcript_events", "another version", `"0.0"`, "sessionsearch_migrate()", `"agent:main:err"`, "seq 1"}},
		{"delete from sessions where session_key = 'agent:main:err';", []string{"sessions", "another version", "sessionsearch_migrate()", `"agent:main:err"`}},
		{"select sessions_reconcile(10);", []string{"sessions_reconcile", "another version", "sessionsearch_migrate()"}},
		{"select 1 from (select sessionsearch_migrate() as version) where version <> 3;", nil},
		{`insert into transcript_events(session_key, seq, event) values ('agent:main:err', 1, '{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"after upgrade"}}');`, nil},
	}
	script := strings.Join(setup, "\n") + "\n"
	for _, c := range cases {
		script += c.stmt + "\n"
	}
	results := runAll(script, true, true, hosts)
	for i, h := range hosts {
		r := results[i]
		if r.failed != nil {
			t.Errorf("%s: %v", h.name, r.failed)
			continue
		}
		if len(r.out) > 0 {
			t.Errorf("%s: printed rows for statements that must fail:\n%s", h.name, r.out)
		}
		for n := 1; n <= len(setup); n++ {
			if msg, ok := r.errs[n]; ok {
				t.Errorf("%s: setup %q failed: %s", h.name, setup[n-1], msg)
			}
		}
		for k, c := range cases {
			msg, ok := r.errs[len(setup)+k+1]
			if c.want == nil { // a step between cases: it must succeed
				if ok {
					t.Errorf("%s: %s failed: %s", h.name, c.stmt, msg)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: %s succeeded, want an error", h.name, c.stmt)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s: %s: error %q does not contain %q", h.name, c.stmt, msg, w)
				}
			}
		}
	}
}

// What loading the extension registers, exactly. Whoever adds a function
// (to the registration table in extension/functions.go), an FTS5 auxiliary
// function or a tokenizer adds its name here, or TestInventory fails.
var (
	registeredFunctions = []string{
		"redact_snippet",
		"session_visible",
		"sessions_defer_indexing",
		"sessions_history",
		"sessions_index_status",
		"sessions_match",
		"sessions_reconcile",
		"sessions_search",
		"sessions_searchable",
		"sessions_snippet",
		"sessionsearch_debug",
		"sessionsearch_entry",
		"sessionsearch_event",
		"sessionsearch_index_version",
		"sessionsearch_key_problem",
		"sessionsearch_load",
		"sessionsearch_loading",
		"sessionsearch_message_text",
		"sessionsearch_migrate",
		"sessionsearch_refuse",
		"sessionsearch_repath",
		"sessionsearch_replacing",
		"sessionsearch_runs",
		"sessionsearch_tokens",
		"sessionsearch_tool_index",
		"sessionsearch_tool_text",
		"sessionsearch_version",
	}
	// FTS5 auxiliary functions, with a call that uses one on table probe
	// (one column, the row 'hello world'). FTS5 also lists them among the
	// SQL functions (sqlite3_overload_function).
	registeredAuxFunctions = []struct{ name, call string }{
		{"sessionsearch_snippet", "sessionsearch_snippet(probe, 20)"},
		{"sessionsearch_coverage", "sessionsearch_coverage(probe, x'00')"},
	}
	registeredTokenizers = []string{"sessionsearch"}
)

// otherTokenizerNames are names an extension could plausibly register, probed
// along with the expected ones and the extension's function names.
var otherTokenizerNames = []string{
	"ascii", "bigram", "cjk", "icu", "jieba", "mecab", "ngram", "porter", "sessionsearch_cjk",
	"sessionsearch_trigram", "sessionsearch_unigram", "simple", "trigram", "unicode61", "unigram",
}

// TestInventory loads the extension in the sqlite3 shell, Python and Node,
// and compares what a connection has with and without it (a fresh
// connection in the same process, after the load): the SQL functions
// (pragma_function_list), the FTS5 tokenizers (creating a table with each
// candidate name) and the auxiliary functions (calling each in a query).
// The go host is left out: the driver loads the extension into every
// connection.
func TestInventory(t *testing.T) {
	var wantFunctions []string
	wantFunctions = append(wantFunctions, registeredFunctions...)
	for _, a := range registeredAuxFunctions {
		wantFunctions = append(wantFunctions, a.name)
	}
	sort.Strings(wantFunctions)
	candidates := slices.Concat(registeredTokenizers, otherTokenizerNames, wantFunctions)
	sort.Strings(candidates)
	candidates = slices.Compact(candidates)

	// One probe, run with the extension, then again on a fresh connection.
	var probe strings.Builder
	probe.WriteString("select 'function|' || name from (select distinct name from pragma_function_list) order by 1;\n")
	for _, name := range candidates {
		fmt.Fprintf(&probe, "create virtual table \"tok_%s\" using fts5(x, tokenize='%s');\n", name, name)
		fmt.Fprintf(&probe, "insert into \"tok_%s\" values ('hello world');\n", name)
	}
	probe.WriteString("select 'tokenizer|' || substr(name, 5) from sqlite_schema where name like 'tok\\_%' escape '\\' and sql like 'create virtual table%' order by 1;\n")
	probe.WriteString("create virtual table probe using fts5(x);\n")
	probe.WriteString("insert into probe values ('hello world');\n")
	for _, a := range registeredAuxFunctions {
		fmt.Fprintf(&probe, "select 'aux|%s|' || %s from probe where probe match 'world';\n", a.name, a.call)
	}
	const fresh = "-- fresh connection"
	script := probe.String() + ".open\nselect '" + fresh + "';\n" + probe.String()

	var inventoryHosts []host
	for _, h := range hosts {
		if h.name != "go" {
			inventoryHosts = append(inventoryHosts, h)
		}
	}
	results := runAll(script, true, true, inventoryHosts)
	for i, h := range inventoryHosts {
		r := results[i]
		if r.failed != nil {
			t.Errorf("%s: %v", h.name, r.failed)
			continue
		}
		with, without, ok := strings.Cut(string(r.out), fresh+"\n")
		if !ok {
			t.Errorf("%s: the probe did not reach the fresh connection:\n%s", h.name, r.out)
			continue
		}
		added := map[string][]string{}
		before := map[string]bool{}
		for _, l := range lines([]byte(without)) {
			before[l] = true
		}
		for _, l := range lines([]byte(with)) {
			if !before[l] {
				kind, name, _ := strings.Cut(l, "|")
				added[kind] = append(added[kind], name)
			}
		}
		for l := range before {
			if strings.HasPrefix(l, "aux|") {
				t.Errorf("%s: an auxiliary function works without the extension: %s", h.name, l)
			}
		}
		if got := added["function"]; !slices.Equal(got, wantFunctions) {
			t.Errorf("%s: loading the extension adds the SQL functions %v; not in registeredFunctions or registeredAuxFunctions: %v; missing: %v",
				h.name, got, minus(got, wantFunctions), minus(wantFunctions, got))
		}
		if got := added["tokenizer"]; !slices.Equal(got, registeredTokenizers) {
			t.Errorf("%s: loading the extension adds the FTS5 tokenizers %v; not in registeredTokenizers: %v; missing: %v",
				h.name, got, minus(got, registeredTokenizers), minus(registeredTokenizers, got))
		}
		var aux []string
		for _, rest := range added["aux"] {
			name, snippet, _ := strings.Cut(rest, "|")
			if snippet == "" {
				t.Errorf("%s: %s returned nothing", h.name, name)
			}
			aux = append(aux, name)
		}
		var wantAux []string
		for _, a := range registeredAuxFunctions {
			wantAux = append(wantAux, a.name)
		}
		if !slices.Equal(aux, wantAux) {
			t.Errorf("%s: auxiliary functions that work: %v, want %v", h.name, aux, wantAux)
		}
	}
}

// minus returns the names in a that are not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
