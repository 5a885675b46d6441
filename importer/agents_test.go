package importer

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/agents"
	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	tr "github.com/sessionsearch/sessionsearch/transcript"
)

// docs/agents.md A1, A2, A6, A7: another agent's store is claimed by its
// format, each of its sessions is one transcript under agent:<name>:<id>
// starting with a header that carries the project, a bad line is reported
// as path:line and skipped, and a second import stores nothing new.
func TestImportAgentStores(t *testing.T) {
	dir := t.TempDir()
	stores, err := fixtures.WriteAgents(dir)
	if err != nil {
		t.Fatal(err)
	}
	thai := filepath.Join(stores[0], "projects", "-home-ana-src-atlas", "3b0e8f52-6c1d-4e7a-9f21-8d5a0c7e4b19.jsonl")
	f, err := os.OpenFile(thai, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"type\":\"user\",\"uuid\": oops\n")
	f.Close()

	run := func(opts PlanOptions) (*memSink, []Problem, Stats, Plan) {
		sink := newMemSink()
		var problems []Problem
		im := &Importer{Sink: sink, Report: func(p Problem) { problems = append(problems, p) }}
		plan, planProblems := NewPlan(stores, opts)
		problems = append(problems, planProblems...)
		for _, src := range plan.Sources {
			if err := im.Import(context.Background(), src); err != nil {
				t.Fatal(err)
			}
		}
		return sink, problems, im.Stats(), plan
	}
	sink, problems, stats, plan := run(PlanOptions{})
	if len(plan.Sources) != 1 || plan.Sources[0].Kind != AgentStore || plan.Sources[0].Format.Agent != agents.ClaudeCode {
		t.Fatalf("plan %+v, want one Claude Code store", plan.Sources)
	}
	want := []string{"agent:claude-code:3b0e8f52-6c1d-4e7a-9f21-8d5a0c7e4b19", "agent:claude-code:9c8b7a65-4d3e-4f2a-8b1c-0d9e8f7a6b5c"}
	if strings.Join(sink.order, " ") != strings.Join(want, " ") && strings.Join(sink.order, " ") != want[1]+" "+want[0] {
		t.Fatalf("sessions %v, want %v", sink.order, want)
	}
	if len(problems) != 1 || problems[0].Path != thai || problems[0].Line != 10 {
		t.Fatalf("problems %v, want the bad line %s:10", problems, thai)
	}
	for _, key := range want {
		events := sink.events[key]
		e, _, err := tr.Read(events[0])
		if err != nil || e.Type != "session" || !strings.Contains(string(events[0]), `"cwd":"/home/ana/src/atlas"`) {
			t.Errorf("%s: first event %s, want a header with the project", key, events[0])
		}
		if sink.sessions[key].CreatedAt == 0 {
			t.Errorf("%s: no created_at", key)
		}
	}
	if stats.Transcripts != 2 || stats.Added != stats.Events {
		t.Errorf("stats %+v, want 2 new transcripts", stats)
	}

	// Again into the same sink: nothing new, no conflict.
	im := &Importer{Sink: sink, Report: func(p Problem) {
		if p.Line != 10 {
			t.Errorf("second import: %v", p)
		}
	}}
	for _, src := range plan.Sources {
		if err := im.Import(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	if s := im.Stats(); s.Transcripts != 2 || s.Added != 0 || s.Events != stats.Events {
		t.Errorf("second import: %+v, want the same %d events and none added", s, stats.Events)
	}

	// --exclude claude-code: the store is skipped and said so.
	_, _, stats, plan = run(PlanOptions{Agents: func(name string) bool { return name != agents.ClaudeCode }})
	if stats.Transcripts != 0 || len(plan.Skipped) != 1 || plan.Skipped[0].Reason != "claude-code is excluded" {
		t.Errorf("excluded: %+v, skipped %+v", stats, plan.Skipped)
	}
	// --include claude-code leaves OpenClaw's paths out.
	_, _, _, plan = run(PlanOptions{Agents: func(name string) bool { return name == agents.ClaudeCode }})
	if len(plan.Sources) != 1 {
		t.Errorf("included: %+v", plan.Sources)
	}
	plan, _ = NewPlan([]string{filepath.Join("..", fixtures.Dir)}, PlanOptions{Agents: func(name string) bool { return name == agents.ClaudeCode }})
	if len(plan.Sources) != 0 || len(plan.Skipped) != 1 || plan.Skipped[0].Reason != "openclaw is excluded" {
		t.Errorf("OpenClaw transcripts with --include claude-code: %+v", plan)
	}
}

// docs/agents.md A7: a database session whose history was rewritten (a
// Hermes rewind after a rewind) is stored again whole by a second import,
// not reported as a conflict, and ends as a fresh import stores it.
func TestImportReplacesRewrittenHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open(driver.DriverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(fixtures.HermesTables)
	exec(`INSERT INTO sessions VALUES ('s1', 'cli', 1754035200)`)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'alpha', 1754035201),
		('s1', 'assistant', 'beta', 1754035202), ('s1', 'user', 'gamma', 1754035203), ('s1', 'assistant', 'delta', 1754035204)`)
	open := func(p string) (*sql.DB, error) { return sql.Open(driver.DriverName, "file:"+p+"?mode=ro") }
	sink := newMemSink()
	importOnce := func(sink *memSink) Stats {
		t.Helper()
		im := &Importer{Sink: sink, OpenDB: open, Report: func(p Problem) { t.Errorf("problem: %v", p) }}
		plan, problems := NewPlan([]string{path}, PlanOptions{})
		if len(problems) > 0 || len(plan.Sources) != 1 || plan.Sources[0].Kind != AgentStore {
			t.Fatalf("plan %+v %v", plan, problems)
		}
		if err := im.Import(context.Background(), plan.Sources[0]); err != nil {
			t.Fatal(err)
		}
		return im.Stats()
	}
	importOnce(sink)
	// /undo of the last turn, a new turn, then /undo back to the first
	// answer: the events of the first rewind change.
	exec(`UPDATE messages SET active = 0 WHERE id >= 3`)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'epsilon', 1754035205)`)
	importOnce(sink)
	exec(`UPDATE messages SET active = 0 WHERE id >= 2`)
	st := importOnce(sink)
	if st.Transcripts != 1 {
		t.Fatalf("the import after the second rewind: %+v, want the transcript stored", st)
	}
	fresh := newMemSink()
	importOnce(fresh)
	const key = "agent:hermes:s1"
	if got, want := sink.events[key], fresh.events[key]; len(got) != len(want) || !bytes.Equal(bytes.Join(got, []byte("\n")), bytes.Join(want, []byte("\n"))) {
		t.Fatalf("after replacing:\n%s\nwant a fresh import's\n%s", bytes.Join(got, []byte("\n")), bytes.Join(want, []byte("\n")))
	}
}
