package importer

import (
	"context"
	"fmt"

	"github.com/sessionsearch/sessionsearch/store"
)

// Session is one transcript generation as the store keeps it: a row of the
// sessions table ("" and 0 for unknown), store.Session.
type Session = store.Session

// Sink stores transcripts. Begin starts one transcript (creating its
// session, or filling links the stored session lacks); the events follow in
// order, numbered from 0, then Commit or Rollback.
type Sink interface {
	Begin(ctx context.Context, s Session) (TranscriptWriter, error)
}

// Replacer is a Sink that can replace a stored transcript whole: the
// session and its events are deleted in the transaction that stores the new
// ones (for another agent's transcript whose history was rewritten;
// docs/agents.md A7).
type Replacer interface {
	BeginReplace(ctx context.Context, s Session) (TranscriptWriter, error)
}

// TranscriptWriter receives the events of one transcript.
type TranscriptWriter interface {
	// Append stores event at seq. It reports whether the event is new; an
	// event already stored at seq must be identical, else Append returns a
	// *ConflictError.
	Append(ctx context.Context, seq int, event []byte) (added bool, err error)
	Commit() error
	Rollback() error
}

// ConflictError is an event that differs from the one stored at its
// position: another copy of the transcript was imported first, or the
// transcript was rewritten since it was imported.
type ConflictError struct {
	SessionKey string
	Seq        int
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("differs from event %d already stored for session %s (another copy of this transcript was imported, or it was rewritten since)", e.Seq, e.SessionKey)
}

// Problem is something the importer could not import: a line, an event or
// a whole source. Path names the file; Line (files) or Record (databases,
// e.g. "session 1f0…, seq 12") the place in it, when there is one.
type Problem struct {
	Path   string
	Line   int
	Record string
	Err    error
}

func (p Problem) Error() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %v", p.Path, p.Line, p.Err)
	case p.Record != "":
		return fmt.Sprintf("%s: %s: %v", p.Path, p.Record, p.Err)
	default:
		return fmt.Sprintf("%s: %v", p.Path, p.Err)
	}
}

func (p Problem) Unwrap() error { return p.Err }
