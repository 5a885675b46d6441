package syncer

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/importer"
)

// Syncer brings a sessionsearch database up to date with OpenClaw sources.
type Syncer struct {
	// DB is the sessionsearch database (migrated).
	DB *sql.DB
	// OpenSource opens an OpenClaw agent database read-only (docs/sync.md
	// Y4); see OpenReadOnly.
	OpenSource func(path string, probe bool) (*sql.DB, error)
	// Report receives every problem: a source or an event that was skipped.
	Report func(importer.Problem)
	// IncludeDeleted makes deletion archives searchable (docs/sync.md Y6).
	IncludeDeleted bool
	// Agents says which agents' stores are read, as importer.PlanOptions;
	// nil reads every store.
	Agents func(name string) bool
	// Budget bounds one Sync: no new group of changes starts after it has
	// passed (Stats.More then says so). Zero means no bound.
	Budget time.Duration

	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	now   func() time.Time
	ids   map[string]idCache // per agent database, for Follow and repeated syncs
}

// Stats say what one Sync did.
type Stats struct {
	Sources   int   // sources looked at
	Unchanged int   // of which nothing had changed since the last sync
	Skipped   int   // sources skipped because of a problem (reported)
	Sessions  int   // store sessions written: created, appended, moved or relinked
	Removed   int   // store sessions removed
	Adopted   int   // store sessions an import wrote, taken over as they are (Y20)
	Events    int64 // events stored
	Bytes     int64 // event bytes read from the sources
	More      bool  // the budget ran out before everything was synced
	Pending   int   // sessions left to index (sessions_reconcile)
}

// Close releases the syncer's connection and open sources.
func (s *Syncer) Close() error {
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}

func (s *Syncer) report(p importer.Problem) {
	if s.Report != nil {
		s.Report(p)
	}
}

func (s *Syncer) init(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	if s.now == nil {
		s.now = time.Now
	}
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return err
	}
	if err := ensureSchema(ctx, conn); err != nil {
		conn.Close()
		return fmt.Errorf("sync tables: %w", err)
	}
	s.conn = conn
	s.stmts = map[string]*sql.Stmt{}
	s.ids = map[string]idCache{}
	return nil
}

// stmt prepares a statement of the store connection once.
func (s *Syncer) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = s.conn.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		s.stmts[query] = st
	}
	return tx.StmtContext(ctx, st), nil
}

// unit is one transcript generation of a source as this sync sees it.
type unit struct {
	source, id string
	sess       importer.Session
	kind       string
	sessionID  string
	gen        string
	end        int64 // source position after the last event: the max seq (databases), the size (files)
	resumable  bool  // an append can be decoded without the transcript's start
	// read calls emit for each event after position `after` (-1: from the
	// start), in order; pos is the event's position.
	read func(ctx context.Context, after int64, emit emitFunc) error
	// tail returns the hash of the stored form of the event at pos, ok
	// false when there is none; nil when positions cannot be checked (files
	// are checked by their identity and size).
	tail func(ctx context.Context, pos int64) (hash int64, ok bool, err error)
	// events estimates how many events a full copy reads.
	events int64
}

// emitFunc receives one event of a unit: its position, its JSON (nil when
// bad says why it cannot be read), where it is, for problems, and the hash
// of its stored form (databases; see unit.tail).
type emitFunc = importer.Emit

// row is a unit as the watermark table holds it.
type row struct {
	source, id, key, kind, sessionID, gen string
	position, nextSeq                     int64
	tailHash                              sql.NullInt64
	resumable                             bool
	spawnedBy, parent                     sql.NullString
	createdAt                             sql.NullInt64
}

func (r row) links() importer.Session {
	return importer.Session{Key: r.key, SpawnedBy: r.spawnedBy.String, ParentSessionKey: r.parent.String, CreatedAt: r.createdAt.Int64}
}

// change is what a step does to one unit.
type change struct {
	u   *unit // nil: the unit is gone
	old *row  // nil: the unit is new
}

