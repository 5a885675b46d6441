package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// version and --version say what the build is made of (docs/cli.md C26).
func TestVersion(t *testing.T) {
	text := mustRun(t, "version").stdout
	if long := mustRun(t, "--version").stdout; long != text {
		t.Errorf("--version printed\n%s\nversion printed\n%s", long, text)
	}
	var b struct {
		Version, Commit, Built, Go, Platform, SQLite, Unicode, Index string
		Tokenizer, Schema                                            int
	}
	if err := json.Unmarshal([]byte(mustRun(t, "version", "--json").stdout), &b); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver.DriverName, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sqliteVersion string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&sqliteVersion); err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, got, want string }{
		{"sqlite", b.SQLite, sqliteVersion},
		{"unicode", b.Unicode, tokenizer.UnicodeVersion},
		{"index", b.Index, store.IndexVersion},
		{"tokenizer", fmt.Sprint(b.Tokenizer), fmt.Sprint(tokenizer.Version)},
		{"schema", fmt.Sprint(b.Schema), fmt.Sprint(store.SchemaVersion)},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("version --json: %s is %q, want %q", w.name, w.got, w.want)
		}
		if !strings.Contains(text, w.want) {
			t.Errorf("version does not show the %s %s:\n%s", w.name, w.want, text)
		}
	}
	if !strings.HasPrefix(text, "sessionsearch "+b.Version+"\n") || b.Version == "" || b.Go == "" || b.Platform == "" {
		t.Errorf("version: %+v\n%s", b, text)
	}
	if r := runBinary(t, nil, "version", "extra"); r.code != 2 {
		t.Errorf("version extra: exit %d, want 2", r.code)
	}
}

// helpFlags are the flags a command's -h lists.
func helpFlags(t *testing.T, command string) []string {
	t.Helper()
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`).FindAllStringSubmatch(mustRun(t, command, "-h").stdout, -1) {
		flags = append(flags, "--"+m[1])
	}
	return flags
}

// completionScript writes the script of a shell to a directory and returns
// its path.
func completionScript(t *testing.T, shell, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(mustRun(t, "completion", shell).stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// typeLines types each line into an interactive shell on a pseudo-terminal
// (script(1)), with its tabs, then goes back to the start of the line and
// makes it an echo: what the shell completed the line to comes back after
// "DONE:".
func typeLines(t *testing.T, shell []string, setup string, lines []string) []string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatal("script(1) from util-linux is needed for a pseudo-terminal: ", err)
	}
	if _, err := exec.LookPath(shell[0]); err != nil {
		t.Fatalf("%s is needed (scripts/install-deps installs it): %v", shell[0], err)
	}
	input := setup + "\n"
	for _, l := range lines {
		input += l + "\x01echo DONE:\n"
	}
	input += "exit\n"
	bin := filepath.Dir(binary)
	cmd := exec.Command(script, "-qec", strings.Join(shell, " "), "/dev/null")
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "TERM=dumb", "PS1=$ "}
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", shell, err, out)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "DONE:"); ok {
			got = append(got, strings.TrimRight(rest, "\r "))
		}
	}
	if len(got) != len(lines) {
		t.Fatalf("%v: %d completed lines for %d typed:\n%q", shell, len(got), len(lines), out)
	}
	return got
}

// The bash completion completes what a person types at a real bash
// (docs/cli.md C27): commands, flags, a flag's values and file names.
func TestCompletionBash(t *testing.T) {
	path := completionScript(t, "bash", "sessionsearch.bash")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "transcript-one.jsonl"), nil, 0o644)
	got := typeLines(t, []string{"bash", "--norc", "--noprofile", "-i"}, "source "+path, []string{
		"sessionsearch sea\t--visib\tag\t",
		"sessionsearch hist\t--sandbox-v\tsp\t",
		"sessionsearch comp\tz\t",
		"sessionsearch import " + dir + "/tr\t",
		"sessionsearch status --db=" + dir + "/tr\t",
		"sessionsearch --vers\t",
	})
	want := []string{
		"sessionsearch search --visibility agent",
		"sessionsearch history --sandbox-visibility spawned",
		"sessionsearch completion zsh",
		"sessionsearch import " + dir + "/transcript-one.jsonl",
		"sessionsearch status --db=" + dir + "/transcript-one.jsonl",
		"sessionsearch --version",
	}
	if !slices.Equal(got, want) {
		t.Errorf("bash completed\n%q\nwant\n%q", got, want)
	}

	// Every command offers exactly the flags its -h lists.
	for _, c := range commands {
		out, err := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(sessionsearch "$2" --); COMP_CWORD=2; _sessionsearch; printf '%s\n' "${COMPREPLY[@]}"`,
			"bash", path, c.name).Output()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		want := helpFlags(t, c.name)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("sessionsearch %s --<TAB>: %q; -h lists %q", c.name, got, want)
		}
	}
}

