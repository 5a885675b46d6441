package extension

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/query"
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// Flags of sqlite3_create_function_v2.
const (
	deterministic = 0x000000800 // SQLITE_DETERMINISTIC
	directOnly    = 0x000080000 // SQLITE_DIRECTONLY
	innocuous     = 0x000200000 // SQLITE_INNOCUOUS
)

// function is one SQL function: its name, its number of arguments (-1 for
// any), its flags and its implementation.
type function struct {
	name  string
	nArg  int
	flags int
	impl  func(c *call) error
}

// functions is the registration table: bridge.c registers each entry on
// every connection, in this order. An implementation returns an error to
// make the SQL statement fail with its message (the dispatcher names the
// function). Flags (docs/store.md S13): functions that change the database
// are DIRECTONLY, except those the store's triggers call, which cannot be:
// they are neither, so with trusted_schema off no schema (a trigger or view
// in a hostile database) can call them, and the store's writes are refused
// whole, as FTS5 refuses a trigger's write then anyway. Functions without
// side effects are INNOCUOUS, so that reading works whatever the setting.
var functions = []function{
	{"sessionsearch_version", 0, deterministic | innocuous, fnVersion},
	{"sessionsearch_debug", 0, innocuous, fnDebug},
	{"sessionsearch_tokens", -1, deterministic | innocuous, fnTokens},
	{"redact_snippet", -1, deterministic | innocuous, fnRedactSnippet},
	{"sessions_match", -1, deterministic | innocuous, fnMatch},
	{"session_visible", -1, 0, fnSessionVisible},
	{"sessions_searchable", 3, 0, fnSessionsSearchable},
	{"sessions_snippet", 4, deterministic | innocuous, fnSessionsSnippet},
	{"sessions_search", 2, 0, fnSessionsSearch},
	{"sessions_history", 2, 0, fnSessionsHistory},
	// The transcript store (store.go).
	{"sessionsearch_migrate", 0, directOnly, fnMigrate},
	{"sessions_defer_indexing", 1, directOnly, fnDeferIndexing},
	{"sessionsearch_tool_index", -1, directOnly, fnToolIndex},
	{"sessions_reconcile", -1, directOnly, fnReconcile},
	{"sessions_index_status", 0, 0, fnIndexStatus},
	{"sessionsearch_event", 1, deterministic | innocuous, fnEvent},
	{"sessionsearch_load", 1, directOnly, fnLoad},
	// Called by the store's triggers.
	{"sessionsearch_entry", 11, 0, fnEntry},
	{"sessionsearch_index_version", 0, deterministic | innocuous, fnIndexVersion},
	{"sessionsearch_message_text", 3, innocuous, fnMessageText},
	{"sessionsearch_tool_text", 1, deterministic | innocuous, fnToolText},
	{"sessionsearch_refuse", 4, innocuous, fnRefuse},
	{"sessionsearch_key_problem", 3, deterministic | innocuous, fnKeyProblem},
	{"sessionsearch_replacing", 0, innocuous, fnReplacing},
	{"sessionsearch_repath", 1, 0, fnRepath},
	{"sessionsearch_loading", 0, innocuous, fnLoading},
}

//export sessionsearch_go_function_count
func sessionsearch_go_function_count() C.int { return C.int(len(functions)) }

//export sessionsearch_go_function_info
func sessionsearch_go_function_info(i C.int, name **C.char, nArg *C.int, flags *C.int) {
	f := functions[i]
	*name = C.CString(f.name)
	*nArg = C.int(f.nArg)
	*flags = C.int(f.flags)
}

// connState is the extension's state for one connection, created when the
// functions are registered on it and released when it closes.
type connState struct {
	store store.State
	frame []byte // scratch for sessionsearch_event's decoding
	// hooked: the close hook is connected (bridge.c), so statements may be
	// kept prepared; it finalizes them before the connection closes.
	hooked bool
	kept   map[string]*stmt
	// lastSearch: the options text of the last sessions_search call and
	// what it parsed to; a caller asks with the same options again and again.
	lastSearch struct {
		text string
		opts sqlfuncs.SearchOptions
		ok   bool
	}
	// lastPlan: the last query planned (package query), reused: a search
	// plans its query, and then its statement's sessions_match and
	// sessions_snippet ask again.
	lastPlan struct {
		text, syntax        string
		prefix, phrases, ok bool
		plan                *searchPlan
	}
	// wordCache: what weighing a search's words read (search.go).
	wordCache wordCache
}

