package benchenv

import (
	"strings"
	"testing"
)

func TestParseVariants(t *testing.T) {
	vs, err := ParseVariants(`{"exact":{}, "relaxed":{"match":"relaxed","limit":25}, "grouped":{"group":"session"}}`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	if strings.Join(names, " ") != "exact relaxed grouped" {
		t.Errorf("names %q, want them in the order given", names)
	}
	base := map[string]any{"caller": "agent:main:main", "limit": 10}
	for i, want := range []string{
		`{"caller":"agent:main:main","limit":10}`,
		`{"caller":"agent:main:main","limit":25,"match":"relaxed"}`,
		`{"caller":"agent:main:main","group":"session","limit":10}`,
	} {
		got, err := vs[i].OptionsJSON(base)
		if err != nil || got != want {
			t.Errorf("%s: OptionsJSON = %s, %v; want %s", vs[i].Name, got, err, want)
		}
	}
	if base["limit"] != 10 {
		t.Errorf("OptionsJSON changed its base: %v", base)
	}
	if vs, err := ParseVariants("  "); err != nil || len(vs) != 1 || vs[0].Name != "default" || len(vs[0].Options) != 0 {
		t.Errorf("no variants: %+v, %v", vs, err)
	}
	for _, bad := range []struct{ in, says string }{
		{`[{}]`, "JSON object of name to options"},
		{`{"a":1}`, `"a" must name a JSON object`},
		{`{"a":{},"a":{}}`, `"a" twice`},
		{`{"":{}}`, "a name of its own"},
		{`{}`, "no variant"},
		{`{"a":{}} {}`, "more than one"},
		{`{"a":{}`, "variants"},
	} {
		if _, err := ParseVariants(bad.in); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("ParseVariants(%s): %v, want an error saying %q", bad.in, err, bad.says)
		}
	}
}
