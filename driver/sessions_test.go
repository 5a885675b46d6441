package driver_test

import (
	"fmt"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// Sessions lists what the caller may see, newest activity first, with the
// searchable messages counted and the events stored.
func TestSessions(t *testing.T) {
	db, ctx := openStore(t)
	for _, s := range []driver.Session{
		{Key: "agent:main:main", CreatedAt: 5},
		{Key: "agent:main:subagent:k1", SpawnedBy: "agent:main:main"},
		{Key: "agent:main:incognito-x"},
		{Key: "agent:ops:main", CreatedAt: 7},
	} {
		if err := db.AddSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	appendMsg := func(key, id, role string, ts int64) {
		event := fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%d,"message":{"role":%q,"content":"text of %s"}}`, id, ts, role, id)
		if _, err := db.Append(ctx, key, []byte(event)); err != nil {
			t.Fatal(err)
		}
	}
	appendMsg("agent:main:main", "a", "user", 1000)
	appendMsg("agent:main:main", "b", "assistant", 2000)
	if _, err := db.Append(ctx, "agent:main:main", []byte(`{"type":"custom","id":"c"}`)); err != nil {
		t.Fatal(err)
	}
	appendMsg("agent:main:subagent:k1", "k", "user", 3000)
	appendMsg("agent:main:incognito-x", "i", "user", 4000)

	list, err := db.Sessions(ctx, driver.Options{Caller: "agent:main:main"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, fmt.Sprintf("%s %d/%d %d %s", s.Key, s.Messages, s.Events, s.LastActivity, s.SpawnedBy))
	}
	want := []string{"agent:main:subagent:k1 1/1 3000 agent:main:main", "agent:main:main 2/3 2000 "}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tree of the main session:\n got %q\nwant %q", got, want)
	}
	list, err = db.Sessions(ctx, driver.Options{Caller: "agent:main:main", Visibility: "all", AgentToAgent: driver.AgentToAgent{Enabled: true, Allow: []string{"*"}}})
	if err != nil || len(list) != 3 || list[2].Key != "agent:ops:main" || list[2].LastActivity != 7 {
		t.Errorf("all: %+v, %v", list, err)
	}
	if list, err := db.Sessions(ctx, driver.Options{Caller: "agent:main:subagent:k1", Visibility: "self"}); err != nil || len(list) != 1 {
		t.Errorf("self: %+v, %v", list, err)
	}
}
