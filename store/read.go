package store

import (
	"strings"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// What search and history read of the store; the rules they apply are
// package sqlfuncs'.

// SearchSQL is the single SELECT behind sessions_search (docs/search.md):
// named parameters :query and :prefix (as sessions_match takes them),
// :session (one session key, or NULL), :after and :before (epoch
// milliseconds, or NULL: messages strictly between them), :project and
// :project_dir (a directory and itself with a trailing separator, or NULL:
// sessions whose header's cwd is the directory or under it), :caller and
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
    AND (:project IS NULL OR EXISTS (SELECT 1 FROM transcript_events AS e
      WHERE e.session_key = m.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session'
        AND (e.event ->> 'cwd' = :project OR substr(e.event ->> 'cwd', 1, length(:project_dir)) = :project_dir)))
    AND session_visible(:caller, m.session_key, :options)
  ORDER BY score DESC, m.timestamp DESC, m.message_id, m.rowid
  LIMIT :limit)
SELECT hits.session_key, hits.message_id, hits.role, hits.timestamp,
  sessionsearch_snippet(sessionsearch_fts, :snippet_chars) AS snippet, hits.score
FROM hits CROSS JOIN sessionsearch_fts ON sessionsearch_fts.rowid = hits.rowid
WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
ORDER BY hits.score DESC, hits.timestamp DESC, hits.message_id, hits.rowid`

// RecentSQL is SearchSQL in the "recent" order: newest first.
var RecentSQL = strings.NewReplacer(
	"ORDER BY score DESC, m.timestamp DESC, m.message_id, m.rowid", "ORDER BY m.timestamp DESC, m.rowid DESC",
	"ORDER BY hits.score DESC, hits.timestamp DESC, hits.message_id, hits.rowid", "ORDER BY hits.timestamp DESC, hits.rowid DESC",
).Replace(SearchSQL)

// SpawnTree returns caller's session and the sessions spawned from it,
// transitively through spawned_by or parent_session_key, with their links:
// all that the visibility rules look at.
func SpawnTree(c Conn, caller string) ([]sqlfuncs.SessionLinks, error) {
	var rows []sqlfuncs.SessionLinks
	err := c.Query(`WITH RECURSIVE tree(key) AS (
			SELECT ?1
			UNION SELECT s.session_key FROM sessions s JOIN tree ON s.spawned_by = tree.key
			UNION SELECT s.session_key FROM sessions s JOIN tree ON s.parent_session_key = tree.key)
		SELECT s.session_key, coalesce(s.spawned_by, ''), coalesce(s.parent_session_key, '')
		FROM tree JOIN sessions s ON s.session_key = tree.key`, func(r Row) error {
		rows = append(rows, sqlfuncs.SessionLinks{Key: r.Text(0), SpawnedBy: r.Text(1), ParentKey: r.Text(2)})
		return nil
	}, caller)
	return rows, err
}

// SessionExists reports whether the store has session key.
func SessionExists(c Conn, key string) (bool, error) {
	found := false
	err := c.Query(`SELECT 1 FROM sessionsearch_sessions WHERE session_key = ?1`, func(Row) error { found = true; return nil }, key)
	return found, err
}

// AnyPendingVisible reports whether a session that visible accepts (all of
// them, or the one session named) waits for Reconcile: its results are
// missing from search.
func AnyPendingVisible(c Conn, session string, visible func(string) bool) (bool, error) {
	pending := false
	err := c.Query(`SELECT session_key FROM sessionsearch_sessions WHERE pending AND (?1 = '' OR session_key = ?1)`,
		func(r Row) error {
			pending = pending || visible(r.Text(0))
			return nil
		}, session)
	return pending, err
}

// ActivePath returns the messages on session key's active path, oldest
// first, and whether the session exists. A pending session's path is
// replayed from its events, since its entries are not up to date.
func ActivePath(c Conn, key string) ([]sqlfuncs.HistoryMessage, bool, error) {
	var sid int64 = -1
	pending := false
	if err := c.Query(`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`,
		func(r Row) error { sid, pending = r.Int(0), r.Int(1) != 0; return nil }, key); err != nil || sid < 0 {
		return nil, false, err
	}
	var events [][]byte
	sql := `SELECT t.event FROM sessionsearch_entries e
		JOIN transcript_events t ON t.session_key = ?1 AND t.seq = e.id & 4294967295
		WHERE e.id BETWEEN ?2 AND ?3 AND e.active ORDER BY e.id`
	if pending {
		sql = `SELECT event FROM transcript_events WHERE session_key = ?1 AND ?2 <= ?3 ORDER BY seq`
	}
	if err := c.Query(sql, func(r Row) error {
		events = append(events, []byte(r.Text(0)))
		return nil
	}, key, EntryID(sid, 0), EntryID(sid, MaxSeq)); err != nil {
		return nil, true, err
	}
	if pending {
		r := transcript.NewReplay()
		for _, ev := range events {
			e, err := transcript.Parse(ev)
			if err != nil {
				e = transcript.Entry{Type: "invalid"}
			}
			r.Append(e)
		}
		path := r.Path()
		onPath := make([][]byte, len(path))
		for i, p := range path {
			onPath[len(path)-1-i] = events[p] // oldest first
		}
		events = onPath
	}
	var messages []sqlfuncs.HistoryMessage
	for _, ev := range events {
		e, text, err := transcript.Read(ev)
		if err != nil || e.Type != "message" || e.Role == "" || strings.TrimSpace(text) == "" {
			continue // not a message, or one without text (a tool call alone)
		}
		messages = append(messages, sqlfuncs.HistoryMessage{ID: e.ID, Role: e.Role, Timestamp: e.Timestamp, Text: strings.TrimSpace(text)})
	}
	return messages, true, nil
}

// Visibility returns the decision of a policy (package sqlfuncs' rules over
// the caller's SpawnTree). A connection keeps the decisions of its last few
// policies, by Policy.Key, while the database is unchanged (version: what
// changes with any commit or any change on the connection): an MCP server
// or a gateway asks for several callers in turn on one connection.
func (s *State) Visibility(c Conn, version [2]int64, policy sqlfuncs.Policy) (func(string) bool, error) {
	cache := &s.visible
	key := policy.Key()
	if cache.version != version {
		cache.version, cache.byKey = version, nil
	}
	if visible, ok := cache.byKey[key]; ok {
		return visible, nil
	}
	var forest *sqlfuncs.Forest
	if policy.NeedsForest() {
		rows, err := SpawnTree(c, policy.Caller())
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

// visibilityCache is a connection's decisions by policy key.
type visibilityCache struct {
	version [2]int64
	byKey   map[string]func(string) bool
}

// maxCachedPolicies bounds the cache; each decision holds its caller's
// spawn tree, so a few are small.
const maxCachedPolicies = 8
