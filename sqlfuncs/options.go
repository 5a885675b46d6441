package sqlfuncs

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/query"
)

// The options of sessions_search, sessions_history and session_visible are
// one Go type each (SearchOptions, HistoryOptions, Options), encoded as a
// JSON object by their struct tags and described, option by option, by the
// tables below (SearchOptionSpecs, HistoryOptionSpecs). The tables are the
// parser: every range, allowed value and default is stated there once, and
// CLI flags (OptionSpec.Flag) and MCP input schemas (OptionSpecs.Schema) are
// built from them.
//
// Parsing is strict, because an agent that misspells an option or sends "10"
// for 10 should learn it from the error instead of silently getting
// defaults:
//
//   - SQL NULL, an empty string and the JSON literal null mean "no options".
//   - Anything else must be one JSON object with nothing after it.
//   - Names are case-sensitive; an unknown or repeated name is an error.
//   - An option whose value is null takes its default (json_object() turns
//     an unbound parameter into null); for "caller" that means missing.
//   - Integers are integer literals: 10.0, 1e1 and "10" are errors.
//   - Strings that name something (caller, sessionKey, messageId) must not
//     be empty.
//   - Times (after, before) are epoch milliseconds or RFC 3339 strings.
//
// Errors name the option, what is allowed and the bad value, for example
// `limit must be an integer 1..25, got 40`; the SQL dispatcher puts the
// function's name in front. Problems are reported in this order: malformed
// JSON, unknown or repeated names (first in the text), then the values in
// the order of the tables.
//
// A Go value follows the same rules with one difference: a zero field means
// "absent" and takes its default, so SearchOptions{Options: Options{Caller:
// "agent:main:main"}} is valid; Validate checks the other fields.

// Orders of sessions_search results (package ranking ranks by them).
const (
	OrderRelevance = "relevance"
	OrderRecent    = "recent"
	OrderBlend     = "blend"
)

// Groupings of sessions_search results.
const (
	GroupMessage = "message"
	GroupSession = "session"
)

// Matches of sessions_search: how much of the query a hit must hold.
const (
	MatchAll     = "all"
	MatchRelaxed = "relaxed"
)

// Scopes of sessions_search: what it searches (docs/search.md Q33).
const (
	ScopeMessages    = "messages"
	ScopeToolCalls   = "toolCalls"
	ScopeToolResults = "toolResults"
)

// Kinds of session, for the kind filter (sessionkey.Kind).
const (
	KindMain      = "main"
	KindSpawned   = "spawned"
	KindAutomated = "automated"
)

// Options are the options every function takes: who asks, and what it may
// see (visibility.go). session_visible takes them without Caller, which is
// its first argument.
//
// Ceiling bounds what the other fields can show (docs/search.md Q22): the
// answer holds only the sessions that both they and the ceiling show. It
// is an Options without a caller (the ceiling is the same caller's) and
// without a ceiling of its own; those two fields of it are never read. A
// service sets it from what the asker was granted, so that nothing the
// asker sends in the other fields can show more.
type Options struct {
	Caller            string       `json:"caller,omitempty"`
	Visibility        string       `json:"visibility,omitempty"`        // self, tree (default), agent, all
	Sandboxed         bool         `json:"sandboxed,omitempty"`         // the caller runs in a sandbox
	SandboxVisibility string       `json:"sandboxVisibility,omitempty"` // spawned (default), all
	AgentToAgent      AgentToAgent `json:"agentToAgent,omitzero"`       // other agents, under "all"
	Ceiling           *Options     `json:"ceiling,omitempty"`           // nil: no bound but these options
}

// AgentToAgent is the cross-agent part of the "all" visibility.
type AgentToAgent struct {
	Enabled bool     `json:"enabled"`
	Allow   []string `json:"allow"` // agent id patterns: "*", globs, ids
}

