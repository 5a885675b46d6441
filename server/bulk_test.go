//go:build sqlite_fts5

package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/server"
)

// docs/store.md S20: with BulkLoad, an append that brings a session's
// whole transcript goes through the store's bulk load; every answer, and
// what a reader of the store sees, is what the row by row append gives:
// the same results, refusals (a session the load refuses is appended row
// by row, whose answer names the event), re-sends and searches.
func TestBulkLoadAppend(t *testing.T) {
	rows := newServer(t, server.Options{})
	loads := newServer(t, server.Options{BulkLoad: true})
	long := strings.Repeat("kept as a frame once compressed, ", 60)
	newSession := `{"sessions":[{"sessionKey":"agent:main:bulk","spawnedBy":"agent:main:main"}],"events":[` +
		event("agent:main:bulk", 0, "b0", "zebra bulkword") + "," + event("agent:main:bulk", 1, "b1", "zebra "+long) + "," +
		event("agent:main:bulk", 2, "b2", "zebra lastbulk") + `]}`
	for _, c := range []struct{ name, body string }{
		{"a new session's transcript", newSession},
		{"the same again", newSession},
		{"more of it", `{"events":[` + event("agent:main:bulk", 3, "b3", "zebra appended") + `]}`},
		{"a new session the store refuses", `{"sessions":[{"sessionKey":"agent:main:refused"}],"events":[` +
			event("agent:main:refused", 0, "r0", "fine") + `,{"sessionKey":"agent:main:refused","seq":1,"event":{"message":"no type"}}]}`},
		{"two new sessions, one in two requests", `{"sessions":[{"sessionKey":"agent:main:two"},{"sessionKey":"agent:main:three"}],"events":[` +
			event("agent:main:two", 0, "w0", "zebra twoword") + "," + event("agent:main:three", 0, "h0", "zebra threeword") + `]}`},
		{"the second part", `{"events":[` + event("agent:main:three", 1, "h1", "zebra threemore") + `]}`},
	} {
		st1, out1 := rows.do(t, tokWriter, "POST", "/v1/append", c.body)
		st2, out2 := loads.do(t, tokWriter, "POST", "/v1/append", c.body)
		if st1 != st2 || string(out1) != string(out2) {
			t.Fatalf("%s: row by row %d %s\nbulk load %d %s", c.name, st1, out1, st2, out2)
		}
	}
	for _, q := range []string{"zebra", "bulkword", "frame", "appended", "fine", "threemore"} {
		body := fmt.Sprintf(`{"query":%q,"limit":25}`, q)
		st1, out1 := rows.do(t, tokWriter, "POST", "/v1/search", body)
		st2, out2 := loads.do(t, tokWriter, "POST", "/v1/search", body)
		if st1 != st2 || string(out1) != string(out2) {
			t.Errorf("search %q: row by row %d %s\nbulk load %d %s", q, st1, out1, st2, out2)
		}
	}
	for _, key := range []string{"agent:main:bulk", "agent:main:three"} {
		body := fmt.Sprintf(`{"sessionKey":%q}`, key)
		_, out1 := rows.do(t, tokWriter, "POST", "/v1/history", body)
		_, out2 := loads.do(t, tokWriter, "POST", "/v1/history", body)
		if string(out1) != string(out2) {
			t.Errorf("history %s: row by row %s\nbulk load %s", key, out1, out2)
		}
	}
	dump := func(s *testServer) string {
		var b strings.Builder
		r, err := s.db.Query(`SELECT session_key, seq, sessionsearch_event(event) FROM transcript_events ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for r.Next() {
			var k, e string
			var seq int
			r.Scan(&k, &seq, &e)
			fmt.Fprintln(&b, k, seq, e)
		}
		return b.String()
	}
	if a, b := dump(rows), dump(loads); a != b {
		t.Errorf("the stored events differ:\n%s\n---\n%s", a, b)
	}
	var frames int
	loads.db.QueryRow(`SELECT count(*) FROM transcript_events WHERE typeof(event) = 'blob'`).Scan(&frames)
	if frames != 1 {
		t.Errorf("%d events kept as frames by the bulk load, want the long one", frames)
	}
}
