package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessionsearch/sessionsearch/jsonl"
)

// Importer imports sources into a Sink, one transcript per transaction.
type Importer struct {
	Sink Sink
	// OpenDB opens an OpenClaw agent database read-only. Agent databases
	// are reported as problems when it is nil.
	OpenDB func(path string) (*sql.DB, error)
	// Report receives every problem; nil drops them.
	Report func(Problem)
	// Progress, when set, is called after each transcript is committed,
	// every progressEvery events inside one, and after each source.
	Progress func(Stats)

	stats   Stats
	current string // the path of the transcript being read, for a Sink's later reports
}

// Stats count what an Importer did so far.
type Stats struct {
	Transcripts int   // transcripts committed (new or already stored)
	Events      int64 // events committed, new or already stored
	Added       int64 // events that were new
	Bytes       int64 // bytes read: JSONL, or the events of databases
}

const progressEvery = 4096

// Stats returns what the importer has done so far.
func (im *Importer) Stats() Stats { return im.stats }

func (im *Importer) report(p Problem) {
	if im.Report != nil {
		im.Report(p)
	}
}

// counted counts a transcript a Sink stored after the importer handed it
// on (BulkSink).
func (im *Importer) counted(events, added int64) {
	im.stats.Transcripts++
	im.stats.Events += events
	im.stats.Added += added
}

func (im *Importer) progress() {
	if im.Progress != nil {
		im.Progress(im.stats)
	}
}

// Import imports one source. It returns an error only when ctx ends; every
// other failure is reported as a Problem and the import goes on with the
// next transcript.
func (im *Importer) Import(ctx context.Context, src Source) error {
	var err error
	switch src.Kind {
	case AgentDatabase:
		err = im.importAgentDB(ctx, src)
	case AgentStore:
		err = im.importAgentStore(ctx, src)
	default:
		err = im.importFile(ctx, src)
	}
	im.progress()
	return err
}

func (im *Importer) importFile(ctx context.Context, src Source) error {
	f, err := os.Open(src.Path)
	if err != nil {
		im.report(Problem{Path: src.Path, Err: unwrapPathError(err)})
		return nil
	}
	defer f.Close()
	if strings.HasSuffix(src.Path, ".zst") {
		// Archives OpenClaw compressed (<file>.jsonl.deleted.<ts>.zst).
		z, err := ZstdReader(f, MaxArchiveBytes)
		if err != nil {
			im.report(Problem{Path: src.Path, Err: err})
			return nil
		}
		defer z.Close()
		return im.ImportReader(ctx, src, z)
	}
	return im.ImportReader(ctx, src, f)
}

// MaxArchiveBytes caps the decoded size of a compressed transcript archive;
// OpenClaw keeps transcripts over 64 MiB of JSONL in SQLite rather than in
// cold files, so a larger one is not one it wrote.
const MaxArchiveBytes = 1 << 30

// ImportReader imports the JSONL transcript read from r; src says where it
// came from (src.Path names it in problems) and which session it is.
func (im *Importer) ImportReader(ctx context.Context, src Source, r io.Reader) error {
	t := im.newTranscript(ctx, src.Path, src.fileSession)
	var last int64
	err := FileLines(r, 0, false, func(line []byte, _, end int64, n int, bad error) error {
		im.stats.Bytes += end - last
		last = end
		return t.take(line, location{line: n}, bad)
	})
	return t.done(err, location{})
}

// take stores one record a reader emitted; a bad one (bad says why) is
// reported and skipped. It returns errStop once the transcript failed.
func (t *transcript) take(raw []byte, at location, bad error) error {
	if bad != nil {
		t.im.report(Problem{Path: t.path, Line: at.line, Record: at.record, Err: bad})
		return nil
	}
	if err := t.add(raw, at); err != nil {
		return err
	}
	if t.failed {
		return errStop
	}
	return nil
}

// done ends a transcript whose reader returned err: committed when it read
// to the end, rolled back and reported (at where) when it failed, the
// context's error when it ended.
func (t *transcript) done(err error, where location) error {
	switch {
	case err == errStop:
		return nil
	case err != nil && t.ctx.Err() != nil:
		t.abort()
		return t.ctx.Err()
	case err != nil:
		t.im.report(Problem{Path: t.path, Record: where.record, Err: err})
		t.abort()
		return nil
	}
	return t.finish()
}

