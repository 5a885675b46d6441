package driver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// Crash safety: a writer process is killed with SIGKILL at random moments;
// after each kill the database passes SQLite's and FTS5's integrity checks
// and its index agrees with the events that were committed.

const crashWriterEnv = "SESSIONSEARCH_CRASH_WRITER"

// TestMain lets the test binary act as the writer of TestCrashSafety.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashWriterEnv); path != "" {
		seed, _ := strconv.ParseInt(os.Getenv(crashWriterEnv+"_SEED"), 10, 64)
		crashWriter(path, seed)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashWriter appends, branches, rewinds, deletes, bulk-loads and
// reconciles until it is killed.
func crashWriter(path string, seed int64) {
	db, err := driver.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("migrated") // the test kills it some time after this
	conn, _ := db.Conn(ctx)
	r := rand.New(rand.NewSource(seed))
	s := &storeRunner{t: nil, r: r, ctx: ctx, conn: conn, model: model{sessions: map[string][]modelEvent{}}, ids: int(seed) * 1_000_000}
	// Continue the sessions already there: the model only needs their keys
	// and ids, which randomEvent draws parents from.
	rows, _ := conn.QueryContext(ctx, `SELECT session_key FROM sessions`)
	for rows.Next() {
		var k string
		rows.Scan(&k)
		s.model.order = append(s.model.order, k)
		s.model.sessions[k] = nil
	}
	rows.Close()
	for {
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			continue
		}
		for range 1 + r.Intn(6) {
			s.stepNoCheck()
		}
		conn.ExecContext(ctx, `COMMIT`)
	}
}

// stepNoCheck is step without a test to report to: errors end the writer.
func (s *storeRunner) stepNoCheck() {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(os.Stderr, r)
			os.Exit(1)
		}
	}()
	s.step()
}

// parseModelEvent reads back an event the runner wrote.
func parseModelEvent(data string) (modelEvent, error) {
	var raw struct {
		Type       string          `json:"type"`
		ID         string          `json:"id"`
		ParentID   json.RawMessage `json:"parentId"` // "null" when null, empty when absent
		TargetID   string          `json:"targetId"`
		AppendMode string          `json:"appendMode"`
		Message    *struct {
			Role    string `json:"role"`
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(data), &raw); err != nil {
		return modelEvent{}, err
	}
	e := modelEvent{typ: raw.Type, id: raw.ID, target: raw.TargetID, side: raw.AppendMode == "side"}
	if len(raw.ParentID) > 0 {
		e.hasParent = true
		json.Unmarshal(raw.ParentID, &e.parent)
	}
	if m := raw.Message; m != nil {
		e.role = m.Role
		for _, b := range m.Content {
			if b.Type == "text" {
				e.text = b.Text
			}
		}
	}
	return e, nil
}

func TestCrashSafety(t *testing.T) {
	kills := 25
	if testing.Short() {
		kills = 5
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	if p := os.Getenv("CRASH_DB"); p != "" {
		path = p
	}
	r := rand.New(rand.NewSource(42))
	for kill := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashWriterEnv+"="+path, crashWriterEnv+"_SEED="+strconv.Itoa(kill+1))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill falls while it writes, not while it starts: on a loaded
		// machine a writer can take longer than the longest delay to
		// migrate the store.
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "migrated\n" {
			cmd.Process.Kill()
			t.Fatalf("kill %d: the writer said %q, want it migrated", kill, line)
		}
		time.Sleep(time.Duration(50+r.Intn(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !status.Signaled() {
			t.Fatalf("kill %d: the writer ended by itself before it was killed: %v", kill, err)
		}
		checkCommitted(t, path, kill)
	}
}

// checkCommitted checks the database left by a killed writer.
func checkCommitted(t *testing.T, path string, kill int) {
	t.Helper()
	db, err := driver.Open(path)
	if err != nil {
		t.Fatalf("kill %d: open: %v", kill, err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("kill %d: integrity_check %q %v", kill, ok, err)
	}
	if _, err := db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("kill %d: FTS5 integrity-check: %v", kill, err)
	}
	events := map[string][]modelEvent{}
	rows, err := db.Query(`SELECT session_key, event FROM transcript_events ORDER BY session_key, seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key, data string
		rows.Scan(&key, &data)
		e, err := parseModelEvent(data)
		if err != nil {
			t.Fatalf("kill %d: stored event %q: %v", kill, data, err)
		}
		events[key] = append(events[key], e)
	}
	rows.Close()
	pending := map[string]bool{}
	rows, _ = db.Query(`SELECT session_key, pending FROM sessionsearch_sessions`)
	for rows.Next() {
		var key string
		var p bool
		rows.Scan(&key, &p)
		pending[key] = p
	}
	rows.Close()
	indexed := map[string]map[int]string{}
	rows, _ = db.Query(`SELECT s.session_key, f.rowid & 4294967295, f.text FROM sessionsearch_fts f
		JOIN sessionsearch_sessions s ON s.sid = f.rowid >> 32`)
	for rows.Next() {
		var key, text string
		var seq int
		rows.Scan(&key, &seq, &text)
		if indexed[key] == nil {
			indexed[key] = map[int]string{}
		}
		indexed[key][seq] = text
	}
	rows.Close()
	checked := 0
	for key, evs := range events {
		if pending[key] {
			continue
		}
		want := modelSearchable(evs)
		if len(want) == 0 && len(indexed[key]) == 0 {
			continue
		}
		checked++
		if !reflect.DeepEqual(indexed[key], want) {
			t.Fatalf("kill %d: session %q indexes %v, its committed events say %v", kill, key, indexed[key], want)
		}
	}
	// Reconcile what is pending, and check again after the next kill.
	ctx := context.Background()
	for {
		res, err := db.Reconcile(ctx, time.Second)
		if err != nil {
			t.Fatalf("kill %d: reconcile: %v", kill, err)
		}
		if res.Pending == 0 {
			break
		}
	}
	t.Logf("kill %d: %d sessions, %d compared", kill, len(events), checked)
}