func (c change) full() bool {
	return c.u != nil && !c.rereads() &&
		(c.old == nil || c.old.key != c.u.sess.Key || c.old.gen != c.u.gen || !c.old.resumable || c.u.end < c.old.position)
}

// rereads reports whether the change is another agent's transcript that
// cannot resume (it is read again whole) whose session sync copied before:
// copyUnit copies only the events after those stored, when the stored ones
// are still its first events, byte for byte (docs/agents.md A12).
func (c change) rereads() bool {
	return c.u != nil && c.old != nil && c.u.rereadWhole() && c.old.kind == kindAgent && !c.old.resumable &&
		c.old.key == c.u.sess.Key && c.old.tailHash.Valid
}

// rereadWhole: another agent's transcript that cannot resume. Its row's
// tail hash is the hash of all the events stored (prefixHash), not of the
// last.
func (u *unit) rereadWhole() bool { return u.kind == kindAgent && !u.resumable }

// prefixHash hashes the events of a transcript in order: the hash of the
// first n events read again equals that of the n events stored when they
// are the same.
type prefixHash struct{ h hash.Hash64 }

func newPrefixHash() prefixHash { return prefixHash{fnv.New64a()} }

func (p prefixHash) add(event []byte) {
	p.h.Write(event)
	p.h.Write([]byte{'\n'}) // an event's JSON has no raw newline
}

func (p prefixHash) sum() int64 { return int64(p.h.Sum64()) }

// sourceState is what a step learned about one source.
type sourceState struct {
	path    string
	stamp   string    // "" when the source must be looked at again next time
	at      time.Time // when the stamp was taken
	ok      bool      // listed in full: units missing from it are gone
	units   []*unit
	ids     []string          // session ids an agent database holds
	db      *importer.AgentDB // read snapshot of an agent database, closed after the step
	failed  bool              // a unit failed: look at the source again next time
	pending int               // groups of this source not applied
	// Other agents' stores (listAgentStore): the stamp must still hold
	// after the step (a database), the stamp was unchanged when listed.
	recheck, unchanged bool
}

