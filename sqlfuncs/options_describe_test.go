package sqlfuncs

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every option of a type has a row in its table and every row names a field
// of its type, of the row's JSON type: adding an option to the type without
// describing it (or the other way round) fails here.
func TestOptionTablesMatchTypes(t *testing.T) {
	kinds := map[OptionType]reflect.Type{
		TypeString: reflect.TypeFor[string](), TypeInteger: reflect.TypeFor[int](), TypeBoolean: reflect.TypeFor[bool](),
		TypeStrings: reflect.TypeFor[[]string](), TypeTime: reflect.TypeFor[time.Time](), TypeObject: reflect.TypeFor[AgentToAgent](),
	}
	objects := map[string]reflect.Type{"agentToAgent": reflect.TypeFor[AgentToAgent](), "ceiling": reflect.TypeFor[*Options]()}
	check := func(name string, specs OptionSpecs, typ reflect.Type, skip ...string) {
		fields := jsonIndex(typ)
		for _, s := range specs {
			index, ok := fields[s.Name]
			if !ok {
				t.Errorf("%s: option %q has no field in %s", name, s.Name, typ)
				continue
			}
			want := kinds[s.Type]
			if s.Type == TypeObject {
				want = objects[s.Name]
			}
			if got := typ.FieldByIndex(index).Type; got != want {
				t.Errorf("%s: option %q is %s but its field is %s", name, s.Name, s.Type, got)
			}
		}
		for field := range fields {
			if _, ok := specs.Lookup(field); !ok && !slices.Contains(skip, field) {
				t.Errorf("%s: field %q of %s has no row in the table", name, field, typ)
			}
		}
	}
	check("search", SearchOptionSpecs(), reflect.TypeFor[SearchOptions]())
	check("history", HistoryOptionSpecs(), reflect.TypeFor[HistoryOptions]())
	check("visibility", VisibilityOptionSpecs(), reflect.TypeFor[Options](), "caller")
	check("ceiling", scopeSpecs, reflect.TypeFor[Options](), "caller", "ceiling")
	check("agentToAgent", agentToAgentSpecs, reflect.TypeFor[AgentToAgent]())
}

// The table's rows are well formed: defaults inside their ranges and of the
// field's type, enumerated values named in the help, a placeholder for
// every flag that takes a value.
func TestOptionTablesAreConsistent(t *testing.T) {
	for name, specs := range map[string]OptionSpecs{"search": SearchOptionSpecs(), "history": HistoryOptionSpecs(), "agentToAgent": agentToAgentSpecs} {
		for _, s := range specs {
			if s.Help == "" {
				t.Errorf("%s.%s: no help", name, s.Name)
			}
			switch d := s.Default.(type) {
			case nil:
			case int:
				if s.Type != TypeInteger || int64(d) < s.Min || int64(d) > s.Max {
					t.Errorf("%s.%s: default %d outside %d..%d", name, s.Name, d, s.Min, s.Max)
				}
			case string:
				if s.Type != TypeString || !slices.Contains(s.Enum, d) {
					t.Errorf("%s.%s: default %q is not among %q", name, s.Name, d, s.Enum)
				}
			case bool:
				if s.Type != TypeBoolean {
					t.Errorf("%s.%s: a boolean default for a %s", name, s.Name, s.Type)
				}
			default:
				t.Errorf("%s.%s: default of type %T", name, s.Name, d)
			}
			for _, v := range s.Enum {
				if !strings.Contains(s.Help, "("+v+")") {
					t.Errorf("%s.%s: the help does not name the value %q as (%s): %q", name, s.Name, v, v, s.Help)
				}
			}
			needsPlaceholder := s.Type == TypeInteger || s.Type == TypeTime || (s.Type == TypeString || s.Type == TypeStrings) && s.Enum == nil
			if needsPlaceholder != strings.Contains(s.Help, "`") && s.Name != "allow" {
				t.Errorf("%s.%s: a placeholder in backquotes is for options with a free value: %q", name, s.Name, s.Help)
			}
		}
	}
}

