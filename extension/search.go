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
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// Search and history: the rules are in package sqlfuncs; these functions
// run them over the store. Visibility takes one path: options → Policy
// (sqlfuncs) → the connection's cached decision for that policy → the rule
// (Policy.VisibleSet). sessions_search hands its decision to the
// session_visible call of its SELECT as an SQL pointer value, so the SELECT
// filters with the very policy the options gave, not a copy re-encoded.

// visibility returns the decision of a policy: the store's, cached on the
// connection while what it reads is unchanged (v, from snapshot).
func visibility(c *call, db conn, v store.Version, policy sqlfuncs.Policy) (*store.Decision, error) {
	return c.state.store.Visibility(db, v, policy)
}

// snapshotSQL holds a read transaction while it is stepped and not reset,
// on a database without the store's tables.
const snapshotSQL = `PRAGMA data_version`

// snapshot holds a read transaction on db until done, so that what the call
// reads is one version of the database, and returns the store.Version that
// names it: the change token when the schema keeps one (store.ChangeSQL,
// whose one row holds the transaction), else the database version. A
// function called by a statement that reads no table (SELECT
// sessions_search(...)) runs outside any transaction, where the version
// SQLite reports is the one of the last transaction and misses other
// connections' commits since.
func snapshot(c *call, db conn) (done func(), v store.Version, err error) {
	hasToken := true
	s, done, err := c.state.keptStatement(db, store.ChangeSQL)
	if err != nil { // no store here
		hasToken = false
		if s, done, err = c.state.keptStatement(db, snapshotSQL); err != nil {
			return nil, v, err
		}
	}
	row, err := s.step()
	if err != nil {
		done()
		return nil, v, err
	}
	if row && hasToken && !s.IsNull(0) {
		if token := s.Text(0); token != "" {
			return done, store.Version{Change: token}, nil
		}
	}
	dv := db.version()
	return done, store.Version{Data: dv[0], Changes: dv[1]}, nil
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
// as a pointer (boundDecision).
func fnSessionVisible(c *call) error {
	if err := c.argCount(2, 3, "(caller_key, target_key [, options_json])"); err != nil {
		return err
	}
	caller, target, js := c.text(0), c.text(1), c.text(2)
	if d := c.boundDecision(2); d != nil {
		c.resultInt(boolInt(d.Visible(target)))
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
	done, version, err := snapshot(c, c.conn())
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, c.conn(), version, policy)
	if err != nil {
		return err
	}
	c.setAuxdata(0, &visibleCache{caller, js, d.Visible})
	c.resultInt(boolInt(d.Visible(target)))
	return nil
}

// fnSessionsSearchable: sessions_searchable(caller_key, options_json,
// session_key) → BLOB: one byte per session number, 1 where a search by the
// caller reads the session (visible and not pending), only session_key's
// when it is not NULL (docs/search.md Q17). Inside sessions_search the
// options argument is the search's own decision, bound as a pointer.
func fnSessionsSearchable(c *call) error {
	d := c.boundDecision(1)
	db := c.conn()
	if d == nil {
		policy, err := sqlfuncs.ParseVisibilityOptions(c.text(0), c.text(1))
		if err != nil {
			return err
		}
		done, version, err := snapshot(c, db)
		if err != nil {
			return err
		}
		defer done()
		if d, err = visibility(c, db, version, policy); err != nil {
			return err
		}
	}
	mask, err := d.Searchable(db, c.text(2))
	if err != nil {
		return err
	}
	c.resultBlob(mask)
	return nil
}

// bindDecision binds a visibility decision to parameter name of s as an SQL
// pointer value; release after the statement is finalized.
func (s *stmt) bindDecision(name string, d *store.Decision) (release func(), err error) {
	i := s.paramIndex(name)
	if i == 0 {
		return nil, fmt.Errorf("bind: no parameter %s", name)
	}
	h := cgo.NewHandle(d)
	if rc := C.ss_bind_visible(s.s, i, C.uintptr_t(h)); rc != sqliteOK {
		h.Delete()
		return nil, s.c.errorf(rc, "bind %s", name)
	}
	return h.Delete, nil
}

// boundDecision returns the decision bound to argument i by bindDecision,
// or nil when the argument is not such a pointer.
func (c *call) boundDecision(i int) *store.Decision {
	if i >= len(c.args) {
		return nil
	}
	h := C.ss_value_visible(c.args[i])
	if h == 0 {
		return nil
	}
	return cgo.Handle(h).Value().(*store.Decision)
}

// snippetQuery is the phrases of sessions_snippet's query, kept for the
// rest of the statement on its query argument.
type snippetQuery struct {
	query   string
	prefix  bool
	phrases []sqlfuncs.Phrase
}

// fnSessionsSnippet: sessions_snippet(text, query, prefix, max_chars) →
// the snippet sessions_search shows for a text it found with the query
// (docs/search.md Q14): the masked window of at most max_chars characters
// around the query's matches.
func fnSessionsSnippet(c *call) error {
	maxChars, err := c.maxChars(3)
	if err != nil {
		return err
	}
	if c.isNull(0) {
		c.resultNull()
		return nil
	}
	query, prefix := c.text(1), false
	if !c.isNull(2) {
		v, err := c.int(2, "prefix")
		if err != nil {
			return err
		}
		prefix = v != 0
	}
	out := outputs.Get()
	defer outputs.Put(out)
	tokens := outputTokens{out}
	q, ok := c.auxdata(1).(*snippetQuery)
	if !ok || q.query != query || q.prefix != prefix {
		var terms []sqlfuncs.Token
		phrases, err := sqlfuncs.Phrases(query, prefix, func(term string) []sqlfuncs.Token {
			tokenizer.Options{}.Tokenize([]byte(term), true, out)
			terms = terms[:0]
			for i := range tokens.Len() {
				terms = append(terms, tokens.At(i))
			}
			return terms
		})
		if err != nil {
			return err
		}
		q = &snippetQuery{query, prefix, phrases}
		c.setAuxdata(1, q)
	}
	// The text is read in place: a message can be megabytes, and nothing
	// here keeps it past the call.
	b := c.textBytes(0)
	text := unsafe.String(unsafe.SliceData(b), len(b))
	c.resultText(sqlfuncs.SnippetOf(text, int(maxChars), func() []sqlfuncs.Range {
		tokenizer.Options{}.Tokenize(b, false, out)
		return sqlfuncs.Matches(tokens, q.phrases)
	}))
	return nil
}

// outputTokens is a tokenizer Output as sqlfuncs.Tokens, without a copy.
type outputTokens struct{ o *tokenizer.Output }

func (t outputTokens) Len() int { return len(t.o.Tokens) }

func (t outputTokens) At(i int) sqlfuncs.Token {
	k := t.o.Tokens[i]
	return sqlfuncs.Token{Text: t.o.Text(k), Start: int(k.Start), End: int(k.End), Colocated: k.Flags&tokenizer.Colocated != 0}
}

// SearchSQL is the single SELECT behind sessions_search (store.SearchSQL),
// under the name docs/search.md gives it.
var SearchSQL = store.SearchSQL

// fnSessionsSearch: sessions_search(query, options_json) → JSON.
func fnSessionsSearch(c *call) error {
	opts, err := c.state.searchOptions(c.text(1))
	if err != nil {
		return err
	}
	expr, err := c.state.matchExpr(c.text(0), opts.Prefix)
	if err != nil {
		return err
	}
	db := c.conn()
	done, version, err := snapshot(c, db)
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, db, version, opts.Policy())
	if err != nil {
		return err
	}
	visible := d.Visible
	if opts.SessionKey != "" {
		exists, err := d.Exists(db, opts.SessionKey)
		if err != nil {
			return err
		}
		if !visible(opts.SessionKey) || !exists {
			return fmt.Errorf("no session %q visible to %q", opts.SessionKey, opts.Caller)
		}
	}
	var results []sqlfuncs.SearchHit
	if expr != sqlfuncs.MatchNothing {
		if results, err = searchHits(c.state, db, c.text(0), opts, d); err != nil {
			return err
		}
	}
	truncated := len(results) > opts.Limit
	if truncated {
		results = results[:opts.Limit]
	}
	indexing, err := d.Pending(db, opts.SessionKey)
	if err != nil {
		return err
	}
	c.resultBytes(sqlfuncs.SearchJSON(results, indexing, truncated, opts.MaxBytes))
	return nil
}

// searchHits runs SearchSQL (or recentSQL) for up to Limit+1 hits, the one
// more telling whether the results were cut. :options is the search's
// visibility decision itself, as a pointer value.
func searchHits(state *connState, db conn, query string, opts sqlfuncs.SearchOptions, d *store.Decision) ([]sqlfuncs.SearchHit, error) {
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
	release, err := s.bindDecision(":options", d)
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
	done, version, err := snapshot(c, db)
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, db, version, opts.Policy())
	if err != nil {
		return err
	}
	var path []sqlfuncs.HistoryMessage
	found := false
	if d.Visible(key) {
		if path, found, err = store.HistoryCandidates(db, key, opts); err != nil {
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
