package server

import (
	"context"
	"database/sql"

	"github.com/sessionsearch/sessionsearch/bulk"
	"github.com/sessionsearch/sessionsearch/store"
)

// loadNew stores, with the store's bulk load (docs/store.md S20), the
// events of each session of the request that has no events yet and whose
// events the request gives in full from seq 0, in order: what `sync --to`
// sends for a session the service lacks. It returns how many events of
// each session it stored; the others' events, and those of a session the
// store refused (nothing of it stored), are left to the request's row by
// row path, which answers each refusal with the event it names.
func (h *Handler) loadNew(ctx context.Context, tx *sql.Tx, events []EventRow) (map[string]int64, error) {
	if !h.opts.BulkLoad {
		return nil, nil
	}
	var order []string
	byKey := map[string][]EventRow{}
	whole := map[string]bool{}
	for _, e := range events {
		rows, seen := byKey[e.SessionKey]
		if !seen {
			order = append(order, e.SessionKey)
			whole[e.SessionKey] = true
		}
		if e.Seq != int64(len(rows)) {
			whole[e.SessionKey] = false
		}
		byKey[e.SessionKey] = append(rows, e)
	}
	var load []string
	for _, key := range order {
		if !whole[key] {
			continue
		}
		var fresh bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1)
			AND NOT EXISTS (SELECT 1 FROM transcript_events WHERE session_key = ?1)`, key).Scan(&fresh); err != nil {
			return nil, err
		}
		if fresh {
			load = append(load, key)
		}
	}
	if len(load) == 0 {
		return nil, nil
	}
	loaded := map[string]int64{}
	pipe := store.NewPipe(4<<20, func(tag any, n int64, err error) {
		if err == nil {
			loaded[tag.(string)] = n
		}
	})
	go func() {
		defer pipe.Close()
		for _, key := range load {
			pipe.Begin(store.Session{Key: key}, key)
			for _, e := range byKey[key] {
				pipe.Event(e.Event)
			}
			pipe.End()
		}
	}()
	_, err := bulk.Load(ctx, tx, pipe)
	for !pipe.Done() { // the reader finishes whatever happened
		pipe.Next()
	}
	return loaded, err
}
