package importer

import (
	"path/filepath"
	"testing"

	"github.com/sessionsearch/sessionsearch/sessionkey"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// The keys the importer stores for an agent's sessions belong to that agent
// under visibility, "agent:foo" included (it names no agent: three parts
// do), and the links between them still connect; a key that names another
// agent is kept.
func TestImportedKeysBelongToTheirAgent(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "agents", "work", "sessions")
	writeFile(t, filepath.Join(work, "sessions.json"), `{
  "main": {"sessionId": "m1"},
  "agent:foo": {"sessionId": "f1", "spawnedBy": "main"},
  "telegram:group:1": {"sessionId": "g1", "spawnedBy": "agent:foo"},
  "agent:work:subagent:a": {"sessionId": "a1", "parentSessionKey": "agent:foo"},
  "agent:ops:subagent:b": {"sessionId": "b1", "spawnedBy": "agent:ops:main"}
}`)
	for _, id := range []string{"m1", "f1", "g1", "a1", "b1", "stray"} {
		writeFile(t, filepath.Join(work, id+".jsonl"), transcriptText(id))
	}
	p, problems := NewPlan([]string{root}, PlanOptions{})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	got := resolved(p)
	want := map[string]struct{ key, agent string }{
		"m1.jsonl":    {"agent:work:main", "work"},
		"f1.jsonl":    {"agent:work:agent:foo", "work"},
		"g1.jsonl":    {"agent:work:telegram:group:1", "work"},
		"a1.jsonl":    {"agent:work:subagent:a", "work"},
		"b1.jsonl":    {"agent:ops:subagent:b", "ops"}, // names its agent: kept
		"stray.jsonl": {"agent:work:session:stray", "work"},
	}
	var links []sqlfuncs.SessionLinks
	for file, w := range want {
		s := got[file]
		if s.Key != w.key || sessionkey.AgentID(s.Key) != w.agent {
			t.Errorf("%s: key %q (agent %q), want %q (agent %q)", file, s.Key, sessionkey.AgentID(s.Key), w.key, w.agent)
		}
		links = append(links, sqlfuncs.SessionLinks{Key: s.Key, SpawnedBy: s.SpawnedBy, ParentKey: s.ParentSessionKey})
	}
	if s := got["g1.jsonl"]; s.SpawnedBy != "agent:work:agent:foo" {
		t.Errorf("the link to agent:foo is %q, want the key agent:foo was stored under", s.SpawnedBy)
	}
	forest := sqlfuncs.NewForest(links)

	// Work's main session sees every session of its agent and none of ops';
	// the agent:foo session sees the sessions linked to it, through the
	// links as stored.
	visible := sqlfuncs.Options{Caller: "agent:work:main"}.Policy().VisibleSet(forest)
	for _, key := range []string{"agent:work:agent:foo", "agent:work:telegram:group:1", "agent:work:subagent:a", "agent:work:session:stray"} {
		if !visible(key) {
			t.Errorf("agent:work:main does not see %s", key)
		}
	}
	if visible("agent:ops:subagent:b") {
		t.Errorf("agent:work:main sees agent:ops:subagent:b")
	}
	fromFoo := sqlfuncs.Options{Caller: "agent:work:agent:foo"}.Policy().VisibleSet(forest)
	if !fromFoo("agent:work:telegram:group:1") || !fromFoo("agent:work:subagent:a") || fromFoo("agent:work:main") {
		t.Errorf("agent:work:agent:foo's tree: group %v, subagent %v, main %v; want true, true, false",
			fromFoo("agent:work:telegram:group:1"), fromFoo("agent:work:subagent:a"), fromFoo("agent:work:main"))
	}
}
