package extension

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/store"
)

// Search and history: the rules are in package sqlfuncs; these functions
// run them over the store. Visibility takes one path: options → Policy
// (sqlfuncs) → the connection's cached decision for that policy → the rule
// (Policy.VisibleSet). sessions_search hands its decision to the
// session_visible call of its SELECT as an SQL pointer value, so the SELECT
// filters with the very policy the options gave, not a copy re-encoded.

// visibility returns the decision of a policy: the store's, cached on the
// connection while the database is unchanged.
func visibility(c *call, db conn, policy sqlfuncs.Policy) (func(string) bool, error) {
	return c.state.store.Visibility(db, db.version(), policy)
}

// visibleCache is one caller's visibility, kept for the rest of the
// statement on session_visible's caller argument.
type visibleCache struct {
	caller, options string
	visible         func(target string) bool
}

// fnSessionVisible: session_visible(caller_key, target_key [, options_json])
// → 1 or 0. The caller's visibility is computed once per statement. Inside
// sessions_search the options argument is the search's own decision, bound
// as a pointer (boundVisible).
func fnSessionVisible(c *call) error {
	if err := c.argCount(2, 3, "(caller_key, target_key [, options_json])"); err != nil {
		return err
	}
	caller, target, js := c.text(0), c.text(1), c.text(2)
	if visible := c.boundVisible(2); visible != nil {
		c.resultInt(boolInt(visible(target)))
		return nil
	}
	if cached, ok := c.auxdata(0).(*visibleCache); ok && cached.caller == caller && cached.options == js {
		c.resultInt(boolInt(cached.visible(target)))
		return nil
	}
	policy, err := sqlfuncs.ParseVisibilityOptions(caller, js)
	if err != nil {
		return err
	}
	visible, err := visibility(c, c.conn(), policy)
	if err != nil {
		return err
	}
	c.setAuxdata(0, &visibleCache{caller, js, visible})
	c.resultInt(boolInt(visible(target)))
	return nil
}

// bindVisible binds a visibility decision to parameter name of s as an SQL
// pointer value; release after the statement is finalized.
func (s *stmt) bindVisible(name string, visible func(string) bool) (release func(), err error) {
	cname := C.CString(name)
	i := C.ss_bind_parameter_index(s.s, cname)
	C.free(unsafe.Pointer(cname))
	if i == 0 {
		return nil, fmt.Errorf("bind: no parameter %s", name)
	}
	h := cgo.NewHandle(visible)
	if rc := C.ss_bind_visible(s.s, i, C.uintptr_t(h)); rc != sqliteOK {
		h.Delete()
		return nil, s.c.errorf(rc, "bind %s", name)
	}
	return h.Delete, nil
}

// boundVisible returns the decision bound to argument i by bindVisible, or
// nil when the argument is not such a pointer.
func (c *call) boundVisible(i int) func(string) bool {
	if i >= len(c.args) {
		return nil
	}
	h := C.ss_value_visible(c.args[i])
	if h == 0 {
		return nil
	}
	return cgo.Handle(h).Value().(func(string) bool)
}

// SearchSQL is the single SELECT behind sessions_search (store.SearchSQL),
// under the name docs/search.md gives it.
const SearchSQL = store.SearchSQL

// fnSessionsSearch: sessions_search(query, options_json) → JSON.
func fnSessionsSearch(c *call) error {
	opts, err := sqlfuncs.ParseSearchOptions(c.text(1))
	if err != nil {
		return err
	}
	expr, err := sqlfuncs.MatchExpr(c.text(0), opts.Prefix, hasTokens)
	if err != nil {
		return err
	}
	db := c.conn()
	visible, err := visibility(c, db, opts.Policy())
	if err != nil {
		return err
	}
	if opts.SessionKey != "" {
		exists, err := store.SessionExists(db, opts.SessionKey)
		if err != nil {
			return err
		}
		if !visible(opts.SessionKey) || !exists {
			return fmt.Errorf("no session %q visible to %q", opts.SessionKey, opts.Caller)
		}
	}
	var results []sqlfuncs.SearchHit
	if expr != sqlfuncs.MatchNothing {
		if results, err = searchHits(c.state, db, c.text(0), opts, visible); err != nil {
			return err
		}
	}
	truncated := len(results) > opts.Limit
	if truncated {
		results = results[:opts.Limit]
	}
	indexing, err := store.AnyPendingVisible(db, opts.SessionKey, visible)
	if err != nil {
		return err
	}
	c.resultBytes(sqlfuncs.SearchJSON(results, indexing, truncated, opts.MaxBytes))
	return nil
}

// searchHits runs SearchSQL (or recentSQL) for up to Limit+1 hits, the one
// more telling whether the results were cut. :options is the search's
// visibility decision itself, as a pointer value.
func searchHits(state *connState, db conn, query string, opts sqlfuncs.SearchOptions, visible func(string) bool) ([]sqlfuncs.SearchHit, error) {
	sql := store.SearchSQL
	if opts.Order == sqlfuncs.OrderRecent {
		sql = store.RecentSQL
	}
	project, projectDir := opts.SQLProject()
	var session any
	if opts.SessionKey != "" {
		session = opts.SessionKey
	}
	s, done, err := state.keptStatement(db, sql)
	if err != nil {
		return nil, err
	}
	release, err := s.bindVisible(":options", visible)
	if err != nil {
		done()
		return nil, err
	}
	// The handle goes after the statement has let go of it.
	defer func() { done(); release() }()
	var hits []sqlfuncs.SearchHit
	err = s.each(func(store.Row) error {
		hits = append(hits, sqlfuncs.SearchHit{SessionKey: s.Text(0), MessageID: s.Text(1),
			Role: s.Text(2), Timestamp: s.Int(3), Snippet: s.Text(4), Score: s.Float(5)})
		return nil
	}, named{":query": query, ":prefix": opts.Prefix, ":session": session, ":after": opts.SQLAfter(), ":before": opts.SQLBefore(), ":project": project, ":project_dir": projectDir,
		":caller": opts.Caller, ":limit": opts.Limit + 1, ":snippet_chars": opts.SnippetChars})
	return hits, err
}

// fnSessionsHistory: sessions_history(session_key, options_json) → JSON.
func fnSessionsHistory(c *call) error {
	key := c.text(0)
	opts, err := sqlfuncs.ParseHistoryOptions(c.text(1))
	if err != nil {
		return err
	}
	db := c.conn()
	visible, err := visibility(c, db, opts.Policy())
	if err != nil {
		return err
	}
	var path []sqlfuncs.HistoryMessage
	found := false
	if visible(key) {
		if path, found, err = store.ActivePath(db, key); err != nil {
			return err
		}
	}
	if !found {
		// Missing and hidden sessions are one error: the caller learns
		// nothing about sessions it cannot see.
		return fmt.Errorf("no session %q visible to %q", key, opts.Caller)
	}
	res := sqlfuncs.HistoryWindow(key, path, opts, func(s string) string {
		out, _ := redact.Text(s)
		return out
	})
	c.resultBytes(res.JSON())
	return nil
}
