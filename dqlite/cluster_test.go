//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/dqlite/guard"
	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// searches are run on every node and on a local file with the same data;
// each finds something in the fixtures.
// token names the caller the HTTP API binds; options has the same caller
// for SQL.
var searches = []struct{ query, token, options string }{
	{"the", "main", `{"caller":"agent:main:main","limit":25}`},
	{"error", "main", `{"caller":"agent:main:main","order":"recent"}`},
	{"ollama", "main", `{"caller":"agent:main:main"}`},
	{"telegram", "main", `{"caller":"agent:main:main","snippetChars":80}`},
	{"用户", "main", `{"caller":"agent:main:main"}`},
	{"こと", "main", `{"caller":"agent:main:main"}`},
	{"що", "main", `{"caller":"agent:main:main"}`},
	{"session", "tele", `{"caller":"agent:main:en-telegram-rewind-fad751fa","visibility":"self"}`},
}

// httpSearches runs the searches through p's HTTP API.
func (c *cluster) httpSearches(t *testing.T, p *proc) []string {
	t.Helper()
	var out []string
	for _, s := range searches {
		var body map[string]any
		json.Unmarshal([]byte(s.options), &body)
		delete(body, "caller") // the token binds it
		delete(body, "visibility")
		body["query"] = s.query
		status, b, err := c.post(p, "/v1/search", s.token, body)
		if err != nil || status != 200 {
			t.Fatalf("node %d: POST /v1/search %q: %d %s %v", p.id, s.query, status, b, err)
		}
		out = append(out, strings.TrimSuffix(string(b), "\n")) // the API ends its body with a newline
	}
	return out
}

// importHTTP appends the fixtures through p's HTTP API, one request (one
// transaction) per transcript.
func (c *cluster) importHTTP(t testing.TB, p *proc) {
	t.Helper()
	for _, f := range fixtures.Files() {
		key := "agent:main:" + strings.TrimSuffix(f.Name, ".jsonl")
		type ev struct {
			SessionKey string          `json:"sessionKey"`
			Seq        int             `json:"seq"`
			Event      json.RawMessage `json:"event"`
		}
		req := struct {
			Sessions []map[string]string `json:"sessions"`
			Events   []ev                `json:"events"`
		}{Sessions: []map[string]string{{"sessionKey": key}}}
		for seq, line := range f.Lines {
			req.Events = append(req.Events, ev{key, seq, json.RawMessage(line)})
		}
		status, b, err := c.post(p, "/v1/append", "main", req)
		if err != nil || status != 200 {
			t.Fatalf("node %d: POST /v1/append %s: %d %.300s %v", p.id, f.Name, status, b, err)
		}
	}
}

// sameEverywhere checks that every running node's HTTP API answers the
// searches with want, with each node in turn the leader, so that every
// node's copy is read.
func (c *cluster) sameEverywhere(t *testing.T, want []string) {
	t.Helper()
	c.everyNode(func(leader uint64) {
		for _, p := range c.nodes {
			if c.alive(p) {
				sameAnswers(t, fmt.Sprintf("leader %d, HTTP of node %d", leader, p.id), c.httpSearches(t, p), want)
			}
		}
	})
}

func importFixtures(ctx context.Context, db *sql.DB) error {
	for _, f := range fixtures.Files() {
		key := "agent:main:" + strings.TrimSuffix(f.Name, ".jsonl")
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(session_key) VALUES (?1)`, key); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		for seq, line := range f.Lines {
			if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?1, ?2, ?3)`, key, seq, string(line)); err != nil {
				tx.Rollback()
				return fmt.Errorf("%s line %d: %w", f.Name, seq+1, err)
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("%s: commit: %w", f.Name, err)
		}
	}
	return nil
}

func runSearches(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, s := range searches {
		var js string
		if err := db.QueryRow(`SELECT sessions_search(?1, ?2)`, s.query, s.options).Scan(&js); err != nil {
			t.Fatalf("sessions_search(%q): %v", s.query, err)
		}
		out = append(out, js)
	}
	return out
}