// The zsh completion, at a real zsh with compinit (docs/cli.md C27).
func TestCompletionZsh(t *testing.T) {
	path := completionScript(t, "zsh", "_sessionsearch")
	got := typeLines(t, []string{"zsh", "-f", "-i"},
		"fpath=("+filepath.Dir(path)+" $fpath); autoload -U compinit; compinit -u -D", []string{
			"sessionsearch sea\t",
			"sessionsearch search --li\t",
			"sessionsearch search --visibility \tag\t",
			"sessionsearch completion f\t",
			"sessionsearch history --include-t\t",
		})
	want := []string{
		"sessionsearch search",
		"sessionsearch search --limit",
		"sessionsearch search --visibility agent",
		"sessionsearch completion fish",
		"sessionsearch history --include-tools",
	}
	if !slices.Equal(got, want) {
		t.Errorf("zsh completed\n%q\nwant\n%q", got, want)
	}
}

// The fish completion, through fish's own completer (docs/cli.md C27).
func TestCompletionFish(t *testing.T) {
	path := completionScript(t, "fish", "sessionsearch.fish")
	if _, err := exec.LookPath("fish"); err != nil {
		t.Fatal("fish is needed (scripts/install-deps installs it): ", err)
	}
	for _, tc := range []struct{ line, want string }{
		{"sessionsearch sea", "search"},
		{"sessionsearch search --vis", "--visibility"},
		{"sessionsearch search --visibility ", "agent all self tree"},
		{"sessionsearch completion ", "bash fish zsh"},
	} {
		cmd := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, path, tc.line)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("fish %q: %v", tc.line, err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		slices.Sort(got)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("fish completes %q to %q, want %q", tc.line, got, tc.want)
		}
	}
}

// The man page is valid roff and documents every command and flag of the
// table (docs/cli.md C27).
func TestManPage(t *testing.T) {
	page := filepath.Join(t.TempDir(), "sessionsearch.1")
	os.WriteFile(page, []byte(mustRun(t, "man").stdout), 0o644)
	if _, err := exec.LookPath("groff"); err != nil {
		t.Fatal("groff is needed (scripts/install-deps installs groff-base): ", err)
	}
	lint := exec.Command("groff", "-man", "-ww", "-z", "-Tutf8", page)
	if out, err := lint.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff -ww: %v\n%s", err, out)
	}
	render := exec.Command("groff", "-man", "-Tutf8", "-P-cbou", page)
	render.Env = append(os.Environ(), "MANWIDTH=200")
	out, err := render.Output()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, c := range commands {
		if !strings.Contains(text, "sessionsearch "+c.name) {
			t.Errorf("the man page has no section for %s", c.name)
		}
	}
	for _, c := range []string{"search", "serve", "sync", "completion"} {
		for _, f := range helpFlags(t, c) {
			// groff renders \- as U+2212 in UTF-8; -P-cbou keeps it plain.
			if !strings.Contains(strings.ReplaceAll(text, "\u2212", "-"), f) {
				t.Errorf("the man page does not describe %s %s", c, f)
			}
		}
	}
}
