package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/syncer/openclawtest"
)

// syncState builds a state directory whose gateway has written sessions
// of every kind: live, rolled over, forked, cold, reset-archived and
// deleted.
func syncState(t *testing.T, sessions, events int) string {
	t.Helper()
	dir := t.TempDir()
	for _, agent := range []string{"main", "work"} {
		g, err := openclawtest.New("sqlite3", dir, agent)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(len(agent)), 7))
		for i := 0; i < sessions; i++ {
			key, id := g.Key(fmt.Sprint("s", i)), fmt.Sprintf("%s-w%d", agent, i)
			if err := g.Create(key, id, openclawtest.Link{}); err != nil {
				t.Fatal(err)
			}
			var evs []string
			parent := ""
			for j := 0; j < events; j++ {
				mid := fmt.Sprintf("m%d", j)
				role := "user"
				if j%2 == 1 {
					role = "assistant"
				}
				evs = append(evs, openclawtest.Message(mid, parent, role, genText(r, 20+r.IntN(400))))
				parent = mid
			}
			if err := g.Append(id, evs...); err != nil {
				t.Fatal(err)
			}
			var err2 error
			switch i % 7 {
			case 1:
				err2 = g.Rollover(key, id+"-b", "reset", openclawtest.Message("n1", "", "user", "after the reset"))
			case 2:
				err2 = g.ColdArchive(id)
			case 3:
				if err2 = g.Rollover(key, id+"-b", "rollover"); err2 == nil {
					err2 = g.ResetArchive(id)
				}
			case 4:
				err2 = g.Delete(key)
			case 5:
				err2 = g.Fork(key, g.Key(fmt.Sprint("f", i)), id+"-f", openclawtest.Message("m0", "", "user", "forked"))
			}
			if err2 != nil {
				t.Fatal(err2)
			}
		}
		g.Close()
	}
	return dir
}

// syncDump is what sync leaves in a database: sessions, events, what is
// searchable and the watermarks.
func syncDump(t *testing.T, path string) string {
	t.Helper()
	db := openDB(t, path)
	var b strings.Builder
	for _, q := range []string{
		`SELECT session_key, coalesce(spawned_by, ''), coalesce(parent_session_key, ''), coalesce(created_at, 0) FROM sessions ORDER BY 1`,
		`SELECT session_key, seq, event FROM transcript_events ORDER BY 1, 2`,
		`SELECT session_key, message_id FROM sessionsearch_messages WHERE NOT pending ORDER BY 1, 2`,
		`SELECT count(*) FROM sessionsearch_messages WHERE pending`,
		`SELECT source, unit, session_key, kind, generation, position, next_seq FROM sessionsearch_sync_units ORDER BY 1, 2`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	checkWatermarks(t, db.DB)
	return b.String()
}

// checkWatermarks: every watermark names a store session holding exactly
// the events it counts; a transcript is never half written.
func checkWatermarks(t *testing.T, db *sql.DB) {
	t.Helper()
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'sessionsearch_sync_units'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables == 0 {
		return // killed before sync created its tables
	}
	rows, err := db.Query(`SELECT u.session_key, u.next_seq, (SELECT count(*) FROM transcript_events e WHERE e.session_key = u.session_key)
		FROM sessionsearch_sync_units u`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var next, n int64
		if err := rows.Scan(&key, &next, &n); err != nil {
			t.Fatal(err)
		}
		if next != n {
			t.Errorf("session %s: the watermark says %d events, the store holds %d", key, next, n)
		}
	}
}

// TestSyncKilled kills sync (the real binary) at random points with
// SIGKILL and starts it again until it finishes; the database ends as one
// uninterrupted sync leaves it (docs/sync.md Y3).
func TestSyncKilled(t *testing.T) {
	state := syncState(t, 50, 40)
	whole := filepath.Join(t.TempDir(), "whole.db")
	if r := runBinary(t, nil, "sync", "--db", whole, state); r.code != 0 {
		t.Fatalf("sync: %d\n%s", r.code, r.stderr)
	}
	want := syncDump(t, whole)

	killed := filepath.Join(t.TempDir(), "killed.db")
	r := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for attempt := 0; ; attempt++ {
		if attempt > 200 {
			t.Fatalf("sync did not finish in 200 runs")
		}
		cmd := exec.Command(binary, "sync", "--quiet", "--db", killed, state)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("sync after %d kills: %v\n%s", kills, err, stderr.String())
			}
		case <-time.After(time.Duration(20+r.IntN(300)) * time.Millisecond):
			if kills >= 12 {
				// Enough kills: let this run finish.
				if err := <-done; err != nil {
					t.Fatalf("sync after %d kills: %v\n%s", kills, err, stderr.String())
				}
				break
			}
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			kills++
			checkWatermarks(t, openDB(t, killed).DB)
			continue
		}
		break
	}
	if kills == 0 {
		t.Fatalf("sync finished before any kill; the test needs a larger state directory")
	}
	if got := syncDump(t, killed); got != want {
		t.Fatalf("after %d kills the database differs from an uninterrupted sync", kills)
	}
	t.Logf("%d kills", kills)
}

