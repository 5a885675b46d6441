package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// SessionRow is a row of sessions as the API writes it.
type SessionRow struct {
	SessionKey       string  `json:"sessionKey"`
	SpawnedBy        *string `json:"spawnedBy"`
	ParentSessionKey *string `json:"parentSessionKey"`
	CreatedAt        *int64  `json:"createdAt"` // epoch ms
}

// EventRow is a row of transcript_events as the API writes it.
type EventRow struct {
	SessionKey string          `json:"sessionKey"`
	Seq        int64           `json:"seq"`
	Event      json.RawMessage `json:"event"` // one OpenClaw transcript entry, a JSON object
}

// AppendResult is the answer of POST /v1/append: how many rows were new and
// how many were already stored exactly so (a re-sent request).
type AppendResult struct {
	SessionsAdded     int `json:"sessionsAdded"`
	SessionsUnchanged int `json:"sessionsUnchanged"`
	EventsAppended    int `json:"eventsAppended"`
	EventsUnchanged   int `json:"eventsUnchanged"`
}

// append answers POST /v1/append {"sessions":[…],"events":[…]}: every row
// in one transaction, all or nothing, idempotent by session key and by
// (sessionKey, seq) (docs/serve.md H5, H6).
func (h *Handler) append(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	sessions, events, err := parseAppend(o)
	if err != nil {
		return nil, 0, err
	}
	tx, dbErr := h.db.BeginTx(ctx, nil)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	defer tx.Rollback()
	res, err := h.appendRows(ctx, tx, sessions, events)
	if err != nil {
		return nil, 0, err
	}
	if dbErr := tx.Commit(); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	body, _ := json.Marshal(res)
	return body, http.StatusOK, nil
}

