package guard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	dqdriver "github.com/canonical/go-dqlite/driver"
)

// TestOutcome is the table of docs/cluster.md K10 and K11: what an error of
// the leader says about the statement that got it.
func TestOutcome(t *testing.T) {
	netErr := &net.OpError{Op: "read", Net: "tcp", Err: io.ErrUnexpectedEOF}
	tests := []struct {
		name    string
		err     error
		busy    bool // wait and send it again: it did nothing
		lost    bool // the connection is of no more use
		refused bool // at COMMIT: SQLite refused it, nothing went to Raft
	}{
		{"write lock taken", dqdriver.Error{Code: 5, Message: "database is locked"}, true, false, true},
		{"checkpoint running", dqdriver.Error{Code: 5, Message: "checkpoint in progress"}, true, false, true},
		{"stale snapshot", dqdriver.Error{Code: 5 | 2<<8, Message: "database is locked"}, true, false, true},
		{"table locked", dqdriver.Error{Code: 6, Message: "database table is locked"}, true, false, true},
		{"constraint", dqdriver.Error{Code: 19 | 6<<8, Message: "sessions: a session key must be text"}, false, false, true},
		{"SQL error", dqdriver.Error{Code: 1, Message: "no such table: x"}, false, false, true},
		{"no space for the raft log", dqdriver.Error{Code: 10 | 3<<8, Message: "disk I/O error"}, false, false, false},
		{"node shut down", dqdriver.Error{Code: 4, Message: "abort"}, false, false, false},
		{"leadership lost", driver.ErrBadConn, false, true, false},
		{"network", fmt.Errorf("call exec-sql (budget 0s): receive: %w", netErr), false, true, false},
		{"waited until the deadline", &BusyUntilDeadline{Waited: time.Second, Ctx: context.DeadlineExceeded, Err: dqdriver.Error{Code: 5}}, true, false, true},
	}
	for _, tt := range tests {
		if got := busy(tt.err); got != tt.busy {
			t.Errorf("%s: busy(%v) = %v, want %v", tt.name, tt.err, got, tt.busy)
		}
		if got := lost(tt.err); got != tt.lost {
			t.Errorf("%s: lost(%v) = %v, want %v", tt.name, tt.err, got, tt.lost)
		}
		if got := refusedBeforeRaft(tt.err); got != tt.refused {
			t.Errorf("%s: refusedBeforeRaft(%v) = %v, want %v", tt.name, tt.err, got, tt.refused)
		}
	}
	// A lost connection's error makes database/sql drop it; an unknown
	// outcome never unwraps to driver.ErrBadConn, which would make
	// database/sql send the statement again.
	if !errors.Is(badConn(netErr), driver.ErrBadConn) || !errors.Is(badConn(netErr), io.ErrUnexpectedEOF) {
		t.Errorf("badConn(%v) = %v, want driver.ErrBadConn wrapping it", netErr, badConn(netErr))
	}
	if errors.Is(&UnknownOutcome{Err: driver.ErrBadConn}, driver.ErrBadConn) {
		t.Errorf("UnknownOutcome unwraps to driver.ErrBadConn")
	}
	if !errors.Is(&BusyUntilDeadline{Ctx: context.DeadlineExceeded, Err: dqdriver.Error{Code: 5}}, context.DeadlineExceeded) {
		t.Errorf("BusyUntilDeadline does not unwrap to its context's error")
	}
}

// TestWhileBusy: a busy statement is sent again until it is not, and not
// past its context.
func TestWhileBusy(t *testing.T) {
	calls := 0
	err := whileBusy(context.Background(), func() error {
		calls++
		if calls < 4 {
			return dqdriver.Error{Code: 5, Message: "database is locked"}
		}
		return nil
	})
	if err != nil || calls != 4 {
		t.Errorf("whileBusy = %v after %d calls, want nil after 4", err, calls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = whileBusy(ctx, func() error { return dqdriver.Error{Code: 5, Message: "database is locked"} })
	var bud *BusyUntilDeadline
	if !errors.As(err, &bud) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("whileBusy until the deadline = %v, want a BusyUntilDeadline", err)
	}
	calls = 0
	err = whileBusy(context.Background(), func() error { calls++; return driver.ErrBadConn })
	if !errors.Is(err, driver.ErrBadConn) || calls != 1 {
		t.Errorf("whileBusy of a lost connection = %v after %d calls, want it at once", err, calls)
	}
}
