package extension

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"

	"github.com/sessionsearch/sessionsearch/store"
)

// The transcript store's SQL functions: each reads its arguments and hands
// them to package store, which owns the schema and the rules.

func fnMigrate(c *call) error {
	v, err := store.Migrate(c.conn())
	if err != nil {
		return busyHint(err)
	}
	c.resultInt(int64(v))
	return nil
}

// fnToolIndex: sessionsearch_tool_index([on]), whether the store keeps
// the tool index, after switching it when on is given (docs/store.md S33).
func fnToolIndex(c *call) error {
	if err := c.argCount(0, 1, "([on])"); err != nil {
		return err
	}
	if len(c.args) == 1 {
		on, err := c.int(0, "on")
		if err != nil {
			return err
		}
		if on != 0 && on != 1 {
			return fmt.Errorf("on must be 0 or 1, got %d", on)
		}
		if err := store.SetToolIndex(c.conn(), on == 1); err != nil {
			return busyHint(err)
		}
	}
	on, err := store.ToolIndexOn(c.conn())
	c.resultInt(boolInt(on))
	return err
}

func fnDeferIndexing(c *call) error {
	v, err := c.int(0, "on")
	if err != nil {
		return err
	}
	was := c.state.store.DeferIndexing
	c.state.store.DeferIndexing = v != 0
	c.resultInt(boolInt(was))
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// fnRefuse: sessionsearch_refuse(table, reason, session_key, seq).
func fnRefuse(c *call) error {
	seq := int64(-1)
	if !c.isNull(3) {
		seq, _ = c.int(3, "seq")
	}
	return store.Refuse(c.text(0), c.text(1), c.text(2), seq)
}

// fnEntry: sessionsearch_entry(session_key, seq, event, sid, pending,
// exists, index_version, newest_id, tip_leaf, tip_key, tip_messages), as
// the append trigger calls it (store.Appending says what each is); returns
// the entry's store.Record.
func fnEntry(c *call) error {
	a := store.Appending{SessionKey: c.text(0), Event: c.textBytes(2), Known: !c.isNull(3), BuiltIndex: c.text(6)}
	var err error
	if a.Seq, err = c.int(1, "seq"); err != nil {
		return store.Refusef("transcript_events: seq must be an integer (session %q, seq %s)", a.SessionKey, c.describe(1))
	}
	if a.Known {
		a.SID, _ = c.int(3, "sid")
		pending, _ := c.int(4, "pending")
		exists, _ := c.int(5, "exists")
		a.Pending, a.Exists = pending != 0, exists != 0
	}
	if a.HasNewest = !c.isNull(7); a.HasNewest {
		a.Newest, _ = c.int(7, "newest_id")
		a.Newest &= store.MaxSeq
		a.Tip.Leaf, _ = c.int(8, "tip_leaf")
		a.Tip.Key = c.text(9)
		a.Tip.Messages, _ = c.int(10, "tip_messages")
	}
	rec, err := c.state.store.Append(c.conn(), a)
	if err != nil {
		return err
	}
	c.resultBytes(rec)
	return nil
}

// fnEvent: sessionsearch_event(event) is a stored event's JSON text,
// whether transcript_events keeps it as text or as a zstd frame
// (docs/store.md S19); NULL for NULL.
func fnEvent(c *call) error {
	switch {
	case c.isNull(0):
		c.resultNull()
		return nil
	case c.isText(0):
		c.resultArg(0)
		return nil
	}
	event, err := store.EventJSON(c.textBytes(0), c.state.frame)
	if err != nil {
		return err
	}
	if store.IsFrame(c.textBytes(0)) {
		c.state.frame = event
	}
	c.resultBytes(event)
	return nil
}

// fnLoading: sessionsearch_loading() is 1 while a bulk load writes on this
// connection (store.Load), when the append trigger leaves its rows to it.
func fnLoading(c *call) error {
	c.resultInt(boolInt(c.state.store.Loading()))
	return nil
}

// fnLoad: sessionsearch_load(token) runs the bulk load of the feed this
// process registered under token (store.RegisterFeed; docs/store.md S20)
// and returns {"transcripts":N,"events":N}. Only Go code in the same
// process can register a feed: a token of any other is refused.
func fnLoad(c *call) error {
	token, err := c.int(0, "token")
	if err != nil {
		return err
	}
	feed := store.FeedOf(token)
	if feed == nil {
		return fmt.Errorf("no bulk load is registered under token %d in this process (a load is started by the Go driver, driver.Load)", token)
	}
	res, err := c.state.store.Load(c.conn(), feed)
	if err != nil {
		return busyHint(err)
	}
	c.resultText(fmt.Sprintf(`{"transcripts":%d,"events":%d}`, res.Transcripts, res.Events))
	return nil
}

// fnIndexVersion: sessionsearch_index_version(), for the store's triggers.
func fnIndexVersion(c *call) error {
	c.resultText(store.IndexVersion)
	return nil
}

// fnMessageText: sessionsearch_message_text(session_key, seq, event).
func fnMessageText(c *call) error {
	seq, _ := c.int(1, "seq")
	c.resultText(c.state.store.MessageText(c.text(0), seq, c.textBytes(2)))
	return nil
}

// fnToolText: sessionsearch_tool_text(event).
func fnToolText(c *call) error {
	c.resultText(c.state.store.ToolText(c.textBytes(0)))
	return nil
}

// fnRepath: sessionsearch_repath(sid).
func fnRepath(c *call) error {
	sid, err := c.int(0, "sid")
	if err != nil {
		return err
	}
	return c.state.store.Repath(c.conn(), sid)
}

// fnReconcile: sessions_reconcile([budget_ms]) indexes pending sessions for
// about budget_ms (default 100) and reports {"pending":N,"indexed":N}.
func fnReconcile(c *call) error {
	if err := c.argCount(0, 1, "([budget_ms])"); err != nil {
		return err
	}
	budget := int64(100)
	if len(c.args) == 1 {
		var err error
		if budget, err = c.int(0, "budget_ms"); err != nil {
			return err
		}
		if budget < 0 {
			return fmt.Errorf("budget_ms must be at least 0, got %d", budget)
		}
	}
	res, err := c.state.store.Reconcile(c.conn(), time.Now().Add(time.Duration(budget)*time.Millisecond))
	if err != nil {
		return busyHint(err)
	}
	c.resultText(fmt.Sprintf(`{"pending":%d,"indexed":%d}`, res.Pending, res.Indexed))
	return nil
}

func fnIndexStatus(c *call) error {
	pending, err := store.PendingSessions(c.conn())
	if err != nil {
		var se *sqliteErr
		if errors.As(err, &se) {
			return fmt.Errorf("%s (run SELECT sessionsearch_migrate() first)", se.msg)
		}
		return err
	}
	c.resultText(fmt.Sprintf(`{"pendingSessions":%d}`, pending))
	return nil
}

// fnKeyProblem: sessionsearch_key_problem(session_key, spawned_by,
// parent_session_key) is NULL when the keys are good, else what is wrong.
func fnKeyProblem(c *call) error {
	values := make([]store.KeyValue, len(c.args))
	for i, column := range []string{"session_key", "spawned_by", "parent_session_key"}[:len(c.args)] {
		values[i] = store.KeyValue{Column: column, Type: c.typeName(i), Text: c.text(i)}
	}
	if p := store.KeyProblem(values...); p != "" {
		c.resultText(p)
	} else {
		c.resultNull()
	}
	return nil
}

// fnReplacing: sessionsearch_replacing() is 1 while a statement of this
// connection that is running is an INSERT OR REPLACE into sessions
// (store.ReplacesSessions; docs/store.md S18), else 0.
func fnReplacing(c *call) error {
	const max = 64
	var sqls [max]*C.char
	n := int(C.ss_busy_sql(C.ss_context_db(c.ctx), &sqls[0], max))
	for _, q := range sqls[:n] {
		if store.ReplacesSessions(C.GoString(q)) {
			c.resultInt(1)
			return nil
		}
	}
	c.resultInt(0)
	return nil
}

// busyHint says how to wait for another writer. A function that writes
// takes the write lock first and so waits under the busy timeout when its
// connection has no transaction yet; it cannot once its transaction or
// statement has read the database, since SQLite does not wait to turn a
// read transaction into a write one (docs/store.md S16).
func busyHint(err error) error {
	var se *sqliteErr
	if errors.As(err, &se) && se.code&0xff == sqliteBusy {
		return &sqliteErr{code: se.code, msg: se.msg + " (another connection is writing: this connection's busy timeout ran out, or this call came after a read in the same transaction or statement, which SQLite cannot wait from; set PRAGMA busy_timeout and call the function alone, or inside BEGIN IMMEDIATE)"}
	}
	return err
}
