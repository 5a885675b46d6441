package server

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
)

// PushOptions bound the requests of Push.
type PushOptions struct {
	BatchEvents int   // events per append request (default 500)
	BatchBytes  int64 // event bytes per append request (default 4 MiB; one event may be larger)
}

// PushStats say what one Push did.
type PushStats struct {
	Sessions int // sessions that were behind on the service
	Events   int // events appended
	Replaced int // sessions deleted on the service and sent again
}

// Push brings the service behind c up to date with the store db: every
// session of db is there afterwards with the same events (docs/serve.md
// H13). It reads db only. It starts each session where the service's
// watermark says, re-sending the last event it holds so that a session
// whose events differ is noticed; such a session (rewritten or rewound
// here) is deleted there and sent whole. Each request is one transaction on
// the service, so an interrupted Push leaves whole batches, and the next
// Push continues from the watermarks. Sessions that db no longer has are
// left on the service.
func Push(ctx context.Context, db *sql.DB, c *Client, opts PushOptions) (PushStats, error) {
	if opts.BatchEvents <= 0 {
		opts.BatchEvents = 500
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 4 << 20
	}
	var st PushStats
	sessions, next, err := localSessions(ctx, db)
	if err != nil {
		return st, err
	}
	for start := 0; start < len(sessions); start += MaxWatermarkKeys {
		chunk := sessions[start:min(start+MaxWatermarkKeys, len(sessions))]
		keys := make([]string, len(chunk))
		for i, s := range chunk {
			keys[i] = s.SessionKey
		}
		marks, err := c.Watermarks(ctx, keys)
		if err != nil {
			return st, err
		}
		if len(marks) != len(chunk) {
			return st, fmt.Errorf("push: the service answered %d watermarks for %d sessions", len(marks), len(chunk))
		}
		for i, s := range chunk {
			if err := pushSession(ctx, db, c, opts, s, next[s.SessionKey], marks[i], &st); err != nil {
				return st, fmt.Errorf("push %s: %w", s.SessionKey, err)
			}
		}
	}
	return st, nil
}

func localSessions(ctx context.Context, db *sql.DB) ([]SessionRow, map[string]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT session_key, spawned_by, parent_session_key, created_at,
		(SELECT coalesce(max(seq) + 1, 0) FROM transcript_events AS t WHERE t.session_key = s.session_key)
		FROM sessions AS s ORDER BY session_key`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var sessions []SessionRow
	next := map[string]int64{}
	for rows.Next() {
		var s SessionRow
		var n int64
		if err := rows.Scan(&s.SessionKey, &s.SpawnedBy, &s.ParentSessionKey, &s.CreatedAt, &n); err != nil {
			return nil, nil, err
		}
		sessions = append(sessions, s)
		next[s.SessionKey] = n
	}
	return sessions, next, rows.Err()
}

func pushSession(ctx context.Context, db *sql.DB, c *Client, opts PushOptions, s SessionRow, next int64, w Watermark, st *PushStats) error {
	from := int64(0)
	if w.Exists {
		if w.NextSeq > next {
			return replace(ctx, db, c, opts, s, st)
		}
		from = max(w.NextSeq-1, 0) // re-send the service's last event: it must match ours
		if w.NextSeq == next && next == 0 {
			from = 0
		}
	}
	first := true
	sent := false
	for from < next || first {
		evs, err := localEvents(ctx, db, s.SessionKey, from, opts)
		if err != nil {
			return err
		}
		req := AppendRequest{Events: evs}
		if first {
			req.Sessions = []SessionRow{s}
		}
		res, err := c.Append(ctx, req)
		if code := ErrorCode(err); first && w.Exists && code == "conflict" {
			return replace(ctx, db, c, opts, s, st)
		} else if err != nil {
			return err
		}
		if res.EventsAppended > 0 || res.SessionsAdded > 0 {
			sent = true
		}
		st.Events += res.EventsAppended
		first = false
		if len(evs) == 0 {
			break
		}
		from = evs[len(evs)-1].Seq + 1
	}
	if sent {
		st.Sessions++
	}
	return nil
}

// replace deletes the session on the service and sends it whole.
func replace(ctx context.Context, db *sql.DB, c *Client, opts PushOptions, s SessionRow, st *PushStats) error {
	if err := c.Delete(ctx, s.SessionKey); err != nil && ErrorCode(err) != "not_found" {
		return err
	}
	st.Replaced++
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(seq) + 1, 0) FROM transcript_events WHERE session_key = ?1`, s.SessionKey).Scan(&n); err != nil {
		return err
	}
	return pushSession(ctx, db, c, opts, s, n, Watermark{SessionKey: s.SessionKey}, st)
}

// localEvents reads one batch of a session's events from seq from on.
func localEvents(ctx context.Context, db *sql.DB, key string, from int64, opts PushOptions) ([]EventRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, sessionsearch_event(event) FROM transcript_events WHERE session_key = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3`,
		key, from, opts.BatchEvents)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var evs []EventRow
	var size int64
	for rows.Next() {
		var e EventRow
		var text string
		if err := rows.Scan(&e.Seq, &text); err != nil {
			return nil, err
		}
		if len(evs) > 0 && size+int64(len(text)) > opts.BatchBytes {
			break
		}
		e.SessionKey, e.Event = key, []byte(text)
		size += int64(len(text))
		evs = append(evs, e)
	}
	return evs, rows.Err()
}

// Delete deletes a session on the service.
func (c *Client) Delete(ctx context.Context, key string) error {
	var res DeleteResult
	return c.do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(key), nil, &res)
}
