package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	jaKey     = "agent:main:session:8555a0a4-0b79-459d-939c-e17cdbbf4fe2"
	feishuKey = "agent:main:session:d23482cc-fe6b-42f9-8d97-2a4415cf8b75"
)

// sessions lists every session the operator sees, with its agent, message
// count and last activity; --caller narrows it to what that session sees;
// --json gives the same rows (docs/cli.md C8).
func TestSessionsCommand(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	r := runBinary(t, []string{"TZ=Asia/Tokyo"}, "sessions", "--db", dbFile)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "SESSION ") || !strings.Contains(lines[0], "MESSAGES") ||
		!strings.HasPrefix(lines[7], "6 sessions as agent:main:main (the operator), visibility all") {
		t.Fatalf("sessions:\n%s", r.stdout)
	}
	ja := ""
	for _, l := range lines[1:7] {
		if strings.HasPrefix(l, jaKey+" ") {
			ja = l
		}
	}
	// The Japanese session: 25 messages, the newest 2026-03-08 14:07 UTC.
	if f := strings.Fields(ja); len(f) < 6 || f[1] != "main" || f[2] != "25" || f[3]+" "+f[4]+" "+f[5] != "2026-03-08 23:07 +09:00" {
		t.Errorf("the Japanese session's row %q", ja)
	}
	var rows []struct {
		SessionKey   string `json:"sessionKey"`
		Agent        string `json:"agent"`
		Messages     int    `json:"messages"`
		Events       int    `json:"events"`
		LastActivity int64  `json:"lastActivity"`
		Pending      bool   `json:"pending"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "sessions", "--db", dbFile, "--json").stdout), &rows); err != nil || len(rows) != 6 {
		t.Fatalf("sessions --json: %v, %d rows", err, len(rows))
	}
	for i, row := range rows {
		if row.Agent != "main" || row.Messages == 0 || row.Events < row.Messages || row.Pending || i > 0 && row.LastActivity > rows[i-1].LastActivity {
			t.Errorf("row %d: %+v", i, row)
		}
	}
	r = mustRun(t, "sessions", "--db", dbFile, "--caller", feishuKey, "--visibility", "self")
	if !strings.Contains(r.stdout, feishuKey) || strings.Contains(r.stdout, jaKey) || !strings.Contains(r.stdout, "1 sessions as "+feishuKey+", visibility self") {
		t.Errorf("sessions as one session:\n%s", r.stdout)
	}
}

// An empty answer says as whom the search ran, and where to find keys.
func TestNothingFoundSaysWho(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	r := mustRun(t, "search", "--db", dbFile, "--caller", jaKey, "日报")
	if !strings.HasPrefix(r.stdout, "no results as "+jaKey+", visibility tree\n(run 'sessionsearch sessions'") {
		t.Errorf("search as a session that sees nothing:\n%s", r.stdout)
	}
	r = runBinary(t, nil, "history", "--db", dbFile, "--caller", jaKey, "--visibility", "self", feishuKey)
	if r.code != 1 || !strings.Contains(r.stderr, "as "+jaKey+", visibility self; run 'sessionsearch sessions'") {
		t.Errorf("history of a hidden session: exit %d, %q", r.code, r.stderr)
	}
}

// word* in a query is a prefix, as --prefix; history --include-tools shows
// tool results; times carry their zone (docs/cli.md C9, C10).
func TestQueryAndHistoryFlags(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	star := searchJSON(t, dbFile, "--match", "all", "ПЕРЕВІР*")
	flag := searchJSON(t, dbFile, "--match", "all", "--prefix", "ПЕРЕВІР")
	plain := searchJSON(t, dbFile, "--match", "all", "ПЕРЕВІР")
	if len(star.Results) == 0 || len(star.Results) != len(flag.Results) || len(plain.Results) != 0 {
		t.Errorf("ПЕРЕВІР*: %d results, --prefix %d, without a prefix %d", len(star.Results), len(flag.Results), len(plain.Results))
	}
	without := mustRun(t, "history", "--db", dbFile, "--limit", "1000", jaKey).stdout
	with := mustRun(t, "history", "--db", dbFile, "--limit", "1000", "--include-tools", jaKey).stdout
	if n, m := strings.Count(without, "── "), strings.Count(with, "── "); n != 25 || m != 31 || strings.Contains(without, "toolResult") || strings.Count(with, "  toolResult  ") != 6 {
		t.Errorf("history: %d messages, with tools %d (%d tool results)", n, m, strings.Count(with, "  toolResult  "))
	}
	for tz, want := range map[string]string{"UTC": "── 2026-03-08 14:07 +00:00  assistant  167ee67f", "Asia/Tokyo": "── 2026-03-08 23:07 +09:00  assistant  167ee67f"} {
		r := runBinary(t, []string{"TZ=" + tz}, "history", "--db", dbFile, "--limit", "1", jaKey)
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("TZ=%s: %q, want %q", tz, r.stdout, want)
		}
	}
}

// Bold only on a terminal, and never with NO_COLOR or TERM=dumb
// (docs/cli.md C11). The terminal is a real pseudo-terminal, from script(1).
func TestStyleOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatal("script(1) from util-linux is needed for a pseudo-terminal: ", err)
	}
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	for _, tc := range []struct {
		env  []string
		bold bool
	}{
		{[]string{"TERM=xterm"}, true},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, false},
		{[]string{"TERM=dumb"}, false},
	} {
		cmd := exec.Command(script, "-qec", fmt.Sprintf("%s search --db %s --limit 1 日报", binary, dbFile), "/dev/null")
		cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, tc.env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		if got := strings.Contains(string(out), boldOn+"日报"+boldOff); got != tc.bold || !tc.bold && strings.Contains(string(out), "\x1b") {
			t.Errorf("%v: bold %v, output %q", tc.env, got, out)
		}
	}
	if out := mustRun(t, "search", "--db", dbFile, "--limit", "1", "日报").stdout; strings.Contains(out, "\x1b") {
		t.Errorf("escapes in a pipe: %q", out)
	}
}

// import shows the first problems of a file and counts the rest, says
// which database it wrote, and "nothing imported" when nothing was
// (docs/cli.md C7).
func TestImportProblemCap(t *testing.T) {
	dir := t.TempDir()
	noisy := filepath.Join(dir, "noisy.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"noisy1"}` + "\n")
	b.WriteString(`{"type":"message","id":"n1","parentId":null,"message":{"role":"user","content":"marigold"}}` + "\n")
	for i := 0; i < 40; i++ {
		b.WriteString("{broken\n")
	}
	os.WriteFile(noisy, []byte(b.String()), 0o644)
	dbFile := filepath.Join(t.TempDir(), "s.db")
	r := runBinary(t, nil, "import", "--db", dbFile, noisy)
	if r.code != 1 || strings.Count(r.stderr, noisy+":") != problemsPerFile+1 ||
		!strings.Contains(r.stderr, noisy+":7: invalid JSON") || strings.Contains(r.stderr, noisy+":8: ") ||
		!strings.Contains(r.stderr, noisy+": 35 more problems not shown\n") ||
		!strings.Contains(r.stderr, "40 problems in 1 files; the rest was imported") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "imported 1 transcripts from 1 files into "+dbFile+":") {
		t.Errorf("stdout %q", r.stdout)
	}

	junk := filepath.Join(dir, "junk.jsonl")
	os.WriteFile(junk, []byte("not json\nnor this\n"), 0o644)
	r = runBinary(t, nil, "import", "--db", dbFile, junk)
	if r.code != 1 || !strings.HasPrefix(r.stdout, "nothing imported into "+dbFile) || !strings.Contains(r.stderr, "; nothing was imported") {
		t.Errorf("nothing to import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The demo's closing hint runs as printed, from a fresh directory, with the
// binary on PATH (docs/cli.md C12).
func TestDemoHint(t *testing.T) {
	out := mustRun(t, "demo").stdout
	_, hint, ok := strings.Cut(out, "To keep the database and search it yourself:\n")
	if !ok {
		t.Fatalf("no hint in:\n%s", out)
	}
	dir := t.TempDir()
	for _, line := range strings.Split(strings.TrimSpace(hint), "\n") {
		cmd := exec.Command("bash", "-c", strings.TrimSpace(line))
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + filepath.Dir(binary) + ":" + os.Getenv("PATH")}
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, got)
		}
		if strings.Contains(line, " search ") && !strings.Contains(string(got), "agent:main:session:") {
			t.Errorf("%s found nothing:\n%s", line, got)
		}
	}
}
