package extension

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"strings"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Search and history: the rules are in package sqlfuncs; these functions
// run them over the store. Visibility takes one path: options → Policy
// (sqlfuncs) → the connection's cached decision for that policy → the rule
// (Policy.VisibleSet). sessions_search hands its decision to the
// session_visible call of its SELECT as an SQL pointer value, so the SELECT
// filters with the very policy the options gave, not a copy re-encoded.

// visibilityCache keeps the decisions of the last few policies on a
// connection, by their Key, while the database is unchanged: an MCP server
// or a gateway asks for several callers in turn on one connection.
type visibilityCache struct {
	version [2]int64
	byKey   map[string]func(string) bool
}

// maxCachedPolicies bounds the cache; each decision holds its caller's
// spawn tree, so a few are small.
const maxCachedPolicies = 8

// visibility returns the decision of a policy, reading the sessions it
// needs from the store, or the connection's cached one.
func visibility(c *call, db conn, policy sqlfuncs.Policy) (func(string) bool, error) {
	cache := &c.state.visible
	key, version := policy.Key(), db.version()
	if cache.version != version {
		cache.version, cache.byKey = version, nil
	}
	if visible, ok := cache.byKey[key]; ok {
		return visible, nil
	}
	var forest *sqlfuncs.Forest
	if policy.NeedsForest() {
		// The caller's spawn tree is all the rules look at.
		var rows []sqlfuncs.SessionLinks
		err := db.query(`WITH RECURSIVE tree(key) AS (
				SELECT ?1
				UNION SELECT s.session_key FROM sessions s JOIN tree ON s.spawned_by = tree.key
				UNION SELECT s.session_key FROM sessions s JOIN tree ON s.parent_session_key = tree.key)
			SELECT s.session_key, coalesce(s.spawned_by, ''), coalesce(s.parent_session_key, '')
			FROM tree JOIN sessions s ON s.session_key = tree.key`, func(s *stmt) error {
			rows = append(rows, sqlfuncs.SessionLinks{Key: s.text(0), SpawnedBy: s.text(1), ParentKey: s.text(2)})
			return nil
		}, policy.Caller())
		if err != nil {
			return nil, err
		}
		forest = sqlfuncs.NewForest(rows)
	}
	visible := policy.VisibleSet(forest)
	if cache.byKey == nil {
		cache.byKey = make(map[string]func(string) bool, maxCachedPolicies)
	}
	if len(cache.byKey) >= maxCachedPolicies {
		for k := range cache.byKey { // any one: callers that come back are few
			delete(cache.byKey, k)
			break
		}
	}
	cache.byKey[key] = visible
	return visible, nil
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

// SearchSQL is the single SELECT behind sessions_search, the one the README
// shows: named parameters :query and :prefix (as sessions_match takes them),
// :session (one session key, or NULL), :after and :before (epoch
// milliseconds, or NULL: messages strictly between them), :caller and
// :options (as session_visible takes them), :limit and :snippet_chars. Rows:
// session key, message id, role, timestamp, snippet, score, best first.
const SearchSQL = `WITH hits AS MATERIALIZED (
  SELECT m.rowid, m.session_key, m.message_id, m.role, m.timestamp, -f.rank AS score
  FROM sessionsearch_fts AS f JOIN sessionsearch_messages AS m ON m.rowid = f.rowid
  WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
    AND NOT m.pending
    AND (:session IS NULL OR m.session_key = :session)
    AND (:after IS NULL OR m.timestamp > :after)
    AND (:before IS NULL OR m.timestamp < :before)
    AND session_visible(:caller, m.session_key, :options)
  ORDER BY score DESC, m.timestamp DESC, m.message_id, m.rowid
  LIMIT :limit)
SELECT hits.session_key, hits.message_id, hits.role, hits.timestamp,
  sessionsearch_snippet(sessionsearch_fts, :snippet_chars) AS snippet, hits.score
FROM hits CROSS JOIN sessionsearch_fts ON sessionsearch_fts.rowid = hits.rowid
WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
ORDER BY hits.score DESC, hits.timestamp DESC, hits.message_id, hits.rowid`

// recentSQL is SearchSQL in the "recent" order: newest first.
var recentSQL = strings.NewReplacer(
	"ORDER BY score DESC, m.timestamp DESC, m.message_id, m.rowid", "ORDER BY m.timestamp DESC, m.rowid DESC",
	"ORDER BY hits.score DESC, hits.timestamp DESC, hits.message_id, hits.rowid", "ORDER BY hits.timestamp DESC, hits.rowid DESC",
).Replace(SearchSQL)

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
	var session any
	if opts.SessionKey != "" {
		if !visible(opts.SessionKey) || !sessionExists(db, opts.SessionKey) {
			return fmt.Errorf("no session %q visible to %q", opts.SessionKey, opts.Caller)
		}
		session = opts.SessionKey
	}
	var results []sqlfuncs.SearchHit
	if expr != sqlfuncs.MatchNothing {
		if results, err = searchHits(db, c.text(0), opts, session, visible); err != nil {
			return err
		}
	}
	truncated := len(results) > opts.Limit
	if truncated {
		results = results[:opts.Limit]
	}
	indexing, err := anyPendingVisible(db, session, visible)
	if err != nil {
		return err
	}
	c.resultBytes(sqlfuncs.SearchJSON(results, indexing, truncated, opts.MaxBytes))
	return nil
}

