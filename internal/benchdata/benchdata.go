// Package benchdata loads the texts the index-build benchmarks tokenize:
// English prose, Go source, the fixture transcripts' messages and gettext
// catalogs, all found on every Debian machine with Go installed. The driver
// benchmarks insert them through the Go driver; the host benchmarks in
// tests/ through every host.
package benchdata

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// Docs cuts texts into documents of about size bytes, at line breaks.
func Docs(texts []string, size int) []string {
	var docs []string
	var b strings.Builder
	for _, t := range texts {
		for _, line := range strings.SplitAfter(t, "\n") {
			b.WriteString(line)
			if b.Len() >= size {
				docs = append(docs, b.String())
				b.Reset()
			}
		}
	}
	if b.Len() > 0 {
		docs = append(docs, b.String())
	}
	return docs
}

// Prose returns the licence texts in /usr/share/common-licenses: plain
// English prose.
func Prose() []string { return readAll(filepath.Glob("/usr/share/common-licenses/*")) }

// GoSource returns the Go source of the standard library's net/http, in
// the GOROOT of the go command that runs the benchmarks.
func GoSource() []string {
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil
	}
	return readAll(filepath.Glob(filepath.Join(strings.TrimSpace(string(root)), "src", "net", "http", "*.go")))
}

func readAll(files []string, _ error) []string {
	var texts []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	return texts
}

// Messages returns the user and assistant text of the fixture transcripts
// whose file names keep accepts, one text per message.
func Messages(keep func(name string) bool) []string {
	var texts []string
	for _, f := range fixtures.Files() {
		if !keep(f.Name) {
			continue
		}
		for _, line := range f.Lines {
			var e struct {
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &e) != nil || (e.Message.Role != "user" && e.Message.Role != "assistant") {
				continue
			}
			var s string
			if json.Unmarshal(e.Message.Content, &s) == nil {
				texts = append(texts, s+"\n")
				continue
			}
			var blocks []struct{ Type, Text string }
			json.Unmarshal(e.Message.Content, &blocks)
			for _, bl := range blocks {
				if bl.Type == "text" {
					texts = append(texts, bl.Text+"\n")
				}
			}
		}
	}
	return texts
}

// English accepts the English fixture transcripts.
func English(name string) bool { return strings.HasPrefix(name, "en-") }

// Catalogs returns the translated strings of the gettext catalogs of the
// given languages under /usr/share/locale.
func Catalogs(langs ...string) []string {
	var texts []string
	for _, lang := range langs {
		files, _ := filepath.Glob("/usr/share/locale/" + lang + "/LC_MESSAGES/*.mo")
		for _, f := range files {
			texts = append(texts, moStrings(f)...)
		}
	}
	return texts
}

// moStrings reads the translations of a GNU .mo catalog.
func moStrings(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 28 {
		return nil
	}
	le := b[0] == 0xde && b[1] == 0x12
	u32 := func(off int) int {
		if off+4 > len(b) {
			return 0
		}
		if le {
			return int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24
		}
		return int(b[off+3]) | int(b[off+2])<<8 | int(b[off+1])<<16 | int(b[off])<<24
	}
	n, tOff := u32(8), u32(16)
	var out []string
	for i := 1; i < n; i++ { // entry 0 is the header
		l, o := u32(tOff+8*i), u32(tOff+8*i+4)
		if o+l <= len(b) {
			out = append(out, strings.ReplaceAll(string(b[o:o+l]), "\x00", "\n")+"\n")
		}
	}
	return out
}