// localSearches loads the fixtures into a local file through the driver and
// runs the searches there: what every node of the cluster must answer.
func localSearches(t *testing.T) []string {
	db, err := driver.Open(filepath.Join(t.TempDir(), "local.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := importFixtures(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	out := runSearches(t, db.DB)
	for i, js := range out {
		if strings.HasPrefix(js, `{"results":[]`) {
			t.Fatalf("search %q finds nothing in the fixtures: pick another", searches[i].query)
		}
	}
	return out
}

// everyNode makes each node the leader in turn, so that the statements read
// its copy, and calls f.
func (c *cluster) everyNode(f func(id uint64)) {
	for _, p := range c.nodes {
		c.transfer(p.id)
		f(p.id)
	}
}

func sameAnswers(t *testing.T, where string, got, want []string) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			at := 0
			for at < len(got[i]) && at < len(want[i]) && got[i][at] == want[i][at] {
				at++
			}
			from := max(0, at-100)
			t.Errorf("%s: sessions_search(%q, %s) differs at byte %d of %d:\n got …%.300s\nwant …%.300s", where, searches[i].query, searches[i].options, at, len(want[i]), got[i][from:], want[i][from:])
		}
	}
}

// TestCluster: 3 nodes as processes; the fixtures imported through one; the
// same answers from every node's copy; the traps refused (docs/cluster.md
// K1, K2) and a 20 MB transaction (K5); kill -9 of the leader, a new one
// within 15 s, writes through it, and the old node catching up (K7).
func TestCluster(t *testing.T) {
	want := localSearches(t)
	c := newCluster(t, 3)
	ctx := context.Background()
	c.importHTTP(t, c.nodes[1])
	c.sameEverywhere(t, want)

	t.Run("traps", func(t *testing.T) {
		// Trap 1: a writing function sent as a query.
		var v int
		err := c.db.QueryRow(`SELECT sessionsearch_migrate()`).Scan(&v)
		var ge *guard.Error
		if !errors.As(err, &ge) || ge.Rule != "K1" || ge.Name != "sessionsearch_migrate" {
			t.Fatalf("QueryRow(SELECT sessionsearch_migrate()) = %v, want the guard's K1 refusal", err)
		}
		if err := c.db.QueryRow(`INSERT INTO sessions(session_key) VALUES ('agent:main:trap') RETURNING session_key`).Scan(new(string)); !errors.As(err, &ge) || ge.Rule != "K1" {
			t.Fatalf("INSERT ... RETURNING as a query = %v, want the guard's K1 refusal", err)
		}
		// Trap 2: a writing function whose result is a row, sent as an exec.
		if _, err := c.db.Exec(`SELECT sessions_reconcile(10)`); !errors.As(err, &ge) || ge.Rule != "K2" || ge.Name != "sessions_reconcile" {
			t.Fatalf("Exec(SELECT sessions_reconcile(10)) = %v, want the guard's K2 refusal", err)
		}
		// The wrapped forms work, and the cluster took no harm: the
		// leader writes and every node stays up with the same answers.
		if v, err := guard.Migrate(ctx, c.db); err != nil || v < 1 {
			t.Fatalf("guard.Migrate = %d, %v", v, err)
		}
		if pending, err := guard.Reconcile(ctx, c.db, 50*time.Millisecond); err != nil || pending != 0 {
			t.Fatalf("guard.Reconcile = %d pending, %v", pending, err)
		}
		if _, err := c.db.Exec(`INSERT INTO sessions(session_key) VALUES ('agent:main:after-traps')`); err != nil {
			t.Fatalf("a write after the refused traps: %v", err)
		}
		for _, p := range c.nodes {
			if !c.alive(p) {
				t.Fatalf("node %d exited after the traps", p.id)
			}
		}
		var n int
		if err := c.db.QueryRow(`SELECT count(*) FROM sessions WHERE session_key = 'agent:main:trap'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("the refused INSERT ... RETURNING left %d rows (%v)", n, err)
		}
	})

	t.Run("page", func(t *testing.T) { pageEverywhere(t, c) })
	t.Run("20MB transaction", func(t *testing.T) { bigTransaction(t, c) })
	// Scores are BM25's, over the whole index: new rows change them, so
	// the answers to compare with are now those of the leader's copy.
	want = runSearches(t, c.db)
	c.sameEverywhere(t, want)

	// Kill -9 the leader: a new one within 15 s, the same answers.
	old := c.waitLeader(10*time.Second, 0)
	killed := time.Now()
	c.kill(c.nodes[old-1])
	nl := c.waitLeader(15*time.Second, old)
	t.Logf("node %d killed; node %d leads after %v", old, nl, time.Since(killed))
	for _, p := range c.nodes {
		if c.alive(p) {
			sameAnswers(t, fmt.Sprintf("new leader %d, HTTP of node %d", nl, p.id), c.httpSearches(t, p), want)
		}
	}
	// Writes through the new leader's HTTP API.
	ev := `{"type":"message","id":"fo1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"written after failover quokka"}}`
	status, b, err := c.post(c.nodes[nl-1], "/v1/append", "main",
		`{"sessions":[{"sessionKey":"agent:main:after-failover"}],"events":[{"sessionKey":"agent:main:after-failover","seq":0,"event":`+ev+`}]}`)
	if err != nil || status != 200 {
		t.Fatalf("append through the new leader %d: %d %s %v", nl, status, b, err)
	}
	probe := func() string {
		var js string
		if err := c.db.QueryRow(`SELECT sessions_search('quokka', '{"caller":"agent:main:main"}')`).Scan(&js); err != nil {
			t.Fatal(err)
		}
		return js
	}
	after := probe()
	if !strings.Contains(after, `"messageId":"fo1"`) {
		t.Fatalf("the write through the new leader is not found: %s", after)
	}
	want = runSearches(t, c.db)
	// The old node restarts, catches up, and answers the same from its copy.
	c.start(c.nodes[old-1])
	c.waitVoter(old, 30*time.Second)
	c.transfer(old)
	sameAnswers(t, fmt.Sprintf("restarted node %d leading", old), runSearches(t, c.db), want)
	c.sameEverywhere(t, want)
	if got := probe(); got != after {
		t.Fatalf("node %d after restart: %s, want %s", old, got, after)
	}
	c.everyNode(func(id uint64) { c.checkIntegrity(t, id) })

	// Each node's own copy, dumped to a file: it passes the integrity
	// checks and answers the searches as the cluster does (K8).
	for _, p := range c.nodes {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("node%d.db", p.id))
		if b, err := exec.Command(bin, "dump", "--addr", p.addr, "--out", out).CombinedOutput(); err != nil {
			t.Fatalf("dump of node %d: %v\n%s", p.id, err, b)
		}
		db, err := driver.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, fmt.Sprintf("dump of node %d", p.id), runSearches(t, db.DB), want)
		var ok string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
			t.Errorf("dump of node %d: PRAGMA integrity_check = %q, %v", p.id, ok, err)
		}
		if _, err := db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('integrity-check')`); err != nil {
			t.Errorf("dump of node %d: FTS5 integrity-check: %v", p.id, err)
		}
		db.Close()
	}

	// Without quorum the survivor refuses: a write 504 outcome_unknown
	// while it still leads (its commit went to Raft and got no answer),
	// then 503 unavailable; reads 503 once it has stepped down as leader
	// (it was the leader and serves reads from its copy until then), and it
	// is not ready (docs/cluster.md K7, K11).
	c.kill(c.nodes[0])
	c.kill(c.nodes[1])
	survivor := c.nodes[2]
	appendNoQuorum := func() (int, []byte, error) {
		return c.post(survivor, "/v1/append", "main", `{"sessions":[{"sessionKey":"agent:main:no-quorum"}]}`)
	}
	status, b, err = appendNoQuorum()
	if err == nil && status == http.StatusGatewayTimeout && strings.Contains(string(b), `"code":"outcome_unknown"`) {
		t.Logf("the first append without quorum: %s", b)
		status, b, err = appendNoQuorum()
	}
	if err != nil || status != http.StatusServiceUnavailable || !strings.Contains(string(b), `"code":"unavailable"`) {
		t.Errorf("POST /v1/append without quorum: %d %s %v, want 503 unavailable", status, b, err)
	}
	lost := time.Now()
	for {
		status, b, err = c.post(survivor, "/v1/search", "main", `{"query":"quokka"}`)
		if err == nil && status == http.StatusServiceUnavailable && strings.Contains(string(b), `"error":{"code":"`) {
			t.Logf("reads refused %v after quorum was lost: %s", time.Since(lost).Round(time.Millisecond), b)
			break
		}
		if time.Since(lost) > 20*time.Second {
			t.Fatalf("POST /v1/search 20 s without quorum: %d %.200s %v, want 503 with a JSON error", status, b, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	resp, err := http.Get("http://" + survivor.http + "/readyz")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz without quorum: %v %v, want 503", resp.Status, err)
	}
	resp.Body.Close()
}

// bigTransaction appends a 20 MB transcript in one request, one
// transaction, through a follower's HTTP API, and finds its last message on
// every node (docs/cluster.md K5).
func bigTransaction(t *testing.T, c *cluster) {
	key := "agent:big:transcript"
	type ev struct {
		SessionKey string          `json:"sessionKey"`
		Seq        int             `json:"seq"`
		Event      json.RawMessage `json:"event"`
	}
	req := struct {
		Sessions []map[string]string `json:"sessions"`
		Events   []ev                `json:"events"`
	}{Sessions: []map[string]string{{"sessionKey": key}}}
	total, seq := 0, 0
	for total < 20<<20 {
		// 10 KB of distinct words per message, so that the index grows too.
		var b strings.Builder
		for b.Len() < 10000 {
			fmt.Fprintf(&b, "w%dx%d ", seq, b.Len())
		}
		if seq%2 == 0 {
			b.WriteString("zebrafinch")
		}
		e := fmt.Sprintf(`{"type":"message","id":"b%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":%q}}`, seq, b.String())
		req.Events = append(req.Events, ev{key, seq, json.RawMessage(e)})
		total += len(e)
		seq++
	}
	leader := c.waitLeader(10*time.Second, 0)
	via := c.nodes[leader%uint64(len(c.nodes))] // a follower
	status, b, err := c.post(via, "/v1/append", "big", req)
	if err != nil || status != 200 || !strings.Contains(string(b), fmt.Sprintf(`"eventsAppended":%d`, seq)) {
		t.Fatalf("POST /v1/append of %d bytes in %d events through node %d: %d %.300s %v", total, seq, via.id, status, b, err)
	}
	last := fmt.Sprintf(`"messageId":"b%d"`, (seq-1)&^1)
	c.everyNode(func(id uint64) {
		status, js, err := c.post(c.nodes[0], "/v1/search", "big", `{"query":"zebrafinch","order":"recent","limit":1}`)
		if err != nil || status != 200 || !strings.Contains(string(js), last) {
			t.Errorf("leader %d: the newest message of the 20 MB transaction (%s) is not found: %d %.300s %v", id, last, status, js, err)
		}
		var n int
		if err := c.db.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_key = ?1`, key).Scan(&n); err != nil || n != seq {
			t.Errorf("leader %d: %d events of the 20 MB transaction, want %d (%v)", id, n, seq, err)
		}
	})
}

// checkIntegrity runs SQLite's and FTS5's integrity checks on the leader's
// copy, node id's.
func (c *cluster) checkIntegrity(t *testing.T, id uint64) {
	t.Helper()
	var ok string
	if err := c.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("node %d: PRAGMA integrity_check = %q, %v", id, ok, err)
	}
	if _, err := c.db.Exec(`INSERT INTO sessionsearch_fts(sessionsearch_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("node %d: FTS5 integrity-check: %v", id, err)
	}
}

// TestBigTransactionSmallCache: with a page cache of 2 MiB, far below the
// pages one statement changes, the 20 MB transcript goes in whole, and
// deleting it (one DELETE whose cascade and index triggers change every one
// of those pages) works, since the node never spills a statement's pages
// (docs/cluster.md K5).
func TestBigTransactionSmallCache(t *testing.T) {
	c := newCluster(t, 1, "--cache-mb", "2")
	bigTransaction(t, c)
	req, _ := http.NewRequest("DELETE", "http://"+c.nodes[0].http+"/v1/sessions/"+url.PathEscape("agent:big:transcript"), nil)
	req.Header.Set("Authorization", "Bearer "+bearer("big"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("DELETE of the 20 MB session: %s %s", resp.Status, b)
	}
	status, js, err := c.post(c.nodes[0], "/v1/search", "big", `{"query":"zebrafinch"}`)
	if err != nil || status != 200 || !strings.HasPrefix(string(js), `{"results":[]`) {
		t.Fatalf("after the delete: %d %.300s %v", status, js, err)
	}
	c.checkIntegrity(t, 1)
}

// pageEverywhere: every node serves the web page, and answers the
// endpoints it reads (docs/serve.md H24–H26) as the others do, through
// the guard (docs/cluster.md K15).
func pageEverywhere(t *testing.T, c *cluster) {
	var activity, session []byte
	for _, p := range c.nodes {
		resp, err := http.Get("http://" + p.http + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") ||
			!strings.Contains(string(page), "/assets/app.js?v=") {
			t.Errorf("node %d: GET / %d %v", p.id, resp.StatusCode, resp.Header)
		}
		st, a, err := c.post(p, "/v1/activity", "main", `{"query":"the"}`)
		if err != nil || st != 200 || !strings.Contains(string(a), `"agent":"main"`) {
			t.Fatalf("node %d: activity %d %s %v", p.id, st, a, err)
		}
		st, s, err := c.post(p, "/v1/session", "main", `{"sessionKey":"agent:main:en-telegram-rewind-fad751fa"}`)
		if err != nil || st != 200 || !strings.Contains(string(s), `"resume":{"argv":["openclaw","resume",`) {
			t.Fatalf("node %d: session %d %s %v", p.id, st, s, err)
		}
		if activity != nil && (string(a) != string(activity) || string(s) != string(session)) {
			t.Errorf("node %d answers otherwise:\n%s\n%s\nthan\n%s\n%s", p.id, a, s, activity, session)
		}
		activity, session = a, s
	}
}
