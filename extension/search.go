package extension

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Search and history: the rules are in package sqlfuncs; these functions
// run them over the store.

// visibleCache is one caller's visibility, kept for the rest of the
// statement on session_visible's caller argument.
type visibleCache struct {
	caller, options string
	visible         func(target string) bool
}

// visibilityCache is the last caller's visibility on a connection, valid
// while the database is unchanged.
type visibilityCache struct {
	caller, options string
	version         [2]int64
	fn              func(string) bool
}

// visibility returns the visibility of caller under the visibility options
// js, reading the sessions it needs from the store; the connection keeps the
// last one while the database does not change.
func visibility(c *call, db conn, fn, caller, js string) (func(string) bool, error) {
	cache := &c.state.visible
	version := db.version()
	if cache.fn != nil && cache.caller == caller && cache.options == js && cache.version == version {
		return cache.fn, nil
	}
	visible, err := computeVisibility(db, fn, caller, js)
	if err != nil {
		return nil, err
	}
	cache.caller, cache.options, cache.version, cache.fn = caller, js, version, visible
	return visible, nil
}

func computeVisibility(db conn, fn, caller, js string) (func(string) bool, error) {
	policy, err := sqlfuncs.ParseVisibilityOptions(fn, caller, js)
	if err != nil {
		return nil, err
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
		}, caller)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		forest = sqlfuncs.NewForest(rows)
	}
	return policy.VisibleSet(forest), nil
}

// fnSessionVisible: session_visible(caller_key, target_key [, options_json])
// → 1 or 0. The caller's visibility is computed once per statement.
func fnSessionVisible(c *call) error {
	if err := c.argCount(2, 3, "(caller_key, target_key [, options_json])"); err != nil {
		return err
	}
	caller, target, js := c.text(0), c.text(1), c.text(2)
	if cached, ok := c.auxdata(0).(*visibleCache); ok && cached.caller == caller && cached.options == js {
		c.resultInt(boolInt(cached.visible(target)))
		return nil
	}
	visible, err := visibility(c, c.conn(), c.name, caller, js)
	if err != nil {
		return err
	}
	c.setAuxdata(0, &visibleCache{caller, js, visible})
	c.resultInt(boolInt(visible(target)))
	return nil
}

// visibilityJSON is the options object of session_visible for the common
// options of sessions_search and sessions_history.
func visibilityJSON(o sqlfuncs.CommonOptions) string {
	m := map[string]any{"visibility": o.Visibility, "sandboxed": o.Sandboxed, "sandboxVisibility": o.SandboxVisibility}
	if o.AgentToAgent.Enabled || len(o.AgentToAgent.Allow) > 0 {
		allow := o.AgentToAgent.Allow
		if allow == nil {
			allow = []string{}
		}
		m["agentToAgent"] = map[string]any{"enabled": o.AgentToAgent.Enabled, "allow": allow}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// SearchSQL is the single SELECT behind sessions_search, the one the README
// shows: named parameters :query and :prefix (as sessions_match takes them),
// :session (one session key, or NULL), :caller and :options (as
// session_visible takes them), :limit and :snippet_chars. Rows: session key,
// message id, role, timestamp, snippet, score, best first.
const SearchSQL = `WITH hits AS MATERIALIZED (
  SELECT m.rowid, m.session_key, m.message_id, m.role, m.timestamp, -f.rank AS score
  FROM sessionsearch_fts AS f JOIN sessionsearch_messages AS m ON m.rowid = f.rowid
  WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
    AND NOT m.pending
    AND (:session IS NULL OR m.session_key = :session)
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
	opts, err := sqlfuncs.ParseSearchOptions(c.name, c.text(1))
	if err != nil {
		return err
	}
	expr, err := sqlfuncs.MatchExpr(c.name, c.text(0), opts.Prefix, hasTokens)
	if err != nil {
		return err
	}
	db := c.conn()
	vis := visibilityJSON(opts.CommonOptions)
	visible, err := visibility(c, db, c.name, opts.Caller, vis)
	if err != nil {
		return err
	}
	var session any
	if opts.SessionKey != "" {
		if !visible(opts.SessionKey) || !sessionExists(db, opts.SessionKey) {
			return fmt.Errorf("%s: no session %q visible to %q", c.name, opts.SessionKey, opts.Caller)
		}
		session = opts.SessionKey
	}
	query := SearchSQL
	if opts.Order == sqlfuncs.OrderRecent {
		query = recentSQL
	}
	var results []sqlfuncs.SearchHit
	if expr != sqlfuncs.MatchNothing {
		err = db.query(query, func(s *stmt) error {
			results = append(results, sqlfuncs.SearchHit{SessionKey: s.text(0), MessageID: s.text(1),
				Role: s.text(2), Timestamp: s.int(3), Snippet: s.text(4), Score: s.float(5)})
			return nil
		}, named{":query": c.text(0), ":prefix": opts.Prefix, ":session": session, ":caller": opts.Caller,
			":options": vis, ":limit": opts.Limit + 1, ":snippet_chars": opts.SnippetChars})
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	truncated := len(results) > opts.Limit
	if truncated {
		results = results[:opts.Limit]
	}
	indexing, err := anyPendingVisible(db, session, visible)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	c.resultBytes(sqlfuncs.SearchJSON(results, indexing, truncated, opts.MaxBytes))
	return nil
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
	opts, err := sqlfuncs.ParseHistoryOptions(c.name, c.text(1))
	if err != nil {
		return err
	}
	db := c.conn()
	visible, err := visibility(c, db, c.name, opts.Caller, visibilityJSON(opts.CommonOptions))
	if err != nil {
		return err
	}
	var sid, pending int64 = -1, 0
	if visible(key) {
		if err := db.query(`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`,
			func(s *stmt) error { sid, pending = s.int(0), s.int(1); return nil }, key); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if sid < 0 {
		// Missing and hidden sessions are one error: the caller learns
		// nothing about sessions it cannot see.
		return fmt.Errorf("%s: no session %q visible to %q", c.name, key, opts.Caller)
	}
	path, err := activePath(db, key, sid, pending != 0)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
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
