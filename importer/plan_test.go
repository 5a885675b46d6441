package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const headerLine = `{"type":"session","version":3,"id":"%s","timestamp":"2026-03-01T00:00:00Z"}` + "\n"

func transcriptText(id string) string { return strings.Replace(headerLine, "%s", id, 1) }

// stateDir builds an OpenClaw state directory with every kind of file a
// sessions directory holds.
func stateDir(t *testing.T) string {
	root := t.TempDir()
	main := filepath.Join(root, "agents", "main", "sessions")
	writeFile(t, filepath.Join(main, "sessions.json"), `{
  "agent:main:main": {"sessionId": "live1", "updatedAt": 1, "sessionStartedAt": 1772323200000,
    "usageFamilySessionIds": ["old1", "live1"]},
  "agent:main:subagent:kid": {"sessionId": "kid1", "sessionFile": "/elsewhere/kid1.jsonl",
    "spawnedBy": "agent:main:main", "updatedAt": 2},
  "agent:main:dashboard:incognito-x": {"sessionId": "inc2", "usageFamilySessionIds": ["inc1"], "updatedAt": 3}
}`)
	for _, name := range []string{
		"live1.jsonl",
		"kid1.jsonl",
		"stray.jsonl",
		"old1.jsonl.reset.2026-03-24T07-14-20.990Z",
		"inc1.jsonl.reset.2026-03-25T07-14-20Z",
		"gone.jsonl.deleted.2026-03-20T01-02-03.004Z",
		"live1.jsonl.bak.2026-03-20T01-02-03.004Z",
		"live1.checkpoint.0b8f5b8e-1c7e-4a8b-9d1e-2f3a4b5c6d7e.jsonl",
		"live1.trajectory.jsonl",
		"sessions.json.bak.1",
		"notes.txt",
	} {
		writeFile(t, filepath.Join(main, name), transcriptText(sessionIDOf(name)))
	}
	work := filepath.Join(root, "agents", "work", "sessions")
	writeFile(t, filepath.Join(work, "sessions.json"), `{"main": {"sessionId": "w1", "spawnedBy": "agent:main:main", "parentSessionKey": "other"}}`)
	writeFile(t, filepath.Join(work, "w1.jsonl"), transcriptText("w1"))
	// Not transcripts: cron run logs and JSONL outside agents/<id>/sessions.
	writeFile(t, filepath.Join(root, "cron", "runs", "job.jsonl"), transcriptText("job"))
	writeFile(t, filepath.Join(root, "agents", "main", "workspace", "x.jsonl"), transcriptText("ws"))
	return root
}

// resolved maps each planned JSONL file name to its session.
func resolved(p Plan) map[string]Session {
	out := map[string]Session{}
	for _, src := range p.Sources {
		h := header{id: src.SessionID, createdAt: 99}
		out[filepath.Base(src.Path)] = src.fileSession(h)
	}
	return out
}

func TestPlanStateDirectory(t *testing.T) {
	root := stateDir(t)
	p, problems := NewPlan([]string{root}, PlanOptions{})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	want := map[string]Session{
		"live1.jsonl": {Key: "agent:main:main", CreatedAt: 1772323200000},
		"kid1.jsonl":  {Key: "agent:main:subagent:kid", SpawnedBy: "agent:main:main", CreatedAt: 99},
		"stray.jsonl": {Key: "agent:main:session:stray", CreatedAt: 99},
		"old1.jsonl.reset.2026-03-24T07-14-20.990Z": {Key: "agent:main:session:old1", ParentSessionKey: "agent:main:main", CreatedAt: 99},
		"inc1.jsonl.reset.2026-03-25T07-14-20Z":     {Key: "agent:main:session:incognito-inc1", ParentSessionKey: "agent:main:dashboard:incognito-x", CreatedAt: 99},
		"w1.jsonl":                                  {Key: "agent:work:main", SpawnedBy: "agent:main:main", ParentSessionKey: "agent:work:other", CreatedAt: 99},
	}
	if got := resolved(p); !reflect.DeepEqual(got, want) {
		t.Errorf("sessions\n got %v\nwant %v", got, want)
	}
	var skipped []string
	for _, s := range p.Skipped {
		skipped = append(skipped, filepath.Base(s.Path)+": "+s.Reason)
	}
	sort.Strings(skipped)
	wantSkipped := []string{
		"gone.jsonl.deleted.2026-03-20T01-02-03.004Z: deleted transcript (import with --include-deleted)",
		"live1.checkpoint.0b8f5b8e-1c7e-4a8b-9d1e-2f3a4b5c6d7e.jsonl: pre-compaction checkpoint copy of a transcript",
		"live1.jsonl.bak.2026-03-20T01-02-03.004Z: backup copy of a transcript",
		"live1.trajectory.jsonl: runtime trajectory log, not a transcript",
	}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped\n got %q\nwant %q", skipped, wantSkipped)
	}
	if p.Bytes() == 0 {
		t.Error("plan has no bytes")
	}
}

