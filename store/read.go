package store

import (
	"strings"

	"github.com/sessionsearch/sessionsearch/sessionkey"
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
// is the directory or under it), :role (a role, or NULL), :limit and
// :snippet_chars. Rows: session key, message id, role, timestamp, snippet,
// score, best first. It is the exact tier of a search (docs/search.md Q26).
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
    WHERE sessionsearch_fts MATCH sessions_match(:query, :prefix)` + hitFilters(messagesView) + `),` + pick + `
SELECT top.session_key, top.message_id, top.role, top.timestamp,
  sessions_snippet(c.text, :query, :prefix, :snippet_chars) AS snippet, top.score
FROM top CROSS JOIN sessionsearch_content AS c ON c.id = top.rowid
ORDER BY ` + order
}

// The views of the entries each index holds, by FTS5 rowid.
const (
	messagesView = "sessionsearch_messages"
	toolsView    = "sessionsearch_tool_entries"
)

// hitFilters are the conditions on a match f of every tier: the sessions
// the search reads (sessions_searchable's mask, and its first and last
// session bounding the scan), the time range, the project and the role;
// view is the view of the entries of f's index.
func hitFilters(view string) string {
	return strings.ReplaceAll(hitFiltersOf, "sessionsearch_messages", view)
}

const hitFiltersOf = `
      AND f.rowid >= (SELECT instr(sessions_searchable(:caller, :options, :session), x'01') - 1) << 32
      AND f.rowid < (SELECT length(sessions_searchable(:caller, :options, :session))) << 32
      AND substr((SELECT sessions_searchable(:caller, :options, :session)), (f.rowid >> 32) + 1, 1) = x'01'
      AND (:after IS NULL OR (SELECT timestamp FROM sessionsearch_messages WHERE rowid = f.rowid) > :after)
      AND (:before IS NULL OR (SELECT timestamp FROM sessionsearch_messages WHERE rowid = f.rowid) < :before)
      AND (:role IS NULL OR (SELECT role FROM sessionsearch_messages WHERE rowid = f.rowid) = :role)
      AND (:project IS NULL OR EXISTS (SELECT 1 FROM sessionsearch_sessions AS s JOIN transcript_events AS e
        ON e.session_key = s.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session'
        WHERE s.sid = f.rowid >> 32
          AND (e.event ->> 'cwd' = :project OR substr(e.event ->> 'cwd', 1, length(:project_dir)) = :project_dir)))`

// CandidatesSQL finds the candidates of a ranked search (docs/search.md
// Q26, Q29): the matches of :expr (an FTS5 expression the query planned),
// with the filters of SearchSQL, each with its bm25 score and its coverage
// (sessionsearch_coverage over :groups), the :candidates best by the number
// of words held, then score. Rows: rowid, session key, message id, role,
// timestamp, score, coverage. Package ranking orders them.
var CandidatesSQL = candidatesSQL("sessionsearch_fts", messagesView, recentFirst[0])

// RecentCandidatesSQL is CandidatesSQL taking the newest among the rows
// that hold as many words.
var RecentCandidatesSQL = candidatesSQL("sessionsearch_fts", messagesView, recentFirst[1])

// ToolCandidatesSQL and RecentToolCandidatesSQL are CandidatesSQL and
// RecentCandidatesSQL over the tool index (docs/search.md Q33), with two
// more parameters: :calls and :results, 1 to keep the tool calls (an
// assistant's entries), the tool results.
var (
	ToolCandidatesSQL       = candidatesSQL("sessionsearch_tools", toolsView, recentFirst[0])
	RecentToolCandidatesSQL = candidatesSQL("sessionsearch_tools", toolsView, recentFirst[1])
)

var recentFirst = [2]string{`score DESC`, `(SELECT ts FROM sessionsearch_entries WHERE id = hits.rowid) DESC`}

func candidatesSQL(fts, view, then string) string {
	kinds := ""
	if view == toolsView {
		kinds = `
      AND CASE (SELECT role FROM ` + toolsView + ` WHERE rowid = f.rowid) WHEN 'assistant' THEN :calls ELSE :results END`
	}
	return `WITH hits AS MATERIALIZED (
    SELECT f.rowid, -f.rank AS score, sessionsearch_coverage(` + fts + `, :groups) AS cov
    FROM ` + fts + ` AS f
    WHERE ` + fts + ` MATCH :expr` + hitFilters(view) + kinds + `),
  top AS (SELECT rowid, score, cov FROM hits ORDER BY cov >> 48 DESC, ` + then + ` LIMIT (SELECT :candidates))
