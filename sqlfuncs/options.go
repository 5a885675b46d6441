package sqlfuncs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The options argument of sessions_search, sessions_history and
// session_visible is a JSON object. Parsing is strict, because an agent that
// misspells an option or sends "10" for 10 should learn it from the error
// instead of silently getting defaults:
//
//   - SQL NULL, an empty string and the JSON literal null mean "no options".
//   - Anything else must be one JSON object with nothing after it.
//   - Names are case-sensitive; an unknown or repeated name is an error.
//   - An option whose value is null takes its default (json_object() turns
//     an unbound parameter into null); for "caller" that means missing.
//   - Integers are integer literals: 10.0, 1e1 and "10" are errors.
//   - Strings that name something (caller, sessionKey, messageId) must not
//     be empty.
//
// Errors name the function, the option, what is allowed and the bad value,
// for example `sessions_search: limit must be an integer 1..25, got 40`.
// Problems are reported in this order: malformed JSON, unknown or repeated
// names (first in the text), then the values in the order of the option
// tables below.

// Orders of sessions_search results.
const (
	OrderRelevance = "relevance"
	OrderRecent    = "recent"
)

// intOption is an integer option's range and default.
type intOption struct{ min, max, def int }

// Ranges of the integer options. The contract fixes the limits and the
// defaults; the other bounds are ours: at least enough for one useful
// character or an empty result envelope, at most well beyond any agent's
// context window, so a typo such as maxBytes 3276800000 is caught.
var (
	searchLimit     = intOption{1, 25, 10}
	searchSnippet   = intOption{1, 4000, 300}
	searchMaxBytes  = intOption{256, 1 << 20, 32768}
	historyLimit    = intOption{1, 1000, 200}
	historyMaxChars = intOption{1, 100000, 4000}
	historyMaxBytes = intOption{256, 4 << 20, 81920}
)

var (
	commonOptionNames  = []string{"caller", "visibility", "sandboxed", "sandboxVisibility", "agentToAgent"}
	searchOptionNames  = slices.Concat(commonOptionNames, []string{"limit", "sessionKey", "snippetChars", "maxBytes", "prefix", "order"})
	historyOptionNames = slices.Concat(commonOptionNames, []string{"limit", "messageId", "includeTools", "maxChars", "maxBytes"})
	visibleOptionNames = commonOptionNames[1:]
	a2aOptionNames     = []string{"enabled", "allow"}
)

// CommonOptions are the visibility options every function takes.
type CommonOptions struct {
	Caller            string
	Visibility        string
	Sandboxed         bool
	SandboxVisibility string
	AgentToAgent      AgentToAgent
}

// SearchOptions are the options of sessions_search.
type SearchOptions struct {
	CommonOptions
	Limit        int
	SessionKey   string // empty: every visible session
	SnippetChars int
	MaxBytes     int
	Prefix       bool
	Order        string
}

// HistoryOptions are the options of sessions_history.
type HistoryOptions struct {
	CommonOptions
	Limit        int
	MessageID    string // empty: the newest messages
	IncludeTools bool
	MaxChars     int
	MaxBytes     int
}

func defaultCommonOptions() CommonOptions {
	return CommonOptions{Visibility: VisibilityTree, SandboxVisibility: SandboxSpawned}
}

// ParseSearchOptions parses the options of sessions_search (fn names the SQL
// function in errors). caller is required. Defaults: limit 10 (1..25),
// snippetChars 300 (1..4000), maxBytes 32768 (256..1048576), order
// "relevance" ("relevance" or "recent"), prefix false, no sessionKey.
func ParseSearchOptions(fn, js string) (SearchOptions, error) {
	o := SearchOptions{
		CommonOptions: defaultCommonOptions(),
		Limit:         searchLimit.def,
		SnippetChars:  searchSnippet.def,
		MaxBytes:      searchMaxBytes.def,
		Order:         OrderRelevance,
	}
	r := readOptions(fn, js, searchOptionNames)
	r.common(&o.CommonOptions)
	r.integer("limit", searchLimit, &o.Limit)
	r.name("sessionKey", &o.SessionKey)
	r.integer("snippetChars", searchSnippet, &o.SnippetChars)
	r.integer("maxBytes", searchMaxBytes, &o.MaxBytes)
	r.boolean("prefix", &o.Prefix)
	r.oneOf("order", &o.Order, OrderRelevance, OrderRecent)
	if r.err != nil {
		return SearchOptions{}, r.err
	}
	return o, nil
}