// FileLines calls fn with each line of a JSONL transcript read from r, the
// one reading of OpenClaw's transcript files for import and sync: the line
// without surrounding white space, the offsets of its start and after its
// end in its file (r's first byte is at start), its number in what r reads
// (from 1), and bad
// when it cannot be read (longer than MaxLineBytes). Empty lines are
// skipped. With live, a last line without its newline is left for a later
// read: the file is still being written (docs/sync.md Y8). An error of r
// ends it, and so does one of fn.
func FileLines(r io.Reader, start int64, live bool, fn func(line []byte, start, end int64, n int, bad error) error) error {
	lines := jsonl.NewReader(r)
	end := start
	for {
		line, n, complete, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, jsonl.ErrLineTooLong) {
			return err
		}
		if live && !complete {
			return nil
		}
		begin := end
		end += int64(n)
		if err != nil {
			if err := fn(nil, begin, end, lines.Line(), err); err != nil {
				return err
			}
			continue
		}
		if len(line) == 0 {
			continue
		}
		if err := fn(line, begin, end, lines.Line(), nil); err != nil {
			return err
		}
	}
}

// location is where an event came from: a file line or a database record.
type location struct {
	line   int
	record string
}

// transcript feeds the entries of one transcript to the sink. The session is
// resolved, and the transaction begun, at the first valid entry, so the
// session header can supply the session id and creation time.
type transcript struct {
	im      *Importer
	ctx     context.Context
	path    string
	resolve func(header) Session
	dec     entryDecoder
	w       TranscriptWriter
	key     string
	seq     int
	events  int64
	added   int64
	failed  bool
	// replace: begin with the sink's BeginReplace; retry: a conflict
	// rolls back without a report and sets conflicted, for the caller to
	// replace the transcript.
	replace, retry, conflicted bool
	bad                        int // bad records of another agent's transcript
}

func (im *Importer) newTranscript(ctx context.Context, path string, resolve func(header) Session) *transcript {
	return &transcript{im: im, ctx: ctx, path: path, resolve: resolve}
}

// add decodes and stores one entry. A bad entry is reported and skipped; a
// store failure is reported and ends the transcript (t.failed). The error is
// the context's, when it ended.
func (t *transcript) add(raw []byte, at location) error {
	if len(raw) > MaxLineBytes {
		t.im.report(Problem{Path: t.path, Line: at.line, Record: at.record, Err: jsonl.ErrLineTooLong})
		return nil
	}
	if b, ok := t.w.(*bulkTranscript); ok && t.dec.asWritten() {
		// The store's reading of the event is the check (it is read once,
		// where the check would read it again); an event it cannot read
		// goes to decode, for the error.
		if p := b.s.loader.Prepare(raw); p.Err == nil {
			t.dec.index++
			added, err := b.appendPrepared(t.ctx, &p, len(raw))
			return t.took(added, err, at)
		}
	}
	event, err := t.dec.decode(raw)
	if err != nil {
		t.im.report(Problem{Path: t.path, Line: at.line, Record: at.record, Err: err})
		return nil
	}
	if t.w == nil {
		s := t.resolve(t.dec.header)
		t.im.current = t.path
		begin := t.im.Sink.Begin
		if r, ok := t.im.Sink.(Replacer); ok && t.replace {
			begin = r.BeginReplace
		}
		w, err := begin(t.ctx, s)
		if err != nil {
			return t.fail(at, fmt.Errorf("session %s: %w", s.Key, err))
		}
		t.w, t.key = w, s.Key
	}
	added, err := t.w.Append(t.ctx, t.seq, event)
	return t.took(added, err, at)
}

// took counts an event the sink took.
func (t *transcript) took(added bool, err error, at location) error {
	var conflict *ConflictError
	if t.retry && errors.As(err, &conflict) {
		t.conflicted = true
		t.abort()
		return nil
	}
	if err != nil {
		return t.fail(at, err)
	}
	t.seq++
	t.events++
	if added {
		t.added++
	}
	if t.events%progressEvery == 0 {
		t.im.progress()
	}
	return nil
}

// fail reports err at the location, rolls the transcript back and returns
// the context's error, if it ended.
func (t *transcript) fail(at location, err error) error {
	if ctxErr := t.ctx.Err(); ctxErr != nil {
		t.abort()
		return ctxErr
	}
	t.im.report(Problem{Path: t.path, Line: at.line, Record: at.record, Err: err})
	t.abort()
	return nil
}

func (t *transcript) abort() {
	t.failed = true
	if t.w != nil {
		t.w.Rollback()
		t.w = nil
	}
}

// finish commits the transcript. A transcript without a single valid entry
// stores nothing and is reported.
func (t *transcript) finish() error {
	if t.failed {
		return nil
	}
	if t.w == nil {
		if t.dec.index == 0 {
			t.im.report(Problem{Path: t.path, Err: errors.New("no transcript entries")})
		}
		return nil
	}
	if err := t.w.Commit(); err != nil {
		t.failed = true
		if ctxErr := t.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		t.im.report(Problem{Path: t.path, Err: fmt.Errorf("session %s: commit: %w", t.key, err)})
		return nil
	}
	if _, later := t.w.(interface{ countedLater() }); !later {
		t.im.counted(t.events, t.added)
	}
	t.im.progress()
	return nil
}

// unwrapPathError drops the path from an *os.PathError, which Problem
// prints already.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