func TestPlanIncludeDeleted(t *testing.T) {
	p, _ := NewPlan([]string{stateDir(t)}, PlanOptions{IncludeDeleted: true})
	if s, ok := resolved(p)["gone.jsonl.deleted.2026-03-20T01-02-03.004Z"]; !ok || s.Key != "agent:main:session:gone" {
		t.Fatalf("deleted transcript planned as %+v (%v)", s, ok)
	}
}

// A sessions directory, or a single file in one, is read with its
// sessions.json; a file named on the command line is imported whatever its
// suffix.
func TestPlanSessionsDirAndFiles(t *testing.T) {
	root := stateDir(t)
	dir := filepath.Join(root, "agents", "main", "sessions")
	p, problems := NewPlan([]string{dir}, PlanOptions{})
	if len(problems) != 0 || resolved(p)["live1.jsonl"].Key != "agent:main:main" || len(p.Sources) != 5 {
		t.Fatalf("sessions dir: %v %v", problems, resolved(p))
	}
	deleted := filepath.Join(dir, "gone.jsonl.deleted.2026-03-20T01-02-03.004Z")
	p, problems = NewPlan([]string{filepath.Join(dir, "kid1.jsonl"), deleted}, PlanOptions{})
	got := resolved(p)
	if len(problems) != 0 || got["kid1.jsonl"].SpawnedBy != "agent:main:main" || got[filepath.Base(deleted)].Key != "agent:main:session:gone" {
		t.Fatalf("files: %v %v", problems, got)
	}
}

// JSONL copies of generations that the agent's database holds are skipped.
func TestPlanSkipsTranscriptsInDatabase(t *testing.T) {
	root := stateDir(t)
	writeFile(t, filepath.Join(root, "agents", "main", "agent", "openclaw-agent.sqlite"), "SQLite format 3\x00")
	// The lock file OpenClaw 2026.9.6 keeps beside the database while it
	// reindexes memory is not a source.
	writeFile(t, filepath.Join(root, "agents", "main", "agent", "openclaw-agent.sqlite.reindex-lock.sqlite"), "SQLite format 3\x00")
	p, problems := NewPlan([]string{root}, PlanOptions{SessionIDs: func(string) ([]string, error) {
		return []string{"live1", "old1"}, nil
	}})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if p.Sources[0].Kind != AgentDatabase || p.Sources[0].AgentID != "main" || filepath.Base(p.Sources[0].Path) != "openclaw-agent.sqlite" {
		t.Fatalf("first source %+v", p.Sources[0])
	}
	for _, src := range p.Sources[1:] {
		if src.Kind == AgentDatabase {
			t.Errorf("another agent database planned: %s", src.Path)
		}
	}
	got := resolved(p)
	if _, ok := got["live1.jsonl"]; ok {
		t.Error("live1.jsonl planned although the database holds it")
	}
	if _, ok := got["old1.jsonl.reset.2026-03-24T07-14-20.990Z"]; ok {
		t.Error("old1 reset file planned although the database holds it")
	}
}

func TestPlanProblems(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	bad := filepath.Join(root, "agents", "main", "sessions")
	writeFile(t, filepath.Join(bad, "sessions.json"), `{"agent:main:main": {"sessionId": "a1"}, "agent:main:x": {"sessionId": 7}}`)
	writeFile(t, filepath.Join(bad, "a1.jsonl"), transcriptText("a1"))
	p, problems := NewPlan([]string{filepath.Join(root, "missing.jsonl"), empty, bad}, PlanOptions{})
	var msgs []string
	for _, pr := range problems {
		msgs = append(msgs, pr.Error())
	}
	if len(msgs) != 3 ||
		msgs[0] != filepath.Join(root, "missing.jsonl")+": stat: no such file or directory" ||
		!strings.HasPrefix(msgs[1], empty+": no OpenClaw transcripts") ||
		!strings.HasPrefix(msgs[2], filepath.Join(bad, "sessions.json")+`: entry "agent:main:x": json: cannot unmarshal number`) {
		t.Fatalf("problems %q", msgs)
	}
	// What sessions.json said before the bad entry still counts.
	if resolved(p)["a1.jsonl"].Key != "agent:main:main" {
		t.Fatalf("sessions %v", resolved(p))
	}
}
