package importer

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"github.com/sessionsearch/sessionsearch/agents"
)

// importAgentStore imports every transcript of another agent's store
// (package agents), one transcript per transaction, as importFile does for
// an OpenClaw file.
func (im *Importer) importAgentStore(ctx context.Context, src Source) error {
	env, done := AgentEnv(im.OpenDB)
	defer done()
	transcripts, problems := src.Format.List(ctx, src.Path, env)
	for _, p := range problems {
		im.report(AgentProblem(p))
	}
	for _, tr := range transcripts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := im.importAgentTranscript(ctx, tr); err != nil {
			return err
		}
	}
	return nil
}

// importAgentTranscript stores one transcript. One that cannot resume
// (its store rewrites history: a database, Gemini's upserts) and differs
// from the stored one is stored again whole, replacing it, as sync does
// (docs/agents.md A7); an append-only transcript that differs is a
// conflict, reported.
func (im *Importer) importAgentTranscript(ctx context.Context, tr agents.Transcript) error {
	_, replaces := im.Sink.(Replacer)
	t, err := im.readAgentTranscript(ctx, tr, false, replaces && !tr.Resumable, 0)
	if err != nil || !t.conflicted {
		return err
	}
	_, err = im.readAgentTranscript(ctx, tr, true, false, t.bad)
	return err
}

// readAgentTranscript reads and stores tr; the first skipBad bad records
// were reported by an earlier read of it.
func (im *Importer) readAgentTranscript(ctx context.Context, tr agents.Transcript, replace, retry bool, skipBad int) (*transcript, error) {
	t := im.newTranscript(ctx, tr.Path, func(h header) Session {
		s := tr.Session
		if s.CreatedAt == 0 {
			s.CreatedAt = h.createdAt
		}
		return s
	})
	t.replace, t.retry = replace, retry
	bytes := im.stats.Bytes
	err := tr.Read(ctx, -1, func(e agents.Event) error {
		if e.Bad != nil {
			if t.bad++; t.bad > skipBad {
				im.report(AgentProblem(agents.Problem{Path: tr.Path, Rec: e.Rec, Err: e.Bad}))
			}
			return nil
		}
		im.stats.Bytes += int64(len(e.JSON))
		if err := t.add(e.JSON, location{record: e.Rec}); err != nil {
			return err
		}
		if t.failed {
			return errStop
		}
		return nil
	})
	switch {
	case t.conflicted:
		im.stats.Bytes = bytes // read again
		return t, nil
	case err == errStop:
		return t, nil
	case err != nil:
		if ctx.Err() != nil {
			t.abort()
			return t, ctx.Err()
		}
		im.report(Problem{Path: tr.Path, Record: tr.Unit, Err: err})
		t.abort()
		return t, nil
	}
	return t, t.finish()
}

type stopError struct{}

func (stopError) Error() string { return "stopped" }

var errStop error = stopError{}

// AgentEnv is the agents.Env of an import or a sync: databases opened with
// open (read-only), the process environment. done closes every database
// the formats opened.
func AgentEnv(open func(string) (*sql.DB, error)) (env agents.Env, done func()) {
	var mu sync.Mutex
	var opened []*sql.DB
	if open != nil {
		env.OpenDB = func(path string) (*sql.DB, error) {
			db, err := open(path)
			if err == nil {
				mu.Lock()
				opened = append(opened, db)
				mu.Unlock()
			}
			return db, err
		}
	}
	return env, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, db := range opened {
			db.Close()
		}
		opened = nil
	}
}

// AgentProblem is an agents.Problem as the importer reports it: a record
// "line N" is reported as path:N, like a line of an OpenClaw file.
func AgentProblem(p agents.Problem) Problem {
	if rest, ok := strings.CutPrefix(p.Rec, "line "); ok {
		if n, err := strconv.Atoi(rest); err == nil && n > 0 {
			return Problem{Path: p.Path, Line: n, Err: p.Err}
		}
	}
	return Problem{Path: p.Path, Record: p.Rec, Err: p.Err}
}
