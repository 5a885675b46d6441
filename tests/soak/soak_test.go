//go:build sqlite_fts5

// Package soak is sessionsearch's soak test: one Go writer and readers in
// Python, Node and Go on one SQLite file in WAL mode, for a set time, every
// result checked against the writer's model.
//
// The writer (this process, through the driver, with driver.Maintain
// running as a long-running writer's should) creates sessions, appends
// messages and tool calls, branches, starts new roots, rewinds with leaf
// entries, deletes sessions and creates them again, and sometimes rolls a
// transaction back or puts several changes in one. In the transaction of
// each change it publishes what its own model of the sessions says a
// reader must see: soak_commits (the commit's number), soak_expected (for
// each session and word, the ids a search must find) and soak_history (for
// each session, the ids history must show). A reader reads the newest
// commit and the published model in the same read transaction as its query
// (reader_test.go says what it checks), so it always knows which committed
// state it saw.
//
// At the end the test checks the final state against the writer's model in
// memory, runs PRAGMA integrity_check and FTS5's integrity-check, and prints
// the commits, the hits checked, the WAL size and the p50/p99 latencies of
// search, history and the writer's statements.
//
// Run time and readers: SOAK_SECONDS (default 3, which `make test` runs) and
// SOAK_READERS, readers per host (default 1). `make soak` runs it for 600
// seconds.
package soak

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"

	"github.com/sessionsearch/sessionsearch/driver"
)

const pythonPath = "/usr/bin/python3"

// extension is the loadable extension built by TestMain, without its suffix.
var extension string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sessionsearch-soak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	extension = filepath.Join(dir, "sessionsearch")
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", extension+".so", "./extension/loadable")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "soak: cannot build the loadable extension (go build -buildmode=c-shared ./extension/loadable): %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

const caller = "agent:soak:main"

// sessionKeys are the soak's sessions; the caller's main session sees them
// all (docs/search.md) and is never deleted.
var sessionKeys = []string{caller, "agent:soak:s1", "agent:soak:s2", "agent:soak:s3",
	"agent:soak:s4", "agent:soak:s5", "agent:soak:s6", "agent:soak:s7"}

// The soak's own tables, which the writer writes in each transaction.
const soakSchema = `
CREATE TABLE soak_commits(seq INTEGER PRIMARY KEY, ops TEXT NOT NULL, at_ns INTEGER NOT NULL);
CREATE TABLE soak_expected(session_key TEXT, word TEXT, ids TEXT NOT NULL, PRIMARY KEY (session_key, word)) WITHOUT ROWID;
CREATE TABLE soak_history(session_key TEXT PRIMARY KEY, ids TEXT NOT NULL) WITHOUT ROWID;`

// latencies collects durations by name.
type latencies map[string][]time.Duration

func (l latencies) add(name string, d time.Duration) { l[name] = append(l[name], d) }

func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Sorted(slices.Values(ds))
	p := func(q int) time.Duration { return s[min(len(s)-1, len(s)*q/100)] }
	return fmt.Sprintf("p50 %v, p99 %v (n=%d)", p(50).Round(time.Microsecond), p(99).Round(time.Microsecond), len(s))
}

func micros(us []int64) []time.Duration {
	ds := make([]time.Duration, len(us))
	for i, u := range us {
		ds[i] = time.Duration(u) * time.Microsecond
	}
	return ds
}

// writer is the soak's one writer and its model.
type writer struct {
	db       *driver.DB
	gen      *generator
	sessions map[string]*session
	commit   int64
	ops      map[string]int
	lat      latencies
	walMax   int64
}