func (h *Handler) appendRows(ctx context.Context, tx *sql.Tx, sessions []SessionRow, events []EventRow) (AppendResult, *Error) {
	var res AppendResult
	for i, s := range sessions {
		field := fmt.Sprintf("sessions[%d]", i)
		var stored SessionRow
		err := tx.QueryRowContext(ctx, `SELECT spawned_by, parent_session_key, created_at FROM sessions WHERE session_key = ?1`,
			s.SessionKey).Scan(&stored.SpawnedBy, &stored.ParentSessionKey, &stored.CreatedAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// docs/serve.md H9: a write is an exec that returns no rows.
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(session_key, spawned_by, parent_session_key, created_at)
				VALUES (?1, ?2, ?3, ?4)`, s.SessionKey, s.SpawnedBy, s.ParentSessionKey, s.CreatedAt); err != nil {
				return res, h.writeError(ctx, err, field)
			}
			res.SessionsAdded++
		case err != nil:
			return res, h.dbError(ctx, err)
		default:
			stored.SessionKey = s.SessionKey
			if !reflect.DeepEqual(stored, s) {
				return res, fail(http.StatusConflict, "conflict", field, s.SessionKey,
					fmt.Sprintf("session %q is stored with other spawnedBy, parentSessionKey or createdAt; delete it first to change them", s.SessionKey))
			}
			res.SessionsUnchanged++
		}
	}
	next := map[string]int64{}
	loaded, dbErr := h.loadNew(ctx, tx, events)
	if dbErr != nil {
		return res, h.dbError(ctx, dbErr)
	}
	for i, e := range events {
		if e.Seq < loaded[e.SessionKey] {
			res.EventsAppended++ // stored by loadNew
			continue
		}
		field := fmt.Sprintf("events[%d]", i)
		n, ok := next[e.SessionKey]
		if !ok {
			var exists bool
			err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1),
				(SELECT coalesce(max(seq) + 1, 0) FROM transcript_events WHERE session_key = ?1)`, e.SessionKey).Scan(&exists, &n)
			if err != nil {
				return res, h.dbError(ctx, err)
			}
			if !exists {
				return res, fail(http.StatusUnprocessableEntity, "unknown_session", field+".sessionKey", e.SessionKey,
					fmt.Sprintf("session %q does not exist: add it in \"sessions\" first (the same request may)", e.SessionKey))
			}
		}
		switch {
		case e.Seq == n:
			if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`,
				e.SessionKey, e.Seq, string(e.Event)); err != nil {
				return res, h.writeError(ctx, err, field)
			}
			res.EventsAppended++
			n++
		case e.Seq > n:
			return res, fail(http.StatusConflict, "seq_gap", field+".seq", e.Seq,
				fmt.Sprintf("session %q has events up to seq %d: the next event must have seq %d, got %d", e.SessionKey, n-1, n, e.Seq))
		default:
			var stored string
			if err := tx.QueryRowContext(ctx, `SELECT sessionsearch_event(event) FROM transcript_events WHERE session_key = ?1 AND seq = ?2`,
				e.SessionKey, e.Seq).Scan(&stored); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return res, h.dbError(ctx, err)
			}
			if !sameJSON([]byte(stored), e.Event) {
				return res, fail(http.StatusConflict, "conflict", field+".seq", e.Seq,
					fmt.Sprintf("session %q has another event at seq %d; events are append-only", e.SessionKey, e.Seq))
			}
			res.EventsUnchanged++
		}
		next[e.SessionKey] = n
	}
	return res, nil
}

// writeError answers a failed insert: the store's refusals (docs/store.md)
// are the request's fault, anything else the database's.
func (h *Handler) writeError(ctx context.Context, err error, field string) *Error {
	msg := err.Error()
	if strings.HasPrefix(msg, "sessions:") || strings.HasPrefix(msg, "transcript_events:") ||
		strings.Contains(msg, "constraint failed") {
		return fail(http.StatusUnprocessableEntity, "refused", field, nil, msg)
	}
	return h.dbError(ctx, err)
}

// sameJSON reports whether two JSON texts are the same value: equal after
// decoding, so a client that re-encodes an event (other spacing or member
// order) still re-sends the same event. Numbers compare as written.
func sameJSON(a, b []byte) bool {
	decode := func(data []byte) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v) == nil
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func parseAppend(o object) ([]SessionRow, []EventRow, *Error) {
	var sessions []SessionRow
	var events []EventRow
	for _, m := range o {
		switch m.name {
		case "sessions":
			items, err := array(m)
			if err != nil {
				return nil, nil, err
			}
			for i, raw := range items {
				s, err := parseSession(fmt.Sprintf("sessions[%d]", i), raw)
				if err != nil {
					return nil, nil, err
				}
				sessions = append(sessions, s)
			}
		case "events":
			items, err := array(m)
			if err != nil {
				return nil, nil, err
			}
			for i, raw := range items {
				e, err := parseEvent(fmt.Sprintf("events[%d]", i), raw)
				if err != nil {
					return nil, nil, err
				}
				events = append(events, e)
			}
		default:
			return nil, nil, unknownField(m.name, "sessions, events")
		}
	}
	if len(sessions) == 0 && len(events) == 0 {
		return nil, nil, fail(http.StatusBadRequest, "missing_field", "events", nil, `give "sessions", "events" or both, with at least one row`)
	}
	return sessions, events, nil
}

func unknownField(name, known string) *Error {
	return fail(http.StatusBadRequest, "unknown_field", name, nil, fmt.Sprintf("unknown field %q (known: %s)", name, known))
}

func array(m member) ([]json.RawMessage, *Error) {
	var items []json.RawMessage
	if m.value[0] != '[' || json.Unmarshal(m.value, &items) != nil {
		return nil, fail(http.StatusBadRequest, "invalid_field", m.name, m.value, fmt.Sprintf("%q must be an array of objects", m.name))
	}
	return items, nil
}

// sub parses one element of an array as an object with known members.
func sub(at string, raw json.RawMessage, known ...string) (object, *Error) {
	if raw[0] != '{' {
		return nil, fail(http.StatusBadRequest, "invalid_field", at, raw, at+" must be an object")
	}
	o, err := parseObject(raw)
	if err != nil {
		err.Field = strings.TrimSuffix(at+"."+err.Field, ".")
		return nil, err
	}
	for _, m := range o {
		if !oneOf(m.name, known...) {
			return nil, unknownField(at+"."+m.name, strings.Join(known, ", "))
		}
	}
	return o, nil
}

func parseSession(at string, raw json.RawMessage) (SessionRow, *Error) {
	o, err := sub(at, raw, "sessionKey", "spawnedBy", "parentSessionKey", "createdAt")
	if err != nil {
		return SessionRow{}, err
	}
	var s SessionRow
	if s.SessionKey, err = stringField(o, "sessionKey"); err != nil {
		err.Field = at + "." + err.Field
		return s, err
	}
	for _, f := range []struct {
		name string
		dst  **string
	}{{"spawnedBy", &s.SpawnedBy}, {"parentSessionKey", &s.ParentSessionKey}} {
		v, ok := o.get(f.name)
		if !ok || string(v) == "null" {
			continue
		}
		str, err := stringField(o, f.name)
		if err != nil {
			err.Field = at + "." + err.Field
			return s, err
		}
		*f.dst = &str
	}
	if v, ok := o.get("createdAt"); ok && string(v) != "null" {
		n, err := integer(at+".createdAt", v, 0)
		if err != nil {
			return s, err
		}
		s.CreatedAt = &n
	}
	return s, nil
}

func parseEvent(at string, raw json.RawMessage) (EventRow, *Error) {
	o, err := sub(at, raw, "sessionKey", "seq", "event")
	if err != nil {
		return EventRow{}, err
	}
	var e EventRow
	if e.SessionKey, err = stringField(o, "sessionKey"); err != nil {
		err.Field = at + "." + err.Field
		return e, err
	}
	v, ok := o.get("seq")
	if !ok {
		return e, fail(http.StatusBadRequest, "missing_field", at+".seq", nil, at+".seq is required: events are idempotent by (sessionKey, seq)")
	}
	if e.Seq, err = integer(at+".seq", v, 0); err != nil {
		return e, err
	}
	ev, ok := o.get("event")
	if !ok || ev[0] != '{' {
		return e, fail(http.StatusBadRequest, "invalid_field", at+".event", ev, at+".event must be a JSON object (one OpenClaw transcript entry)")
	}
	var compact bytes.Buffer
	json.Compact(&compact, ev)
	e.Event = compact.Bytes()
	return e, nil
}

func integer(at string, raw json.RawMessage, min int64) (int64, *Error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < min {
		return 0, fail(http.StatusBadRequest, "invalid_field", at, raw, fmt.Sprintf("%s must be an integer of at least %d", at, min))
	}
	return n, nil
}

// DeleteResult is the answer of DELETE /v1/sessions/{key}.
type DeleteResult struct {
	SessionKey string `json:"sessionKey"`
	Deleted    bool   `json:"deleted"`
}

// deleteSession removes a session with its events and index rows in one
// statement; a session that is not there is 404 (docs/serve.md H7).
func (h *Handler) deleteSession(ctx context.Context, c *call) ([]byte, int, *Error) {
	key := c.r.PathValue("key")
	res, err := h.db.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = ?1`, key)
	if err != nil {
		return nil, 0, h.dbError(ctx, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return nil, 0, fail(http.StatusNotFound, "not_found", "sessionKey", key, fmt.Sprintf("no session %q", key))
	}
	body, _ := json.Marshal(DeleteResult{SessionKey: key, Deleted: true})
	return body, http.StatusOK, nil
}

// ReconcileResult is the answer of POST /v1/reconcile.
type ReconcileResult struct {
	Pending int `json:"pending"` // sessions still pending
	Indexed int `json:"indexed"` // sessions the call finished
}

// reconcile answers POST /v1/reconcile {"budgetMs": N}. sessions_reconcile
// writes, so it runs as an exec that returns no rows, and the counts come
// from sessions_index_status before and after (docs/serve.md H9).
func (h *Handler) reconcile(ctx context.Context, c *call) ([]byte, int, *Error) {
	o, err := readObject(c.r)
	if err != nil {
		return nil, 0, err
	}
	budget := int64(time.Second / time.Millisecond)
	for _, m := range o {
		if m.name != "budgetMs" {
			return nil, 0, unknownField(m.name, "budgetMs")
		}
		if budget, err = integer("budgetMs", m.value, 0); err != nil {
			return nil, 0, err
		}
	}
	before, dbErr := h.pending(ctx)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	if _, dbErr := h.db.ExecContext(ctx, `SELECT 1 WHERE sessions_reconcile(?1) IS NULL`, budget); dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	after, dbErr := h.pending(ctx)
	if dbErr != nil {
		return nil, 0, h.dbError(ctx, dbErr)
	}
	body, _ := json.Marshal(ReconcileResult{Pending: after, Indexed: max(before-after, 0)})
	return body, http.StatusOK, nil
}

func (h *Handler) pending(ctx context.Context) (int, error) {
	var js string
	if err := h.db.QueryRowContext(ctx, `SELECT sessions_index_status()`).Scan(&js); err != nil {
		return 0, err
	}
	var st struct {
		PendingSessions int `json:"pendingSessions"`
	}
	err := json.Unmarshal([]byte(js), &st)
	return st.PendingSessions, err
}