// SearchOptions are the options of sessions_search.
type SearchOptions struct {
	Options
	Limit        int       `json:"limit,omitempty"`
	SessionKey   string    `json:"sessionKey,omitempty"` // empty: every visible session
	SnippetChars int       `json:"snippetChars,omitempty"`
	MaxBytes     int       `json:"maxBytes,omitempty"`
	Prefix       bool      `json:"prefix,omitempty"`
	Order        string    `json:"order,omitempty"`
	After        time.Time `json:"after,omitzero"`    // zero: no lower bound
	Before       time.Time `json:"before,omitzero"`   // zero: no upper bound
	Project      string    `json:"project,omitempty"` // empty: every project
	Role         string    `json:"role,omitempty"`    // empty: both roles
	Agent        []string  `json:"agent,omitempty"`   // empty: every agent
	Kind         []string  `json:"kind,omitempty"`    // empty: every kind
	Exclude      []string  `json:"exclude,omitempty"` // session keys left out
	Group        string    `json:"group,omitempty"`
	PerSession   int       `json:"perSession,omitempty"`
	Syntax       string    `json:"syntax,omitempty"`
	Match        string    `json:"match,omitempty"`
	TimePhrases  bool      `json:"timePhrases,omitempty"` // with syntax query: a time phrase bounds the search (Q40)
	Now          time.Time `json:"now,omitzero"`          // what time phrases are relative to; zero: the clock
	Scope        []string  `json:"scope,omitempty"`       // empty: messages
}

// Scopes says what the search reads (docs/search.md Q33): the messages,
// the tool calls, the tool results; the messages alone by default.
func (o SearchOptions) Scopes() (messages, calls, results bool) {
	if len(o.Scope) == 0 {
		return true, false, false
	}
	return slices.Contains(o.Scope, ScopeMessages), slices.Contains(o.Scope, ScopeToolCalls), slices.Contains(o.Scope, ScopeToolResults)
}

// SearchesTools reports whether the scope holds tool calls or results.
func (o SearchOptions) SearchesTools() bool {
	_, calls, results := o.Scopes()
	return calls || results
}

// HistoryOptions are the options of sessions_history.
type HistoryOptions struct {
	Options
	Limit        int    `json:"limit,omitempty"`
	MessageID    string `json:"messageId,omitempty"` // empty: the newest messages
	IncludeTools bool   `json:"includeTools,omitempty"`
	MaxChars     int    `json:"maxChars,omitempty"`
	MaxBytes     int    `json:"maxBytes,omitempty"`
}

// OptionType is the JSON type of an option.
type OptionType string

// The option types. A time is an integer of epoch milliseconds or an RFC
// 3339 string; an object's members are described by its Fields.
const (
	TypeString  OptionType = "string"
	TypeInteger OptionType = "integer"
	TypeBoolean OptionType = "boolean"
	TypeStrings OptionType = "array" // of strings
	TypeTime    OptionType = "time"
	TypeObject  OptionType = "object"
)

// OptionSpec describes one option: its JSON name and type, its range or
// allowed values, its default and its help. Name is the JSON name of the
// option's field in the options type (its struct tag).
type OptionSpec struct {
	Name     string
	Type     OptionType
	Min, Max int64       // TypeInteger; TypeTime in epoch milliseconds
	Enum     []string    // TypeString: the allowed values; nil: any non-empty string
	Default  any         // int, string or bool; nil: none
	Required bool        // no default: the option must be given
	Help     string      // a placeholder may be marked in backquotes, as package flag does
	Example  string      // TypeObject: a JSON example, for its error message
	Fields   OptionSpecs // TypeObject: the members
	Zone     bool        // TypeTime: keep the offset an RFC 3339 text gives (else the time is UTC)
}

// OptionSpecs are the options of one function, in the order they are
// checked.
type OptionSpecs []OptionSpec

// Times are limited to four-digit years, as RFC 3339 writes them.
var (
	minTime = time.UnixMilli(0).UTC()
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
)