// The defaults a parse fills in are the table's.
func TestOptionDefaultsComeFromTheTable(t *testing.T) {
	search, err := ParseSearchOptions(`{"caller":"c"}`)
	if err != nil {
		t.Fatal(err)
	}
	history, err := ParseHistoryOptions(`{"caller":"c"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		specs OptionSpecs
		value any
	}{{SearchOptionSpecs(), &search}, {HistoryOptionSpecs(), &history}} {
		fields := fieldsOf(c.value)
		for _, s := range c.specs {
			got := fields.field(s.Name).Interface()
			if s.Default != nil && got != s.Default {
				t.Errorf("%T.%s = %v, want the default %v", c.value, s.Name, got, s.Default)
			}
			if s.Default == nil && s.Name != "caller" && !fields.field(s.Name).IsZero() {
				t.Errorf("%T.%s = %v, want zero: no default", c.value, s.Name, got)
			}
		}
	}
}

func TestOptionUsage(t *testing.T) {
	search, history := SearchOptionSpecs(), HistoryOptionSpecs()
	tests := []struct {
		spec OptionSpec
		want string
	}{
		{search.Select("limit")[0], "at most `n` results (1..25, default 10)"},
		{history.Select("limit")[0], "at most `n` messages (1..1000, default 200)"},
		{search.Select("maxBytes")[0], "the longest JSON answer in `bytes` (256..1048576, default 32768)"},
		{search.Select("order")[0], "best first (relevance), newest first (recent), or best first with an older hit counting half for each 30 days (blend) (default relevance)"},
		{search.Select("prefix")[0], "match the last query term as a prefix"},
		{search.Select("sessionKey")[0], "search only the session with this `key`"},
		{search.Select("after")[0], "only messages written after this `time` (epoch milliseconds or RFC 3339)"},
		{search.Select("visibility")[0], "which sessions the caller sees: itself (self), those it spawned and, for an agent's main session, its agent's (tree), its agent's (agent), or also other agents' with agentToAgent (all) (default tree)"},
	}
	for _, tt := range tests {
		if got := tt.spec.Usage(); got != tt.want {
			t.Errorf("%s: Usage() = %q, want %q", tt.spec.Name, got, tt.want)
		}
	}
}

func TestOptionSchema(t *testing.T) {
	search := SearchOptionSpecs()
	tests := []struct {
		spec OptionSpec
		want string
	}{
		{search.Select("limit")[0], `{"default":10,"description":"at most n results (1..25, default 10)","maximum":25,"minimum":1,"type":"integer"}`},
		{search.Select("order")[0], `{"default":"relevance","description":"best first (relevance), newest first (recent), or best first with an older hit counting half for each 30 days (blend) (default relevance)","enum":["relevance","recent","blend"],"type":"string"}`},
		{search.Select("sessionKey")[0], `{"description":"search only the session with this key","minLength":1,"type":"string"}`},
		{search.Select("prefix")[0], `{"default":false,"description":"match the last query term as a prefix","type":"boolean"}`},
		{search.Select("before")[0], `{"anyOf":[{"maximum":253402300799999,"minimum":0,"type":"integer"},{"format":"date-time","type":"string"}],"description":"only messages written before this time (epoch milliseconds or RFC 3339)"}`},
		{search.Select("agentToAgent")[0], `{"additionalProperties":false,"description":"cross-agent access under visibility all",` +
			`"properties":{"allow":{"description":"agent id patterns (*, globs with *, or ids) that both agents must match","items":{"type":"string"},"type":"array"},` +
			`"enabled":{"default":false,"description":"let the caller see other agents' sessions under visibility all","type":"boolean"}},"type":"object"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.spec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: Schema()\n got %s\nwant %s", tt.spec.Name, got, tt.want)
		}
	}

	// An object of options: only the given ones, the required ones listed.
	got, _ := json.Marshal(search.Select("caller", "limit").Schema())
	want := `{"additionalProperties":false,"properties":{` +
		`"caller":{"description":"the session key of the session that asks; the answer is what it may see","minLength":1,"type":"string"},` +
		`"limit":{"default":10,"description":"at most n results (1..25, default 10)","maximum":25,"minimum":1,"type":"integer"}},` +
		`"required":["caller"],"type":"object"}`
	if string(got) != want {
		t.Errorf("Schema()\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(search.Select("prefix").Schema())
	if want := `{"additionalProperties":false,"properties":{"prefix":{"default":false,"description":"match the last query term as a prefix","type":"boolean"}},"type":"object"}`; string(got) != want {
		t.Errorf("Schema() without required options\n got %s\nwant %s", got, want)
	}
}

func TestOptionSelect(t *testing.T) {
	if got := SearchOptionSpecs().Select("order", "limit").Names(); !slices.Equal(got, []string{"order", "limit"}) {
		t.Errorf("Select(order, limit) = %q", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"messageId"`) {
			t.Errorf("Select(messageId) on the search options: recovered %v, want a panic naming it", r)
		}
	}()
	SearchOptionSpecs().Select("messageId")
}

// Flags built from the table set the options type's fields, with the
// table's checks and messages.
func TestOptionFlags(t *testing.T) {
	newFlags := func(o *SearchOptions) *flag.FlagSet {
		fs := flag.NewFlagSet("search", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		specs := SearchOptionSpecs()
		for flagName, option := range map[string]string{"caller": "caller", "limit": "limit", "session": "sessionKey", "prefix": "prefix",
			"order": "order", "after": "after", "before": "before", "agent-to-agent": "agentToAgent", "visibility": "visibility"} {
			specs.Select(option)[0].Flag(fs, flagName, o)
		}
		return fs
	}
	ok := []struct {
		args []string
		want SearchOptions
	}{
		{nil, SearchOptions{}},
		{[]string{"--caller", "agent:ops:main", "--limit", "25", "--session", "agent:ops:x", "--prefix", "--order", "recent"},
			SearchOptions{Options: Options{Caller: "agent:ops:main"}, Limit: 25, SessionKey: "agent:ops:x", Prefix: true, Order: "recent"}},
		{[]string{"--prefix=false"}, SearchOptions{}},
		{[]string{"--after", "1700000000000", "--before", "2026-11-01T10:00:00+01:00"},
			SearchOptions{After: time.UnixMilli(1700000000000).UTC(), Before: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}},
		{[]string{"--agent-to-agent", `{"enabled":true,"allow":["*"]}`},
			SearchOptions{Options: Options{AgentToAgent: AgentToAgent{Enabled: true, Allow: []string{"*"}}}}},
		{[]string{"--visibility", "all"}, SearchOptions{Options: Options{Visibility: "all"}}},
	}
	for _, tt := range ok {
		var o SearchOptions
		if err := newFlags(&o).Parse(tt.args); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(o, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.args, o, tt.want)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "40"}, `invalid value "40" for flag -limit: limit must be an integer 1..25, got 40`},
		{[]string{"--limit", "ten"}, `invalid value "ten" for flag -limit: limit must be an integer 1..25, got "ten"`},
		{[]string{"--limit", "1.5"}, `invalid value "1.5" for flag -limit: limit must be an integer 1..25, got "1.5"`},
		{[]string{"--session", ""}, `invalid value "" for flag -session: sessionKey must be a non-empty string, got ""`},
		{[]string{"--order", "newest"}, `invalid value "newest" for flag -order: order must be "relevance", "recent" or "blend", got "newest"`},
		{[]string{"--prefix=maybe"}, `invalid boolean value "maybe" for -prefix: prefix must be true or false, got "maybe"`},
		{[]string{"--after", "7d"}, `invalid value "7d" for flag -after: after must be epoch milliseconds 0..253402300799999 or an RFC 3339 time like "2026-11-01T09:30:00Z", got "7d"`},
		{[]string{"--agent-to-agent", "*"}, `invalid value "*" for flag -agent-to-agent: agentToAgent must be an object like {"enabled":true,"allow":["*"]}, got "*"`},
	}
	for _, tt := range bad {
		var o SearchOptions
		if err := newFlags(&o).Parse(tt.args); err == nil || err.Error() != tt.want {
			t.Errorf("%q:\n got error %v\nwant error %s", tt.args, err, tt.want)
		}
	}

	// The usage shows the table's placeholder, range and default.
	var o SearchOptions
	fs := newFlags(&o)
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.PrintDefaults()
	for _, want := range []string{
		"  -limit n\n    \tat most n results (1..25, default 10)\n",
		"  -prefix\n    \tmatch the last query term as a prefix\n",
		"  -after time\n    \tonly messages written after this time (epoch milliseconds or RFC 3339)\n",
		"  -session key\n    \tsearch only the session with this key\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("PrintDefaults() lacks %q:\n%s", want, out.String())
		}
	}
}

// Validate holds a Go value to the rules of the JSON, with zero fields
// standing for absent ones, and gives the same messages.
func TestValidate(t *testing.T) {
	caller := Options{Caller: "agent:ops:main"}
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		o    any
		want string // "" for valid
	}{
		{SearchOptions{Options: caller}, ""},
		{SearchOptions{Options: caller, Limit: 25, SnippetChars: 4000, MaxBytes: 256, Order: "recent", After: day, Before: day.Add(time.Hour)}, ""},
		{SearchOptions{Options: Options{Caller: "c", Visibility: "all", AgentToAgent: AgentToAgent{Enabled: true, Allow: []string{"*"}}}}, ""},
		{SearchOptions{Options: caller, After: time.UnixMilli(0)}, ""},
		{SearchOptions{}, `option "caller" is required`},
		{SearchOptions{Options: caller, Limit: 40}, `limit must be an integer 1..25, got 40`},
		{SearchOptions{Options: caller, Limit: -1}, `limit must be an integer 1..25, got -1`},
		{SearchOptions{Options: caller, MaxBytes: 100}, `maxBytes must be an integer 256..1048576, got 100`},
		{SearchOptions{Options: caller, Order: "newest"}, `order must be "relevance", "recent" or "blend", got "newest"`},
		{SearchOptions{Options: Options{Caller: "c", Visibility: "everyone"}}, `visibility must be "self", "tree", "agent" or "all", got "everyone"`},
		{SearchOptions{Options: Options{Caller: "c", SandboxVisibility: "tree"}}, `sandboxVisibility must be "spawned" or "all", got "tree"`},
		{SearchOptions{Options: caller, After: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)},
			`after must be epoch milliseconds 0..253402300799999 or an RFC 3339 time like "2026-11-01T09:30:00Z", got "1969-12-31T00:00:00Z"`},
		{SearchOptions{Options: caller, After: day, Before: day}, `after must be earlier than before, got "2026-11-01T00:00:00Z" and before "2026-11-01T00:00:00Z"`},
		{SearchOptions{Options: caller, After: day.Add(time.Hour), Before: day}, `after must be earlier than before, got "2026-11-01T01:00:00Z" and before "2026-11-01T00:00:00Z"`},
		{HistoryOptions{Options: caller, Limit: 1000, MaxChars: 100000, MaxBytes: 4 << 20, IncludeTools: true, MessageID: "m"}, ""},
		{HistoryOptions{Options: caller, Limit: 1001}, `limit must be an integer 1..1000, got 1001`},
		{HistoryOptions{Options: caller, MaxChars: 100001}, `maxChars must be an integer 1..100000, got 100001`},
		{HistoryOptions{Limit: 5}, `option "caller" is required`},
	}
	for _, tt := range tests {
		var err error
		switch o := tt.o.(type) {
		case SearchOptions:
			err = o.Validate()
		case HistoryOptions:
			err = o.Validate()
		}
		if (err == nil) != (tt.want == "") || err != nil && err.Error() != tt.want {
			t.Errorf("%+v: Validate() = %v, want %q", tt.o, err, tt.want)
		}
	}
}

// A value encodes to options JSON that parses back to it, so the driver's
// JSON is what the SQL functions read.
func TestOptionsJSONRoundTrip(t *testing.T) {
	searches := []SearchOptions{
		defaultSearch("agent:ops:main"),
		{Options: Options{Caller: "c", Visibility: "all", Sandboxed: true, SandboxVisibility: "all", AgentToAgent: AgentToAgent{Enabled: true, Allow: []string{"*", "o*"}}},
			Limit: 3, SessionKey: "agent:ops:x", SnippetChars: 50, MaxBytes: 4096, Prefix: true, Order: "recent", Group: "session", PerSession: 2, Syntax: "query", Match: "relaxed",
			After: time.UnixMilli(1700000000123).UTC(), Before: time.Date(2026, 11, 1, 9, 30, 0, 500, time.UTC)},
	}
	for _, o := range searches {
		js, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSearchOptions(string(js))
		if err != nil {
			t.Fatalf("ParseSearchOptions(%s): %v", js, err)
		}
		if !reflect.DeepEqual(back, o) {
			t.Errorf("%s\n got %+v\nwant %+v", js, back, o)
		}
	}
	// Zero fields are left out, so the SQL defaults apply.
	js, _ := json.Marshal(SearchOptions{Options: Options{Caller: "agent:main:main"}, Limit: 5})
	if want := `{"caller":"agent:main:main","limit":5}`; string(js) != want {
		t.Errorf("Marshal = %s, want %s", js, want)
	}
	h := defaultHistory("c")
	h.MessageID, h.IncludeTools = "m1", true
	js, _ = json.Marshal(h)
	back, err := ParseHistoryOptions(string(js))
	if err != nil || !reflect.DeepEqual(back, h) {
		t.Errorf("history %s: got %+v, %v", js, back, err)
	}
}

func TestTimeOptions(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	ok := []struct {
		js            string
		after, before time.Time
	}{
		{`"after":1700000000000`, time.UnixMilli(1700000000000).UTC(), time.Time{}},
		{`"after":0`, time.UnixMilli(0).UTC(), time.Time{}},
		{`"before":253402300799999`, time.Time{}, at("9999-12-31T23:59:59.999Z")},
		{`"after":"2026-11-01T00:00:00Z"`, at("2026-11-01T00:00:00Z"), time.Time{}},
		{`"after":"2026-11-01T09:00:00+09:00"`, at("2026-11-01T00:00:00Z"), time.Time{}},
		{`"after":"2026-11-01t00:00:00z"`, at("2026-11-01T00:00:00Z"), time.Time{}},
		{`"before":"2026-11-01T00:00:00.123456789Z"`, time.Time{}, at("2026-11-01T00:00:00.123456789Z")},
		{`"after":1,"before":3`, time.UnixMilli(1).UTC(), time.UnixMilli(3).UTC()},
		{`"after":null,"before":null`, time.Time{}, time.Time{}},
	}
	for _, tt := range ok {
		o, err := ParseSearchOptions(`{"caller":"c",` + tt.js + `}`)
		if err != nil {
			t.Errorf("%s: %v", tt.js, err)
			continue
		}
		if !o.After.Equal(tt.after) || !o.Before.Equal(tt.before) || o.After.Location() != time.UTC || o.Before.Location() != time.UTC {
			t.Errorf("%s: after %v, before %v; want %v, %v in UTC", tt.js, o.After, o.Before, tt.after, tt.before)
		}
	}
	const want = `must be epoch milliseconds 0..253402300799999 or an RFC 3339 time like "2026-11-01T09:30:00Z", got `
	bad := []struct{ js, err string }{
		{`"after":-1`, `after ` + want + `-1`},
		{`"before":253402300800000`, `before ` + want + `253402300800000`},
		{`"after":99999999999999999999`, `after ` + want + `99999999999999999999`},
		{`"after":1.7e12`, `after ` + want + `1.7e12`},
		{`"after":1700000000000.5`, `after ` + want + `1700000000000.5`},
		{`"after":"1700000000000"`, `after ` + want + `"1700000000000"`},
		{`"after":"7d"`, `after ` + want + `"7d"`}, // relative times are the CLI's
		{`"after":"2026-11-01"`, `after ` + want + `"2026-11-01"`},
		{`"after":"2026-11-01 00:00:00Z"`, `after ` + want + `"2026-11-01 00:00:00Z"`},
		{`"after":"2026-11-01T00:00:00"`, `after ` + want + `"2026-11-01T00:00:00"`},
		{`"after":"1969-12-31T23:59:59Z"`, `after ` + want + `"1969-12-31T23:59:59Z"`},
		{`"before":""`, `before ` + want + `""`},
		{`"before":true`, `before ` + want + `true`},
		{`"before":{"ms":1}`, `before ` + want + `{"ms":1}`},
		{`"after":5,"before":5`, `after must be earlier than before, got "1970-01-01T00:00:00.005Z" and before "1970-01-01T00:00:00.005Z"`},
		{`"after":"2026-11-02T00:00:00Z","before":"2026-11-01T00:00:00Z"`, `after must be earlier than before, got "2026-11-02T00:00:00Z" and before "2026-11-01T00:00:00Z"`},
		// Values are checked in table order before the range.
		{`"before":"x","after":"y"`, `after ` + want + `"y"`},
		{`"after":"y","limit":0`, `limit must be an integer 1..25, got 0`},
	}
	for _, tt := range bad {
		_, err := ParseSearchOptions(`{"caller":"c",` + tt.js + `}`)
		if err == nil || err.Error() != tt.err {
			t.Errorf("%s:\n got error %v\nwant error %s", tt.js, err, tt.err)
		}
		var oe *OptionError
		if err != nil && !strings.HasPrefix(tt.err, "limit") && (!errors.As(err, &oe) || (oe.Option != "after" && oe.Option != "before")) {
			t.Errorf("%s: error %v is not an *OptionError naming after or before", tt.js, err)
		}
	}
}

// The SQL bounds keep "strictly inside" exact for whole-millisecond
// timestamps: after rounds down, before rounds up.
func TestSQLTimeBounds(t *testing.T) {
	base := time.UnixMilli(1700000000000).UTC()
	tests := []struct {
		after, before         time.Time
		wantAfter, wantBefore any
	}{
		{time.Time{}, time.Time{}, nil, nil},
		{base, time.Time{}, int64(1700000000000), nil},
		{time.Time{}, base, nil, int64(1700000000000)},
		{base.Add(300 * time.Microsecond), base.Add(time.Millisecond + 300*time.Microsecond), int64(1700000000000), int64(1700000000002)},
		{time.UnixMilli(0), time.UnixMilli(1), int64(0), int64(1)},
	}
	for _, tt := range tests {
		o := SearchOptions{After: tt.after, Before: tt.before}
		if got := o.SQLAfter(); got != tt.wantAfter {
			t.Errorf("SQLAfter(%v) = %v, want %v", tt.after, got, tt.wantAfter)
		}
		if got := o.SQLBefore(); got != tt.wantBefore {
			t.Errorf("SQLBefore(%v) = %v, want %v", tt.before, got, tt.wantBefore)
		}
	}
}

// Decode takes some options from JSON over values set elsewhere, as an MCP
// tool does with its arguments over its command line.
func TestOptionsDecode(t *testing.T) {
	specs := SearchOptionSpecs().Select("limit", "order", "after")
	base := SearchOptions{Options: Options{Caller: "agent:ops:main", Visibility: "agent"}, Limit: 7}
	o := base
	if err := specs.Decode(`{"order":"recent"}`, &o); err != nil {
		t.Fatal(err)
	}
	want := base
	want.Order = "recent"
	if !reflect.DeepEqual(o, want) {
		t.Errorf("Decode over a base:\n got %+v\nwant %+v", o, want)
	}
	o = SearchOptions{Options: Options{Caller: "c"}}
	if err := specs.Decode(`{}`, &o); err != nil || o.Limit != 10 || o.Order != "relevance" {
		t.Errorf("Decode({}) over zero fields: %+v, %v; want the defaults", o, err)
	}
	for js, want := range map[string]string{
		`{"caller":"agent:main:main"}`: `unknown option "caller" (known: limit, order, after)`,
		`{"visibility":"all"}`:         `unknown option "visibility" (known: limit, order, after)`,
		`{"limit":0}`:                  `limit must be an integer 1..25, got 0`,
	} {
		o := base
		if err := specs.Decode(js, &o); err == nil || err.Error() != want {
			t.Errorf("Decode(%s): %v, want %s", js, err, want)
		}
	}
}

// The options of sessions_search, as the table states them once for the
// parser, the CLI's flags and the MCP tool's schema.
func ExampleSearchOptionSpecs() {
	for _, s := range SearchOptionSpecs() {
		fmt.Printf("%-17s %-7s %s\n", s.Name, s.Type, s.Usage())
	}
	// Output:
	// caller            string  the session `key` of the session that asks; the answer is what it may see
	// visibility        string  which sessions the caller sees: itself (self), those it spawned and, for an agent's main session, its agent's (tree), its agent's (agent), or also other agents' with agentToAgent (all) (default tree)
	// sandboxed         boolean the caller runs in a sandbox
	// sandboxVisibility string  what a sandboxed caller sees: only the sessions it spawned (spawned), or what its visibility says (all) (default spawned)
	// agentToAgent      object  cross-agent access under visibility all
	// ceiling           object  the most the caller may see, as an object of visibility, sandboxed, sandboxVisibility and agentToAgent: only the sessions that both the options and the ceiling show are seen
	// limit             integer at most `n` results (1..25, default 10)
	// sessionKey        string  search only the session with this `key`
	// snippetChars      integer the longest snippet in `characters` (1..4000, default 300)
	// maxBytes          integer the longest JSON answer in `bytes` (256..1048576, default 32768)
	// prefix            boolean match the last query term as a prefix
	// order             string  best first (relevance), newest first (recent), or best first with an older hit counting half for each 30 days (blend) (default relevance)
	// after             time    only messages written after this `time` (epoch milliseconds or RFC 3339)
	// before            time    only messages written before this `time` (epoch milliseconds or RFC 3339)
	// project           string  only sessions whose project directory (the cwd their transcript starts in) is `dir` or inside it
	// role              string  only the messages of a person (user) or only the agent's (assistant)
	// agent             array   only sessions of these agent `ids`
	// kind              array   only sessions of these kinds: a person's session with an agent (main), a sub-agent's (spawned), a cron or scheduled run (automated)
	// exclude           array   leave out the sessions with these `keys` (already seen)
	// group             string  results one per message (message), or grouped by session, limit then counting sessions, each with its best hits (session) (default message)
	// perSession        integer with group session, at most `n` hits of each session (1..10, default 3)
	// syntax            string  read every white-space separated term as text, all required (literal), or read "phrases", OR, -term and term* (query) (default literal)
	// match             string  only messages that hold every term (all), or those first, then messages with other forms of the words, then with the most of them (relaxed) (default all)
	// timePhrases       boolean with syntax query, read a phrase of a past or present time in the query's language (yesterday, last week, 3 days ago, in any language the tokenizer is tested in) as that period instead of words
	// now               time    the `time` that time phrases are relative to, in its time zone (default: the clock) (epoch milliseconds or RFC 3339)
	// scope             array   what to search: the messages (messages), the tool calls' names and arguments (toolCalls), the tools' output (toolResults), or several (default messages); each hit then says its kind and tool. Tool text is searchable in a store that indexes it (import --tools)
}