// ParseHistoryOptions parses the options of sessions_history. caller is
// required. Defaults: limit 200 (1..1000), maxChars 4000 (1..100000),
// maxBytes 81920 (256..4194304), includeTools false, no messageId.
func ParseHistoryOptions(fn, js string) (HistoryOptions, error) {
	o := HistoryOptions{
		CommonOptions: defaultCommonOptions(),
		Limit:         historyLimit.def,
		MaxChars:      historyMaxChars.def,
		MaxBytes:      historyMaxBytes.def,
	}
	r := readOptions(fn, js, historyOptionNames)
	r.common(&o.CommonOptions)
	r.integer("limit", historyLimit, &o.Limit)
	r.name("messageId", &o.MessageID)
	r.boolean("includeTools", &o.IncludeTools)
	r.integer("maxChars", historyMaxChars, &o.MaxChars)
	r.integer("maxBytes", historyMaxBytes, &o.MaxBytes)
	if r.err != nil {
		return HistoryOptions{}, r.err
	}
	return o, nil
}

// ParseVisibilityOptions parses the optional third argument of
// session_visible(caller, target [, options]) and returns the caller's
// Policy. The caller is the first argument, so a "caller" option is an error
// rather than a second, possibly different, answer to the same question.
func ParseVisibilityOptions(fn, caller, js string) (Policy, error) {
	if caller == "" {
		return Policy{}, fmt.Errorf("%s: caller must be a non-empty session key", fn)
	}
	o := defaultCommonOptions()
	o.Caller = caller
	r := readOptions(fn, js, visibleOptionNames)
	r.visibility(&o)
	if r.err != nil {
		return Policy{}, r.err
	}
	return o.Policy(), nil
}

// optionReader decodes one JSON object option by option. The first error
// sticks and makes every later call a no-op, so parsers read as a list.
type optionReader struct {
	fn     string
	prefix string // "agentToAgent." inside the nested object
	values map[string]json.RawMessage
	order  []string // names in the order written
	err    error
}

func readOptions(fn, js string, known []string) *optionReader {
	r := &optionReader{fn: fn}
	r.values, r.order, r.err = parseObject(js)
	if r.err != nil {
		r.err = fmt.Errorf("%s: options must be a JSON object: %w", fn, r.err)
		return r
	}
	r.rejectUnknown(known)
	return r
}

// parseObject splits a JSON object into its raw member values and the names
// in the order written, repeats included. It walks the tokens itself because
// decoding into a map would silently keep the last of two equal names.
func parseObject(js string) (values map[string]json.RawMessage, order []string, err error) {
	defer func() {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("unexpected end of input")
		}
	}()
	values = map[string]json.RawMessage{}
	if s := strings.TrimSpace(js); s == "" || s == "null" {
		return values, nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(js))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("got %s", quoteValue([]byte(js)))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name := tok.(string) // inside an object the decoder only yields string names
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		values[name] = raw
		order = append(order, name)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("unexpected data after the object")
	}
	return values, order, nil
}

func (r *optionReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: "+format, append([]any{r.fn}, args...)...)
	}
}

func (r *optionReader) rejectUnknown(known []string) {
	seen := make(map[string]bool, len(r.order))
	for _, name := range r.order {
		switch {
		case seen[name]:
			r.fail("option %q is given twice", r.prefix+name)
		case !slices.Contains(known, name) && name == "caller" && r.prefix == "":
			r.fail(`unknown option "caller": the caller is the first argument`)
		case !slices.Contains(known, name):
			r.fail("unknown option %q (known: %s)", r.prefix+name, strings.Join(known, ", "))
		}
		if r.err != nil {
			return
		}
		seen[name] = true
	}
}

