package redact

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// formatKinds are the kinds of rules that recognise a secret by its own
// shape (a vendor prefix, a PEM block, a JWT). What they mask in real text
// is key material: Go's crypto tests hold real-format test keys. Every other
// kind comes from a rule that reads context (a secret-named key, a header,
// a URL, a cut start), and its changes in real text are the false-positive
// rate of docs/redaction.md R9.
func formatKind(kind string) bool {
	switch kind {
	case "password", "token", "secret", "secret-key", "api-key", "auth", "credential", "cookie",
		"authorization", "bearer-token", "url-credential", "fragment", "aws-secret-key", "webhook", "url-signature":
		return false
	}
	return true
}

// realTextSource is one body of real text, read line by line.
type realTextSource struct {
	name     string
	minLines int
	lines    func(tb testing.TB, line func(string))
}

// realTextSources are the three bodies of docs/redaction.md R9: Go's
// standard library source, Debian's documentation, and the output of build
// and package tools run on this machine (as an agent's tool calls print it).
func realTextSources(tb testing.TB) []realTextSource {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	return []realTextSource{
		{"Go source", 1_000_000, func(tb testing.TB, line func(string)) { walkText(tb, filepath.Join(goroot, "src"), line) }},
		{"Debian documentation", 1_000_000, func(tb testing.TB, line func(string)) { walkText(tb, "/usr/share/doc", line) }},
		{"tool output", 40_000, toolOutput},
	}
}

// toolOutputCommands print what build and package tools print to an agent:
// the go command's package listing (JSON) and the commands of a full
// build, the module list with checksums, make's rule database, the package
// database and Debian's install logs (written by scripts/install-deps).
var toolOutputCommands = [][]string{
	{"go", "list", "-json", "std"},
	{"go", "build", "-n", "-a", "std"},
	{"go", "list", "-m", "-json", "all"},
	{"go", "env"},
	{"go", "version", "-m", "-v"},
	{"make", "-p", "-f", "/dev/null"},
	{"dpkg-query", "--status"},
	{"dpkg", "--list"},
}

// toolOutputLogs are the logs of package installs.
var toolOutputLogs = []string{"/var/log/dpkg.log", "/var/log/apt/term.log", "/var/log/apt/history.log"}

func toolOutput(tb testing.TB, line func(string)) {
	for _, args := range toolOutputCommands {
		if args[0] == "go" && args[1] == "version" {
			self, err := os.Executable() // this test binary: a build's module and settings
			if err != nil {
				tb.Fatal(err)
			}
			args = append(args[:len(args):len(args)], self)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = ".." // the module root, for go list -m
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil && out.Len() == 0 {
			tb.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
		scanLines(&out, line)
	}
	for _, path := range toolOutputLogs {
		if r := openText(path); r != nil {
			scanLines(r, line)
			r.Close()
		}
	}
}

func walkText(tb testing.TB, root string, line func(string)) {
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		if r := openText(path); r != nil {
			scanLines(r, line)
			r.Close()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func scanLines(r io.Reader, line func(string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line(sc.Text())
	}
}

// TestRealTextChangeRate runs redaction over every line of three bodies of
// real text that hold no live secret (realTextSources). In each, the lines
// changed must stay at or under 1 in 10,000, and so must the lines changed
// by a context rule; go test -v lists the most common changed lines of each
// kind (docs/redaction.md R9).
func TestRealTextChangeRate(t *testing.T) {
	total, totalChanged := 0, 0
	seen := map[string]int{} // "kind\tline" -> count
	for _, src := range realTextSources(t) {
		lines, contextChanged, formatChanged := 0, 0, 0
		src.lines(t, func(line string) {
			lines++
			spans := Secrets(line)
			if len(spans) == 0 {
				return
			}
			context := false
			for _, s := range spans {
				if !formatKind(s.Kind) {
					context = true
				}
			}
			if context {
				contextChanged++
			} else {
				formatChanged++
			}
			seen[spans[0].Kind+"\t"+strings.TrimSpace(line)]++
		})
		if lines < src.minLines {
			t.Fatalf("only %d lines of %s", lines, src.name)
		}
		changed := contextChanged + formatChanged
		t.Logf("%s: %d lines; changed %d (%.2f per 10,000): by a context rule %d, by a format rule %d",
			src.name, lines, changed, 1e4*float64(changed)/float64(lines), contextChanged, formatChanged)
		if changed*10000 > lines {
			t.Errorf("%s: %d of %d lines changed (%.2f per 10,000), more than 1", src.name, changed, lines, 1e4*float64(changed)/float64(lines))
		}
		total += lines
		totalChanged += changed
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return seen[b] - seen[a] })
	for i, k := range keys {
		if i == 40 {
			break
		}
		kind, line, _ := strings.Cut(k, "\t")
		if len(line) > 120 {
			line = line[:120] + "…"
		}
		t.Logf("%5d %-20s %s", seen[k], kind, line)
	}
	t.Logf("all: %d lines, %d changed (%.2f per 10,000)", total, totalChanged, 1e4*float64(totalChanged)/float64(total))
}

// openText opens a text file (gunzipping .gz files) or returns nil for a
// file that is not text.
func openText(path string) io.ReadCloser {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil
		}
		r = z
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(r, head)
	if slices.Contains(head[:n], 0) {
		f.Close()
		return nil
	}
	return readCloser{io.MultiReader(strings.NewReader(string(head[:n])), r), f}
}

type readCloser struct {
	io.Reader
	io.Closer
}