// searchHits runs SearchSQL (or recentSQL) for up to Limit+1 hits, the one
// more telling whether the results were cut. :options is the search's
// visibility decision itself, as a pointer value.
func searchHits(db conn, query string, opts sqlfuncs.SearchOptions, session any, visible func(string) bool) ([]sqlfuncs.SearchHit, error) {
	sql := SearchSQL
	if opts.Order == sqlfuncs.OrderRecent {
		sql = recentSQL
	}
	s, err := db.prepare(sql)
	if err != nil {
		return nil, err
	}
	defer s.finalize()
	release, err := s.bindVisible(":options", visible)
	if err != nil {
		return nil, err
	}
	defer release() // after finalize: deferred calls run last first
	var hits []sqlfuncs.SearchHit
	err = s.each(func(s *stmt) error {
		hits = append(hits, sqlfuncs.SearchHit{SessionKey: s.text(0), MessageID: s.text(1),
			Role: s.text(2), Timestamp: s.int(3), Snippet: s.text(4), Score: s.float(5)})
		return nil
	}, named{":query": query, ":prefix": opts.Prefix, ":session": session, ":after": opts.SQLAfter(), ":before": opts.SQLBefore(),
		":caller": opts.Caller, ":limit": opts.Limit + 1, ":snippet_chars": opts.SnippetChars})
	return hits, err
}

func sessionExists(db conn, key string) bool {
	found := false
	db.query(`SELECT 1 FROM sessionsearch_sessions WHERE session_key = ?1`, func(*stmt) error { found = true; return nil }, key)
	return found
}

// anyPendingVisible reports whether a session the caller sees (or the one
// session searched) waits for reconciliation: its results are missing.
func anyPendingVisible(db conn, session any, visible func(string) bool) (bool, error) {
	pending := false
	err := db.query(`SELECT session_key FROM sessionsearch_sessions WHERE pending AND (?1 IS NULL OR session_key = ?1)`,
		func(s *stmt) error {
			pending = pending || visible(s.text(0))
			return nil
		}, session)
	return pending, err
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
	var sid, pending int64 = -1, 0
	if visible(key) {
		if err := db.query(`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`,
			func(s *stmt) error { sid, pending = s.int(0), s.int(1); return nil }, key); err != nil {
			return err
		}
	}
	if sid < 0 {
		// Missing and hidden sessions are one error: the caller learns
		// nothing about sessions it cannot see.
		return fmt.Errorf("no session %q visible to %q", key, opts.Caller)
	}
	path, err := activePath(db, key, sid, pending != 0)
	if err != nil {
		return err
	}
	res := sqlfuncs.HistoryWindow(key, path, opts, func(s string) string {
		out, _ := redact.Text(s)
		return out
	})
	c.resultBytes(res.JSON())
	return nil
}

// activePath returns the messages on a session's active path, oldest first.
// A pending session's path is replayed from its events, since its index is
// not up to date.
func activePath(db conn, key string, sid int64, pending bool) ([]sqlfuncs.HistoryMessage, error) {
	type event struct {
		seq  int64
		data []byte
	}
	var events []event
	sql := `SELECT t.seq, t.event FROM sessionsearch_entries e
		JOIN transcript_events t ON t.session_key = ?1 AND t.seq = e.id & 4294967295
		WHERE e.id BETWEEN ?2 << 32 AND (?2 << 32) | 4294967295 AND e.active ORDER BY e.id`
	if pending {
		sql = `SELECT seq, event FROM transcript_events WHERE session_key = ?1 AND ?2 IS NOT NULL ORDER BY seq`
	}
	if err := db.query(sql, func(s *stmt) error {
		events = append(events, event{s.int(0), []byte(s.text(1))})
		return nil
	}, key, sid); err != nil {
		return nil, err
	}
	keep := make([]bool, len(events))
	if pending {
		r := transcript.NewReplay()
		for _, ev := range events {
			e, err := transcript.Parse(ev.data)
			if err != nil {
				e = transcript.Entry{Type: "invalid"}
			}
			r.Append(e)
		}
		for _, i := range r.Path() {
			keep[i] = true
		}
	} else {
		for i := range keep {
			keep[i] = true
		}
	}
	var path []sqlfuncs.HistoryMessage
	for i, ev := range events {
		if !keep[i] {
			continue
		}
		e, text, err := transcript.Read(ev.data)
		if err != nil || e.Type != "message" || e.Role == "" || strings.TrimSpace(text) == "" {
			continue // not a message, or one without text (a tool call alone)
		}
		path = append(path, sqlfuncs.HistoryMessage{ID: e.ID, Role: e.Role, Timestamp: e.Timestamp, Text: strings.TrimSpace(text)})
	}
	return path, nil
}
