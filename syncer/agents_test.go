package syncer_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/importer"
	"github.com/sessionsearch/sessionsearch/internal/fixtures"
	"github.com/sessionsearch/sessionsearch/syncer"
)

// backdate moves every file under dir an hour back, so that the stamps a
// sync takes are trusted (docs/sync.md Y2) and a second sync can skip them.
func backdate(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	must(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(strings.Join(lines, ""))
	must(t, err)
	must(t, f.Close())
}

// docs/sync.md Y15, docs/agents.md A6-A8: a Claude Code store syncs as
// import stores it, an unchanged store is not read again, an append is
// copied without the lines before it, a line still being written waits, and
// a session whose file is gone is removed.
func TestSyncAgentStores(t *testing.T) {
	dir := t.TempDir()
	stores, err := fixtures.WriteAgents(dir)
	must(t, err)
	backdate(t, dir)
	project := filepath.Join(stores[0], "projects", "-home-ana-src-atlas")
	thai := filepath.Join(project, "3b0e8f52-6c1d-4e7a-9f21-8d5a0c7e4b19.jsonl")
	korean := filepath.Join(project, "9c8b7a65-4d3e-4f2a-8b1c-0d9e8f7a6b5c.jsonl")
	const thaiKey = "agent:claude-code:3b0e8f52-6c1d-4e7a-9f21-8d5a0c7e4b19"
	const koreanKey = "agent:claude-code:9c8b7a65-4d3e-4f2a-8b1c-0d9e8f7a6b5c"

	db := store(t)
	s := newSyncer(t, db.DB, nil)
	st := sync(t, s, stores...)
	if st.Sessions != 2 || st.Sources != 2 {
		t.Fatalf("first sync: %+v, want 2 sessions from 2 files", st)
	}

	// The same as an import of the same store.
	imported := store(t)
	sink, err := importer.NewSQLSink(context.Background(), imported.DB, false)
	must(t, err)
	im := &importer.Importer{Sink: sink, Report: func(p importer.Problem) { t.Errorf("import: %v", p) }}
	plan, problems := importer.NewPlan(stores, importer.PlanOptions{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, src := range plan.Sources {
		must(t, im.Import(context.Background(), src))
	}
	must(t, sink.Close())
	want := searchable(t, imported.DB)
	check(t, "the first sync", db.DB, want)
	if len(want[thaiKey]) != 4 || len(want[koreanKey]) != 2 {
		t.Fatalf("searchable %v, want 4 Thai and 2 Korean messages", want)
	}

	st = sync(t, s, stores...)
	if st.Unchanged != st.Sources || st.Sessions != 0 {
		t.Fatalf("second sync: %+v, want every source unchanged", st)
	}

	// An append: two lines, two events, read from where the sync stopped.
	line := func(uuid, parent, typ, role, text string) string {
		return `{"parentUuid":"` + parent + `","isSidechain":false,"cwd":"/home/ana/src/atlas","sessionId":"9c8b7a65-4d3e-4f2a-8b1c-0d9e8f7a6b5c","type":"` + typ +
			`","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}]},"uuid":"` + uuid + `","timestamp":"2025-07-15T01:41:00.000Z"}` + "\n"
	}
	appendLines(t, korean,
		line("c3d4e5f6-a7b8-4c9d-8e0f-a1b2c3d4e5f6", "b2c3d4e5-f6a7-4b8c-9d0e-f1a2b3c4d5e6", "user", "user", "좋아요, 초안 복원도 테스트해 주세요"),
		line("d4e5f6a7-b8c9-4d0e-9f1a-b2c3d4e5f6a7", "c3d4e5f6-a7b8-4c9d-8e0f-a1b2c3d4e5f6", "assistant", "assistant", "Added a restore test."))
	st = sync(t, s, stores...)
	if st.Sessions != 1 || st.Events != 2 {
		t.Fatalf("after an append: %+v, want 1 session and its 2 new events", st)
	}
	if got := searchable(t, db.DB)[koreanKey]; len(got) != 4 {
		t.Fatalf("after an append: %v, want 4 Korean messages", got)
	}

	// A line without its newline is still being written.
	half := line("e5f6a7b8-c9d0-4e1f-8a2b-c3d4e5f6a7b8", "d4e5f6a7-b8c9-4d0e-9f1a-b2c3d4e5f6a7", "user", "user", "one more")
	appendLines(t, korean, half[:40])
	if st = sync(t, s, stores...); st.Events != 0 {
		t.Fatalf("a half-written line: %+v, want nothing copied", st)
	}
	appendLines(t, korean, half[40:])
	if st = sync(t, s, stores...); st.Events != 1 {
		t.Fatalf("the line completed: %+v, want its event", st)
	}

	// The Thai session's file is gone: so is the session.
	must(t, os.Remove(thai))
	st = sync(t, s, stores...)
	if st.Removed != 1 {
		t.Fatalf("after removing a file: %+v, want 1 session removed", st)
	}
	if got := searchable(t, db.DB); got[thaiKey] != nil || len(got[koreanKey]) != 5 {
		t.Fatalf("after removing a file: %v", got)
	}
}

// docs/sync.md Y15, docs/agents.md A8: a database store (Hermes) is one
// source; an unchanged database is not opened, and when it changes only the
// sessions whose rows changed are copied again, in full.
func TestSyncAgentDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	src, err := sql.Open("sqlite3", path)
	must(t, err)
	defer src.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := src.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(fixtures.HermesTables)
	exec(`INSERT INTO sessions VALUES ('s1', 'cli', 1754035200), ('s2', 'telegram', 1754035300)`)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES
		('s1', 'user', 'Привет, почини сборку', 1754035201), ('s1', 'assistant', 'ビルドを直しました', 1754035202),
		('s2', 'user', 'weather in Lisbon', 1754035301)`)
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(path, old, old))

	db := store(t)
	s := newSyncer(t, db.DB, nil)
	if st := sync(t, s, path); st.Sessions != 2 || st.Sources != 1 {
		t.Fatalf("first sync: %+v, want 2 sessions from 1 database", st)
	}
	if got := searchable(t, db.DB); len(got["agent:hermes:s1"]) != 2 || len(got["agent:hermes:s2"]) != 1 {
		t.Fatalf("searchable %v", got)
	}
	if st := sync(t, s, path); st.Unchanged != 1 || st.Sessions != 0 {
		t.Fatalf("second sync: %+v, want the database unchanged", st)
	}
	// A rewind of s1: its rows change, s2's do not.
	exec(`UPDATE messages SET active = 0 WHERE id = 2`)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'assistant', 'Сборка снова зелёная', 1754035203)`)
	must(t, os.Chtimes(path, old.Add(time.Minute), old.Add(time.Minute)))
	st := sync(t, s, path)
	if st.Sessions != 1 {
		t.Fatalf("after a rewind: %+v, want only s1 copied again", st)
	}
	got := searchable(t, db.DB)
	if len(got["agent:hermes:s1"]) != 2 || len(got["agent:hermes:s2"]) != 1 {
		t.Fatalf("after a rewind: %v, want s1's user message and its new answer", got)
	}
	// The session is gone from the database: it goes from the store too.
	exec(`DELETE FROM messages WHERE session_id = 's2'`)
	exec(`DELETE FROM sessions WHERE id = 's2'`)
	must(t, os.Chtimes(path, old.Add(2*time.Minute), old.Add(2*time.Minute)))
	if st := sync(t, s, path); st.Removed != 1 {
		t.Fatalf("after deleting s2: %+v, want it removed", st)
	}
}

// copyTree copies the files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	must(t, filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
}

