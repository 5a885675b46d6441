package store

import (
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// What search and history read of the store; the rules they apply are
// package sqlfuncs'.

// SearchSQL is the single SELECT behind sessions_search (docs/search.md):
// named parameters :query and :prefix (as sessions_match takes them),
// :caller and :options (as session_visible takes them), :session (one
// session key, or NULL), :after and :before (epoch milliseconds, or NULL:
// messages strictly between them), :project and :project_dir (a directory
// and itself with a trailing separator, or NULL: sessions whose header's cwd
// is the directory or under it), :limit and :snippet_chars. Rows: session
// key, message id, role, timestamp, snippet, score, best first.
//
// How it stays fast (docs/search.md Q17): sessions_searchable gives the
// sessions the search may read as one byte per session number, so a match
// is kept or dropped by its rowid alone (rowid >> 32 is its session), and
// the rowid range of those sessions bounds FTS5's scan; hits holds only
// rowid and score; only the hits at or above the :limit-th best score are
// joined to their messages for the tie-breaks, since no hit below it can
// be among the first :limit in any order of ties. The statement opens as
// few temporary tables as it can (each costs a page cache of its own):
// the mask is three one-row subqueries (sessions_searchable answers them
// from the connection's cache), and the cut a subquery, not tables of
// their own. The LIMIT is a subquery because SQLite 3.54 reads a bare
// parameter there while it prepares the statement, and then prepares it
// again after every binding.
var SearchSQL = searchSQL(`
  top AS (
    SELECT h.rowid, m.session_key, m.message_id, m.role, m.timestamp, h.score
    FROM hits AS h JOIN sessionsearch_messages AS m ON m.rowid = h.rowid
    WHERE h.score >= coalesce((SELECT score FROM hits ORDER BY score DESC LIMIT 1 OFFSET :limit - 1), -1e999)
    ORDER BY h.score DESC, m.timestamp DESC, m.message_id, h.rowid
    LIMIT (SELECT :limit))`, `top.score DESC, top.timestamp DESC, top.message_id, top.rowid`)

// RecentSQL is SearchSQL in the "recent" order: newest first.
var RecentSQL = searchSQL(`
  top AS (
    SELECT h.rowid, m.session_key, m.message_id, m.role, m.timestamp, h.score
    FROM hits AS h JOIN sessionsearch_messages AS m ON m.rowid = h.rowid
    ORDER BY m.timestamp DESC, h.rowid DESC
    LIMIT (SELECT :limit))`, `top.timestamp DESC, top.rowid DESC`)

// searchSQL is the statement of SearchSQL and RecentSQL around the part
// that picks the top rows, in order.
func searchSQL(pick, order string) string {
	return `WITH hits AS MATERIALIZED (
    SELECT f.rowid, -f.rank AS score
    FROM sessionsearch_fts AS f
    WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)
      AND f.rowid >= (SELECT instr(sessions_searchable(:caller, :options, :session), x'01') - 1) << 32
      AND f.rowid < (SELECT length(sessions_searchable(:caller, :options, :session))) << 32
      AND substr((SELECT sessions_searchable(:caller, :options, :session)), (f.rowid >> 32) + 1, 1) = x'01'
      AND (:after IS NULL OR (SELECT timestamp FROM sessionsearch_messages WHERE rowid = f.rowid) > :after)
      AND (:before IS NULL OR (SELECT timestamp FROM sessionsearch_messages WHERE rowid = f.rowid) < :before)
      AND (:project IS NULL OR EXISTS (SELECT 1 FROM sessionsearch_sessions AS s JOIN transcript_events AS e
        ON e.session_key = s.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session'
        WHERE s.sid = f.rowid >> 32
          AND (e.event ->> 'cwd' = :project OR substr(e.event ->> 'cwd', 1, length(:project_dir)) = :project_dir)))),` + pick + `
SELECT top.session_key, top.message_id, top.role, top.timestamp,
  sessions_snippet(c.text, :query, :prefix, :snippet_chars) AS snippet, top.score
FROM top CROSS JOIN sessionsearch_content AS c ON c.id = top.rowid
ORDER BY ` + order
}

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

// Decision is what one policy decides over the store as it is: which
// session keys it sees (Visible), and, read from the sessions table on
// first use, which session numbers a search under it reads (Searchable)
// and whether a session it sees waits for indexing (Pending). A connection
// keeps it while the Version it was built for holds (Visibility).
type Decision struct {
	Visible func(target string) bool
	built   bool
	// Of the Version the decision was built for:
	searchable []byte // a 1 at each visible sid that is not pending
	pending    bool   // a visible session is pending
	// one is the row of the last session asked about by key: a search of
	// one session asks three times (Exists, Searchable, Pending).
	one struct {
		key string
		row sessionRow
		ok  bool
	}
}

// session returns the row of session key, read once per decision.
func (d *Decision) session(c Conn, key string) (sessionRow, error) {
	if d.one.ok && d.one.key == key {
		return d.one.row, nil
	}
	row, err := readSession(c, key)
	if err == nil {
		d.one.key, d.one.row, d.one.ok = key, row, true
	}
	return row, err
}

// build reads the sessions, once per decision: one pass over the sessions
// table, whose keys are not kept.
func (d *Decision) build(c Conn) error {
	if d.built {
		return nil
	}
	var mask []byte
	pending := false
	err := c.Query(`SELECT sid, session_key, pending FROM sessionsearch_sessions`, func(r Row) error {
		switch sid := r.Int(0); {
		case !d.Visible(r.Text(1)):
		case r.Int(2) != 0:
			pending = true
		default:
			if int64(len(mask)) <= sid {
				mask = append(mask, make([]byte, sid+1-int64(len(mask)))...)
			}
			mask[sid] = 1
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.searchable, d.pending, d.built = mask, pending, true
	return nil
}

// Searchable returns the sessions a search under the decision reads, one
// byte per session number (sid): 1 for a session that is visible and not
// pending, 0 otherwise, without trailing zeros (docs/search.md Q17,
// sessions_searchable). session, when not empty, keeps that session only.
// The result is shared: don't modify it.
func (d *Decision) Searchable(c Conn, session string) ([]byte, error) {
	if err := d.build(c); err != nil {
		return nil, err
	}
	if session == "" {
		return d.searchable, nil
	}
	s, err := d.session(c, session)
	if err != nil || !s.exists || s.sid >= int64(len(d.searchable)) || d.searchable[s.sid] == 0 {
		return nil, err
	}
	one := make([]byte, s.sid+1)
	one[s.sid] = 1
	return one, nil
}

// Pending reports whether a session the decision sees (all of them, or
// the one session named) waits for Reconcile: its results are missing from
// search.
func (d *Decision) Pending(c Conn, session string) (bool, error) {
	if session != "" {
		s, err := d.session(c, session)
		return s.pending && d.Visible(session), err
	}
	err := d.build(c)
	return d.pending, err
}

// Exists reports whether the store has session key.
func (d *Decision) Exists(c Conn, key string) (bool, error) {
	s, err := d.session(c, key)
	return s.exists, err
}

// sessionRow is a session's row in sessionsearch_sessions.
type sessionRow struct {
	sid             int64
	exists, pending bool
}

func readSession(c Conn, key string) (sessionRow, error) {
	var s sessionRow
	err := c.Query(`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`, func(r Row) error {
		s = sessionRow{r.Int(0), true, r.Int(1) != 0}
		return nil
	}, key)
	return s, err
}

// Version names the state of the database that visibility decisions are
// built from. With this build's schema it is the change token (ChangeSQL),
// which the store's triggers renew at every change of the sessions, their
// links or their indexing state, and which appends leave alone; without
// one, it is what changes with any commit or any change on the connection.
type Version struct {
	Change        string // the change token; "" when the schema keeps none
	Data, Changes int64  // without a token: PRAGMA data_version, and the connection's total changes
}

// Visibility returns the decision of a policy (package sqlfuncs' rules over
// the caller's SpawnTree). A connection keeps the decisions of its last few
// policies, by Policy.Key, while version is the same: an MCP server or a
// gateway asks for several callers in turn on one connection.
func (s *State) Visibility(c Conn, version Version, policy sqlfuncs.Policy) (*Decision, error) {
	cache := &s.visible
	key := policy.Key()
	if cache.version != version {
		cache.version, cache.byKey = version, nil
	}
	if d, ok := cache.byKey[key]; ok {
		return d, nil
	}
	var forest *sqlfuncs.Forest
	if policy.NeedsForest() {
		rows, err := SpawnTree(c, policy.Caller())
		if err != nil {
			return nil, err
		}
		forest = sqlfuncs.NewForest(rows)
	}
	d := &Decision{Visible: policy.VisibleSet(forest)}
	if cache.byKey == nil {
		cache.byKey = make(map[string]*Decision, maxCachedPolicies)
	}
	if len(cache.byKey) >= maxCachedPolicies {
		for k := range cache.byKey { // any one: callers that come back are few
			delete(cache.byKey, k)
			break
		}
	}
	cache.byKey[key] = d
	return d, nil
}

// visibilityCache is a connection's decisions by policy key, and the
// sessions they read, for one Version.
type visibilityCache struct {
	version Version
	byKey   map[string]*Decision
}

// maxCachedPolicies bounds the cache; each decision holds its caller's
// spawn tree, so a few are small.
const maxCachedPolicies = 8
