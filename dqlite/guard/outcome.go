package guard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	dqdriver "github.com/canonical/go-dqlite/driver"
)

// What an error of the leader says about a statement (docs/cluster.md K10,
// K11). dqlite's leader runs one statement at a time on its event loop and
// gives its connections no busy handler, since waiting there would stop the
// loop: a statement that finds the write lock taken by another connection,
// or a checkpoint running, fails at once with SQLITE_BUSY, having done
// nothing. The guard is that busy handler, on the client's side.

// SQLite's primary result codes the guard tells apart.
const (
	sqliteAbort  = 4
	sqliteBusy   = 5
	sqliteLocked = 6
	sqliteIOErr  = 10
)

func code(err error) (int, bool) {
	var de dqdriver.Error
	if errors.As(err, &de) {
		return de.Code, true
	}
	return 0, false
}

// busy reports an error that a wait fixes: the statement did nothing
// because another connection holds the write lock or a checkpoint runs.
func busy(err error) bool {
	c, ok := code(err)
	return ok && (c&0xff == sqliteBusy || c&0xff == sqliteLocked)
}

// lost reports an error after which the connection to the leader is of no
// more use: the network, a leader that stepped down (go-dqlite answers
// driver.ErrBadConn for both) or a deadline in the middle of a request.
func lost(err error) bool {
	_, ok := code(err)
	return !ok
}

// refusedBeforeRaft reports an error that SQLite on the leader gave while
// it ran the statement, before any of its changes went to Raft: the
// statement failed whole and wrote nothing. The leader's failures after the
// changes went to Raft are SQLITE_IOERR (leadership lost, no space) and
// SQLITE_ABORT (the node shut down); with no answer at all, the connection
// is lost.
func refusedBeforeRaft(err error) bool {
	c, ok := code(err)
	return ok && c != 0 && c&0xff != sqliteIOErr && c&0xff != sqliteAbort
}

// UnknownOutcome is the error of a COMMIT (or of a statement the guard
// committed for its caller) that went to the leader and got no answer, or
// an answer that comes only after the write went to Raft: the write may be
// in the cluster or not, whole or not at all, and a later read tells
// (docs/cluster.md K11). It does not unwrap to driver.ErrBadConn, so that
// database/sql never sends the statement again by itself.
type UnknownOutcome struct{ Err error }

func (e *UnknownOutcome) Error() string {
	return "dqlite guard: the commit went to the leader and no answer came: the write may or may not be applied: " + e.Err.Error()
}

// BusyUntilDeadline is the error of a statement that found the write lock
// taken until its context ended: it wrote nothing. It unwraps to the
// context's error and to the leader's last SQLITE_BUSY.
type BusyUntilDeadline struct {
	Waited time.Duration
	Ctx    error // context.DeadlineExceeded or context.Canceled
	Err    error // the leader's last answer
}

func (e *BusyUntilDeadline) Error() string {
	return fmt.Sprintf("dqlite guard: waited %v for the write lock until the context ended (%v): %v", e.Waited.Round(time.Millisecond), e.Ctx, e.Err)
}

func (e *BusyUntilDeadline) Unwrap() []error { return []error{e.Ctx, e.Err} }

// The waits between two tries of a busy statement: from firstWait,
// doubling up to maxWait, each drawn from its upper half so that waiting
// connections spread out. A write holds the lock for a Raft round trip, a
// few milliseconds on a healthy cluster.
const (
	firstWait = time.Millisecond
	maxWait   = 32 * time.Millisecond
)

// whileBusy runs call until it does not fail with SQLITE_BUSY or
// SQLITE_LOCKED, waiting between tries, or until ctx ends.
func whileBusy(ctx context.Context, call func() error) error {
	start := time.Now()
	wait := firstWait
	for {
		err := call()
		if !busy(err) {
			return err
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return &BusyUntilDeadline{Waited: time.Since(start), Ctx: ctx.Err(), Err: err}
		case <-t.C:
		}
		wait = min(2*wait, maxWait)
	}
}

// badConn makes a lost connection's error one that database/sql answers by
// dropping the connection and, where nothing can have been written, trying
// another (driver.ErrBadConn).
func badConn(err error) error {
	if errors.Is(err, driver.ErrBadConn) {
		return err
	}
	return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
}