var (
	agentToAgentSpecs = OptionSpecs{
		{Name: "enabled", Type: TypeBoolean, Default: false, Help: "let the caller see other agents' sessions under visibility all"},
		{Name: "allow", Type: TypeStrings, Help: "agent id patterns (`*`, globs with *, or ids) that both agents must match"},
	}
	// scopeSpecs are what a caller may see: the Options other than Caller
	// and Ceiling, and so the members of a ceiling.
	scopeSpecs = OptionSpecs{
		{Name: "visibility", Type: TypeString, Enum: []string{VisibilitySelf, VisibilityTree, VisibilityAgent, VisibilityAll}, Default: VisibilityTree,
			Help: "which sessions the caller sees: itself (self), those it spawned and, for an agent's main session, its agent's (tree), its agent's (agent), or also other agents' with agentToAgent (all)"},
		{Name: "sandboxed", Type: TypeBoolean, Default: false, Help: "the caller runs in a sandbox"},
		{Name: "sandboxVisibility", Type: TypeString, Enum: []string{SandboxSpawned, SandboxAll}, Default: SandboxSpawned,
			Help: "what a sandboxed caller sees: only the sessions it spawned (spawned), or what its visibility says (all)"},
		{Name: "agentToAgent", Type: TypeObject, Fields: agentToAgentSpecs, Example: `{"enabled":true,"allow":["*"]}`,
			Help: "cross-agent access under visibility all"},
	}
	// visibilitySpecs are the Options other than Caller, the options of
	// session_visible.
	visibilitySpecs = append(slices.Clone(scopeSpecs), OptionSpec{Name: "ceiling", Type: TypeObject, Fields: scopeSpecs,
		Example: `{"visibility":"tree","sandboxed":true}`,
		Help:    "the most the caller may see, as an object of visibility, sandboxed, sandboxVisibility and agentToAgent: only the sessions that both the options and the ceiling show are seen"})
	commonSpecs = append(OptionSpecs{
		{Name: "caller", Type: TypeString, Required: true, Help: "the session `key` of the session that asks; the answer is what it may see"},
	}, visibilitySpecs...)

	// The limits and their defaults are those of OpenClaw's own tools; the
	// other bounds are ours: at least enough for one useful character or an empty result
	// envelope, at most well beyond any agent's context window, so a typo
	// such as maxBytes 3276800000 is caught.
	searchSpecs = append(slices.Clone(commonSpecs), OptionSpecs{
		{Name: "limit", Type: TypeInteger, Min: 1, Max: 25, Default: 10, Help: "at most `n` results"},
		{Name: "sessionKey", Type: TypeString, Help: "search only the session with this `key`"},
		{Name: "snippetChars", Type: TypeInteger, Min: 1, Max: 4000, Default: 300, Help: "the longest snippet in `characters`"},
		{Name: "maxBytes", Type: TypeInteger, Min: 256, Max: 1 << 20, Default: 32768, Help: "the longest JSON answer in `bytes`"},
		{Name: "prefix", Type: TypeBoolean, Default: false, Help: "match the last query term as a prefix"},
		{Name: "order", Type: TypeString, Enum: []string{OrderRelevance, OrderRecent, OrderBlend}, Default: OrderRelevance,
			Help: "best first (relevance), newest first (recent), or best first with an older hit counting half for each 30 days (blend)"},
		{Name: "after", Type: TypeTime, Min: minTime.UnixMilli(), Max: maxTime.UnixMilli(), Help: "only messages written after this `time`"},
		{Name: "before", Type: TypeTime, Min: minTime.UnixMilli(), Max: maxTime.UnixMilli(), Help: "only messages written before this `time`"},
		{Name: "project", Type: TypeString, Help: "only sessions whose project directory (the cwd their transcript starts in) is `dir` or inside it"},
		{Name: "role", Type: TypeString, Enum: []string{"user", "assistant"}, Help: "only the messages of a person (user) or only the agent's (assistant)"},
		{Name: "agent", Type: TypeStrings, Help: "only sessions of these agent `ids`"},
		{Name: "kind", Type: TypeStrings, Enum: []string{KindMain, KindSpawned, KindAutomated},
			Help: "only sessions of these kinds: a person's session with an agent (main), a sub-agent's (spawned), a cron or scheduled run (automated)"},
		{Name: "exclude", Type: TypeStrings, Help: "leave out the sessions with these `keys` (already seen)"},
		{Name: "group", Type: TypeString, Enum: []string{GroupMessage, GroupSession}, Default: GroupMessage,
			Help: "results one per message (message), or grouped by session, limit then counting sessions, each with its best hits (session)"},
		{Name: "perSession", Type: TypeInteger, Min: 1, Max: 10, Default: 3, Help: "with group session, at most `n` hits of each session"},
		{Name: "syntax", Type: TypeString, Enum: []string{query.SyntaxLiteral, query.SyntaxQuery}, Default: query.SyntaxLiteral,
			Help: "read every white-space separated term as text, all required (literal), or read \"phrases\", OR, -term and term* (query)"},
		{Name: "match", Type: TypeString, Enum: []string{MatchAll, MatchRelaxed}, Default: MatchAll,
			Help: "only messages that hold every term (all), or those first, then messages with other forms of the words, then with the most of them (relaxed)"},
		{Name: "timePhrases", Type: TypeBoolean, Default: false,
			Help: "with syntax query, read a phrase of a past or present time in the query's language (yesterday, last week, 3 days ago, in any language the tokenizer is tested in) as that period instead of words"},
		{Name: "now", Type: TypeTime, Min: minTime.UnixMilli(), Max: maxTime.UnixMilli(), Zone: true,
			Help: "the `time` that time phrases are relative to, in its time zone (default: the clock)"},
		{Name: "scope", Type: TypeStrings, Enum: []string{ScopeMessages, ScopeToolCalls, ScopeToolResults},
			Help: "what to search: the messages (messages), the tool calls' names and arguments (toolCalls), the tools' output (toolResults), or several (default messages); each hit then says its kind and tool. Tool text is searchable in a store that indexes it (import --tools)"},
	}...)
	historySpecs = append(slices.Clone(commonSpecs), OptionSpecs{
		{Name: "limit", Type: TypeInteger, Min: 1, Max: 1000, Default: 200, Help: "at most `n` messages"},
		{Name: "messageId", Type: TypeString, Help: "a window around the message with this `id` instead of the newest messages"},
		{Name: "includeTools", Type: TypeBoolean, Default: false, Help: "also return tool results"},
		{Name: "maxChars", Type: TypeInteger, Min: 1, Max: 100000, Default: 4000, Help: "the longest text of a message in `characters`"},
		{Name: "maxBytes", Type: TypeInteger, Min: 256, Max: 4 << 20, Default: 81920, Help: "the longest JSON answer in `bytes`"},
	}...)
)