// plan returns the plan of a query read in a syntax (query.ParseSyntax),
// reusing the last one. With phrases, a time phrase of a query in the
// query syntax is taken out of it (query.FindTimePhrase) and kept in the
// plan (docs/search.md Q40).
func (st *connState) plan(text string, prefix bool, syntax string, phrases bool) (*searchPlan, error) {
	if last := &st.lastPlan; last.ok && last.text == text && last.prefix == prefix && last.syntax == syntax && last.phrases == phrases {
		return last.plan, nil
	}
	words := text
	var when *query.TimePhrase
	if phrases && syntax == query.SyntaxQuery {
		if rest, p, ok := query.FindTimePhrase(text); ok {
			words, when = rest, &p
		}
	}
	q, err := query.ParseSyntax(words, prefix, syntax)
	if err != nil {
		return nil, err
	}
	p := &searchPlan{Plan: query.NewPlan(q), when: when}
	last := &st.lastPlan
	last.text, last.prefix, last.syntax, last.phrases, last.plan, last.ok = text, prefix, syntax, phrases, p, true
	return p, nil
}

// searchOptions parses sessions_search's options, reusing the last parse
// when the text is the same.
func (st *connState) searchOptions(text string) (sqlfuncs.SearchOptions, error) {
	if last := &st.lastSearch; last.ok && last.text == text {
		return last.opts, nil
	}
	opts, err := sqlfuncs.ParseSearchOptions(text)
	if err == nil {
		st.lastSearch.text, st.lastSearch.opts, st.lastSearch.ok = text, opts, true
	}
	return opts, err
}

//export sessionsearch_go_conn_open
func sessionsearch_go_conn_open() C.uintptr_t {
	return C.uintptr_t(cgo.NewHandle(&connState{}))
}

// sessionsearch_go_conn_share returns another handle to a connection's
// state, for the close hook, which may outlive the functions' handle.
//
//export sessionsearch_go_conn_share
func sessionsearch_go_conn_share(h C.uintptr_t) C.uintptr_t {
	return C.uintptr_t(cgo.NewHandle(cgo.Handle(h).Value()))
}

// sessionsearch_go_conn_hooked: the close hook connected (on) or is
// disconnecting, as the connection closes: the kept statements go.
//
//export sessionsearch_go_conn_hooked
func sessionsearch_go_conn_hooked(h C.uintptr_t, on C.int) {
	defer func() { panicError("close hook", recover()) }()
	st := cgo.Handle(h).Value().(*connState)
	st.hooked = on != 0
	if !st.hooked {
		for sql, s := range st.kept {
			C.ss_finalize_own(s.c.db, s.s)
			delete(st.kept, sql)
		}
	}
}

// keptStatement returns sql prepared, kept for the connection's life when
// the close hook allows it, and done, which leaves it ready for the next
// call (reset, no bindings) or finalizes it. A statement already running
// (a nested call) is not shared: the call gets its own.
func (st *connState) keptStatement(db conn, sql string) (s *stmt, done func(), err error) {
	if s := st.kept[sql]; s != nil && st.hooked && !s.inUse {
		s.inUse = true
		return s, s.release, nil
	}
	if s, err = db.prepare(sql); err != nil {
		return nil, nil, err
	}
	if !st.hooked || st.kept[sql] != nil {
		return s, s.Close, nil
	}
	if st.kept == nil {
		st.kept = map[string]*stmt{}
	}
	st.kept[sql] = s
	s.inUse = true
	return s, s.release, nil
}

//export sessionsearch_go_function
func sessionsearch_go_function(ctx *C.sqlite3_context, id C.int, connHandle C.uintptr_t, argc C.int, argv **C.sqlite3_value, read *C.ss_arg, nread C.int) {
	f := functions[id]
	c := &call{ctx: ctx, args: unsafe.Slice(argv, int(argc)), name: f.name, state: cgo.Handle(connHandle).Value().(*connState)}
	if nread > 0 {
		c.read = unsafe.Slice(read, int(nread))
	}
	defer func() {
		if r := recover(); r != nil {
			panicError(f.name, r)
			c.resultError(fmt.Errorf("%s: internal error: %v", f.name, r))
		}
	}()
	if err := f.impl(c); err != nil {
		c.resultError(withName(f.name, err))
	}
}

// withName puts the function's name before an error's message, once: the
// implementations and the pure packages say what is wrong, the dispatcher
// says where. Refusals name their table instead.
func withName(fn string, err error) error {
	var r *store.Refusal
	if errors.As(err, &r) {
		return err
	}
	var se *sqliteErr
	if errors.As(err, &se) {
		return &sqliteErr{code: se.code, msg: fn + ": " + err.Error()}
	}
	return fmt.Errorf("%s: %w", fn, err)
}

// argCount checks the number of arguments of a variadic function.
func (c *call) argCount(min, max int, usage string) error {
	if len(c.args) < min || len(c.args) > max {
		return fmt.Errorf("expected %s, got %d arguments", usage, len(c.args))
	}
	return nil
}

