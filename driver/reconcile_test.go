package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/store"
)

// bigSession appends one session of n entries, a user or assistant message
// every `every` entries and tool entries between them, in one transaction
// with indexing deferred (so that the session is pending), on conn.
func bigSession(tb testing.TB, ctx context.Context, conn *sql.Conn, key string, n, every int) {
	tb.Helper()
	issue15Load(tb, ctx, conn, key, n, func(i int) bool { return i%every == 0 })
}

func reconcileAll(tb testing.TB, ctx context.Context, conn *sql.Conn, budget time.Duration) (calls int) {
	tb.Helper()
	for {
		res, err := driver.Reconcile(ctx, conn, budget)
		if err != nil {
			tb.Fatal(err)
		}
		calls++
		if res.Pending == 0 {
			return calls
		}
	}
}

// docs/store.md S7: a rewind in a session of few messages but many entries
// is not replayed in the writer's transaction: the session is deferred, a
// search says indexing, and reconcile brings it to the rewound path.
func TestRewindOfManyEntriesIsDeferred(t *testing.T) {
	db, ctx, conn := storeConn(t)
	const n = store.MaxInlineEntries + 100
	bigSession(t, ctx, conn, "agent:main:big", n, n/3)
	reconcileAll(t, ctx, conn, time.Minute)
	opts := driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main"}}
	if res, err := db.Search(ctx, "needle", opts); err != nil || len(res.Results) != 3 || res.Indexing {
		t.Fatalf("before the rewind: %+v, %v", res, err)
	}
	start := time.Now()
	if _, err := db.Append(ctx, "agent:main:big", []byte(`{"type":"leaf","id":"L","targetId":"e0"}`)); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewind of %d entries took %v in the writer's transaction", n, time.Since(start))
	res, err := db.Search(ctx, "needle", opts)
	if err != nil || len(res.Results) != 0 || !res.Indexing {
		t.Fatalf("after the rewind, before reconcile: %+v, %v (want no results and indexing)", res, err)
	}
	reconcileAll(t, ctx, conn, time.Minute)
	res, err = db.Search(ctx, "needle", opts)
	if err != nil || len(res.Results) != 1 || res.Results[0].MessageID != "e0" || res.Indexing {
		t.Fatalf("after reconcile: %+v, %v (want e0 alone)", res, err)
	}
}

// docs/store.md S9: a big session reconciled in many small calls ends with
// the same index as in one call, each call resuming where the last stopped.
func TestReconcileInSmallSteps(t *testing.T) {
	var dumps [2]string
	for i, budget := range []time.Duration{time.Minute, time.Millisecond} {
		db, ctx := openStore(t)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		bigSession(t, ctx, conn, "agent:main:big", 6000, 2)
		calls := reconcileAll(t, ctx, conn, budget)
		if budget == time.Millisecond && calls < 3 {
			t.Fatalf("%d calls of 1 ms reconciled 3000 messages: the test does not test resuming", calls)
		}
		var rows []string
		r, err := conn.QueryContext(ctx, `SELECT rowid, text FROM sessionsearch_fts ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var id int64
			var text string
			r.Scan(&id, &text)
			rows = append(rows, fmt.Sprint(id, text))
		}
		r.Close()
		if _, err := conn.ExecContext(ctx, `INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatal(err)
		}
		dumps[i] = strings.Join(rows, "\n")
		conn.Close()
	}
	if dumps[0] != dumps[1] || strings.Count(dumps[0], "\n") != 2999 {
		t.Fatalf("small steps indexed %d rows, one call %d", strings.Count(dumps[1], "\n")+1, strings.Count(dumps[0], "\n")+1)
	}
}

// deferringConn opens a new store and a connection of it that defers
// indexing, so that what it stores stays pending.
func deferringConn(t *testing.T) (context.Context, *sql.Conn) {
	t.Helper()
	_, ctx, conn := storeConn(t)
	if err := driver.DeferIndexing(ctx, conn, true); err != nil {
		t.Fatal(err)
	}
	return ctx, conn
}