// SearchOptionSpecs describes the options of sessions_search.
func SearchOptionSpecs() OptionSpecs { return slices.Clone(searchSpecs) }

// answerDefaults are the defaults where a person or an agent asks in their
// own words (docs/search.md Q31): the query language, relaxed matching and
// results by session, the settings that find the most answers on LoCoMo
// (docs/quality.md). SQL and HTTP keep the defaults of the table, which
// CONTRACT.md states.
var answerDefaults = map[string]any{"syntax": query.SyntaxQuery, "match": MatchRelaxed, "group": GroupSession}

// AnswerOptionSpecs describes the options of sessions_search as the CLI's
// search and the MCP tool take them: SearchOptionSpecs with the defaults
// of answerDefaults.
func AnswerOptionSpecs() OptionSpecs {
	specs := SearchOptionSpecs()
	for i := range specs {
		if d, ok := answerDefaults[specs[i].Name]; ok {
			specs[i].Default = d
		}
	}
	return specs
}

// ParseAnswerOptions parses the options of sessions_search with the
// defaults of AnswerOptionSpecs for what is absent.
func ParseAnswerOptions(js string) (SearchOptions, error) {
	return parseSearch(AnswerOptionSpecs(), js)
}

// HistoryOptionSpecs describes the options of sessions_history.
func HistoryOptionSpecs() OptionSpecs { return slices.Clone(historySpecs) }

// VisibilityOptionSpecs describes the options of session_visible: those of
// Options but the caller.
func VisibilityOptionSpecs() OptionSpecs { return slices.Clone(visibilitySpecs) }

// ParseSearchOptions parses the options of sessions_search, with the
// defaults of SearchOptionSpecs for what is absent.
func ParseSearchOptions(js string) (SearchOptions, error) {
	return parseSearch(searchSpecs, js)
}

func parseSearch(specs OptionSpecs, js string) (SearchOptions, error) {
	var o SearchOptions
	if err := specs.parse(js, &o); err != nil {
		return SearchOptions{}, err
	}
	if err := o.checkTimes(); err != nil {
		return SearchOptions{}, err
	}
	return o, nil
}

// ParseHistoryOptions parses the options of sessions_history, with the
// defaults of HistoryOptionSpecs for what is absent.
func ParseHistoryOptions(js string) (HistoryOptions, error) {
	var o HistoryOptions
	if err := historySpecs.parse(js, &o); err != nil {
		return HistoryOptions{}, err
	}
	return o, nil
}

