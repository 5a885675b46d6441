//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/server"
)

// attempt is one append request of TestQuorumLostAndRestored: one event,
// whose content names the attempt.
type attempt struct {
	key     string
	seq     int
	content string
	outcome string // "acked", "nothing" (a refusal that wrote nothing) or "unknown"
	code    string // the refusal's code
	// settles, for the acknowledgement of a request whose earlier attempt
	// had an unknown outcome: "stored" when that attempt had been stored
	// (the event was unchanged), "absent" when it had not (appended).
	settles string
}

// quorumClient appends one event a request to its session through the
// node's API with server.Client, one attempt a request, following the
// rule of docs/serve.md H20: after a refusal that wrote nothing it may
// send another event at that seq (it does: one with new content), after
// an unknown outcome it sends the same request again until it is settled.
// It stops once stop is closed and its last request is acknowledged.
func quorumClient(ctx context.Context, cl *server.Client, key string, stop <-chan struct{}, record func(attempt)) {
	seq, try := 0, 0
	unsettled := false
	for {
		select {
		case <-stop:
			if !unsettled {
				return
			}
		default:
		}
		if ctx.Err() != nil {
			return
		}
		content := fmt.Sprintf("%s seq %d try %d", key, seq, try)
		ev := fmt.Sprintf(`{"type":"message","id":"Q%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":%q}}`, seq, content)
		req := server.AppendRequest{Events: []server.EventRow{{SessionKey: key, Seq: int64(seq), Event: json.RawMessage(ev)}}}
		if seq == 0 {
			req.Sessions = []server.SessionRow{{SessionKey: key}}
		}
		res, err := cl.Append(ctx, req)
		a := attempt{key: key, seq: seq, content: content, code: server.ErrorCode(err)}
		switch {
		case err == nil:
			a.outcome = "acked"
			if unsettled {
				a.settles = map[bool]string{true: "stored", false: "absent"}[res.EventsUnchanged == 1]
			}
			seq, try, unsettled = seq+1, 0, false
		case server.OutcomeUnknown(err):
			a.outcome = "unknown"
			unsettled = true // the same request again
		case unsettled:
			a.outcome = "nothing" // this try wrote nothing; the earlier one is still unknown
		default:
			a.outcome = "nothing"
			try++
		}
		if err != nil {
			a.code += " " + err.Error()
		}
		record(a)
		time.Sleep(50 * time.Millisecond)
	}
}