// TestSyncAfterImport: a sync after an import of the same state directory
// takes over the sessions the import stored as sync would, writing none of
// them again, and holds all a sync alone writes; a session that
// changed after the import is copied again (docs/sync.md Y20).
func TestSyncAfterImport(t *testing.T) {
	state := syncState(t, 30, 20)
	alone := filepath.Join(t.TempDir(), "alone.db")
	var all int
	r := mustRun(t, "sync", "--db", alone, state)
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "):")+2:], "%d sessions written", &all); err != nil {
		t.Fatalf("sync printed %q: %v", r.stdout, err)
	}
	want := syncDump(t, alone)

	path := filepath.Join(t.TempDir(), "imported.db")
	mustRun(t, "import", "--db", path, state)
	var imported int
	if err := openDB(t, path).QueryRow(`SELECT count(*) FROM sessions`).Scan(&imported); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, "sync", "--db", path, state)
	var written, adopted int
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "):")+2:], "%d sessions written", &written); err != nil {
		t.Fatalf("sync printed %q: %v", r.stdout, err)
	}
	if i := strings.Index(r.stdout, "; "); i < 0 || !strings.Contains(r.stdout, "taken over") {
		t.Fatalf("sync after import printed %q, want the sessions taken over", r.stdout)
	} else if _, err := fmt.Sscanf(r.stdout[strings.LastIndex(r.stdout, "; ")+2:], "%d sessions", &adopted); err != nil {
		t.Fatal(err)
	}
	// Import keys some archives differently (docs/sync.md Y17): those are
	// copied; the live and older windows are taken over.
	if adopted+written != all || adopted < all/2 {
		t.Errorf("sync alone writes %d sessions; after importing %d, sync took over %d and wrote %d: %s", all, imported, adopted, written, r.stdout)
	}
	// Everything a sync alone writes is there, as it writes it; what is
	// more is the import's own keying of archives, which sync leaves alone.
	got := syncDump(t, path)
	for _, l := range strings.Split(lineDiff(got, want), "\n") {
		if strings.HasPrefix(l, "-") {
			t.Errorf("a sync after an import lacks a line of a sync alone: %s", l)
		} else if f := strings.Fields(l); len(f) > 1 && strings.Contains(want, f[1]+" ") {
			t.Errorf("a sync after an import holds more of a session a sync alone writes: %s", l)
		}
	}
	// A session the gateway appended to after the import is copied again;
	// the others are taken over.
	state = t.TempDir()
	g, err := openclawtest.New("sqlite3", state, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for i := 0; i < 3; i++ {
		id := fmt.Sprint("w", i)
		if err := g.Create(g.Key(fmt.Sprint("s", i)), id, openclawtest.Link{}); err != nil {
			t.Fatal(err)
		}
		if err := g.Append(id, openclawtest.Message("m0", "", "user", fmt.Sprint("before the import ", i))); err != nil {
			t.Fatal(err)
		}
	}
	path = filepath.Join(t.TempDir(), "appended.db")
	mustRun(t, "import", "--db", path, state)
	if err := g.Append("w1", openclawtest.Message("m1", "m0", "assistant", "after the import")); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, "sync", "--db", path, state)
	if !strings.Contains(r.stdout, "1 sessions written") || !strings.Contains(r.stdout, "2 sessions an import had stored taken over") {
		t.Errorf("after an append to one of 3 imported sessions, sync printed %q, want 1 written and 2 taken over", r.stdout)
	}
	alone = filepath.Join(t.TempDir(), "alone2.db")
	mustRun(t, "sync", "--db", alone, state)
	if got, want := syncDump(t, path), syncDump(t, alone); got != want {
		t.Errorf("after an append, the database differs from a sync alone:\n%s\nwant\n%s", got, want)
	}
}

// TestSyncFollow runs sync --follow, appends in the gateway and waits for
// the message to become searchable, then stops it with SIGTERM and SIGINT.
func TestSyncFollow(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		state := t.TempDir()
		g, err := openclawtest.New("sqlite3", state, "main")
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		key := g.Key("main")
		if err := g.Create(key, "w1", openclawtest.Link{}); err != nil {
			t.Fatal(err)
		}
		dbPath := filepath.Join(t.TempDir(), "s.db")
		cmd := exec.Command(binary, "sync", "--follow", "--db", dbPath)
		cmd.Env = []string{"HOME=" + t.TempDir(), "OPENCLAW_STATE_DIR=" + state, "PATH=" + os.Getenv("PATH")}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		parent := ""
		for i := 0; i < 5; i++ {
			id := fmt.Sprint("m", i)
			if err := g.Append("w1", openclawtest.Message(id, parent, "user", fmt.Sprint("followed message ", i))); err != nil {
				t.Fatal(err)
			}
			parent = id
			waitSearchable(t, dbPath, key, i+1)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("sync --follow after %v: %v\n%s", sig, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "stopped") {
			t.Errorf("sync --follow after %v printed %q, want a line saying it stopped", sig, stdout.String())
		}
		checkWatermarks(t, openDB(t, dbPath).DB)
	}
}