func fnVersion(c *call) error {
	c.resultText(Version)
	return nil
}

func fnDebug(c *call) error {
	c.resultText(Build(C.GoString(C.ss_libversion())).String())
	return nil
}

// maxTokensText bounds sessionsearch_tokens' input: its JSON is about 40
// times the text, so 1 MiB gives at most some 40 MB (16 MiB took 1.27 GB).
const maxTokensText = 1 << 20

// fnTokens: sessionsearch_tokens(text [, options [, 'document'|'query']])
// returns the tokens of text as JSON, for checking what the tokenizer does
// (and its options: FTS5 reports only "error in tokenizer constructor").
func fnTokens(c *call) error {
	if err := c.argCount(1, 3, "(text [, options [, 'document'|'query']])"); err != nil {
		return err
	}
	var opts tokenizer.Options
	if !c.isNull(1) {
		var err error
		if opts, err = tokenizer.ParseOptionString(c.text(1)); err != nil {
			return err
		}
	}
	query := false
	if !c.isNull(2) {
		switch mode := c.text(2); mode {
		case "document":
		case "query":
			query = true
		default:
			return fmt.Errorf("mode must be 'document' or 'query', got %q", mode)
		}
	}
	if c.isNull(0) {
		c.resultNull()
		return nil
	}
	text := []byte(c.text(0))
	if len(text) > maxTokensText {
		return fmt.Errorf("text must be at most %d bytes, got %d (the tokens of a longer text are too many to show; index it with FTS5 instead)", maxTokensText, len(text))
	}
	out := outputs.Get()
	defer outputs.Put(out)
	opts.Tokenize(text, query, out)
	type tok struct {
		Token     string `json:"token"`
		Start     int32  `json:"start"`
		End       int32  `json:"end"`
		Colocated bool   `json:"colocated,omitempty"`
	}
	toks := make([]tok, len(out.Tokens))
	for i, t := range out.Tokens {
		toks[i] = tok{string(out.Text(t)), t.Start, t.End, t.Flags&tokenizer.Colocated != 0}
	}
	b, err := json.Marshal(toks)
	if err != nil {
		return err
	}
	c.resultBytes(b)
	return nil
}

// fnRedactSnippet: redact_snippet(text [, max_chars]).
func fnRedactSnippet(c *call) error {
	if err := c.argCount(1, 2, "(text [, max_chars])"); err != nil {
		return err
	}
	max := int64(0)
	if len(c.args) > 1 && !c.isNull(1) {
		var err error
		if max, err = c.maxChars(1); err != nil {
			return err
		}
	}
	if c.isNull(0) {
		c.resultNull()
		return nil
	}
	text := c.text(0)
	out, changed := redact.Text(text)
	cut := sqlfuncs.CutChars(out, int(max))
	if !changed && len(cut) == len(text) && c.isText(0) {
		c.resultArg(0) // unchanged text passes through without a copy
		return nil
	}
	c.resultText(cut)
	return nil
}

// maxChars reads argument i as a max_chars: an integer of at least 1.
func (c *call) maxChars(i int) (int64, error) {
	n, err := c.int(i, "max_chars")
	if err == nil && n < 1 {
		err = fmt.Errorf("max_chars must be at least 1, got %d", n)
	}
	return n, err
}

// fnMatch: sessions_match(query [, prefix]).
func fnMatch(c *call) error {
	if err := c.argCount(1, 2, "(query [, prefix])"); err != nil {
		return err
	}
	prefix := false
	if len(c.args) > 1 && !c.isNull(1) {
		v, err := c.int(1, "prefix")
		if err != nil {
			return err
		}
		prefix = v != 0
	}
	p, err := c.state.plan(c.text(0), prefix, query.SyntaxLiteral, false)
	if err != nil {
		return err
	}
	c.resultText(p.All)
	return nil
}

//export sessionsearch_go_snippet
func sessionsearch_go_snippet(ctx *C.sqlite3_context, text *C.char, nText C.int, ranges *C.int, nRanges C.int, maxChars C.int) {
	c := &call{ctx: ctx, name: "sessionsearch_snippet"}
	defer func() {
		if r := recover(); r != nil {
			panicError(c.name, r)
			c.resultError(fmt.Errorf("%s: internal error: %v", c.name, r))
		}
	}()
	s := C.GoStringN(text, nText)
	rs := unsafe.Slice(ranges, 2*int(nRanges))
	matches := make([]sqlfuncs.Range, nRanges)
	for i := range matches {
		matches[i] = sqlfuncs.Range{Start: int(rs[2*i]), End: int(rs[2*i+1])}
	}
	c.resultText(sqlfuncs.Snippet(s, matches, int(maxChars)))
}
