package syncer

import (
	"context"
	"database/sql"

	"github.com/sessionsearch/sessionsearch/bulk"
	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/store"
)

// loadHoldBytes bounds the events read ahead of the bulk load.
const loadHoldBytes = 4 << 20

// loadUnits copies units whose store sessions are new (full copies) with
// the store's bulk load, in tx (docs/sync.md Y16): their events are read,
// checked, masked, tokenized and compressed on a goroutine of their own
// while the load stores the ones before. A unit that fails to be read
// fails the batch with a skipError, as copyUnit's do; a refusal of the
// store fails the sync.
func (s *Syncer) loadUnits(ctx context.Context, tx *sql.Tx, full []change, st *Stats) error {
	if len(full) == 0 {
		return nil
	}
	type copied struct {
		position, nextSeq int64
		tail              sql.NullInt64
		dec               *importer.Decoder
		begun             bool
		bytes             int64
		err               error // the store's refusal
	}
	units := make([]copied, len(full))
	pipe := store.NewPipe(loadHoldBytes, func(tag any, _ int64, err error) { units[tag.(int)].err = err })
	var readErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer pipe.Close()
		for i, c := range full {
			u, cp := c.u, &units[i]
			cp.position, cp.dec = -1, importer.NewDecoder()
			// A transcript read again whole keeps the hash of all its
			// events (prefixHash), as copyUnit does.
			prefix := newPrefixHash()
			err := u.read(ctx, -1, func(pos int64, raw []byte, rec string, bad error, stored int64) error {
				cp.bytes += int64(len(raw))
				cp.position = pos
				if !u.rereadWhole() {
					cp.tail = sql.NullInt64{Int64: stored, Valid: true}
				}
				event, ok := s.decode(u, cp.dec, raw, rec, bad)
				if !ok {
					return nil
				}
				if u.rereadWhole() {
					prefix.add(raw)
				}
				if !cp.begun {
					sess := u.sess
					if sess.CreatedAt == 0 {
						sess.CreatedAt = cp.dec.HeaderCreatedAt()
					}
					pipe.Begin(sess, i)
					cp.begun = true
				}
				pipe.Event(event)
				cp.nextSeq++
				return nil
			})
			if err != nil {
				if cp.begun {
					pipe.Abort(err)
				}
				readErr = err
				if ctx.Err() == nil {
					readErr = &skipError{source: u.source, unit: u.id, p: importer.Problem{Path: u.source, Record: u.id, Err: err}}
				}
				return
			}
			if u.rereadWhole() {
				cp.tail = sql.NullInt64{Int64: prefix.sum(), Valid: true}
			}
			if cp.begun {
				pipe.End()
			}
		}
	}()
	_, err := bulk.Load(ctx, tx, pipe)
	if err != nil {
		// Let the reader finish, whatever it is waiting to hand on.
		for !pipe.Done() {
			pipe.Next()
		}
	}
	<-done
	if err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	for i, c := range full {
		u, cp := c.u, &units[i]
		st.Bytes += cp.bytes
		if cp.err != nil {
			return cp.err
		}
		if !cp.begun {
			// No event: the session alone, as copyUnit stores it.
			sess := u.sess
			if sess.CreatedAt == 0 {
				sess.CreatedAt = cp.dec.HeaderCreatedAt()
			}
			is, err := s.stmt(ctx, tx, insertSessionSQL)
			if err != nil {
				return err
			}
			if _, err := is.ExecContext(ctx, sess.Values()...); err != nil {
				return err
			}
		}
		st.Events += cp.nextSeq
		if err := s.saveUnit(ctx, tx, u, cp.position, cp.nextSeq, cp.tail, cp.dec, st); err != nil {
			return err
		}
	}
	return nil
}