// TestQuorumLostAndRestored: clients append through the leader's API while
// both followers are killed and, 10 s later, started again; a push of a
// local store runs while the quorum is lost, and again after. Every
// acknowledged append is stored once; every refusal that said nothing was
// written left nothing; every unknown outcome is either absent or stored as
// it was sent; the clients' retries and the second push converge
// (docs/cluster.md K7, K11; docs/serve.md H20, H21).
func TestQuorumLostAndRestored(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	leader := c.waitLeader(10*time.Second, 0)
	via := c.nodes[leader-1]
	url := "http://" + via.http

	var mu sync.Mutex
	var attempts []attempt
	record := func(a attempt) {
		mu.Lock()
		attempts = append(attempts, a)
		mu.Unlock()
	}
	stop := make(chan struct{})
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &server.Client{URL: url, Token: bearer("main"), Attempts: 1}
			quorumClient(cctx, cl, fmt.Sprintf("agent:main:quorum-%d", i), stop, record)
		}()
	}

	local, err := driver.Open(filepath.Join(t.TempDir(), "local.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if _, err := local.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := importFixtures(ctx, local.DB); err != nil {
		t.Fatal(err)
	}

	time.Sleep(2 * time.Second)
	var followers []*proc
	for _, p := range c.nodes {
		if p.id != leader {
			followers = append(followers, p)
			c.kill(p)
		}
	}
	lost := time.Now()
	// A push while the quorum is lost fails, and says whether its last
	// batch may be stored.
	pusher := &server.Client{URL: url, Token: bearer("main"), Attempts: 2}
	_, err = server.Push(ctx, local.DB, pusher, server.PushOptions{BatchEvents: 50})
	if err == nil {
		t.Errorf("server.Push without quorum succeeded")
	}
	t.Logf("push without quorum: outcome unknown %v: %v", server.OutcomeUnknown(err), err)
	time.Sleep(time.Until(lost.Add(10 * time.Second)))
	for _, p := range followers {
		c.start(p)
	}
	c.waitLeader(60*time.Second, 0)
	t.Logf("quorum back %v after the kill", time.Since(lost).Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()
	if cctx.Err() != nil {
		t.Fatalf("the clients did not settle their last requests within 3 minutes")
	}
	if _, err := server.Push(ctx, local.DB, &server.Client{URL: url, Token: bearer("main")}, server.PushOptions{BatchEvents: 50}); err != nil {
		t.Fatalf("server.Push after the quorum came back: %v", err)
	}

	// The cluster holds, per session and seq, the content of the attempt
	// that was acknowledged, once.
	stored := map[string]map[int]string{}
	rows, err := c.db.Query(`SELECT session_key, seq, event -> '$.message' ->> '$.content' FROM transcript_events WHERE session_key LIKE 'agent:main:quorum-%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key, content string
		var seq int
		if err := rows.Scan(&key, &seq, &content); err != nil {
			t.Fatal(err)
		}
		if stored[key] == nil {
			stored[key] = map[int]string{}
		}
		stored[key][seq] = content
	}
	rows.Close()
	// A request refused as "nothing written" is followed by another event
	// at its seq: had it been written, that one would be refused as a
	// conflict, and it would be what is stored. A request with an unknown
	// outcome is sent again until it is acknowledged, appended (it was
	// absent) or unchanged (it was stored as it was sent), never refused
	// as a conflict (it was stored otherwise).
	sentUnknown := map[string]bool{}
	for _, a := range attempts {
		if a.outcome == "unknown" {
			sentUnknown[a.content] = true
		}
	}
	kinds := map[string]int{}
	acked := map[string]int{}
	for _, a := range attempts {
		code := a.code
		if len(code) > 70 {
			code = code[:70] + "…"
		}
		kinds[a.outcome+" "+code]++
		if a.settles != "" {
			kinds["unknown, then "+a.settles]++
		}
		got, ok := stored[a.key][a.seq]
		switch a.outcome {
		case "acked":
			acked[a.key]++
			if got != a.content {
				t.Errorf("%s seq %d was acknowledged as %q, stored as %q (present %v)", a.key, a.seq, a.content, got, ok)
			}
		case "nothing":
			if got == a.content && !sentUnknown[a.content] {
				t.Errorf("%s seq %d: the refusal %q said nothing was written, but %q is stored", a.key, a.seq, a.code, a.content)
			}
		}
		for _, bad := range []string{"conflict", "seq_gap", "internal"} {
			if strings.HasPrefix(a.code, bad+" ") {
				t.Errorf("%s seq %d: refused %s", a.key, a.seq, a.code)
			}
		}
	}
	for key, n := range acked {
		if len(stored[key]) != n {
			t.Errorf("%s: %d events stored, %d acknowledged", key, len(stored[key]), n)
		}
	}
	var summary []string
	refused := 0
	for k, n := range kinds {
		summary = append(summary, fmt.Sprintf("%s ×%d", k, n))
		if !strings.HasPrefix(k, "acked") && !strings.HasPrefix(k, "unknown, then") {
			refused += n
		}
	}
	sort.Strings(summary)
	t.Logf("attempts:\n%s", strings.Join(summary, "\n"))
	if refused == 0 {
		t.Errorf("no request was refused while the quorum was lost: the test did not test it")
	}

	// The second push converged: the cluster has every local session with
	// its events.
	var want, got string
	q := `SELECT group_concat(session_key || ':' || n, ',') FROM (SELECT session_key, count(*) AS n FROM transcript_events
		WHERE session_key NOT LIKE 'agent:main:quorum-%' GROUP BY session_key ORDER BY session_key)`
	if err := local.QueryRow(q).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if err := c.db.QueryRow(q).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("after the second push the cluster has %s, the local store %s", got, want)
	}
}
