package store

import (
	"errors"
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// errEnough ends a Query whose caller has read what it needs.
var errEnough = errors.New("store: enough rows")

// HistoryCandidates returns the messages of session key's active path that
// sqlfuncs.HistoryWindow chooses from, oldest first, and whether the
// session exists: those of a role it returns, with text, and only as many
// as it needs (sqlfuncs.HistoryWindowReach): the newest, or with an anchor
// the first message with that id and those around it; none when no such
// message is on the path. It reads from the newest end or from the anchor
// outwards and stops, so that its memory follows the limit, not the
// session; finding an anchor reads the session's entries up to it. A
// pending session's path is replayed from its events, since its entries are
// not up to date (docs/search.md Q12).
func HistoryCandidates(c Conn, key string, o sqlfuncs.HistoryOptions) ([]sqlfuncs.HistoryMessage, bool, error) {
	var sid int64 = -1
	pending := false
	if err := c.Query(`SELECT sid, pending FROM sessionsearch_sessions WHERE session_key = ?1`,
		func(r Row) error { sid, pending = r.Int(0), r.Int(1) != 0; return nil }, key); err != nil || sid < 0 {
		return nil, false, err
	}
	var p pathEvents = activeEvents{c, sid, key}
	if pending {
		rp, err := replayEvents(c, key)
		if err != nil {
			return nil, true, err
		}
		defer rp.path.Close()
		p = rp
	}
	var buf []byte
	message := func(ev string) (sqlfuncs.HistoryMessage, bool) {
		var e transcript.Entry
		var text string
		var err error
		e, text, buf, err = ReadEvent([]byte(ev), buf)
		text = strings.TrimSpace(text)
		if err != nil || e.Type != "message" || text == "" || !sqlfuncs.HistoryRole(e.Role, o.IncludeTools) {
			return sqlfuncs.HistoryMessage{}, false // not one, or one without text (a tool call alone)
		}
		return sqlfuncs.HistoryMessage{ID: e.ID, Role: e.Role, Timestamp: e.Timestamp, Text: text}, true
	}
	// collect reads up to n messages from the events p.scan gives.
	collect := func(from int64, desc bool, n int) ([]sqlfuncs.HistoryMessage, error) {
		var out []sqlfuncs.HistoryMessage
		if n <= 0 {
			return nil, nil
		}
		err := p.scan(from, desc, "", func(_ int64, ev string) bool {
			if m, ok := message(ev); ok {
				out = append(out, m)
			}
			return len(out) < n
		})
		return out, err
	}
	newest, perSide := sqlfuncs.HistoryWindowReach(o.Limit)
	if o.MessageID == "" {
		msgs, err := collect(p.end(), true, newest)
		slices.Reverse(msgs)
		return msgs, true, err
	}
	var anchor sqlfuncs.HistoryMessage
	at := int64(-1)
	err := p.scan(p.start(), false, o.MessageID, func(pos int64, ev string) bool {
		if m, ok := message(ev); ok && m.ID == o.MessageID {
			anchor, at = m, pos
			return false
		}
		return true
	})
	if err != nil || at < 0 {
		return nil, true, err
	}
	older, err := collect(at-1, true, perSide)
	if err != nil {
		return nil, true, err
	}
	newer, err := collect(at+1, false, perSide)
	if err != nil {
		return nil, true, err
	}
	slices.Reverse(older)
	return append(append(older, anchor), newer...), true, nil
}

// pathEvents are the events on a session's active path, at increasing
// positions from start to end.
type pathEvents interface {
	start() int64
	end() int64
	// scan calls fn with the events on the path from position from on,
	// towards start when desc, else towards end, until fn returns false;
	// with id, it may leave out events whose entry has another id.
	scan(from int64, desc bool, id string, fn func(pos int64, event string) bool) error
}

// activeEvents are the path of a session that is not pending: its active
// entries, at their row ids.
type activeEvents struct {
	c   Conn
	sid int64
	key string
}

func (a activeEvents) start() int64 { return EntryID(a.sid, 0) }
func (a activeEvents) end() int64   { return EntryID(a.sid, MaxSeq) }

func (a activeEvents) scan(from int64, desc bool, id string, fn func(int64, string) bool) error {
	lo, hi, order := from, a.end(), "ASC"
	if desc {
		lo, hi, order = a.start(), from, "DESC"
	}
	if lo > hi {
		return nil
	}
	return stopped(a.c.Query(`SELECT e.id, t.event FROM sessionsearch_entries e
		JOIN transcript_events t ON t.session_key = ?1 AND t.seq = e.id & 4294967295
		WHERE e.id BETWEEN ?2 AND ?3 AND e.active AND (?4 IS NULL OR e.entry_id = ?4) ORDER BY e.id `+order,
		func(r Row) error {
			if !fn(r.Int(0), r.Text(1)) {
				return errEnough
			}
			return nil
		}, a.key, lo, hi, nullString(id)))
}

// replayedEvents are the path of a pending session, replayed from its
// events: position i is the session's i-th event in seq order.
type replayedEvents struct {
	c    Conn
	key  string
	n    int64
	path *transcript.PathSet
}

// replayEvents replays session key's events; a session of many (past
// SpillAbove with 8-byte ids) is replayed in temporary files.
func replayEvents(c Conn, key string) (*replayedEvents, error) {
	var n int64
	if err := c.Query(`SELECT count(*) FROM transcript_events WHERE session_key = ?1`,
		func(r Row) error { n = r.Int(0); return nil }, key); err != nil {
		return nil, err
	}
	if n > transcript.MaxReplayEntries {
		return nil, errors.New("more events than one replay holds")
	}
	r := transcript.NewReplay()
	if transcript.IDBytes(int(n), 8*int(n)) <= SpillAbove || r.Spill(int(n)) != nil {
		r.Grow(int(n), 8*int(n))
	}
	var buf []byte
	err := c.Query(`SELECT event FROM transcript_events WHERE session_key = ?1 ORDER BY seq`, func(row Row) error {
		var e transcript.Entry
		var err error
		e, _, buf, err = ReadEvent([]byte(row.Text(0)), buf)
		if err != nil {
			e = transcript.Entry{Type: "invalid"}
		}
		r.Append(e)
		return nil
	}, key)
	rp := &replayedEvents{c: c, key: key, n: n}
	if err == nil {
		rp.path = r.PathSet()
		err = r.Err()
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return rp, nil
}

func (p *replayedEvents) start() int64 { return 0 }
func (p *replayedEvents) end() int64   { return p.n - 1 }

func (p *replayedEvents) scan(from int64, desc bool, id string, fn func(int64, string) bool) error {
	if from < 0 || from >= p.n {
		return nil
	}
	// The events are counted from the start (or the end) of the session,
	// so the scan skips to from by OFFSET: positions are seq order, not
	// seqs, which may have gaps.
	order, offset, step := "ASC", from, int64(1)
	if desc {
		order, offset, step = "DESC", p.n-1-from, -1
	}
	pos := from
	err := stopped(p.c.Query(`SELECT event FROM transcript_events WHERE session_key = ?1 ORDER BY seq `+order+` LIMIT -1 OFFSET ?2`,
		func(r Row) error {
			i := pos
			pos += step
			if !p.path.Has(int(i)) {
				return nil
			}
			if !fn(i, r.Text(0)) {
				return errEnough
			}
			return nil
		}, p.key, offset))
	if err == nil {
		err = p.path.Err()
	}
	return err
}

// stopped is err, with a scan its caller ended counted as success.
func stopped(err error) error {
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}
