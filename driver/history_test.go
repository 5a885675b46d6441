package driver_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// historyOfWholePath is sessions_history as the rule states it
// (docs/search.md Q16): the window chosen over every message of the
// session's active path, replayed from its events.
func historyOfWholePath(t *testing.T, key string, events []string, o driver.HistoryOptions) *driver.History {
	t.Helper()
	r := transcript.NewReplay()
	for _, ev := range events {
		e, err := transcript.Parse([]byte(ev))
		if err != nil {
			e = transcript.Entry{Type: "invalid"}
		}
		r.Append(e)
	}
	path := r.Path()
	var msgs []sqlfuncs.HistoryMessage
	for k := len(path) - 1; k >= 0; k-- {
		e, text, err := transcript.Read([]byte(events[path[k]]))
		if text = strings.TrimSpace(text); err == nil && e.Type == "message" && e.Role != "" && text != "" {
			msgs = append(msgs, sqlfuncs.HistoryMessage{ID: e.ID, Role: e.Role, Timestamp: e.Timestamp, Text: text})
		}
	}
	js, _ := json.Marshal(o)
	parsed, err := sqlfuncs.ParseHistoryOptions(string(js))
	if err != nil {
		t.Fatal(err)
	}
	res := sqlfuncs.HistoryWindow(key, msgs, parsed, func(s string) string { out, _ := redact.Text(s); return out })
	return &res
}

// TestHistoryReadsOnlyItsWindow: sessions_history reads a session from its
// newest message, or from its anchor, outwards, and only as far as the
// window needs (store.HistoryCandidates); the answer is the one the window
// gives over the whole path, for sessions with branches, rewinds, resets,
// duplicate and dangling ids, tool results and tool calls without text,
// indexed or pending, replayed in memory or spilled to files, and for every
// kind of option.
func TestHistoryReadsOnlyItsWindow(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	defer func(s int) { store.SpillAbove = s }(store.SpillAbove)
	_, ctx, conn := storeConn(t)
	type session struct {
		key    string
		events []string
	}
	var sessions []session
	for k := range 24 {
		s := session{key: fmt.Sprintf("agent:main:s%d", k)}
		n := r.Intn(400)
		for i := range n {
			id := func() string { return fmt.Sprintf("e%d", r.Intn(i+1)) }
			role := []string{"user", "assistant", "toolResult", "assistant"}[r.Intn(4)]
			text := fmt.Sprintf("message %d of %s", i, s.key)
			ev := fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"e%d","timestamp":%d,"message":{"role":%q,"content":%q}}`, i, max(i-1, 0), 1770000000000+i, role, text)
			switch r.Intn(16) {
			case 0:
				ev = fmt.Sprintf(`{"type":"leaf","id":"L%d","targetId":%q}`, i, id())
			case 1:
				ev = fmt.Sprintf(`{"type":"reset","id":"R%d","parentId":%q}`, i, id())
			case 2: // a duplicate id
				ev = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"message":{"role":"user","content":%q}}`, id(), id(), text)
			case 3: // a tool call without text
				ev = fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"e%d","message":{"role":"assistant","content":[{"type":"toolCall","name":"x"}]}}`, i, max(i-1, 0))
			case 4:
				ev = fmt.Sprintf(`{"type":"message","id":"e%d","parentId":"gone%d","message":{"role":"user","content":%q}}`, i, i, text)
			case 5:
				ev = fmt.Sprintf(`{"type":"message","id":"e%d","parentId":%q,"message":{"role":"user","content":%q}}`, i, id(), text)
			}
			s.events = append(s.events, ev)
		}
		// Every third session stays pending.
		if err := driver.DeferIndexing(ctx, conn, k%3 == 0); err != nil {
			t.Fatal(err)
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := driver.AddSession(ctx, tx, driver.Session{Key: s.key}); err != nil {
			t.Fatal(err)
		}
		for seq, ev := range s.events {
			if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) VALUES (?, ?, ?)`, s.key, 3*seq, ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	if err := driver.DeferIndexing(ctx, conn, false); err != nil {
		t.Fatal(err)
	}
	checked, windows := 0, 0
	for _, spillAbove := range []int{store.SpillAbove, 0} {
		store.SpillAbove = spillAbove
		for _, s := range sessions {
			for range 12 {
				o := driver.HistoryOptions{Options: driver.Options{Caller: s.key}, Limit: []int{1, 2, 3, 7, 1000}[r.Intn(5)], IncludeTools: r.Intn(2) == 0}
				switch r.Intn(4) {
				case 0, 1:
					if len(s.events) > 0 {
						o.MessageID = fmt.Sprintf("e%d", r.Intn(len(s.events)))
					}
				case 2:
					o.MessageID = "nope"
				}
				if r.Intn(4) == 0 {
					o.MaxBytes = 256 + r.Intn(600)
				}
				want := historyOfWholePath(t, s.key, s.events, o)
				var got driver.History
				js, _ := json.Marshal(o)
				var out string
				if err := conn.QueryRowContext(ctx, `SELECT sessions_history(?, ?)`, s.key, string(js)).Scan(&out); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(&got, want) {
					t.Fatalf("%s, %s (spill above %d):\n got  %+v\n want %+v", s.key, js, spillAbove, got, *want)
				}
				checked++
				if len(want.Messages) > 0 && want.HasMore {
					windows++
				}
			}
		}
	}
	if windows < checked/4 {
		t.Fatalf("only %d of %d answers are windows of a longer history", windows, checked)
	}
}