func waitSearchable(t *testing.T, dbPath, key string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(dbPath); err == nil {
			db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
			if err == nil {
				var got int
				err = db.QueryRow(`SELECT count(*) FROM sessionsearch_messages WHERE session_key = ? AND NOT pending`, key).Scan(&got)
				db.Close()
				if err == nil && got >= n {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("message %d of %s did not become searchable in 30s", n, key)
}

// TestSyncDefaultPath: without a PATH, sync reads $OPENCLAW_STATE_DIR,
// else ~/.openclaw.
func TestSyncDefaultPath(t *testing.T) {
	home := t.TempDir()
	g, err := openclawtest.New("sqlite3", filepath.Join(home, ".openclaw"), "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Create(g.Key("main"), "w1", openclawtest.Link{}); err != nil {
		t.Fatal(err)
	}
	if err := g.Append("w1", openclawtest.Message("m1", "", "user", "hello from home")); err != nil {
		t.Fatal(err)
	}
	g.Close()
	dbPath := filepath.Join(t.TempDir(), "s.db")
	cmd := exec.Command(binary, "sync", "--db", dbPath)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sync with HOME: %v\n%s", err, out)
	}
	waitSearchable(t, dbPath, "agent:main:main", 1)

	other := t.TempDir()
	cmd = exec.Command(binary, "sync", "--db", filepath.Join(t.TempDir(), "o.db"))
	cmd.Env = []string{"HOME=" + home, "OPENCLAW_STATE_DIR=" + other, "PATH=" + os.Getenv("PATH")}
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), other) {
		t.Errorf("sync with OPENCLAW_STATE_DIR=%s (empty) printed %q; want it to name that directory", other, out)
	}
}

// TestSearchSyncsFirst: search --source syncs before it answers, within
// --sync-budget; an unfinished sync sets indexing and says so on stderr,
// and the next search continues (docs/sync.md Y12).
func TestSearchSyncsFirst(t *testing.T) {
	state := syncState(t, 30, 40)
	dbPath := filepath.Join(t.TempDir(), "s.db")
	env := []string{"SESSIONSEARCH_DB=" + dbPath}
	calls, sawIndexing := 0, false
	for {
		calls++
		if calls > 100 {
			t.Fatalf("search --source did not finish syncing in 100 calls")
		}
		r := runBinary(t, env, "search", "--json", "--visibility", "all", "--source", state, "--sync-budget", "1ms", "after the reset")
		if r.code != 0 {
			t.Fatalf("search: %d\n%s", r.code, r.stderr)
		}
		if strings.Contains(r.stdout, `"indexing":true`) {
			sawIndexing = true
			if !strings.Contains(r.stderr, "still syncing "+state) {
				t.Errorf("an unfinished sync printed %q on stderr, want a line saying it is still syncing", r.stderr)
			}
			continue
		}
		if !strings.Contains(r.stdout, "after the reset") {
			t.Fatalf("the synced search found nothing: %s", r.stdout)
		}
		break
	}
	if !sawIndexing || calls < 2 {
		t.Errorf("a 1ms budget finished the sync in %d calls (indexing seen: %v); want several", calls, sawIndexing)
	}
	// Now in sync: a search with the default budget says nothing more.
	r := runBinary(t, env, "search", "--source", state, "after the reset")
	if r.code != 0 || r.stderr != "" || strings.Contains(r.stdout, "indexing") {
		t.Errorf("search after the sync: code %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
}

// TestMCPSyncsFirst: the MCP server given --source syncs before each
// search and says indexing until the sync is done (docs/sync.md Y12).
func TestMCPSyncsFirst(t *testing.T) {
	state := syncState(t, 30, 40)
	s := connectMCP(t, "--db", filepath.Join(t.TempDir(), "m.db"), "--caller", "agent:main:main", "--visibility", "all",
		"--source", state, "--sync-budget", "1ms")
	sawIndexing := false
	for calls := 1; ; calls++ {
		if calls > 100 {
			t.Fatalf("the MCP server did not finish syncing in 100 calls")
		}
		text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "after the reset"})
		if isErr {
			t.Fatalf("sessions_search: %s", text)
		}
		if strings.Contains(text, `"indexing":true`) {
			sawIndexing = true
			continue
		}
		if !strings.Contains(text, "after the reset") {
			t.Fatalf("the synced search found nothing: %s", text)
		}
		break
	}
	if !sawIndexing {
		t.Errorf("a 1ms budget never said indexing")
	}
}

// lineDiff lists the lines only one of two dumps holds.
func lineDiff(got, want string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var b strings.Builder
	for _, l := range slices.Sorted(maps.Keys(count)) {
		if n := count[l]; n != 0 {
			fmt.Fprintf(&b, "%+d %.200s\n", -n, l)
		}
	}
	return b.String()
}
