package syncer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"

	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/store"
)

// errDiffers stops the reading of a unit that is not what the store holds.
var errDiffers = errors.New("differs from the stored session")

// adopt takes over, without writing it again, the store session a unit new
// to sync would fill when `import` stored exactly the events the unit
// holds, under the same key, and no sync unit claims it (docs/sync.md
// Y20): the unit is read once and compared event for event with the
// store; when every event matches and none is left over, only its
// watermark and links are written. It reports false when the session is
// not there, is claimed, or differs: the unit is then copied as any new
// one, replacing the session (Y9). Bad lines are skipped as a copy skips
// them, and not reported (the import reported them; a copy does again).
func (s *Syncer) adopt(ctx context.Context, tx *sql.Tx, c change, st *Stats) (bool, error) {
	u := c.u
	var claimed int
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessionsearch_sync_units WHERE session_key = ?1)
		+ 2 * EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1)`, u.sess.Key).Scan(&claimed); err != nil {
		return false, err
	}
	if claimed != 2 {
		return false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, event FROM transcript_events WHERE session_key = ? ORDER BY seq`, u.sess.Key)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var (
		position, nextSeq int64 = -1, 0
		tail              sql.NullInt64
		read              int64
		buf               []byte
		storeErr          error
	)
	dec := importer.NewDecoder()
	prefix := newPrefixHash()
	err = u.read(ctx, -1, func(pos int64, raw []byte, _ string, bad error, storedHash int64) error {
		read += int64(len(raw))
		position = pos
		if !u.rereadWhole() {
			tail = sql.NullInt64{Int64: storedHash, Valid: true}
		}
		if bad != nil || len(raw) > importer.MaxLineBytes {
			return nil
		}
		event, err := dec.Decode(raw)
		if err != nil {
			return nil
		}
		if u.rereadWhole() {
			prefix.add(raw)
		}
		if !rows.Next() {
			storeErr = rows.Err()
			return errDiffers
		}
		var seq int64
		var stored []byte
		if err := rows.Scan(&seq, &stored); err != nil {
			storeErr = err
			return errDiffers
		}
		if buf, err = store.EventJSON(stored, buf); err != nil || seq != nextSeq || !bytes.Equal(buf, event) {
			return errDiffers
		}
		nextSeq++
		return nil
	})
	if storeErr != nil {
		return false, storeErr
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// A unit that differs, or fails to be read: the copy that follows
		// reads it again and reports what it finds.
		return false, nil
	}
	if rows.Next() || nextSeq == 0 {
		return false, rows.Err()
	}
	if err := rows.Close(); err != nil {
		return false, err
	}
	if u.rereadWhole() {
		tail = sql.NullInt64{Int64: prefix.sum(), Valid: true}
	}
	sess := u.sess
	if sess.CreatedAt == 0 {
		sess.CreatedAt = dec.HeaderCreatedAt()
	}
	up, err := s.stmt(ctx, tx, updateLinksSQL)
	if err != nil {
		return false, err
	}
	if _, err := up.ExecContext(ctx, sess.Values()...); err != nil {
		return false, err
	}
	st.Bytes += read
	st.Adopted++
	sessions := st.Sessions
	if err := s.saveUnit(ctx, tx, u, position, nextSeq, tail, dec, st); err != nil {
		return false, err
	}
	st.Sessions = sessions // nothing of the session was written
	return true, nil
}