// importCount imports path into a new store and returns the events stored.
func importCount(t *testing.T, path string) int64 {
	t.Helper()
	db := store(t)
	sink, err := importer.NewSQLSink(context.Background(), db.DB, false)
	must(t, err)
	open := syncer.OpenReadOnly("sqlite3")
	im := &importer.Importer{Sink: sink, OpenDB: func(p string) (*sql.DB, error) { return open(p, false) },
		Report: func(p importer.Problem) { t.Errorf("import: %v", p) }}
	plan, problems := importer.NewPlan([]string{path}, importer.PlanOptions{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, src := range plan.Sources {
		must(t, im.Import(context.Background(), src))
	}
	must(t, sink.Close())
	var n int64
	must(t, db.DB.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n))
	return n
}

// docs/agents.md A8, A12: a store that is read again whole when it changes
// (a Gemini CLI session file, an OpenCode database), as the real programs
// wrote it after a turn and after a resume (agents/testdata/REAL.md): the
// sync after the resume copies only the events the resume added, as many
// as an import of the whole store stores beyond those of the first turn;
// a store whose earlier records changed is copied again whole.
func TestSyncRereadStoresCopyOnlyWhatIsNew(t *testing.T) {
	real := func(parts ...string) string {
		return filepath.Join(append([]string{"..", "agents", "testdata"}, parts...)...)
	}
	tests := []struct {
		name         string
		store        string // the path synced, under the temporary directory
		turn1, after map[string]string
		rewrite      string // a file of after whose first records a rewrite changes
	}{
		{"Gemini CLI, a resume in the same minute", ".gemini",
			map[string]string{"tmp/proj/chats/session-2026-12-07T04-32-0d1ba4d8.jsonl": "11 lines of " +
				real("gemini-cli-0.61.0", "same-minute", "tmp/proj/chats/session-2026-12-07T04-32-0d1ba4d8.jsonl")},
			map[string]string{"tmp/proj/chats/session-2026-12-07T04-32-0d1ba4d8.jsonl": real("gemini-cli-0.61.0", "same-minute", "tmp/proj/chats/session-2026-12-07T04-32-0d1ba4d8.jsonl")},
			"tmp/proj/chats/session-2026-12-07T04-32-0d1ba4d8.jsonl"},
		{"Gemini CLI, a resume in a later minute", ".gemini",
			map[string]string{"tmp/proj/chats/session-2026-12-07T04-27-38b44fb7.jsonl": "11 lines of " +
				real("gemini-cli-0.61.0", "later-minute", "tmp/proj/chats/session-2026-12-07T04-27-38b44fb7.jsonl")},
			map[string]string{
				"tmp/proj/chats/session-2026-12-07T04-27-38b44fb7.jsonl": real("gemini-cli-0.61.0", "later-minute", "tmp/proj/chats/session-2026-12-07T04-27-38b44fb7.jsonl"),
				"tmp/proj/chats/session-2026-12-07T04-31-38b44fb7.jsonl": real("gemini-cli-0.61.0", "later-minute", "tmp/proj/chats/session-2026-12-07T04-31-38b44fb7.jsonl"),
			}, ""},
		{"OpenCode", "opencode.db",
			map[string]string{"": real("opencode-1.18.33", "turn1", "opencode.db")},
			map[string]string{"": real("opencode-1.18.33", "turn2", "opencode.db")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, tt.store)
			if strings.HasPrefix(tt.name, "Gemini") {
				copyTree(t, real("gemini-cli-0.61.0", "same-minute"), root)
				must(t, os.RemoveAll(filepath.Join(root, "tmp", "proj", "chats")))
			}
			stamp := time.Now().Add(-time.Hour)
			lay := func(files map[string]string) {
				for rel, from := range files {
					lines := 0
					if n, rest, ok := strings.Cut(from, " lines of "); ok {
						lines, _ = strconv.Atoi(n)
						from = rest
					}
					data, err := os.ReadFile(from)
					must(t, err)
					if lines > 0 {
						data = []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:lines], ""))
					}
					to := filepath.Join(root, rel)
					must(t, os.MkdirAll(filepath.Dir(to), 0o755))
					must(t, os.WriteFile(to, data, 0o644))
					must(t, os.Chtimes(to, stamp, stamp))
				}
				stamp = stamp.Add(time.Minute)
			}
			db := store(t)
			s := newSyncer(t, db.DB, nil)
			lay(tt.turn1)
			first := sync(t, s, root)
			stored := importCount(t, root)
			if first.Sessions != 1 || first.Events != stored {
				t.Fatalf("after turn 1: %+v, want 1 session and its %d events", first, stored)
			}
			lay(tt.after)
			second := sync(t, s, root)
			all := importCount(t, root)
			if second.Sessions != 1 || second.Skipped != 0 || second.Events != all-stored || all <= stored {
				t.Fatalf("after the resume: %+v, want the %d new events of 1 session (%d in all)", second, all-stored, all)
			}
			var n int64
			must(t, db.DB.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n))
			if n != all {
				t.Errorf("sync stored %d events, import %d", n, all)
			}
			if tt.rewrite == "" {
				return
			}
			// An earlier record rewritten: the session is copied again whole.
			path := filepath.Join(root, tt.rewrite)
			data, err := os.ReadFile(path)
			must(t, err)
			must(t, os.WriteFile(path, []byte(strings.Replace(string(data), "alphaprompt", "alphaedited", 1)), 0o644))
			must(t, os.Chtimes(path, stamp, stamp))
			third := sync(t, s, root)
			must(t, db.DB.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n))
			if third.Events != all || n != all {
				t.Fatalf("after a rewrite: %+v, %d events stored; want the whole session (%d events) copied again in place of the old", third, n, all)
			}
		})
	}
}

