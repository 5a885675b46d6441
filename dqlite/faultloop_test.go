//go:build libsqlite3 && sqlite_fts5

package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadWord is the word only the message of seq has: letters only, so that
// the tokenizer keeps it whole.
func loadWord(seq int) string {
	b := []byte("lq")
	for n := seq + 26*26; n > 0; n /= 26 {
		b = append(b, byte('a'+n%26))
	}
	return string(b)
}

// appender appends one message per request to one session, through the
// nodes' HTTP APIs in turn, retrying a request that got no answer on the
// next node with the same seq: the API is idempotent by (sessionKey, seq).
type appender struct {
	c        *cluster
	key      string
	mu       sync.Mutex
	acked    []bool // by seq
	unsure   []int  // seqs whose first attempt failed
	resent   int    // retries the store already had: committed, not acknowledged
	lastAck  atomic.Int64
	stop     chan struct{}
	done     chan struct{}
	nextNode int
}

func (a *appender) run() {
	defer close(a.done)
	for seq := 0; ; seq++ {
		failed := false
		for {
			select {
			case <-a.stop:
				return
			default:
			}
			p := a.c.nodes[a.nextNode%len(a.c.nodes)]
			ev := fmt.Sprintf(`{"type":"message","id":"L%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"load message %s"}}`, seq, loadWord(seq))
			status, b, err := a.c.post(p, "/v1/append", "main", fmt.Sprintf(`{"events":[{"sessionKey":%q,"seq":%d,"event":%s}]}`, a.key, seq, ev))
			if err == nil && status == http.StatusOK {
				var res struct{ EventsAppended, EventsUnchanged int }
				json.Unmarshal(b, &res)
				a.mu.Lock()
				a.acked = append(a.acked, true)
				if failed && res.EventsUnchanged == 1 {
					a.resent++
				}
				a.mu.Unlock()
				a.lastAck.Store(time.Now().UnixNano())
				break
			}
			if !failed {
				a.mu.Lock()
				a.unsure = append(a.unsure, seq)
				a.mu.Unlock()
			}
			failed = true
			a.nextNode++
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFaultLoop: 10 rounds of kill -9 of a node, the leader every other
// round, under a steady append load; then every acknowledged append is
// searchable on every node's copy, nothing is half there, and SQLite's and
// FTS5's integrity checks pass on each copy (docs/cluster.md K7).
func TestFaultLoop(t *testing.T) {
	c := newCluster(t, 3)
	key := "agent:main:load"
	if status, b, err := c.post(c.nodes[0], "/v1/append", "main", fmt.Sprintf(`{"sessions":[{"sessionKey":%q}]}`, key)); err != nil || status != 200 {
		t.Fatalf("create the session: %d %s %v", status, b, err)
	}
	a := &appender{c: c, key: key, stop: make(chan struct{}), done: make(chan struct{})}
	go a.run()
	rng := rand.New(rand.NewSource(12))
	var failovers, elections []time.Duration
	for round := 0; round < 10; round++ {
		time.Sleep(500 * time.Millisecond) // steady load between faults
		leader := c.waitLeader(20*time.Second, 0)
		victim := leader
		if round%2 == 1 {
			for victim == leader {
				victim = uint64(rng.Intn(len(c.nodes)) + 1)
			}
		}
		killed := time.Now()
		c.kill(c.nodes[victim-1])
		// A new leader (when the leader was killed), and the first
		// acknowledged append after the kill.
		var elected time.Duration
		for a.lastAck.Load() < killed.UnixNano() || (victim == leader && elected == 0) {
			if time.Since(killed) > 30*time.Second {
				t.Fatalf("round %d: no append acknowledged within 30 s of killing node %d", round, victim)
			}
			if victim == leader && elected == 0 {
				if id, _ := c.leader(context.Background()); id != 0 && id != victim {
					elected = time.Since(killed)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		gap := time.Unix(0, a.lastAck.Load()).Sub(killed)
		role := "follower"
		if victim == leader {
			role = "leader"
			failovers = append(failovers, gap)
			elections = append(elections, elected)
		}
		t.Logf("round %d: killed %s %d; new leader after %v; next acknowledged append after %v", round, role, victim, elected.Round(time.Millisecond), gap.Round(time.Millisecond))
		c.start(c.nodes[victim-1])
		c.waitVoter(victim, 30*time.Second)
		c.waitReady(c.nodes[victim-1], 30*time.Second)
	}
	close(a.stop)
	<-a.done
	sort.Slice(failovers, func(i, j int) bool { return failovers[i] < failovers[j] })
	sort.Slice(elections, func(i, j int) bool { return elections[i] < elections[j] })
	t.Logf("leader kills: kill to new leader %v; kill to next acknowledged append %v", elections, failovers)
	a.mu.Lock()
	acked := len(a.acked)
	t.Logf("%d appends acknowledged; %d had a failed attempt, of which %d had been committed unacknowledged", acked, len(a.unsure), a.resent)
	unsure := append([]int(nil), a.unsure...)
	a.mu.Unlock()
	if acked < 100 {
		t.Fatalf("only %d appends acknowledged: the load was not steady", acked)
	}

	var reference string
	c.everyNode(func(id uint64) {
		// The events stored and the messages indexed, by seq: the same set,
		// holding every acknowledged seq and at most the one in flight.
		events := c.seqs(t, `SELECT seq FROM transcript_events WHERE session_key = ?1 ORDER BY seq`, key)
		indexed := c.seqs(t, `SELECT f.rowid & 4294967295 FROM sessionsearch_fts f
			JOIN sessionsearch_sessions s ON s.sid = f.rowid >> 32 WHERE s.session_key = ?1 ORDER BY 1`, key)
		if fmt.Sprint(events) != fmt.Sprint(indexed) {
			t.Errorf("node %d: %d events stored but %d indexed", id, len(events), len(indexed))
		}
		if len(events) < acked || len(events) > acked+1 {
			t.Errorf("node %d: %d events stored, %d acknowledged", id, len(events), acked)
		}
		for i, seq := range events {
			if seq != i {
				t.Errorf("node %d: stored seqs skip from %d to %d", id, i-1, seq)
				break
			}
		}
		// Searches through the HTTP API: each append that had a failed
		// attempt, and every 25th, finds exactly its message.
		var sample []int
		sample = append(sample, unsure...)
		for s := 0; s < acked; s += 25 {
			sample = append(sample, s)
		}
		var answers []string
		for _, seq := range sample {
			if seq >= acked {
				continue
			}
			status, b, err := c.post(c.nodes[rng.Intn(len(c.nodes))], "/v1/search", "main", fmt.Sprintf(`{"query":%q}`, loadWord(seq)))
			if err != nil || status != 200 || strings.Count(string(b), `"messageId"`) != 1 || !strings.Contains(string(b), fmt.Sprintf(`"messageId":"L%d"`, seq)) {
				t.Errorf("node %d: the acknowledged append %d is not found exactly once: %d %.300s %v", id, seq, status, b, err)
			}
			answers = append(answers, string(b))
		}
		if reference == "" {
			reference = strings.Join(answers, "\n")
		} else if strings.Join(answers, "\n") != reference {
			t.Errorf("node %d answers the sample searches differently from node 1", id)
		}
		c.checkIntegrity(t, id)
	})
}

func (c *cluster) seqs(t *testing.T, query, key string) []int {
	t.Helper()
	rows, err := c.db.Query(query, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var s int
		rows.Scan(&s)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
