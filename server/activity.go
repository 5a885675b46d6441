package server

import (
	"cmp"
	"context"
	"encoding/json"
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

// activitySQL counts the searchable messages of each session and day: the
// sessions of the search's mask (visible, not pending: docs/search.md Q21),
// the time range and the query as the search applies them (Q18, Q1–Q4).
const activitySQL = `WITH mask AS MATERIALIZED (SELECT sessions_searchable(?1, ?2, NULL) AS bits)
SELECT m.rowid >> 32, (m.timestamp + ?3) / 86400000, count(*)
FROM sessionsearch_messages AS m
WHERE m.rowid >= (SELECT instr(bits, x'01') - 1 FROM mask) << 32
  AND m.rowid < (SELECT length(bits) FROM mask) << 32
  AND substr((SELECT bits FROM mask), (m.rowid >> 32) + 1, 1) = x'01'
  AND m.timestamp > 0
  AND (?4 IS NULL OR m.timestamp > ?4) AND (?5 IS NULL OR m.timestamp < ?5)
  AND (?6 IS NULL OR m.role = ?6)
  AND (?7 IS NULL OR m.rowid IN (SELECT rowid FROM sessionsearch_fts WHERE sessionsearch_fts MATCH sessions_match(?7, ?8)))
GROUP BY 1, 2`

// activitySessionsSQL reads the key and project of the sessions counted,
// and whether the project is inside the filter's, by the rule of the
// search (docs/search.md Q19, sqlfuncs.SearchOptions.SQLProject).
const activitySessionsSQL = `SELECT ss.sid, ss.session_key, coalesce(e.event ->> 'cwd', ''),
	?2 IS NULL OR e.event ->> 'cwd' = ?2 OR substr(e.event ->> 'cwd', 1, length(?3)) = ?3
FROM json_each(?1) AS j JOIN sessionsearch_sessions AS ss ON ss.sid = j.value
LEFT JOIN transcript_events AS e ON e.session_key = ss.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session'`

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
		if _, qErr := sqlfuncs.MatchExpr(req.Query, req.Prefix, nil); qErr != nil {
			return nil, 0, fail(http.StatusBadRequest, "invalid_field", "query", o.value("query"), qErr.Error())
		}
		query = req.Query
	}
	var role any
	if req.Role != "" {
		role = req.Role
	}
	type count struct{ sid, day, n int64 }
	var counts []count
	rows, dbErr := h.db.QueryContext(ctx, activitySQL, req.Caller, visibilityJSON(req.Options),
		int64(req.UTCOffsetMinutes)*60000, filter.SQLAfter(), filter.SQLBefore(), role, query, req.Prefix)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	sids := map[int64]bool{}
	for rows.Next() {
		var k count
		if dbErr := rows.Scan(&k.sid, &k.day, &k.n); dbErr != nil {
			rows.Close()
			return nil, 0, h.dbError(ctx, dbErr)
		}
		counts = append(counts, k)
		sids[k.sid] = true
	}
	rows.Close()
	if dbErr := rows.Err(); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	type session struct {
		agent, project string
		inProject      bool
	}
	sessions := map[int64]session{}
	list, _ := json.Marshal(slices.Collect(func(yield func(int64) bool) {
		for sid := range sids {
			if !yield(sid) {
				return
			}
		}
	}))
	project, projectDir := filter.SQLProject()
	rows, dbErr = h.db.QueryContext(ctx, activitySessionsSQL, string(list), project, projectDir)
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
