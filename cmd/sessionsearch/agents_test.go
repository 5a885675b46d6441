package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/fixtures"
)

// docs/agents.md A1 and A5, docs/cli.md C18: without a PATH, import and
// sync read the stores found where the agents keep them, --include and
// --exclude choose among them, and --project keeps one project's sessions.
func TestAgentStoresCLI(t *testing.T) {
	home := t.TempDir()
	if _, err := fixtures.WriteAgents(home); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home}
	db := filepath.Join(t.TempDir(), "s.db")
	claude := filepath.Join(home, ".claude", "projects")

	r := runBinary(t, env, "import", "--db", db)
	if r.code != 0 || !strings.Contains(r.stderr, "import: reading "+claude) || !strings.Contains(r.stdout, "imported 2 transcripts") {
		t.Fatalf("import without a PATH: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		project string
		want    int
	}{
		{"/home/ana/src/atlas", 2},
		{"/home/ana/src/atlas/", 2},
		{"/home/ana", 2},
		{"/home/ana/src/atlas-old", 0},
	} {
		r := runBinary(t, env, "search", "--db", db, "--json", "--project", tc.project, "paginate")
		if r.code != 0 || strings.Count(r.stdout, `"sessionKey":"agent:claude-code:`) != tc.want {
			t.Errorf("search --project %s paginate: exit %d, %s%s; want %d results", tc.project, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	// The rewound follow-up and the tool result are kept, not searchable.
	for _, q := range []string{"ลบ cache", "monthly.py"} {
		if r := runBinary(t, env, "search", "--db", db, "--json", q); r.code != 0 || strings.Contains(r.stdout, "sessionKey") {
			t.Errorf("search %q: exit %d, %s; want no results", q, r.code, r.stdout)
		}
	}

	// --exclude: nothing left to read is a usage error that says where it
	// looked; a PATH of an excluded agent is skipped.
	r = runBinary(t, env, "import", "--db", db, "--exclude", "claude-code")
	if r.code != 2 || !strings.Contains(r.stderr, "import needs at least one PATH") || !strings.Contains(r.stderr, "openclaw at "+filepath.Join(home, ".openclaw")) || strings.Contains(r.stderr, "claude-code at") {
		t.Errorf("import --exclude claude-code: exit %d, stderr %s", r.code, r.stderr)
	}
	r = runBinary(t, env, "import", "--db", db, "--exclude", "claude-code", claude)
	if r.code != 0 || !strings.Contains(r.stdout, "skipped 1 files: claude-code is excluded: 1") {
		t.Errorf("import --exclude claude-code PATH: exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}

	// sync, the same way, into another database.
	other := filepath.Join(t.TempDir(), "t.db")
	r = runBinary(t, env, "sync", "--db", other, "--include", "claude-code,codex")
	if r.code != 0 || !strings.Contains(r.stdout, "2 sessions written") {
		t.Fatalf("sync --include claude-code,codex: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, env, "search", "--db", other, "--json", "세션"); r.code != 0 || !strings.Contains(r.stdout, "agent:claude-code:9c8b7a65") {
		t.Errorf("search after sync: %s%s", r.stdout, r.stderr)
	}
}
