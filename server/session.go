package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/sessionkey"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// SessionInfo is the answer of POST /v1/session: what the web page shows
// above a session's messages (docs/serve.md H26). A link to another
// session (the one that spawned it, the one it continues, the ones it
// spawned) is given only when the caller may see that session too.
type SessionInfo struct {
	SessionKey        string        `json:"sessionKey"`
	Agent             string        `json:"agent"`
	Project           string        `json:"project,omitempty"` // the cwd of its header
	CreatedAt         int64         `json:"createdAt,omitempty"`
	SpawnedBy         string        `json:"spawnedBy,omitempty"`
	ParentSessionKey  string        `json:"parentSessionKey,omitempty"`
	Children          []SessionLink `json:"children"`
	ChildrenTruncated bool          `json:"childrenTruncated"`
	Messages          int64         `json:"messages"` // searchable messages: user and assistant text on the active path
	FirstMessage      int64         `json:"firstMessage,omitempty"`
	LastMessage       int64         `json:"lastMessage,omitempty"`
	Pending           bool          `json:"pending"`
	Resume            *Resume       `json:"resume,omitempty"`
}

// SessionLink is a session that another spawned ("spawned") or continues
// ("continues": its parentSessionKey).
type SessionLink struct {
	SessionKey string `json:"sessionKey"`
	Agent      string `json:"agent"`
	Link       string `json:"link"`
}

// Resume is how to continue a session in its agent (agents.ResumeCommand),
// with the line to paste into a POSIX shell.
type Resume struct {
	agents.Resume
	Shell string `json:"shell"`
}

// maxChildren caps the sessions SessionInfo lists as spawned by one.
const maxChildren = 200

// sessionSpecs are the fields of POST /v1/session.
var sessionSpecs = withIdentity(sqlfuncs.OptionSpec{Name: "sessionKey", Type: sqlfuncs.TypeString, Required: true, Help: "the session `key`"})

type sessionRequest struct {
	sqlfuncs.Options
	SessionKey string `json:"sessionKey"`
}

// session answers POST /v1/session {"sessionKey", identity}: the session's
// agent, project, links, message count and resume command, or 404 for a
// session that is missing or hidden, as history answers (docs/search.md
// Q12).
func (h *Handler) session(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	var req sessionRequest
	if err := readOptions(c, o, sessionSpecs, &req); err != nil {
		return nil, 0, err
	}
	vis := visibilityJSON(req.Options)
	info := SessionInfo{SessionKey: req.SessionKey, Agent: sessionkey.AgentID(req.SessionKey), Children: []SessionLink{}}
	var spawnedBy, parent, cwd sql.NullString
	var createdAt, sid sql.NullInt64
	var pending sql.NullBool
	dbErr := h.db.QueryRowContext(ctx, `SELECT
			CASE WHEN session_visible(?1, s.spawned_by, ?2) THEN s.spawned_by END,
			CASE WHEN session_visible(?1, s.parent_session_key, ?2) THEN s.parent_session_key END,
			s.created_at, ss.sid, ss.pending,
			(SELECT e.event ->> 'cwd' FROM transcript_events AS e
				WHERE e.session_key = s.session_key AND e.seq = 0 AND e.event ->> 'type' = 'session')
		FROM sessions AS s LEFT JOIN sessionsearch_sessions AS ss ON ss.session_key = s.session_key
		WHERE s.session_key = ?3 AND session_visible(?1, s.session_key, ?2)`,
		req.Caller, vis, req.SessionKey).Scan(&spawnedBy, &parent, &createdAt, &sid, &pending, &cwd)
	if dbErr == sql.ErrNoRows {
		return nil, 0, fail(http.StatusNotFound, "not_found", "sessionKey", o.value("sessionKey"),
			fmt.Sprintf("no session %q visible to %q", req.SessionKey, req.Caller))
	}
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	info.SpawnedBy, info.ParentSessionKey, info.Project = spawnedBy.String, parent.String, cwd.String
	info.CreatedAt, info.Pending = createdAt.Int64, pending.Bool
	if r, ok := agents.ResumeCommand(req.SessionKey, info.Project); ok {
		info.Resume = &Resume{Resume: r, Shell: r.Shell()}
	}
	if sid.Valid {
		// The session's messages are the rowids of its number (docs/store.md S3).
		var first, last sql.NullInt64
		dbErr = h.db.QueryRowContext(ctx, `SELECT count(*), min(nullif(timestamp, 0)), max(nullif(timestamp, 0))
			FROM sessionsearch_messages WHERE rowid BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295`, sid.Int64).
			Scan(&info.Messages, &first, &last)
		if dbErr != nil {
			return nil, 0, h.dbError(ctx, dbErr)
		}
		info.FirstMessage, info.LastMessage = first.Int64, last.Int64
	}
	rows, dbErr := h.db.QueryContext(ctx, `SELECT session_key, spawned_by IS ?3 FROM sessions
		WHERE (spawned_by = ?3 OR parent_session_key = ?3) AND session_visible(?1, session_key, ?2)
		ORDER BY created_at, session_key LIMIT ?4`, req.Caller, vis, req.SessionKey, maxChildren+1)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var spawned bool
		if dbErr := rows.Scan(&key, &spawned); dbErr != nil {
			return nil, 0, h.dbError(ctx, dbErr)
		}
		link := "continues"
		if spawned {
			link = "spawned"
		}
		info.Children = append(info.Children, SessionLink{SessionKey: key, Agent: sessionkey.AgentID(key), Link: link})
	}
	if dbErr := rows.Err(); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	if len(info.Children) > maxChildren {
		info.Children, info.ChildrenTruncated = info.Children[:maxChildren], true
	}
	body, _ := json.Marshal(info)
	return body, http.StatusOK, nil
}