// indexDump is every row of the index with its text, one a line, and with
// tip the newest entry's tip after them.
func indexDump(t *testing.T, ctx context.Context, conn *sql.Conn, tip bool) string {
	t.Helper()
	q := `SELECT group_concat(rowid || ' ' || text, char(10)) FROM (SELECT rowid, text FROM sessionsearch_fts ORDER BY rowid)`
	if tip {
		q = `SELECT (` + q + `) || char(10) || (SELECT id || ' ' || tip_leaf || ' ' || coalesce(tip_key, '-') FROM sessionsearch_entries ORDER BY id DESC LIMIT 1)`
	}
	var dump string
	if err := conn.QueryRowContext(ctx, q).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	return dump
}

// docs/store.md S9: a replay whose ids go to temporary files (a session
// past store.SpillAbove) gives the index and the tip a replay in memory
// gives, in one call and in calls of 1 ms, on a session of branches, rewinds, resets, side entries,
// duplicate and dangling ids.
func TestReconcileSpilled(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	var events []string
	for i := range 40000 { // more than a window of the path's file (32,768 entries)
		id := func() string { return fmt.Sprintf("e%d", r.Intn(i+1)) }
		text := fmt.Sprintf("needle %d", i)
		ev := fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"e%d","message":{"role":"user","content":%q}}`, i, max(i-1, 0), text)
		switch r.Intn(20) {
		case 0:
			ev = fmt.Sprintf(`{"type":"leaf","id":"L%d","targetId":%q}`, i, id())
		case 1:
			ev = fmt.Sprintf(`{"type":"reset","id":"R%d","parentId":%q}`, i, id())
		case 2:
			ev = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"message":{"role":"assistant","content":%q}}`, id(), id(), text)
		case 3:
			ev = fmt.Sprintf(`{"type":"message","id":"e%d","appendMode":"side","parentId":%q,"message":{"role":"user","content":%q}}`, i, id(), text)
		case 4:
			ev = fmt.Sprintf(`{"type":"message","id":"e%d","message":{"role":"user","content":%q}}`, i, text)
		case 5:
			ev = fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"gone%d","message":{"role":"user","content":%q}}`, i, i, text)
		case 6:
			ev = fmt.Sprintf(`{"type":"message","id":"e%d","parentId":null,"message":{"role":"user","content":%q}}`, i, text)
		}
		events = append(events, ev)
	}
	events[len(events)-100] = `{"type":"leaf","id":"back","targetId":"e0"}`
	defer func(s int) { store.SpillAbove = s }(store.SpillAbove)
	var dumps []string
	for _, c := range []struct {
		spillAbove int
		budget     time.Duration
	}{{store.SpillAbove, time.Minute}, {0, time.Minute}, {0, time.Millisecond}} {
		store.SpillAbove = c.spillAbove
		ctx, conn := deferringConn(t)
		if err := driver.AddSession(ctx, conn, driver.Session{Key: "agent:main:big"}); err != nil {
			t.Fatal(err)
		}
		// The session is reconciled, then made pending again by a rewind
		// to its first entry and what follows it, and reconciled again:
		// the second reconcile turns entries off as well as on.
		for k, part := range [][]string{events[:len(events)-100], events[len(events)-100:]} {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range part {
				if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event)
					VALUES ('agent:main:big', (SELECT coalesce(max(seq) + 1, 0) FROM transcript_events WHERE session_key = 'agent:main:big'), ?)`, ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if calls := reconcileAll(t, ctx, conn, c.budget); k == 0 && c.budget == time.Millisecond && calls < 3 {
				t.Fatalf("%d calls of 1 ms reconciled the session: the test does not test resuming", calls)
			}
		}
		dump := indexDump(t, ctx, conn, true)
		if _, err := conn.ExecContext(ctx, `INSERT INTO sessionsearch_fts(sessionsearch_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, dump)
		conn.Close()
	}
	if rows := strings.Count(dumps[0], "\n"); rows < 1000 || rows > 35000 {
		t.Fatalf("the session is too plain: %d messages on the path", rows)
	}
	for i, name := range []string{"spilled", "spilled, in calls of 1 ms"} {
		if dumps[i+1] != dumps[0] {
			t.Errorf("%s, the index and tip differ:\n%.300s\nin memory:\n%.300s", name, dumps[i+1], dumps[0])
		}
	}
}

// docs/store.md S9: where no temporary file can be made (SQLITE_TMPDIR
// names a missing directory), a replay past store.SpillAbove stays in
// memory and reconcile indexes the session as it would have.
func TestReconcileWithoutTemporaryFiles(t *testing.T) {
	defer func(s int) { store.SpillAbove = s }(store.SpillAbove)
	var dumps []string
	for _, dir := range []string{"", t.TempDir() + "/missing"} {
		if dir != "" {
			t.Setenv("SQLITE_TMPDIR", dir)
			store.SpillAbove = 0
		}
		ctx, conn := deferringConn(t)
		bigSession(t, ctx, conn, "agent:main:big", 3000, 3)
		reconcileAll(t, ctx, conn, time.Minute)
		dumps = append(dumps, indexDump(t, ctx, conn, true))
	}
	if dumps[1] != dumps[0] || strings.Count(dumps[0], "\n") != 1000 {
		t.Fatalf("without temporary files: %d rows; with: %d", strings.Count(dumps[1], "\n"), strings.Count(dumps[0], "\n"))
	}
}

// spillFiles returns the sizes of the files this process has open in dir
// under the replay's name, and whether each is already gone from dir.
func spillFiles(t *testing.T, dir string) (sizes []int64, unlinked int) {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		link, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err != nil || !strings.HasPrefix(link, dir+"/sessionsearch-replay-") {
			continue
		}
		if fi, err := os.Stat("/proc/self/fd/" + fd.Name()); err == nil {
			sizes = append(sizes, fi.Size())
		}
		if strings.HasSuffix(link, " (deleted)") {
			unlinked++
		}
	}
	return sizes, unlinked
}

// docs/store.md S9: a spilled replay's files are in SQLITE_TMPDIR, gone
// from the directory while they are open, kept open between the calls of a
// reconcile in steps and closed once the session is done; their size an
// entry is logged and bounded.
func TestReconcileSpillFiles(t *testing.T) {
	defer func(s int) { store.SpillAbove = s }(store.SpillAbove)
	store.SpillAbove = 0
	dir := t.TempDir()
	t.Setenv("SQLITE_TMPDIR", dir)
	ctx, conn := deferringConn(t)
	const n = 60000
	bigSession(t, ctx, conn, "agent:main:big", n, 2)
	if res, err := driver.Reconcile(ctx, conn, time.Millisecond); err != nil || res.Pending == 0 {
		t.Fatalf("a call of 1 ms: %+v, %v (want the session still pending)", res, err)
	}
	sizes, unlinked := spillFiles(t, dir)
	var total int64
	for _, size := range sizes {
		total += size
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files open between two calls, %d bytes: %.1f bytes an entry", len(sizes), total, float64(total)/n)
	if len(sizes) < 5 || unlinked != len(sizes) || len(left) != 0 {
		t.Fatalf("%d replay files open, %d of them unlinked, %d left in the directory; want 5 or more, all unlinked, none", len(sizes), unlinked, len(left))
	}
	if perEntry := float64(total) / n; perEntry > 40 {
		t.Fatalf("the replay's files hold %.1f bytes an entry, more than 40", perEntry)
	}
	reconcileAll(t, ctx, conn, time.Minute)
	if sizes, _ := spillFiles(t, dir); len(sizes) != 0 {
		t.Fatalf("%d replay files still open after the session was reconciled", len(sizes))
	}
}

// docs/store.md S9: an event stored into a gap of a pending session
// between two calls of a reconcile in steps is not missed: the replay the
// first call kept no longer describes the session, and the next call reads
// it again. The late event is on the path (the last event, which has no
// parentId, hangs from it), so a stale replay would leave it unindexed.
func TestReconcileAfterALateEvent(t *testing.T) {
	const n = 6000
	event := func(i int) string {
		if i == n-1 {
			return fmt.Sprintf(`{"type":"message","id":"e%d","message":{"role":"user","content":"needle %d"}}`, i, i)
		}
		return fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"e%d","message":{"role":"user","content":"needle %d"}}`, i, max(i-1, 0), i)
	}
	const late = `{"type":"message","id":"late","parentId":"e5998","message":{"role":"user","content":"latecomer"}}`
	var dumps []string
	for _, steps := range []bool{false, true} {
		ctx, conn := deferringConn(t)
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := driver.AddSession(ctx, tx, driver.Session{Key: "agent:main:big"}); err != nil {
			t.Fatal(err)
		}
		insert := func(e execQuerier, seq int, ev string) {
			if _, err := e.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES ('agent:main:big', ?, ?)`, seq, ev); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			insert(tx, 2*i, event(i))
		}
		if !steps {
			insert(tx, 2*n-3, late)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if steps {
			res, err := driver.Reconcile(ctx, conn, time.Millisecond)
			if err != nil || res.Pending == 0 {
				t.Fatalf("the first call of 1 ms: %+v, %v (want the session still pending)", res, err)
			}
			insert(conn, 2*n-3, late)
		}
		reconcileAll(t, ctx, conn, time.Millisecond)
		dump := indexDump(t, ctx, conn, false)
		dumps = append(dumps, dump)
		conn.Close()
	}
	if !strings.Contains(dumps[0], "latecomer") {
		t.Fatalf("the late event is not on the path: the test tests nothing")
	}
	if dumps[1] != dumps[0] {
		t.Fatalf("a late event between two calls: %d rows indexed, latecomer %v; %d rows and latecomer %v when stored before",
			strings.Count(dumps[1], "\n")+1, strings.Contains(dumps[1], "latecomer"), strings.Count(dumps[0], "\n")+1, true)
	}
}

// BenchmarkReconcileBigSession: one pending session of 100,000 messages
// (and as many tool results), reconciled in one call and in calls of 500 ms (the CLI's budget);
// steps-ratio is the time of the second over the first (docs/store.md S9:
// linear in the work, not quadratic).
func BenchmarkReconcileBigSession(b *testing.B) {
	var one, steps time.Duration
	for b.Loop() {
		for _, budget := range []time.Duration{time.Hour, 500 * time.Millisecond} {
			b.StopTimer()
			db, ctx := openStore(b)
			conn, _ := db.Conn(ctx)
			bigSession(b, ctx, conn, "agent:main:big", 200000, 2)
			b.StartTimer()
			start := time.Now()
			reconcileAll(b, ctx, conn, budget)
			if budget == time.Hour {
				one += time.Since(start)
			} else {
				steps += time.Since(start)
			}
			b.StopTimer()
			conn.Close()
			db.Close()
			b.StartTimer()
		}
	}
	b.ReportMetric(steps.Seconds()/one.Seconds(), "steps-ratio")
	b.ReportMetric(one.Seconds()/float64(b.N), "s/one-call")
}

// BenchmarkReconcileSpilled: one pending session of 300,000 entries (a
// message every second one), reconciled in one call with its replay in
// memory and spilled to temporary files (store.SpillAbove), alternately;
// spilled-ratio is the time of the second over the first.
func BenchmarkReconcileSpilled(b *testing.B) {
	defer func(s int) { store.SpillAbove = s }(store.SpillAbove)
	var took [2]time.Duration
	for b.Loop() {
		for k, spillAbove := range []int{1 << 40, 0} {
			b.StopTimer()
			store.SpillAbove = spillAbove
			db, ctx := openStore(b)
			conn, _ := db.Conn(ctx)
			bigSession(b, ctx, conn, "agent:main:big", 300000, 2)
			b.StartTimer()
			start := time.Now()
			reconcileAll(b, ctx, conn, time.Hour)
			took[k] += time.Since(start)
			b.StopTimer()
			conn.Close()
			db.Close()
			b.StartTimer()
		}
	}
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "spilled-ratio")
	b.ReportMetric(took[0].Seconds()/float64(b.N), "s/in-memory")
}

// docs/store.md S16: migrate and reconcile wait for another connection's
// write transaction, as SQLite's own statements do under the busy timeout,
// instead of failing at once with "database is locked": through the
// driver, and as plain SQL in autocommit mode. Only a call after a read in
// the same transaction cannot wait, and its error says what to do.
func TestMigrateAndReconcileWaitForAWriter(t *testing.T) {
	db, ctx := openStore(t)
	if err := db.AddSession(ctx, driver.Session{Key: "agent:main:main"}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// An index of another version gives migrate something to write.
	oldIndex := `UPDATE sessionsearch_meta SET value = '0.0' WHERE key = 'index_version'`
	sqlValue := func(query string) func() error {
		return func() error { var v string; return db.QueryRowContext(ctx, query).Scan(&v) }
	}
	for i, step := range []struct {
		name    string
		prepare string // run before the other connection takes the lock
		run     func() error
	}{
		{"driver.Reconcile", "", func() error { _, err := db.Reconcile(ctx, time.Second); return err }},
		{"SELECT sessions_reconcile", "", sqlValue(`SELECT sessions_reconcile(1000)`)},
		{"driver.Migrate", oldIndex, func() error { _, err := db.Migrate(ctx); return err }},
		{"SELECT sessionsearch_migrate", oldIndex, sqlValue(`SELECT sessionsearch_migrate()`)},
	} {
		pending := fmt.Sprintf("agent:main:pending-%d", i)
		bigSession(t, ctx, conn, pending, 10, 2)
		if step.prepare != "" {
			if _, err := db.Exec(step.prepare); err != nil {
				t.Fatal(err)
			}
		}
		writer, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writer.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			t.Fatal(err)
		}
		if _, err := writer.ExecContext(ctx, `INSERT INTO sessions(session_key) VALUES (?1)`, fmt.Sprintf("agent:main:writer-%d", i)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// After a read in its transaction, SQLite cannot wait: the
			// error says what to do.
			reader, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			var out string
			reader.ExecContext(ctx, `BEGIN`)
			reader.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n)
			err = reader.QueryRowContext(ctx, `SELECT sessions_reconcile(10)`).Scan(&out)
			if err == nil || !strings.Contains(err.Error(), "database is locked (another connection is writing: this connection's busy timeout ran out, or this call came after a read") {
				t.Fatalf("sessions_reconcile after a read in a transaction, under a writer: %v", err)
			}
			reader.ExecContext(ctx, `ROLLBACK`)
			reader.Close()
		}
		done := make(chan error, 1)
		go func() { done <- step.run() }()
		time.Sleep(300 * time.Millisecond)
		select {
		case err := <-done:
			t.Fatalf("%s returned while another connection held the write lock: %v", step.name, err)
		default:
		}
		if _, err := writer.ExecContext(ctx, `COMMIT`); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s after the writer committed: %v", step.name, err)
		}
		writer.Close()
		if step.prepare == "" {
			if st, err := db.IndexStatus(ctx); err != nil || st.PendingSessions != 0 {
				t.Fatalf("after %s: %+v, %v", step.name, st, err)
			}
		}
	}
}
