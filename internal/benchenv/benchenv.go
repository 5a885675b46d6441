// Package benchenv reads the sizes benchmarks and soaks take from the
// environment, so that a user can rerun them at other sizes, and the named
// option sets a benchmark of the search compares.
package benchenv

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Int returns the positive integer in the environment variable name, or def
// when it is not set; anything else fails the benchmark with a message that
// names the variable and its value.
func Int(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s must be a positive integer, got %q", name, v)
	}
	return n
}

// Variant is one named set of search options a benchmark runs: its options
// are merged over the benchmark's own (a key of the variant replaces the
// benchmark's key), so that one run can compare an engine with and without
// an option (docs/quality.md QB5).
type Variant struct {
	Name    string
	Options map[string]json.RawMessage
}

// DefaultVariants is the one variant a run has when none is given: the
// engine's defaults.
const DefaultVariants = `{"default":{}}`

// ParseVariants reads a JSON object of variants, name to options object,
// keeping the names' order: `{"default":{},"grouped":{"group":"session"}}`.
// An empty string is DefaultVariants.
func ParseVariants(s string) ([]Variant, error) {
	if strings.TrimSpace(s) == "" {
		s = DefaultVariants
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("variants must be a JSON object of name to options object, like %s, got %q", `{"default":{},"grouped":{"group":"session"}}`, s)
	}
	var out []Variant
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("variants %q: %w", s, err)
		}
		name := tok.(string)
		var opts map[string]json.RawMessage
		if err := dec.Decode(&opts); err != nil || opts == nil {
			return nil, fmt.Errorf("variants: %q must name a JSON object of options, in %q", name, s)
		}
		if name == "" || seen[name] {
			return nil, fmt.Errorf("variants: each needs a name of its own, got %q twice or empty in %q", name, s)
		}
		seen[name] = true
		out = append(out, Variant{name, opts})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("variants %q: %w", s, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("variants %q: more than one JSON value", s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("variants %q: no variant", s)
	}
	return out, nil
}

// OptionsJSON returns base with the variant's options merged over it, as
// the options JSON of sessions_search.
func (v Variant) OptionsJSON(base map[string]any) (string, error) {
	merged := maps.Clone(base)
	if merged == nil {
		merged = map[string]any{}
	}
	for k, val := range v.Options {
		merged[k] = val
	}
	js, err := json.Marshal(merged)
	return string(js), err
}
