//go:build sqlite_fts5

package server_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// A validator for the part of OpenAPI 3.0 that docs/openapi.json uses:
// paths with {parameters}, $ref to components, and schemas with type,
// nullable, enum, required, properties, additionalProperties (a bool),
// items, minimum and maximum. Every response the tests get is checked
// against it, so the file cannot drift from what the server sends.

type spec struct {
	Paths      map[string]map[string]operation `json:"paths"`
	Components struct {
		Schemas   map[string]*schema   `json:"schemas"`
		Responses map[string]*response `json:"responses"`
	} `json:"components"`
}

type operation struct {
	Responses map[string]*response `json:"responses"`
}

type response struct {
	Ref     string `json:"$ref"`
	Content map[string]struct {
		Schema *schema `json:"schema"`
	} `json:"content"`
}

type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 string             `json:"type"`
	Nullable             bool               `json:"nullable"`
	Enum                 []any              `json:"enum"`
	Required             []string           `json:"required"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
}

var (
	apiOnce sync.Once
	api     *spec
	specErr error
)

func loadSpec(t testing.TB) *spec {
	apiOnce.Do(func() {
		data, err := os.ReadFile("../docs/openapi.json")
		if err != nil {
			specErr = err
			return
		}
		api = &spec{}
		specErr = json.Unmarshal(data, api)
	})
	if specErr != nil {
		t.Fatalf("docs/openapi.json: %v", specErr)
	}
	return api
}

// checkResponse fails the test unless body is what the spec says method
// path answers with status.
func checkResponse(t testing.TB, method, path string, status int, body []byte) {
	t.Helper()
	s := loadSpec(t)
	op, err := s.operation(method, path)
	if err != nil {
		t.Errorf("docs/openapi.json: %v", err)
		return
	}
	r := op.Responses[fmt.Sprint(status)]
	if r == nil {
		t.Errorf("docs/openapi.json: %s %s has no response %d (got %s)", method, path, status, body)
		return
	}
	if r.Ref != "" {
		r = s.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("%s %s %d: body is not JSON: %v: %q", method, path, status, err, body)
		return
	}
	if err := s.validate(r.Content["application/json"].Schema, v, "$"); err != nil {
		t.Errorf("%s %s %d: docs/openapi.json: %v\nbody: %s", method, path, status, err, body)
	}
}

func (s *spec) operation(method, path string) (operation, error) {
	path, _, _ = strings.Cut(path, "?")
	for tmpl, ops := range s.Paths {
		re := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
		if regexp.MustCompile(re).MatchString(path) {
			if op, ok := ops[strings.ToLower(method)]; ok {
				return op, nil
			}
		}
	}
	return operation{}, fmt.Errorf("no operation %s %s", method, path)
}

func (s *spec) validate(sc *schema, v any, at string) error {
	if sc == nil {
		return fmt.Errorf("%s: no schema", at)
	}
	if sc.Ref != "" {
		return s.validate(s.Components.Schemas[strings.TrimPrefix(sc.Ref, "#/components/schemas/")], v, at)
	}
	if v == nil {
		if sc.Nullable || sc.Type == "" {
			return nil
		}
		return fmt.Errorf("%s: null where %s is expected", at, sc.Type)
	}
	if len(sc.Enum) > 0 && !slices.Contains(sc.Enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, sc.Enum)
	}
	switch sc.Type {
	case "":
		return nil
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: %T where an object is expected", at, v)
		}
		for _, name := range sc.Required {
			if _, ok := m[name]; !ok {
				return fmt.Errorf("%s: required member %q is missing", at, name)
			}
		}
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p, ok := sc.Properties[name]
			if !ok {
				if sc.AdditionalProperties != nil && !*sc.AdditionalProperties {
					return fmt.Errorf("%s: member %q is not in the schema", at, name)
				}
				continue
			}
			if err := s.validate(p, m[name], at+"."+name); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T where an array is expected", at, v)
		}
		for i, item := range a {
			if err := s.validate(sc.Items, item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: %T where a string is expected", at, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %T where a boolean is expected", at, v)
		}
	case "integer", "number":
		n, ok := v.(float64)
		if !ok {
			return fmt.Errorf("%s: %T where a %s is expected", at, v, sc.Type)
		}
		if sc.Type == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("%s: %v is not an integer", at, n)
		}
		if sc.Minimum != nil && n < *sc.Minimum || sc.Maximum != nil && n > *sc.Maximum {
			return fmt.Errorf("%s: %v is out of range", at, n)
		}
	default:
		return fmt.Errorf("%s: the validator does not know type %q", at, sc.Type)
	}
	return nil
}

// TestOpenAPIValidatorRejects checks that the validator can fail: a
// response that breaks the spec in each way it checks is refused.
func TestOpenAPIValidatorRejects(t *testing.T) {
	s := loadSpec(t)
	for _, c := range []struct{ name, path, body string }{
		{"missing member", "/v1/status", `{"version":"v","schema":1,"sessions":1,"events":1}`},
		{"extra member", "/v1/status", `{"version":"v","schema":1,"sessions":1,"events":1,"pendingSessions":0,"x":1}`},
		{"wrong type", "/v1/status", `{"version":1,"schema":1,"sessions":1,"events":1,"pendingSessions":0}`},
		{"not an integer", "/v1/status", `{"version":"v","schema":1.5,"sessions":1,"events":1,"pendingSessions":0}`},
		{"bad item", "/v1/search", `{"results":[{"sessionKey":"k"}],"indexing":false,"truncated":false}`},
		{"null", "/v1/search", `{"results":null,"indexing":false,"truncated":false}`},
	} {
		op, err := s.operation(map[string]string{"/v1/status": "GET", "/v1/search": "POST"}[c.path], c.path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		json.Unmarshal([]byte(c.body), &v)
		if err := s.validate(op.Responses["200"].Content["application/json"].Schema, v, "$"); err == nil {
			t.Errorf("%s: %s passed the validator", c.name, c.body)
		}
	}
	if _, err := s.operation("GET", "/v1/nothing"); err == nil {
		t.Error("an unknown path has an operation")
	}
}