// docs/agents.md A12, docs/agents/cline.md AL6, docs/agents/goose.md AO6:
// a Cline task file rewritten whole with one more message, and a goose
// database with one more row, are read again and only the new event is
// copied; what the syncs stored is what an import of the stores stores.
func TestSyncClineAndGooseCopyOnlyWhatIsNew(t *testing.T) {
	dir := t.TempDir()
	cline := filepath.Join(dir, "cline")
	goose := filepath.Join(dir, "goose")
	copyTree(t, filepath.Join("..", "agents", "testdata", "cline"), cline)
	copyTree(t, filepath.Join("..", "agents", "testdata", "goose"), goose)
	// the fixtures' deliberately bad records are reported by every read;
	// this test is about what is copied, so they go
	task := filepath.Join(cline, "saoudrizwan.claude-dev", "tasks", "1769053680628", "ui_messages.json")
	must(t, os.RemoveAll(filepath.Join(cline, "saoudrizwan.claude-dev", "tasks", "1772000000000")))
	must(t, os.Remove(filepath.Join(goose, "sessions", "20250301_143015.jsonl")))
	backdate(t, dir)

	db := store(t)
	s := newSyncer(t, db.DB, nil)
	first := sync(t, s, cline, goose)
	stored := importCount(t, cline) + importCount(t, goose)
	if first.Events != stored {
		t.Fatalf("first sync: %+v, want the %d events an import stores", first, stored)
	}

	data, err := os.ReadFile(task)
	must(t, err)
	grown := strings.TrimSuffix(string(data), "]") + `,{"ts":1769053800000,"type":"say","say":"user_feedback","text":"one more ibis question"}]`
	must(t, os.WriteFile(task, []byte(grown), 0o644))
	w, err := sql.Open("sqlite3", filepath.Join(goose, "sessions", "sessions.db"))
	must(t, err)
	_, err = w.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json)
		VALUES ('20251020_1', 'user', '[{"type":"text","text":"gracias osprey"}]', 1760951800, '2025-10-20 09:16:40', '{}')`)
	must(t, err)
	must(t, w.Close())
	backdate(t, dir)

	second := sync(t, s, cline, goose)
	all := importCount(t, cline) + importCount(t, goose)
	if second.Sessions != 2 || second.Events != 2 || all != stored+2 {
		t.Fatalf("after one new message in each: %+v (import: %d events, before %d); want 2 sessions, 2 events copied", second, all, stored)
	}
	var n int64
	must(t, db.DB.QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n))
	if n != all {
		t.Errorf("sync stored %d events, import %d", n, all)
	}
}