// publish writes what s's model says readers must see, in tx.
func publish(ctx context.Context, tx *sql.Tx, s *session) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM soak_expected WHERE session_key = ?1`, s.key); err != nil {
		return err
	}
	search, history := s.expected()
	for w, ids := range search {
		if _, err := tx.ExecContext(ctx, `INSERT INTO soak_expected(session_key, word, ids) VALUES (?1, ?2, ?3)`,
			s.key, vocabulary[w].Query, string(mustJSON(ids))); err != nil {
			return err
		}
	}
	if !s.exists {
		_, err := tx.ExecContext(ctx, `DELETE FROM soak_history WHERE session_key = ?1`, s.key)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO soak_history(session_key, ids) VALUES (?1, ?2)`, s.key, string(mustJSON(history)))
	return err
}

// step runs one transaction of one to four changes; it commits it, or
// (sometimes) rolls it back and keeps the model as it was.
func (w *writer) step(ctx context.Context) error {
	rng := w.gen.rng
	n := 1
	if rng.IntN(20) == 0 {
		n = 2 + rng.IntN(3)
	}
	rollback := rng.IntN(40) == 0
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	changed := map[string]*session{}
	var kinds []string
	for range n {
		key := sessionKeys[rng.IntN(len(sessionKeys))]
		s := changed[key]
		if s == nil {
			s = w.sessions[key].clone()
			changed[key] = s
		}
		o := w.gen.nextOp(s, key != caller)
		kinds = append(kinds, o.kind+" "+key)
		start := time.Now()
		switch o.kind {
		case "create":
			err = driver.AddSession(ctx, tx, driver.Session{Key: key})
		case "delete":
			_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE session_key = ?1`, key)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", o.kind, err)
		}
		for _, ev := range o.events {
			evStart := time.Now()
			if _, err := driver.Append(ctx, tx, key, ev); err != nil {
				return fmt.Errorf("%s of %s: %w", o.kind, ev, err)
			}
			if o.kind == "append" || o.kind == "tool" {
				w.lat.add("append", time.Since(evStart))
			}
		}
		switch o.kind {
		case "branch", "root", "rewind", "delete", "create":
			w.lat.add(o.kind, time.Since(start))
		}
		if !rollback {
			w.ops[o.kind]++
		}
	}
	for _, s := range changed {
		if err := publish(ctx, tx, s); err != nil {
			return err
		}
	}
	if rollback {
		w.ops["rolled back"]++
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO soak_commits(seq, ops, at_ns) VALUES (?1, ?2, ?3)`,
		w.commit+1, strings.Join(kinds, "; "), time.Now().UnixNano()); err != nil {
		return err
	}
	start := time.Now()
	if err := tx.Commit(); err != nil {
		return err
	}
	w.lat.add("commit", time.Since(start))
	w.commit++
	for key, s := range changed {
		w.sessions[key] = s
	}
	return nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// A reader's output, as the test collected it.
type readerResult struct {
	name       string
	summary    *readerSummary
	mismatches []finding
	errors     []finding
	failure    string // the reader itself failed
}

func (r *readerResult) take(l readerLine) {
	switch {
	case l.Mismatch != nil:
		r.mismatches = append(r.mismatches, *l.Mismatch)
	case l.Error != nil:
		r.errors = append(r.errors, *l.Error)
	case l.Summary != nil:
		r.summary = l.Summary
	}
}

// runProcessReader runs a Python or Node reader and collects its lines.
func runProcessReader(ctx context.Context, r *readerResult, cfg readerConfig, name string, arg ...string) {
	cfgJSON := mustJSON(cfg)
	cmd := exec.CommandContext(ctx, name, append(arg, string(cfgJSON))...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.failure = err.Error()
		return
	}
	if err := cmd.Start(); err != nil {
		r.failure = err.Error()
		return
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var l readerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			r.failure = fmt.Sprintf("printed %q: %v", sc.Text(), err)
			continue
		}
		r.take(l)
	}
	if err := cmd.Wait(); err != nil {
		r.failure = fmt.Sprintf("%v: %s", err, stderr.String())
	}
}

func TestSoak(t *testing.T) {
	seconds := benchenv.Int(t, "SOAK_SECONDS", 3)
	perHost := benchenv.Int(t, "SOAK_READERS", 1)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SOAK_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED must be an unsigned integer, got %q", s)
		}
		seed = v
	}
	t.Logf("soak: %d s, %d readers per host, SOAK_SEED=%d", seconds, perHost, seed)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "soak.db")
	db, err := driver.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, soakSchema); err != nil {
		t.Fatal(err)
	}
	// What a long-running writer does: background reconcile and a bounded
	// WAL (docs/store.md S17).
	stopMaintain := db.Maintain(driver.MaintainOptions{})
	defer stopMaintain()
	w := &writer{db: db, sessions: map[string]*session{}, ops: map[string]int{}, lat: latencies{},
		gen: &generator{rng: rand.New(rand.NewPCG(seed, 2)), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	for _, key := range sessionKeys {
		w.sessions[key] = &session{key: key, leaf: -1}
	}
	// Commit 1 creates the caller's session, so every reader finds a
	// commit and a caller.
	for !w.sessions[caller].exists {
		if err := w.step(ctx); err != nil {
			t.Fatal(err)
		}
	}

	words := make([]string, len(vocabulary))
	for i, v := range vocabulary {
		words[i] = v.Query
	}
	readCtx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+5*time.Minute)
	defer cancel()
	var readers []*readerResult
	var wg sync.WaitGroup
	for i := range perHost {
		for _, host := range []string{"python", "node", "go"} {
			cfg := readerConfig{Name: fmt.Sprintf("%s-%d", host, i+1), DB: path, Extension: extension,
				Seconds: float64(seconds), Seed: seed + uint64(len(readers)) + 10, Caller: caller,
				Sessions: sessionKeys, Words: words}
			r := &readerResult{name: cfg.Name}
			readers = append(readers, r)
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch host {
				case "python":
					runProcessReader(readCtx, r, cfg, pythonPath, "reader.py")
				case "node":
					runProcessReader(readCtx, r, cfg, "node", "reader.js")
				case "go":
					var mu sync.Mutex
					if err := goReader(readCtx, cfg, func(l readerLine) { mu.Lock(); r.take(l); mu.Unlock() }); err != nil {
						r.failure = err.Error()
					}
				}
			}()
		}
	}

	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	nextSample := time.Now()
	var writeErr error
	for time.Now().Before(deadline) {
		if writeErr = w.step(ctx); writeErr != nil {
			t.Errorf("writer, after commit %d: %v", w.commit, writeErr)
			break
		}
		if time.Now().After(nextSample) {
			w.walMax = max(w.walMax, fileSize(path+"-wal"))
			nextSample = time.Now().Add(time.Second)
		}
	}
	wg.Wait()
	w.walMax = max(w.walMax, fileSize(path+"-wal"))

	checked, hits, finalHits := 0, 0, 0
	for _, r := range readers {
		if r.failure != "" {
			t.Errorf("reader %s failed: %s", r.name, r.failure)
		}
		for i, m := range r.mismatches {
			if i < 10 {
				t.Errorf("reader %s, commit %d: mismatch: %s\n  expected: %v\n  got:      %v", r.name, m.Commit, m.Query, m.Expected, m.Got)
			}
		}
		for i, e := range r.errors {
			if i < 10 {
				t.Errorf("reader %s, commit %d: error: %s: %s", r.name, e.Commit, e.Query, e.Message)
			}
		}
		if len(r.mismatches)+len(r.errors) > 10 {
			t.Errorf("reader %s: %d mismatches and %d errors in all", r.name, len(r.mismatches), len(r.errors))
		}
		if r.summary == nil {
			t.Errorf("reader %s printed no summary", r.name)
			continue
		}
		if r.summary.Queries == 0 {
			t.Errorf("reader %s checked no query", r.name)
		}
		checked += r.summary.Queries
		hits += r.summary.Hits
	}

	// The final state, against the model in memory.
	for _, key := range sessionKeys {
		s := w.sessions[key]
		search, history := s.expected()
		for i, v := range vocabulary {
			res, err := db.Search(ctx, v.Query, driver.SearchOptions{Options: driver.Options{Caller: caller}, Limit: searchLimit, SessionKey: key})
			if !s.exists {
				if err == nil || !strings.Contains(err.Error(), "sessions_search") {
					t.Errorf("final search for %q in deleted %s: expected an error naming sessions_search, got %v, %v", v.Query, key, res, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("final search for %q in %s: %v", v.Query, key, err)
				continue
			}
			var expected, got []string
			for _, id := range search[i] {
				expected = append(expected, key+"/"+id)
			}
			for _, h := range res.Results {
				got = append(got, h.SessionKey+"/"+h.MessageID)
			}
			finalHits += len(got)
			if problem := checkSearch(expected, got, res.Truncated, res.Indexing); problem != "" {
				t.Errorf("final search for %q in %s: %s\n  expected: %v\n  got:      %v", v.Query, key, problem, expected, got)
			}
		}
		h, err := db.History(ctx, key, driver.HistoryOptions{Options: driver.Options{Caller: caller}, Limit: 1000, MaxBytes: 4194304})
		if !s.exists {
			if err == nil || !strings.Contains(err.Error(), "sessions_history") {
				t.Errorf("final history of deleted %s: expected an error naming sessions_history, got %v, %v", key, h, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("final history of %s: %v", key, err)
			continue
		}
		got := []string{}
		for _, m := range h.Messages {
			got = append(got, m.ID)
		}
		finalHits += len(got)
		if !slices.Equal(history, got) {
			t.Errorf("final history of %s:\n  expected: %v\n  got:      %v", key, history, got)
		}
	}

	var integrity string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("PRAGMA integrity_check: %q, %v", integrity, err)
	}
	ftsIntegrity := "ok"
	if _, err := db.ExecContext(ctx, `INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		ftsIntegrity = err.Error()
		t.Errorf("FTS5 integrity-check: %v", err)
	}
	walEnd := fileSize(path + "-wal")

	var report strings.Builder
	fmt.Fprintf(&report, "soak report (%d s, seed %d)\n", seconds, seed)
	fmt.Fprintf(&report, "  writer: %d commits; changes:", w.commit)
	for _, k := range slices.Sorted(maps.Keys(w.ops)) {
		fmt.Fprintf(&report, " %s %d,", k, w.ops[k])
	}
	fmt.Fprintf(&report, "\n  readers: %d queries, %d hits checked; final state: %d hits checked\n", checked, hits, finalHits)
	var search, history []time.Duration
	for _, r := range readers {
		if r.summary == nil {
			continue
		}
		fmt.Fprintf(&report, "  %-9s %6d queries, %7d hits, commits %d..%d, %d mismatches, %d errors; search %s; history %s\n",
			r.name, r.summary.Queries, r.summary.Hits, r.summary.FirstCommit, r.summary.LastCommit,
			len(r.mismatches), len(r.errors), percentiles(micros(r.summary.SearchUS)), percentiles(micros(r.summary.HistoryUS)))
		search = append(search, micros(r.summary.SearchUS)...)
		history = append(history, micros(r.summary.HistoryUS)...)
	}
	fmt.Fprintf(&report, "  search (all readers): %s\n  history (all readers): %s\n", percentiles(search), percentiles(history))
	for _, k := range []string{"append", "branch", "root", "rewind", "delete", "create", "commit"} {
		fmt.Fprintf(&report, "  writer %s: %s\n", k, percentiles(w.lat[k]))
	}
	fmt.Fprintf(&report, "  PRAGMA integrity_check: %s; FTS5 integrity-check: %s\n", integrity, ftsIntegrity)
	fmt.Fprintf(&report, "  WAL: %d bytes at the end, %d at most; database %d bytes\n", walEnd, w.walMax, fileSize(path))
	t.Log(report.String())
}