// ParseVisibilityOptions parses the optional third argument of
// session_visible(caller, target [, options]) and returns the caller's
// Policy. The caller is the first argument, so a "caller" option is an error
// rather than a second, possibly different, answer to the same question.
func ParseVisibilityOptions(caller, js string) (Policy, error) {
	if caller == "" {
		return Policy{}, errors.New("caller must be a non-empty session key")
	}
	o := Options{Caller: caller}
	if err := visibilitySpecs.parse(js, &o); err != nil {
		if u, ok := err.(*unknownOptionError); ok && u.name == "caller" {
			return Policy{}, errors.New(`unknown option "caller": the caller is the first argument`)
		}
		return Policy{}, err
	}
	return o.Policy(), nil
}

// Validate checks a Go value against the table: zero fields are absent and
// take their defaults, the others must be what the JSON could say.
func (o SearchOptions) Validate() error {
	if err := searchSpecs.validate(&o); err != nil {
		return err
	}
	return o.checkTimes()
}

// Validate checks a Go value against the table, as SearchOptions.Validate.
func (o HistoryOptions) Validate() error { return historySpecs.validate(&o) }

// Validate checks a Go value against the table, as SearchOptions.Validate.
func (o Options) Validate() error { return commonSpecs.validate(&o) }

// checkTimes rejects a time range that ends before it starts.
func (o SearchOptions) checkTimes() error {
	if !o.After.IsZero() && !o.Before.IsZero() && !o.After.Before(o.Before) {
		return &OptionError{Option: "after", Want: "earlier than before", Value: showTime(o.After) + " and before " + showTime(o.Before)}
	}
	return nil
}

// SQLProject returns the project filter as SearchSQL binds it (:project and
// :project_dir), both NULL without one (docs/search.md Q19). The directory
// is compared without trailing separators, and a session's cwd is inside it
// when it starts with the directory and a separator ("/", or "\" for a
// directory written with backslashes).
func (o SearchOptions) SQLProject() (project, dir any) {
	p := o.Project
	if p == "" {
		return nil, nil
	}
	sep := "/"
	if strings.Contains(p, `\`) && !strings.Contains(p, "/") {
		sep = `\`
	}
	trimmed := strings.TrimRight(p, sep)
	if trimmed == "" || strings.HasSuffix(trimmed, ":") { // the root: "/", or "C:\"
		return p, strings.TrimRight(p, sep) + sep
	}
	return trimmed, trimmed + sep
}

// SQLAfter and SQLBefore are the bounds of the search's time range as the
// search SQL takes them: epoch milliseconds, nil for none. A message is in
// the range when after < timestamp < before; times between two milliseconds
// keep that meaning for whole-millisecond timestamps (after rounds down,
// before rounds up).
func (o SearchOptions) SQLAfter() any {
	if o.After.IsZero() {
		return nil
	}
	return o.After.UnixMilli()
}

// SQLBefore: see SQLAfter.
func (o SearchOptions) SQLBefore() any {
	if o.Before.IsZero() {
		return nil
	}
	ms := o.Before.UnixMilli()
	if o.Before.After(time.UnixMilli(ms)) {
		ms++
	}
	return ms
}

func showTime(t time.Time) string { return strconv.Quote(t.UTC().Format(time.RFC3339Nano)) }

// OptionError is a bad option value: the option (inside an object, as
// "agentToAgent.allow"), what it must be, and the value as given, in JSON.
type OptionError struct {
	Option string
	Want   string
	Value  string
}

func (e *OptionError) Error() string { return e.Option + " must be " + e.Want + ", got " + e.Value }

// Decode reads an options object that may hold only these options into
// dst, a pointer to the options type they describe, over what dst holds:
// an absent option keeps its field, or takes its default when the field is
// zero. So an MCP tool can take some options from its arguments and the
// others (the caller and its visibility) from its command line. Checks
// across options are Validate's.
func (specs OptionSpecs) Decode(js string, dst any) error { return specs.parse(js, dst) }

// FillDefaults sets each field of dst (a pointer to the options type of
// specs) that is zero to its option's default, as Decode does for an
// absent option.
func (specs OptionSpecs) FillDefaults(dst any) {
	fields := fieldsOf(dst)
	for _, s := range specs {
		s.fillDefault(fields.field(s.Name))
	}
}