// raw returns the value of an option that is present and not null.
func (r *optionReader) raw(name string) (json.RawMessage, bool) {
	v, ok := r.values[name]
	if r.err != nil || !ok || string(v) == "null" {
		return nil, false
	}
	return v, true
}

func (r *optionReader) common(o *CommonOptions) {
	if _, ok := r.raw("caller"); !ok {
		r.fail("option %q is required", "caller")
	}
	r.name("caller", &o.Caller)
	r.visibility(o)
}

func (r *optionReader) visibility(o *CommonOptions) {
	r.oneOf("visibility", &o.Visibility, VisibilitySelf, VisibilityTree, VisibilityAgent, VisibilityAll)
	r.boolean("sandboxed", &o.Sandboxed)
	r.oneOf("sandboxVisibility", &o.SandboxVisibility, SandboxSpawned, SandboxAll)
	r.agentToAgent(&o.AgentToAgent)
}

func (r *optionReader) agentToAgent(a *AgentToAgent) {
	const name = "agentToAgent"
	v, ok := r.raw(name)
	if !ok {
		return
	}
	if v[0] != '{' {
		r.fail(`%s must be an object like {"enabled":true,"allow":["*"]}, got %s`, name, quoteValue(v))
		return
	}
	// The outer parse has checked the syntax, so this cannot fail.
	values, order, _ := parseObject(string(v))
	inner := &optionReader{fn: r.fn, prefix: name + ".", values: values, order: order}
	inner.rejectUnknown(a2aOptionNames)
	inner.boolean("enabled", &a.Enabled)
	if v, ok := inner.raw("allow"); ok {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			inner.fail("%sallow must be an array of strings, got %s", inner.prefix, quoteValue(v))
		}
		for _, item := range items {
			var pattern string
			if item[0] != '"' || json.Unmarshal(item, &pattern) != nil {
				inner.fail("%sallow must be an array of strings, got %s", inner.prefix, quoteValue(v))
				break
			}
			a.Allow = append(a.Allow, pattern)
		}
	}
	if r.err == nil {
		r.err = inner.err
	}
}

func (r *optionReader) integer(name string, rng intOption, dst *int) {
	v, ok := r.raw(name)
	if !ok {
		return
	}
	n, err := strconv.Atoi(string(v))
	if !isIntegerLiteral(v) || err != nil || n < rng.min || n > rng.max {
		r.fail("%s%s must be an integer %d..%d, got %s", r.prefix, name, rng.min, rng.max, quoteValue(v))
		return
	}
	*dst = n
}

func (r *optionReader) boolean(name string, dst *bool) {
	v, ok := r.raw(name)
	if !ok {
		return
	}
	switch string(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		r.fail("%s%s must be true or false, got %s", r.prefix, name, quoteValue(v))
	}
}

// name reads a string that names a session or message, so it must not be
// empty.
func (r *optionReader) name(name string, dst *string) {
	v, ok := r.raw(name)
	if !ok {
		return
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil || s == "" {
		r.fail("%s%s must be a non-empty string, got %s", r.prefix, name, quoteValue(v))
		return
	}
	*dst = s
}

func (r *optionReader) oneOf(name string, dst *string, allowed ...string) {
	v, ok := r.raw(name)
	if !ok {
		return
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil || !slices.Contains(allowed, s) {
		quoted := make([]string, len(allowed))
		for i, a := range allowed {
			quoted[i] = strconv.Quote(a)
		}
		list := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
		r.fail("%s%s must be %s, got %s", r.prefix, name, list, quoteValue(v))
		return
	}
	*dst = s
}

// isIntegerLiteral accepts the JSON integer syntax: digits after an optional
// minus. The decoder has already rejected leading zeros and plus signs.
func isIntegerLiteral(v []byte) bool {
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// quoteValue shows a bad value in an error message as JSON, compacted and cut
// to 60 bytes, so a huge value does not drown the message.
func quoteValue(v []byte) string {
	const max = 60
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		v = buf.Bytes()
	}
	if len(v) <= max {
		return string(v)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "…"
}
