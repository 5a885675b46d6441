package gitleakscheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Each gitleaks rule carries its own true-positive samples in the program
// that generates gitleaks' default config (cmd/generate/config/rules/*.go):
// a rule builds them, then hands them to utils.Validate, which fails the
// generator if its regex misses one. Nothing returns them, so ruleSamples
// compiles that program again with two files swapped:
//
//   - utils/validate.go records every rule's samples as JSON lines on
//     standard output instead of checking them;
//   - secrets/regen.go, which draws the random part of a sample from a
//     regex with a clock-seeded generator, draws it from a seeded one
//     (gofakeit), so the samples are the same on every run.
//
// The swap happens in a copy of the gitleaks module in a temporary folder
// (the module cache is read-only, and the go command refuses overlays of
// it), wired in with a replace line of a temporary go.mod (-modfile). Every
// other file, the rules and their sample syntaxes, is gitleaks' own.

// ruleSamples is what one rule's generator code validates.
type ruleSamples struct {
	Rule           string   `json:"rule"`
	TruePositives  []string `json:"truePositives"`
	FalsePositives []string `json:"falsePositives"`
}

// gitleaksModule is the module whose rules are measured; go.mod pins it.
const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

// recordingValidate replaces cmd/generate/config/utils/validate.go.
const recordingValidate = `package utils

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/zricethezav/gitleaks/v8/config"
)

func Validate(rule config.Rule, truePositives, falsePositives []string) *config.Rule {
	record(rule.RuleID, truePositives, falsePositives)
	return &rule
}

func ValidateWithPaths(rule config.Rule, truePositives, falsePositives map[string]string) *config.Rule {
	record(rule.RuleID, values(truePositives), values(falsePositives))
	return &rule
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// record sorts the samples: GenerateSampleSecrets builds them from a map.
func record(rule string, tps, fps []string) {
	sort.Strings(tps)
	sort.Strings(fps)
	if err := json.NewEncoder(os.Stdout).Encode(map[string]any{
		"rule": rule, "truePositives": tps, "falsePositives": fps,
	}); err != nil {
		panic(err)
	}
}
`

// seededRegen replaces cmd/generate/secrets/regen.go; %d is the seed.
const seededRegen = `package secrets

import "github.com/brianvoe/gofakeit/v7"

var faker = gofakeit.New(%d)

func NewSecret(regex string) string { return faker.Regex(regex) }
`

// ruleSamples runs every rule constructor of gitleaks' config generator
// with the recording Validate and returns the samples by rule id.
func gitleaksRuleSamples(tb testing.TB, seed uint64) map[string]ruleSamples {
	tb.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", gitleaksModule).Output()
	if err != nil {
		tb.Fatalf("go list -m %s: %v", gitleaksModule, err)
	}
	src := strings.TrimSpace(string(out))
	tmp := tb.TempDir()
	copyOfGitleaks := filepath.Join(tmp, "gitleaks")
	if err := copyModule(src, copyOfGitleaks); err != nil {
		tb.Fatal(err)
	}
	for name, text := range map[string]string{
		"cmd/generate/config/utils/validate.go": recordingValidate,
		"cmd/generate/secrets/regen.go":         fmt.Sprintf(seededRegen, seed),
	} {
		if err := os.WriteFile(filepath.Join(copyOfGitleaks, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	main, err := constructorCalls(filepath.Join(src, "cmd/generate/config/main.go"))
	if err != nil {
		tb.Fatal(err)
	}
	mainFile := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(mainFile, main, 0o644); err != nil {
		tb.Fatal(err)
	}
	// go.mod and go.sum of this module, with the copy replacing gitleaks.
	// Relative replace paths stay right: with -modfile, the module root is
	// still this folder.
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		tb.Fatal(err)
	}
	mod = fmt.Appendf(mod, "\nreplace %s => %s\n", gitleaksModule, copyOfGitleaks)
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), mod, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-modfile="+filepath.Join(tmp, "go.mod"), mainFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		tb.Fatalf("running gitleaks' rule generator: %v\n%s", err, stderr.String())
	}
	samples := map[string]ruleSamples{}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var s ruleSamples
		if err := dec.Decode(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			tb.Fatalf("reading the recorded samples: %v", err)
		}
		prev := samples[s.Rule]
		prev.Rule = s.Rule
		prev.TruePositives = append(prev.TruePositives, s.TruePositives...)
		prev.FalsePositives = append(prev.FalsePositives, s.FalsePositives...)
		samples[s.Rule] = prev
	}
	return samples
}

// constructorCalls returns a main package that calls every rules.X(...)
// that gitleaks' config generator (its main.go) calls, in its order.
func constructorCalls(mainGo string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, mainGo, nil, 0)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("package main\n\nimport \"" + gitleaksModule + "/cmd/generate/config/rules\"\n\nfunc main() {\n")
	calls := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "rules" {
			return true
		}
		b.WriteByte('\t')
		if err := format.Node(&b, fset, call); err != nil {
			panic(err)
		}
		b.WriteByte('\n')
		calls++
		return false
	})
	b.WriteString("}\n")
	if calls < 100 {
		return nil, fmt.Errorf("%s: only %d rules.X() calls", mainGo, calls)
	}
	return b.Bytes(), nil
}

// copyModule copies a module's files, without its testdata, into dst as
// writable files.
func copyModule(src, dst string) error {
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if e.IsDir() {
			if e.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
