package redact

import (
	"bufio"
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
		"authorization", "bearer-token", "url-credential", "fragment", "aws-secret-key":
		return false
	}
	return true
}

// TestRealTextChangeRate runs redaction over every line of two large bodies
// of real text that hold no live secret: Go's standard library source
// ($(go env GOROOT)/src) and Debian's /usr/share/doc. Lines changed by a
// context rule must stay at or under 1 in 10,000; go test -v lists the
// most common changed lines of each kind (docs/redaction.md R9).
func TestRealTextChangeRate(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	roots := []string{filepath.Join(strings.TrimSpace(string(out)), "src"), "/usr/share/doc"}
	lines, contextChanged, formatChanged := 0, 0, 0
	seen := map[string]int{} // "kind\tline" -> count
	for _, root := range roots {
		rootLines := 0
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !e.Type().IsRegular() {
				return nil
			}
			r := openText(path)
			if r == nil {
				return nil
			}
			defer r.Close()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				rootLines++
				spans := Secrets(line)
				if len(spans) == 0 {
					continue
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
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rootLines < 100000 {
			t.Fatalf("only %d lines under %s", rootLines, root)
		}
		t.Logf("%s: %d lines", root, rootLines)
		lines += rootLines
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
	rate := float64(contextChanged) / float64(lines)
	t.Logf("%d lines; changed by a context rule: %d (%.2f per 10,000); by a format rule: %d", lines, contextChanged, rate*1e4, formatChanged)
	if rate > 1e-4 {
		t.Errorf("context rules changed %d of %d lines (%.2f per 10,000), more than 1", contextChanged, lines, rate*1e4)
	}
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