// Sync brings the database up to date with the sources under paths (state
// directories, sessions directories, agent databases, JSONL files). It
// returns an error only when the sessionsearch database fails or ctx ends;
// problems with sources are reported and those sources skipped.
func (s *Syncer) Sync(ctx context.Context, paths []string) (Stats, error) {
	var st Stats
	if err := s.init(ctx); err != nil {
		return st, err
	}
	start := s.now()
	// Watermarks are read per source, only for sources that changed.
	rows := map[string]map[string]*row{}
	var rowErr error
	rowsOf := func(path string) map[string]*row {
		r, ok := rows[path]
		if !ok {
			var err error
			if r, err = s.loadRows(ctx, path); err != nil && rowErr == nil {
				rowErr = err
			}
			rows[path] = r
		}
		return r
	}
	stamps, err := s.loadStamps(ctx)
	if err != nil {
		return st, err
	}
	roots := make([]string, len(paths))
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			roots[i] = abs
		} else {
			roots[i] = p
		}
	}

	// Discovery: the importer's plan, with the sessions each agent database
	// holds so that JSONL copies of them are left out.
	states := map[string]*sourceState{}
	var order []string
	dbIDs := func(path string) ([]string, error) {
		abs, _ := filepath.Abs(path)
		ss := s.listDB(ctx, abs, stamps[abs], rowsOf)
		states[abs] = ss
		order = append(order, abs)
		if !ss.ok {
			return nil, nil // reported by listDB
		}
		return ss.ids, nil
	}
	plan, problems := importer.NewPlan(expand(roots), importer.PlanOptions{IncludeDeleted: s.IncludeDeleted, SessionIDs: dbIDs, Agents: s.Agents})
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	for _, p := range problems {
		s.report(p)
	}
	defer func() {
		for _, ss := range states {
			if ss.db != nil {
				ss.db.Close()
			}
		}
	}()
	var agentDone []func()
	defer func() {
		for _, done := range agentDone {
			done()
		}
	}()
	for _, src := range plan.Sources {
		abs, _ := filepath.Abs(src.Path)
		if src.Kind == importer.AgentStore {
			agentDone = append(agentDone, s.listAgentStore(ctx, src, stamps, rowsOf, func(ss *sourceState) {
				if states[ss.path] == nil {
					states[ss.path] = ss
					order = append(order, ss.path)
				}
			}))
			continue
		}
		if src.Kind == importer.AgentDatabase {
			if states[abs] == nil { // a database named on the command line
				dbIDs(abs)
			}
			continue
		}
		if states[abs] != nil {
			continue
		}
		states[abs] = s.listFile(src, abs, stamps[abs], rowsOf)
		order = append(order, abs)
	}
	// Sources synced before that the plan no longer has under a root: gone,
	// or now left out (a deletion archive without IncludeDeleted, a file
	// whose session moved into a database). Not those under a directory
	// that could not be listed (another agent's store): unknown, kept.
	var unlisted []string
	for path, ss := range states {
		if !ss.ok {
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				unlisted = append(unlisted, path)
			}
		}
	}
	for _, path := range sortedKeys(stamps) {
		if states[path] == nil && underAny(path, roots) && !underAny(path, unlisted) {
			states[path] = &sourceState{path: path, ok: true}
			order = append(order, path)
		}
	}
	st.Sources = len(order)

	// Changes, by comparing each source's units with its watermarks.
	var changes []change
	for _, path := range order {
		ss := states[path]
		if !ss.ok {
			if ss.stamp == "" && ss.units == nil {
				st.Skipped++
			}
			continue
		}
		if ss.units == nil && ss.stamp != "" && ss.stamp == stamps[path].stamp {
			st.Unchanged++
			continue
		}
		seen := map[string]bool{}
		n := len(changes)
		old := rowsOf(path)
		for _, u := range ss.units {
			seen[u.id] = true
			old := old[u.id]
			if old != nil && !s.changed(ctx, u, old) {
				continue
			}
			changes = append(changes, change{u: u, old: old})
		}
		for id, old := range rows[path] {
			if !seen[id] {
				changes = append(changes, change{old: old})
			}
		}
		if len(changes) == n && ss.stamp != "" {
			// Nothing to copy: remember the stamp (and when it was taken) at
			// once.
			if err := s.saveStamp(ctx, ss); err != nil {
				return st, err
			}
		}
	}
	if rowErr != nil {
		return st, rowErr
	}
	if changes, err = s.dropConflicts(ctx, changes); err != nil {
		return st, err
	}

	// Groups: changes that share a store key or a session id are applied in
	// one transaction, so that the active path of a session key moves from
	// one generation to the next at once (docs/sync.md Y3).
	groups := groupChanges(changes)
	for _, g := range groups {
		for _, c := range g {
			states[c.source()].pending++
		}
	}
	// Batches: small groups share a transaction (a commit costs an fsync),
	// up to batchEvents events; a batch is the step that a kill can lose.
	for len(groups) > 0 {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		// At least one batch per sync, so that every sync makes progress.
		if s.Budget > 0 && st.Sessions+st.Removed > 0 && s.now().Sub(start) > s.Budget {
			st.More = true
			break
		}
		var events int64
		n := 0
		limit := int64(batchEvents)
		if s.Budget > 0 {
			limit = batchEvents / 8 // smaller steps, to keep within the budget
		}
		for n < len(groups) && (n == 0 || events+groupEvents(groups[n]) <= limit) {
			events += groupEvents(groups[n])
			n++
		}
		batch := groups[:n]
		groups = groups[n:]
		failed, err := s.applyBatch(context.WithoutCancel(ctx), batch, &st)
		if err != nil {
			return st, err
		}
		for _, source := range failed {
			states[source].failed = true
		}
		for _, c := range flatten(batch) {
			ss := states[c.source()]
			ss.pending--
			if ss.pending == 0 && ss.stamp != "" && !ss.failed {
				if err := s.saveStamp(ctx, ss); err != nil {
					return st, err
				}
			}
		}
	}
	for _, path := range order {
		if ss := states[path]; ss.ok && ss.pending == 0 && ss.stamp == "" && len(ss.units) == 0 {
			if _, err := s.conn.ExecContext(ctx, `DELETE FROM sessionsearch_sync_sources WHERE path = ?`, path); err != nil {
				return st, err
			}
		}
	}
	// Sessions left pending: deferred for their size by a replay
	// (docs/store.md S7), or by an earlier sync or another writer.
	var js string
	if err := s.conn.QueryRowContext(ctx, `SELECT sessions_index_status()`).Scan(&js); err != nil {
		return st, err
	}
	var is struct {
		PendingSessions int `json:"pendingSessions"`
	}
	if json.Unmarshal([]byte(js), &is) == nil && is.PendingSessions > 0 {
		var js string
		for {
			budget := 500 * time.Millisecond
			if s.Budget > 0 {
				budget = min(budget, max(s.Budget-s.now().Sub(start), 10*time.Millisecond))
			}
			if err := s.conn.QueryRowContext(ctx, `SELECT sessions_reconcile(?)`, budget.Milliseconds()).Scan(&js); err != nil {
				return st, fmt.Errorf("indexing: %w", err)
			}
			var rs struct {
				Pending int `json:"pending"`
			}
			if err := json.Unmarshal([]byte(js), &rs); err != nil {
				return st, fmt.Errorf("sessions_reconcile returned %q: %w", js, err)
			}
			st.Pending = rs.Pending
			if rs.Pending == 0 || ctx.Err() != nil || (s.Budget > 0 && s.now().Sub(start) > s.Budget) {
				break
			}
		}
		if st.Pending > 0 {
			st.More = true
		}
	}
	return st, nil
}

