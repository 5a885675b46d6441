package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every command refuses a file that is not a sessionsearch database, with a
// message that names what it is, exit status 1, and leaves it byte for byte
// as it was: an OpenClaw agent database (in rollback and in WAL journal
// mode), a transcript, an empty file (docs/cli.md C2, C3).
func TestForeignFilesUntouched(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sqlite")
	buildAgentDB(t, agent, []agentGeneration{{"uk-telegram-cb02dfb1.jsonl", "agent:work:main", "initial", 1}}, nil)
	walAgent := filepath.Join(dir, "wal-agent.sqlite")
	buildAgentDB(t, walAgent, []agentGeneration{{"uk-telegram-cb02dfb1.jsonl", "agent:work:main", "initial", 1}}, nil)
	db, err := sql.Open("sessionsearch", walAgent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	jsonl := filepath.Join(dir, "t.jsonl")
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "uk-telegram-cb02dfb1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(jsonl, raw, 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)

	for _, tc := range []struct {
		path string
		want string
		// writers (import, reconcile, demo) take an empty file as a new
		// database; the readers refuse it.
		readersOnly bool
	}{
		{agent, "is an SQLite database of another program, not a sessionsearch database (its tables: session_nodes, session_windows, transcript_events, schema_meta); it looks like an OpenClaw agent database: import it with 'sessionsearch import " + agent + "'", false},
		{walAgent, "not a sessionsearch database", false},
		{jsonl, jsonl + " is not an SQLite database", false},
		{empty, empty + " is empty, not a sessionsearch database; run 'sessionsearch import' first", true},
	} {
		before, _ := os.ReadFile(tc.path)
		commands := [][]string{
			{"search", "--db", tc.path, "x"},
			{"history", "--db", tc.path, "agent:main:main"},
			{"status", "--db", tc.path},
			{"sessions", "--db", tc.path},
			{"mcp", "--db", tc.path, "--caller", "agent:main:main"},
		}
		if !tc.readersOnly {
			commands = append(commands,
				[]string{"import", "--db", tc.path, jsonl},
				[]string{"reconcile", "--db", tc.path},
				[]string{"demo", "--db", tc.path})
		}
		for _, args := range commands {
			r := runBinary(t, nil, args...)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "FTS5") {
				t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", args, r.code, r.stderr, tc.want)
			}
			if after, err := os.ReadFile(tc.path); err != nil || !bytes.Equal(before, after) {
				t.Errorf("%v changed %s (%v)", args, tc.path, err)
			}
		}
	}
	// Nothing appeared beside them: no -wal, -shm or -journal file.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"agent.sqlite", "empty.jsonl", "t.jsonl", "wal-agent.sqlite"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files after the refusals: %v, want %v", names, want)
	}
}

// A read command on a missing database says so, with the hint, exit 1, and
// creates neither the file nor its directory; a URI in --db is a usage
// error and creates no ./file: directory.
func TestReadCommandsOnMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "sub", "s.db")
	for _, args := range [][]string{
		{"search", "--db", missing, "x"},
		{"history", "--db", missing, "agent:main:main"},
		{"status", "--db", missing},
		{"sessions", "--db", missing},
		{"mcp", "--db", missing, "--caller", "agent:main:main"},
	} {
		r := runBinary(t, nil, args...)
		want := "no sessionsearch database at " + missing + "; run 'sessionsearch import' first"
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", args, r.code, r.stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("a read command created the database's directory: %v", err)
	}
	// A relative URI, run in dir: the flag is refused before any file.
	cmd := []string{"search", "--db", "file:s.db?mode=ro", "x"}
	r := runIn(t, dir, cmd...)
	if r.code != 2 || !strings.Contains(r.stderr, `--db takes a file name, not a SQLite URI: got "file:s.db?mode=ro"`) {
		t.Errorf("%v: exit %d, %q", cmd, r.code, r.stderr)
	}
	r = runIn(t, dir, "import", "--db", "file:s.db", filepath.Join(fixtureDir, "uk-telegram-cb02dfb1.jsonl"))
	if r.code != 2 {
		t.Errorf("import --db file:s.db: exit %d, %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left in the working directory: %v", entries)
	}
}

// runIn runs the binary in dir.
func runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	defer os.Chdir(wd)
	return runBinary(t, nil, args...)
}

// A read command on a sessionsearch database leaves the file as it was.
func TestReadCommandsLeaveStoreAlone(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	before, _ := os.ReadFile(dbFile)
	mustRun(t, "search", "--db", dbFile, "日报")
	mustRun(t, "history", "--db", dbFile, "agent:main:session:8555a0a4-0b79-459d-939c-e17cdbbf4fe2")
	mustRun(t, "status", "--db", dbFile)
	mustRun(t, "sessions", "--db", dbFile)
	if after, _ := os.ReadFile(dbFile); !bytes.Equal(before, after) {
		t.Error("a read command changed the database")
	}
}

// A database of an older schema (store/testdata/schema1.sqlite, written by
// the build before schema 2, and schema2.sqlite, by the build before
// schema 3) is refused by the read commands, untouched, with the command
// that upgrades it; reconcile upgrades it, and then it reads.
func TestOlderSchemaNeedsReconcile(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		data, err := os.ReadFile("../../store/testdata/schema" + version + ".sqlite")
		if err != nil {
			t.Fatal(err)
		}
		dbFile := filepath.Join(t.TempDir(), "old.db")
		if err := os.WriteFile(dbFile, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"search", "--db", dbFile, "weather"},
			{"sessions", "--db", dbFile},
			{"status", "--db", dbFile},
		} {
			r := runBinary(t, nil, args...)
			if r.code != 1 || !strings.Contains(r.stderr, "has sessionsearch schema version "+version+", older than this build's") ||
				!strings.Contains(r.stderr, "run 'sessionsearch reconcile' to upgrade it") {
				t.Errorf("%v on schema %s: exit %d, %q", args, version, r.code, r.stderr)
			}
			if after, _ := os.ReadFile(dbFile); !bytes.Equal(data, after) {
				t.Errorf("%v changed a database it refused", args)
			}
		}
		mustRun(t, "reconcile", "--db", dbFile)
		// The operator sees the three sessions that talk of weather, the
		// pending one indexed by reconcile too.
		found := map[string]string{}
		for _, h := range searchJSON(t, dbFile, "weather").Results {
			found[h.SessionKey] = h.MessageID
		}
		if want := map[string]string{"agent:main:main": "a1", "agent:work:main": "w1", "agent:main:big": "b1"}; !reflect.DeepEqual(found, want) {
			t.Errorf("after reconcile upgraded the schema %s database: %v, want %v", version, found, want)
		}
	}
}

// A database whose index another version built (its tokens, and the
// secrets it masked, are not this build's) is refused by the read commands
// with the command that rebuilds it; reconcile rebuilds it.
func TestStaleIndexNeedsReconcile(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	db := openDB(t, dbFile)
	if _, err := db.Exec(`UPDATE sessionsearch_meta SET value = '1.1' WHERE key = 'index_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r := runBinary(t, nil, "search", "--db", dbFile, "日报")
	if r.code != 1 || !strings.Contains(r.stderr, `has a search index built by another version of sessionsearch (index version "1.1"`) ||
		!strings.Contains(r.stderr, "run 'sessionsearch reconcile' to rebuild it") {
		t.Errorf("search on a stale index: exit %d, %q", r.code, r.stderr)
	}
	mustRun(t, "reconcile", "--db", dbFile)
	if res := searchJSON(t, dbFile, "日报"); len(res.Results) == 0 {
		t.Error("nothing found after reconcile rebuilt the index")
	}
}