SELECT top.rowid, m.session_key, m.message_id, m.role, m.timestamp, top.score, top.cov
FROM top JOIN ` + view + ` AS m ON m.rowid = top.rowid`
}

// VocabularySQL lists the index's terms in [?1, ?2), at most ?3 of them:
// where a search looks for the other forms of a word (docs/search.md Q28).
const VocabularySQL = `SELECT term FROM sessionsearch_vocab WHERE term >= ?1 AND term < ?2 LIMIT ?3`

// StatsSQL reads what weighing a query's words needs of the store
// (docs/search.md Q29): FTS5's averages record of sessionsearch_fts, whose
// first varint is how many rows the index holds (RowCount), and the
// highest session number, which counts the sessions there were.
const StatsSQL = `SELECT (SELECT block FROM sessionsearch_fts_data WHERE id = 1), (SELECT max(sid) FROM sessionsearch_sessions)`

// WordStatsSQL counts the messages and sessions that match ?1 (a word of a
// query and its forms), among the first ?2 matches. The matches come in
// rowid order, so a session's are together: sessionsearch_runs counts
// them without the temporary index of count(DISTINCT), which cost five to
// ten times the scan of a common word.
const WordStatsSQL = `SELECT count(*), sessionsearch_runs(rowid >> 32) FROM
	(SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH ?1 ORDER BY rowid LIMIT ?2)`

// RowCount reads the row count of an FTS5 averages record: its first
// varint (SQLite's encoding: big-endian groups of seven bits, the high bit
// set on every byte but the last, the ninth byte whole). 0 for an empty or
// malformed record.
func RowCount(record []byte) int64 {
	var v int64
	for i, b := range record {
		if i == 8 {
			return v<<8 | int64(b)
		}
		v = v<<7 | int64(b&0x7f)
		if b&0x80 == 0 {
			return v
		}
	}
	return 0
}

// ContentSQL reads the masked text of one searchable message by its rowid.
const ContentSQL = `SELECT text FROM sessionsearch_content WHERE id = ?1`

// ToolContentSQL reads the masked tool text of one entry of the tool index
// by its rowid, and its event, which names the tool (ToolOf).
const ToolContentSQL = `SELECT c.text, t.event FROM sessionsearch_tool_content AS c
	JOIN sessionsearch_sessions AS s ON s.sid = c.id >> 32
	JOIN transcript_events AS t ON t.session_key = s.session_key AND t.seq = c.id & 4294967295
	WHERE c.id = ?1`

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
	// filtered: the decisions of the session filters asked of this one,
	// by SessionFilter.key.
	filtered map[string]*Decision
}

// SessionFilter keeps some of the sessions a search reads
// (docs/search.md Q32): those of the agents named (ids, compared without
// case), of the kinds named (sessionkey.Kind), and not excluded by key.
// Empty fields keep every session.
type SessionFilter struct {
	Agents, Kinds, Exclude []string
}

func (f SessionFilter) empty() bool { return len(f.Agents)+len(f.Kinds)+len(f.Exclude) == 0 }

func (f SessionFilter) key() string {
	return strings.Join(f.Agents, "\x00") + "\x01" + strings.Join(f.Kinds, "\x00") + "\x01" + strings.Join(f.Exclude, "\x00")
}

// maxFiltered bounds the filtered decisions a decision keeps: an exclude
// list changes at every page of results.
const maxFiltered = 8

// Filtered returns the decision of d with only the sessions f keeps
// searchable (and only those setting Pending); Visible is d's. A
// decision keeps the last few it made.
func (d *Decision) Filtered(c Conn, f SessionFilter) (*Decision, error) {
	if f.empty() {
		return d, nil
	}
	key := f.key()
	if fd, ok := d.filtered[key]; ok {
		return fd, nil
	}
	fd := &Decision{Visible: d.Visible, built: true}
	agents := map[string]bool{}
	for _, a := range f.Agents {
		agents[strings.ToLower(a)] = true
	}
	kinds := map[string]bool{}
	for _, k := range f.Kinds {
		kinds[k] = true
	}
	excluded := map[string]bool{}
	for _, k := range f.Exclude {
		excluded[k] = true
	}
	links := "0"
	if len(kinds) > 0 {
		links = "EXISTS (SELECT 1 FROM sessions AS s WHERE s.session_key = ss.session_key AND (s.spawned_by IS NOT NULL OR s.parent_session_key IS NOT NULL))"
	}
	err := c.Query(`SELECT ss.sid, ss.session_key, ss.pending, `+links+` FROM sessionsearch_sessions AS ss`, func(r Row) error {
		sid, key := r.Int(0), r.Text(1)
		switch {
		case !d.Visible(key), excluded[key]:
			return nil
		case len(agents) > 0 && !agents[sessionkey.AgentID(key)]:
			return nil
		case len(kinds) > 0 && !kinds[sessionkey.Kind(key, r.Int(3) != 0)]:
			return nil
		case r.Int(2) != 0:
			fd.pending = true
			return nil
		}
		if int64(len(fd.searchable)) <= sid {
			fd.searchable = append(fd.searchable, make([]byte, sid+1-int64(len(fd.searchable)))...)
		}
		fd.searchable[sid] = 1
		return nil
	})
	if err != nil {
		return nil, err
	}
	if d.filtered == nil || len(d.filtered) >= maxFiltered {
		d.filtered = map[string]*Decision{}
	}
	d.filtered[key] = fd
	return fd, nil
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