func (c change) source() string {
	if c.u != nil {
		return c.u.source
	}
	return c.old.source
}

// expand replaces a state directory (one with agents/) by its agents'
// directories, so that the walk stays out of the rest of it (workspaces,
// logs, media can be large; docs/sync.md Y1).
func expand(roots []string) []string {
	var out []string
	for _, r := range roots {
		entries, err := os.ReadDir(filepath.Join(r, "agents"))
		if err != nil || agents.Claimed(r) != nil { // another agent's store
			out = append(out, r)
			continue
		}
		n := len(out)
		for _, e := range entries {
			a := filepath.Join(r, "agents", e.Name())
			if !e.IsDir() {
				continue
			}
			for _, sub := range []string{"agent", "sessions"} {
				if info, err := os.Stat(filepath.Join(a, sub)); err == nil && info.IsDir() {
					out = append(out, a)
					break
				}
			}
		}
		if len(out) == n {
			out = append(out, r) // nothing there: let the plan say so
		}
	}
	return out
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// changed reports whether u differs from its watermark: new events, another
// key, generation or links, or a tail that no longer matches.
func (s *Syncer) changed(ctx context.Context, u *unit, old *row) bool {
	// Another agent's transcript that cannot resume is as its generation
	// says (a fingerprint of its rows, or its file's whole stamp).
	if old.key != u.sess.Key || old.gen != u.gen || u.end != old.position || (!old.resumable && u.kind != kindAgent) || u.kind != old.kind {
		return true
	}
	l := old.links()
	return l.SpawnedBy != u.sess.SpawnedBy || l.ParentSessionKey != u.sess.ParentSessionKey || (u.sess.CreatedAt != 0 && l.CreatedAt != u.sess.CreatedAt)
}

// dropConflicts leaves out a change that would take a store key another
// unit keeps (two sources claiming one session), and reports it.
func (s *Syncer) dropConflicts(ctx context.Context, changes []change) ([]change, error) {
	leaving := map[string]bool{} // keys that changes move away from or remove
	for _, c := range changes {
		if c.old != nil && (c.u == nil || c.old.key != c.u.sess.Key) {
			leaving[c.old.key] = true
		}
	}
	holder := map[string]string{}
	out := changes[:0]
	for _, c := range changes {
		if c.u != nil {
			me := c.u.source + "\x00" + c.u.id
			key := c.u.sess.Key
			h, ok := holder[key]
			if !ok && !leaving[key] && (c.old == nil || c.old.key != key) {
				var src, unit string
				err := s.conn.QueryRowContext(ctx, `SELECT source, unit FROM sessionsearch_sync_units WHERE session_key = ? LIMIT 1`, key).Scan(&src, &unit)
				if err == nil {
					h, ok = src+"\x00"+unit, true
				} else if !errors.Is(err, sql.ErrNoRows) {
					return nil, err
				}
			}
			if ok && h != me {
				other := strings.SplitN(h, "\x00", 2)
				s.report(importer.Problem{Path: c.u.source, Record: c.u.id, Err: fmt.Errorf("session %s is already synced from %s (%s); this copy is skipped", key, other[0], other[1])})
				continue
			}
			holder[key] = me
		}
		out = append(out, c)
	}
	return out, nil
}

// groupChanges unites changes that share a store key (old or new) or a
// session id of the same agent, in a stable order.
func groupChanges(changes []change) [][]change {
	parent := make([]int, len(changes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	by := map[string]int{}
	join := func(k string, i int) {
		if j, ok := by[k]; ok {
			parent[find(i)] = find(j)
		} else {
			by[k] = i
		}
	}
	for i, c := range changes {
		if c.u != nil {
			join("k"+c.u.sess.Key, i)
			join("s"+filepath.Dir(c.u.source)+"\x00"+c.u.sessionID, i)
		}
		if c.old != nil {
			join("k"+c.old.key, i)
			join("s"+filepath.Dir(c.old.source)+"\x00"+c.old.sessionID, i)
		}
	}
	idx := map[int]int{}
	var groups [][]change
	for i, c := range changes {
		r := find(i)
		g, ok := idx[r]
		if !ok {
			g = len(groups)
			idx[r] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], c)
	}
	return groups
}

// Store statements (the transcript store's plain SQL, docs/store.md).
const (
	insertSessionSQL = `INSERT INTO sessions(session_key, spawned_by, parent_session_key, created_at) VALUES (?1, ?2, ?3, ?4)`
	updateLinksSQL   = `UPDATE sessions SET spawned_by = ?2, parent_session_key = ?3, created_at = coalesce(?4, created_at)
		WHERE session_key = ?1 AND (spawned_by IS NOT ?2 OR parent_session_key IS NOT ?3 OR (?4 IS NOT NULL AND created_at IS NOT ?4))`
	insertEventSQL   = `INSERT INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?)`
	deleteSessionSQL = `DELETE FROM sessions WHERE session_key = ?`
	// Every source with units has a row, so that a source that is gone is
	// found without reading every unit; "" is a stamp that never matches.
	ensureSourceSQL = `INSERT OR IGNORE INTO sessionsearch_sync_sources(path, stamp, checked_at) VALUES (?, '', 0)`
	upsertUnitSQL   = `INSERT OR REPLACE INTO sessionsearch_sync_units(source, unit, session_key, kind, session_id, generation,
		position, next_seq, tail_hash, resumable, spawned_by, parent_session_key, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	deleteUnitSQL = `DELETE FROM sessionsearch_sync_units WHERE source = ? AND unit = ?`
)

// batchEvents bounds the events one transaction copies, unless a single
// group is larger (a transcript is copied whole or not at all).
const batchEvents = 8192

// groupEvents estimates the events a group copies.
func groupEvents(g []change) int64 {
	var n int64 = 1
	for _, c := range g {
		if c.u != nil && c.full() {
			n += c.u.events
		} else if c.u != nil {
			n += max(c.u.end-c.old.position, 1)
		}
	}
	return n
}

func flatten(groups [][]change) []change {
	var out []change
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// applyBatch applies groups of changes in one transaction. A unit that
// fails to be read is reported and its whole group left out (its source is
// returned in failed, to be looked at again next time), so that no group is
// applied in part.
func (s *Syncer) applyBatch(ctx context.Context, groups [][]change, st *Stats) ([]string, error) {
	var failed []string
	for {
		stats := *st
		err := s.applyOnce(ctx, flatten(groups), &stats)
		if err == nil {
			*st = stats
			return failed, nil
		}
		var skip *skipError
		if !errors.As(err, &skip) {
			return failed, err
		}
		s.report(skip.p)
		failed = append(failed, skip.source)
		groups = withoutUnit(groups, skip.source, skip.unit)
		if len(groups) == 0 {
			return failed, nil
		}
	}
}

// withoutUnit drops the group holding unit id of source.
func withoutUnit(groups [][]change, source, id string) [][]change {
	var out [][]change
	for _, g := range groups {
		keep := true
		for _, c := range g {
			if c.u != nil && c.u.source == source && c.u.id == id {
				keep = false
			}
		}
		if keep {
			out = append(out, g)
		}
	}
	return out
}

// skipError is a unit that failed while its events were read.
type skipError struct {
	source, unit string
	p            importer.Problem
}

func (e *skipError) Error() string { return e.p.Error() }

func (s *Syncer) applyOnce(ctx context.Context, g []change, st *Stats) error {
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A new unit whose session an import stored as the unit holds it is
	// taken over, not written again (Y20).
	kept := make([]change, 0, len(g))
	for _, c := range g {
		if c.full() && c.old == nil {
			ok, err := s.adopt(ctx, tx, c, st)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		kept = append(kept, c)
	}
	g = kept
	del, err := s.stmt(ctx, tx, deleteSessionSQL)
	if err != nil {
		return err
	}
	// First every store session that goes or is rewritten, then the copies.
	for _, c := range g {
		if c.old != nil && (c.u == nil || c.full()) {
			if _, err := del.ExecContext(ctx, c.old.key); err != nil {
				return err
			}
			if c.u == nil {
				st.Removed++
				dst, err := s.stmt(ctx, tx, deleteUnitSQL)
				if err != nil {
					return err
				}
				if _, err := dst.ExecContext(ctx, c.old.source, c.old.id); err != nil {
					return err
				}
			}
		}
		if c.full() {
			// A session under the new key that sync does not fill (an import
			// of the same transcript) is replaced.
			if _, err := del.ExecContext(ctx, c.u.sess.Key); err != nil {
				return err
			}
		}
	}
	// Appends through the store's trigger, as any host appends; new
	// copies with the store's bulk load (docs/sync.md Y16).
	var full []change
	for _, c := range g {
		switch {
		case c.u == nil:
		case c.full():
			full = append(full, c)
		default:
			if err := s.copyUnit(ctx, tx, c, st); err != nil {
				return err
			}
		}
	}
	if err := s.loadUnits(ctx, tx, full, st); err != nil {
		return err
	}
	return tx.Commit()
}

// errRewritten: a transcript read again whole whose stored events are no
// longer its first ones.
var errRewritten = errors.New("rewritten")

// copyUnit writes one unit: a full copy, or the events after its watermark,
// or the events after those stored of a transcript read again whole.
func (s *Syncer) copyUnit(ctx context.Context, tx *sql.Tx, c change, st *Stats) error {
	u := c.u
	full, reread := c.full(), c.rereads()
	position, nextSeq := int64(-1), int64(0)
	var tail sql.NullInt64
	dec := importer.NewDecoder()
	// The events read again that are stored already: their hash is checked,
	// they are not copied.
	var stored int64
	prefix := newPrefixHash()
	rewritten := func() error {
		// Copy it again whole.
		del, err := s.stmt(ctx, tx, deleteSessionSQL)
		if err != nil {
			return err
		}
		if _, err := del.ExecContext(ctx, c.old.key); err != nil {
			return err
		}
		old := *c.old
		old.resumable, old.tailHash = false, sql.NullInt64{}
		return s.copyUnit(ctx, tx, change{u: u, old: &old}, st)
	}
	if reread {
		nextSeq, stored = c.old.nextSeq, c.old.nextSeq
		if stored == 0 && prefix.sum() != c.old.tailHash.Int64 {
			return rewritten()
		}
		up, err := s.stmt(ctx, tx, updateLinksSQL)
		if err != nil {
			return err
		}
		if _, err := up.ExecContext(ctx, u.sess.Values()...); err != nil {
			return err
		}
	} else if !full {
		position, nextSeq, tail = c.old.position, c.old.nextSeq, c.old.tailHash
		if u.tail != nil && position >= 0 {
			h, ok, err := u.tail(ctx, position)
			if err != nil {
				return &skipError{source: u.source, unit: u.id, p: importer.Problem{Path: u.source, Record: u.id, Err: err}}
			}
			if !ok || !tail.Valid || h != tail.Int64 {
				// The transcript was rewritten under the same generation.
				return rewritten()
			}
		}
		dec = importer.ResumeDecoder()
		up, err := s.stmt(ctx, tx, updateLinksSQL)
		if err != nil {
			return err
		}
		if _, err := up.ExecContext(ctx, u.sess.Values()...); err != nil {
			return err
		}
	}
	ins, err := s.stmt(ctx, tx, insertEventSQL)
	if err != nil {
		return err
	}
	created := !full
	createSession := func() error {
		if created {
			return nil
		}
		created = true
		sess := u.sess
		if sess.CreatedAt == 0 {
			sess.CreatedAt = dec.HeaderCreatedAt()
		}
		is, err := s.stmt(ctx, tx, insertSessionSQL)
		if err != nil {
			return err
		}
		_, err = is.ExecContext(ctx, sess.Values()...)
		return err
	}
	readFrom := position
	if full || reread {
		readFrom = -1
	}
	var seen int64 // the events read, stored or not
	err = u.read(ctx, readFrom, func(pos int64, raw []byte, rec string, bad error, storedHash int64) error {
		st.Bytes += int64(len(raw))
		position = pos
		if !u.rereadWhole() {
			tail = sql.NullInt64{Int64: storedHash, Valid: true}
		}
		event, ok := s.decode(u, dec, raw, rec, bad)
		if !ok {
			return nil
		}
		if u.rereadWhole() {
			prefix.add(raw)
			seen++
			if seen <= stored {
				if seen == stored && prefix.sum() != c.old.tailHash.Int64 {
					return errRewritten
				}
				return nil
			}
		}
		if err := createSession(); err != nil {
			return storeError{err}
		}
		if _, err := ins.ExecContext(ctx, u.sess.Key, nextSeq, string(event)); err != nil {
			return storeError{fmt.Errorf("session %s, seq %d: %w", u.sess.Key, nextSeq, err)}
		}
		nextSeq++
		st.Events++
		return nil
	})
	var se storeError
	if errors.As(err, &se) {
		return se.err
	}
	if errors.Is(err, errRewritten) || (err == nil && seen < stored) {
		return rewritten()
	}
	if u.rereadWhole() {
		tail = sql.NullInt64{Int64: prefix.sum(), Valid: true}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &skipError{source: u.source, unit: u.id, p: importer.Problem{Path: u.source, Record: u.id, Err: err}}
	}
	if err := createSession(); err != nil {
		return err
	}
	return s.saveUnit(ctx, tx, u, position, nextSeq, tail, dec, st)
}

// saveUnit writes the watermark of a unit copied up to position, whose
// next store seq is nextSeq.
func (s *Syncer) saveUnit(ctx context.Context, tx *sql.Tx, u *unit, position, nextSeq int64, tail sql.NullInt64, dec *importer.Decoder, st *Stats) error {
	if u.kind == kindCold || (u.kind == kindAgent && !u.resumable) {
		// A cold archive's lines are its events up to last_seq; a
		// transcript that cannot resume is as its generation says.
		position = u.end
	}
	es, err := s.stmt(ctx, tx, ensureSourceSQL)
	if err != nil {
		return err
	}
	if _, err := es.ExecContext(ctx, u.source); err != nil {
		return err
	}
	up, err := s.stmt(ctx, tx, upsertUnitSQL)
	if err != nil {
		return err
	}
	resumable := u.resumable && dec.Resumable()
	row := u.sess.Values() // key, spawned_by, parent_session_key, created_at
	_, err = up.ExecContext(ctx, u.source, u.id, u.sess.Key, u.kind, u.sessionID, u.gen, position, nextSeq, tail,
		resumable, row[1], row[2], row[3])
	if err != nil {
		return err
	}
	st.Sessions++
	return nil
}

// decode checks and decodes one event a unit's reader emitted; a bad one
// is reported and skipped.
func (s *Syncer) decode(u *unit, dec *importer.Decoder, raw []byte, rec string, bad error) ([]byte, bool) {
	if bad == nil && len(raw) > importer.MaxLineBytes {
		bad = importer.ErrLineTooLong
	}
	if bad != nil {
		s.report(importer.Problem{Path: u.source, Record: rec, Err: bad})
		return nil, false
	}
	event, err := dec.Decode(raw)
	if err != nil {
		s.report(importer.Problem{Path: u.source, Record: rec, Err: err})
		return nil, false
	}
	return event, true
}

type storeError struct{ err error }

func (e storeError) Error() string { return e.err.Error() }

func (s *Syncer) loadRows(ctx context.Context, source string) (map[string]*row, error) {
	rs, err := s.conn.QueryContext(ctx, `SELECT source, unit, session_key, kind, session_id, generation, position, next_seq,
		tail_hash, resumable, spawned_by, parent_session_key, created_at FROM sessionsearch_sync_units WHERE source = ?`, source)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]*row{}
	for rs.Next() {
		r := &row{}
		if err := rs.Scan(&r.source, &r.id, &r.key, &r.kind, &r.sessionID, &r.gen, &r.position, &r.nextSeq,
			&r.tailHash, &r.resumable, &r.spawnedBy, &r.parent, &r.createdAt); err != nil {
			return nil, err
		}
		out[r.id] = r
	}
	return out, rs.Err()
}

type stamp struct {
	stamp     string
	checkedAt int64
}

func (s *Syncer) loadStamps(ctx context.Context) (map[string]stamp, error) {
	rs, err := s.conn.QueryContext(ctx, `SELECT path, stamp, checked_at FROM sessionsearch_sync_sources`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]stamp{}
	for rs.Next() {
		var p string
		var st stamp
		if err := rs.Scan(&p, &st.stamp, &st.checkedAt); err != nil {
			return nil, err
		}
		out[p] = st
	}
	return out, rs.Err()
}

func (s *Syncer) saveStamp(ctx context.Context, ss *sourceState) error {
	if ss.db != nil || ss.recheck {
		// A database must still be as it was when it was read: an
		// immutable read of a database that a gateway started writing may
		// have missed pages (docs/sync.md Y4); look at it again next time.
		if now, _ := dbStamp(ss.path); now != ss.stamp {
			return nil
		}
	}
	_, err := s.conn.ExecContext(ctx, `INSERT OR REPLACE INTO sessionsearch_sync_sources(path, stamp, checked_at) VALUES (?, ?, ?)`,
		ss.path, ss.stamp, ss.at.UnixNano())
	return err
}

// fileStamp identifies a file's state: device, inode, size and change time.
// ok is false when it does not exist.
func fileStamp(path string) (string, time.Time, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return "-", time.Time{}, false
	}
	dev, ino := fileID(info)
	return fmt.Sprintf("%d:%d:%d:%d", dev, ino, info.Size(), info.ModTime().UnixNano()), info.ModTime(), true
}

// racyWindow: a stamp taken less than this after the file's last change may
// miss a change in the same clock tick, so it is not trusted (docs/sync.md
// Y2).
const racyWindow = 2 * time.Second

// trusted reports whether a stored stamp equal to the current one proves
// that nothing changed: it was checked well after the newest change.
func trusted(old stamp, newest time.Time) bool {
	return old.checkedAt-newest.UnixNano() > int64(racyWindow)
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
