package server

import (
	"cmp"
	"context"
	"encoding/json"
	searchquery "github.com/sessionsearch/sessionsearch/query"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/sessionkey"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// Activity is the answer of POST /v1/activity: how many messages were
// written each day by each agent, among the messages a search by the same
// token and filters reads (docs/serve.md H25), and the agents and projects
// they belong to, for the page's picture and its filters.
type Activity struct {
	Days     []ActivityDay   `json:"days"`     // by day, then agent; days without messages are left out
	Agents   []ActivityCount `json:"agents"`   // every filter but the agent applied; most messages first
	Projects []ActivityCount `json:"projects"` // every filter but the project applied; most messages first, at most maxProjects
	Messages int64           `json:"messages"` // every filter applied
}

// ActivityDay is the messages of one agent on one day.
type ActivityDay struct {
	Day      string `json:"day"` // YYYY-MM-DD in the request's time zone
	Agent    string `json:"agent"`
	Messages int64  `json:"messages"`
}

// ActivityCount is the messages of one agent or project.
type ActivityCount struct {
	Agent    string `json:"agent,omitempty"`
	Project  string `json:"project,omitempty"`
	Messages int64  `json:"messages"`
}

// maxProjects caps the projects of an Activity.
const maxProjects = 100

// activitySpecs are the fields of POST /v1/activity: the search's filters,
// checked by the search's own option table, and the ones the page has
// before the search does (agent, role).
var activitySpecs = withIdentity(append(sqlfuncs.SearchOptionSpecs().Select("after", "before", "project", "prefix"),
	sqlfuncs.OptionSpec{Name: "query", Type: sqlfuncs.TypeString, Help: "count only the messages that match this query, as the search matches"},
	sqlfuncs.OptionSpec{Name: "agent", Type: sqlfuncs.TypeString, Help: "count only the sessions of this agent `id`"},
	sqlfuncs.OptionSpec{Name: "role", Type: sqlfuncs.TypeString, Enum: []string{"user", "assistant"}, Help: "count only the messages of this role"},
	sqlfuncs.OptionSpec{Name: "utcOffsetMinutes", Type: sqlfuncs.TypeInteger, Min: -14 * 60, Max: 14 * 60, Default: 0,
		Help: "the time zone the days are cut in, in `minutes` east of UTC"},
)...)

type activityRequest struct {
	sqlfuncs.Options
	After            time.Time `json:"after,omitzero"`
	Before           time.Time `json:"before,omitzero"`
	Project          string    `json:"project,omitempty"`
	Prefix           bool      `json:"prefix,omitempty"`
	Query            string    `json:"query,omitempty"`
	Agent            string    `json:"agent,omitempty"`
	Role             string    `json:"role,omitempty"`
	UTCOffsetMinutes int       `json:"utcOffsetMinutes,omitempty"`
}

// The activity is counted in three steps, so that no message row pays
// for more than its own count:
//
//  1. the sessions a search by the caller reads: the mask of
//     sessions_searchable (visible, not pending: docs/search.md Q21);
//  2. their keys and projects (the cwd of each header), and whether the
//     project is inside the filter's, by the rule of the search (Q19,
//     sqlfuncs.SearchOptions.SQLProject);
//  3. their messages per session and day: each session's rowid range
//     (docs/store.md S3), or with a query the matches FTS5 finds (Q1–Q4),
//     with the time range (Q18) and the role.
//
// The agent and project filters are applied to the counts in Go, so that
// the same counts also give the choices of each filter.

// activitySessionsSQL reads the key and project of the sessions of a mask.
const activitySessionsSQL = `WITH mask AS MATERIALIZED (SELECT sessions_searchable(?1, ?2, NULL) AS bits)
SELECT ss.sid, ss.session_key, coalesce(e.event ->> 'cwd', ''),
	coalesce(?3 IS NULL OR e.event ->> 'cwd' = ?3 OR substr(e.event ->> 'cwd', 1, length(?4)) = ?4, 0)
FROM mask, sessionsearch_sessions AS ss
LEFT JOIN transcript_events AS e ON e.session_key = ss.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session'
WHERE ss.sid < length(mask.bits) AND substr(mask.bits, ss.sid + 1, 1) = x'01'`

// activityCountsSQL counts the messages of the sessions ?1 (a JSON array of
// session numbers) per session and day.
const activityCountsSQL = `SELECT m.rowid >> 32, (m.timestamp + ?2) / 86400000, count(*)
FROM json_each(?1) AS j JOIN sessionsearch_messages AS m ON m.rowid BETWEEN j.value << 32 AND (j.value << 32) | 4294967295
WHERE m.timestamp > 0 AND (?3 IS NULL OR m.timestamp > ?3) AND (?4 IS NULL OR m.timestamp < ?4) AND (?5 IS NULL OR m.role = ?5)
GROUP BY 1, 2`

// activityMatchesSQL is activityCountsSQL for the messages that match a
// query.
const activityMatchesSQL = `SELECT m.rowid >> 32, (m.timestamp + ?2) / 86400000, count(*)
FROM sessionsearch_fts AS f JOIN sessionsearch_messages AS m ON m.rowid = f.rowid
WHERE sessionsearch_fts MATCH sessions_match(?6, ?7) AND f.rowid >> 32 IN (SELECT value FROM json_each(?1))
	AND m.timestamp > 0 AND (?3 IS NULL OR m.timestamp > ?3) AND (?4 IS NULL OR m.timestamp < ?4) AND (?5 IS NULL OR m.role = ?5)
GROUP BY 1, 2`

// activity answers POST /v1/activity.
func (h *Handler) activity(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	var req activityRequest
	if err := readOptions(c, o, activitySpecs, &req); err != nil {
		return nil, 0, err
	}
	filter := sqlfuncs.SearchOptions{Options: req.Options, After: req.After, Before: req.Before, Project: req.Project, Prefix: req.Prefix}
	if err := filter.Validate(); err != nil {
		return nil, 0, requestError(err.Error(), o, "query")
	}
	var query any
	if req.Query != "" {
		if _, qErr := searchquery.Check(req.Query); qErr != nil {
			return nil, 0, fail(http.StatusBadRequest, "invalid_field", "query", o.value("query"), qErr.Error())
		}
		query = req.Query
	}
	var role any
	if req.Role != "" {
		role = req.Role
	}
	type session struct {
		agent, project string
		inProject      bool
	}
	sessions := map[int64]session{}
	var sids []int64
	project, projectDir := filter.SQLProject()
	rows, dbErr := h.db.QueryContext(ctx, activitySessionsSQL, req.Caller, visibilityJSON(req.Options), project, projectDir)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	for rows.Next() {
		var sid int64
		var key, cwd string
		var in bool
		if dbErr := rows.Scan(&sid, &key, &cwd, &in); dbErr != nil {
			rows.Close()
			return nil, 0, h.dbError(ctx, dbErr)
		}
		sessions[sid] = session{sessionkey.AgentID(key), cwd, in}
		sids = append(sids, sid)
	}
	rows.Close()
	if dbErr := rows.Err(); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	type count struct{ sid, day, n int64 }
	var counts []count
	list, _ := json.Marshal(sids)
	stmt, args := activityCountsSQL, []any{string(list), int64(req.UTCOffsetMinutes) * 60000, filter.SQLAfter(), filter.SQLBefore(), role}
	if query != nil {
		stmt, args = activityMatchesSQL, append(args, query, req.Prefix)
	}
	rows, dbErr = h.db.QueryContext(ctx, stmt, args...)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	for rows.Next() {
		var k count
		if dbErr := rows.Scan(&k.sid, &k.day, &k.n); dbErr != nil {
			rows.Close()
			return nil, 0, h.dbError(ctx, dbErr)
		}
		counts = append(counts, k)
	}
	rows.Close()
	if dbErr := rows.Err(); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	agent := strings.ToLower(req.Agent)
	byAgent, byProject := map[string]int64{}, map[string]int64{}
	type dayAgent struct {
		day   int64
		agent string
	}
	byDay := map[dayAgent]int64{}
	out := Activity{Days: []ActivityDay{}}
	for _, k := range counts {
		s := sessions[k.sid]
		agentOK := agent == "" || s.agent == agent
		if s.inProject {
			byAgent[s.agent] += k.n
		}
		if agentOK && s.project != "" {
			byProject[s.project] += k.n
		}
		if agentOK && s.inProject {
			byDay[dayAgent{k.day, s.agent}] += k.n
			out.Messages += k.n
		}
	}
	for k, n := range byDay {
		out.Days = append(out.Days, ActivityDay{time.UnixMilli(k.day * 86400000).UTC().Format(time.DateOnly), k.agent, n})
	}
	slices.SortFunc(out.Days, func(a, b ActivityDay) int { return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Agent, b.Agent)) })
	out.Agents = ranked(byAgent, func(name string, n int64) ActivityCount { return ActivityCount{Agent: name, Messages: n} }, 0)
	out.Projects = ranked(byProject, func(name string, n int64) ActivityCount { return ActivityCount{Project: name, Messages: n} }, maxProjects)
	body, _ := json.Marshal(out)
	return body, http.StatusOK, nil
}

// ranked lists counts, most first, then by name; at most limit (0: all).
func ranked(counts map[string]int64, item func(string, int64) ActivityCount, limit int) []ActivityCount {
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	if limit > 0 && len(names) > limit {
		names = names[:limit]
	}
	out := make([]ActivityCount, len(names))
	for i, name := range names {
		out[i] = item(name, counts[name])
	}
	return out
}
