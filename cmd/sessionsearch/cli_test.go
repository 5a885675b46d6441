package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
)

// Usage errors exit with 2 and say what is wrong on stderr, nothing on
// stdout; -h prints the usage on stdout and exits with 0.
func TestUsageErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: sessionsearch COMMAND"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"search", "--db", db}, "search needs a QUERY"},
		{[]string{"search", "--db", db, "--bogus", "x"}, "flag provided but not defined: -bogus"},
		// Q25's exclusions and dashed words: the way to write them is named.
		{[]string{"search", "--db", db, "git", "merge", "--continue"}, `flag provided but not defined: -continue (a query word that starts with "-" goes after "--": sessionsearch search [flags] -- QUERY...)`},
		{[]string{"search", "--db", db, "fold", "-case"}, `flag provided but not defined: -case (a query word that starts with "-" goes after "--"`},
		{[]string{"search", "--db", db, "--ceiling", `{"visibility":"all"}`, "x"}, "flag provided but not defined: -ceiling"},
		{[]string{"mcp", "--db", db, "--caller", "agent:main:main", "--ceiling", `{}`}, "flag provided but not defined: -ceiling"},
		{[]string{"search", "--db", db, "--limit", "many", "x"}, `invalid value "many" for flag -limit`},
		{[]string{"search", "--db", db, "--limit", "40", "x"}, `invalid value "40" for flag -limit: limit must be an integer 1..25, got 40`},
		{[]string{"search", "--db", db, "--visibility", "everyone", "x"}, `invalid value "everyone" for flag -visibility: visibility must be "self", "tree", "agent" or "all", got "everyone"`},
		{[]string{"history", "--db", db}, "history needs exactly one session KEY, got 0 arguments"},
		{[]string{"history", "--db", db, "--limit", "0", "k"}, `invalid value "0" for flag -limit: limit must be an integer 1..1000, got 0`},
		{[]string{"search", "--db", db, "--limit", "0", "x"}, `invalid value "0" for flag -limit: limit must be an integer 1..25, got 0`},
		{[]string{"search", "--db", db, "--limit", "-1", "x"}, `invalid value "-1" for flag -limit: limit must be an integer 1..25, got -1`},
		{[]string{"search", "--db", db, "--order", "newest", "x"}, `invalid value "newest" for flag -order: order must be "relevance", "recent" or "blend", got "newest"`},
		{[]string{"search", "--db", db, "--after", "2026-03-02T00:00:00Z", "--before", "2026-03-01T00:00:00Z", "x"}, `after must be earlier than before, got "2026-03-02T00:00:00Z" and before "2026-03-01T00:00:00Z"`},
		{[]string{"search", "--db", db, "--syntax", "literal", "a*", "b"}, `QUERY: only the last term can be a prefix (word*), got "a*"`},
		{[]string{"search", "--db", "file:" + db + "?mode=ro", "x"}, `--db takes a file name, not a SQLite URI: got "file:`},
		{[]string{"sessions", "--db", db, "--visibility", "some"}, `visibility must be "self", "tree", "agent" or "all", got "some"`},
		{[]string{"mcp", "--db", db}, "mcp needs --caller KEY"},
		{[]string{"mcp", "--db", db, "--caller", "agent:main:main", "--trust-client-caller"}, "exclude each other"},
		{[]string{"mcp", "--db", db, "--caller", "agent:main:main", "--sandbox-visibility", "none"}, `sandboxVisibility must be "spawned" or "all", got "none"`},
		{[]string{"history", "--db", db, "--limit", "5000", "k"}, `invalid value "5000" for flag -limit: limit must be an integer 1..1000, got 5000`},
		{[]string{"import", "--db", db}, "import needs at least one PATH"},
		{[]string{"import", "--db", db, "--include", "claudecode", "x"}, `--include: unknown agent "claudecode" (known: openclaw, `},
		{[]string{"sync", "--db", db, "--exclude", "openclaw,vim"}, `--exclude: unknown agent "vim" (known: openclaw, `},
		{[]string{"status", "--db", db, "extra"}, `status takes no arguments, got "extra"`},
		{[]string{"demo", "now"}, `demo takes no arguments, got "now"`},
		{[]string{"mcp", "--db", db, "--caller", "k", "x"}, `mcp takes no arguments, got "x"`},
		{[]string{"help", "search"}, "help takes no arguments"},
	} {
		r := runBinary(t, nil, tc.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("sessionsearch %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	for _, cmd := range []string{"import", "search", "sessions", "history", "status", "reconcile", "mcp", "demo"} {
		r := runBinary(t, nil, cmd, "-h")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: sessionsearch "+cmd) || r.stderr != "" {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q", cmd, r.code, r.stdout, r.stderr)
		}
	}
	if r := runBinary(t, nil, "help"); r.code != 0 || !strings.Contains(r.stdout, "demo") {
		t.Errorf("help: exit %d, %q", r.code, r.stdout)
	}
}

// decodeStrict decodes JSON that must have exactly the fields of v.
func decodeStrict(t *testing.T, js string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v in %s", err, js)
	}
}

// keysOf returns the member names of each object of a JSON array at path.
func objectKeys(t *testing.T, js string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// search --json and history --json print the JSON of docs/search.md Q13 and
// Q16: exactly its fields, with their types, in its order; flags may follow
// the query.
func TestJSONOutput(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)

	r := mustRun(t, "search", "日报", "--db", dbFile, "--json", "--limit", "3", "--group", "message")
	if got := objectKeys(t, r.stdout); !reflect.DeepEqual(got, []string{"indexing", "results", "truncated"}) {
		t.Fatalf("search keys %v", got)
	}
	var res driver.SearchResult
	decodeStrict(t, r.stdout, &res)
	if len(res.Results) != 3 || !res.Truncated || res.Indexing {
		t.Fatalf("3 of more results: %d results, truncated %v, indexing %v", len(res.Results), res.Truncated, res.Indexing)
	}
	var raw struct{ Results []map[string]json.RawMessage }
	json.Unmarshal([]byte(r.stdout), &raw)
	for i, hit := range raw.Results {
		var keys []string
		for k := range hit {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, []string{"match", "messageId", "role", "score", "sessionKey", "snippet", "timestamp"}) {
			t.Fatalf("result keys %v", keys)
		}
		if !bytes.HasPrefix(hit["sessionKey"], []byte(`"`)) || !bytes.HasPrefix(hit["snippet"], []byte(`"`)) || bytes.ContainsAny(hit["timestamp"], `."`) {
			t.Fatalf("result types: %v", hit)
		}
		h := res.Results[i]
		if h.Role != "user" && h.Role != "assistant" || h.Timestamp < 1e12 || !strings.Contains(h.Snippet, "日报") || h.MessageID == "" {
			t.Errorf("result %+v", h)
		}
		if i > 0 && (h.Score > res.Results[i-1].Score || h.Score == res.Results[i-1].Score && h.Timestamp > res.Results[i-1].Timestamp) {
			t.Errorf("results not ordered by score, then newest: %+v after %+v", h, res.Results[i-1])
		}
	}
	recent := searchJSON(t, dbFile, "--order", "recent", "--group", "message", "日报")
	for i := 1; i < len(recent.Results); i++ {
		if recent.Results[i].Timestamp > recent.Results[i-1].Timestamp {
			t.Errorf("--recent: %d after %d", recent.Results[i].Timestamp, recent.Results[i-1].Timestamp)
		}
	}

	key := res.Results[0].SessionKey
	r = mustRun(t, "history", "--db", dbFile, "--json", "--around", res.Results[0].MessageID, "--limit", "5", key)
	if got := objectKeys(t, r.stdout); !reflect.DeepEqual(got, []string{"hasMore", "messages", "sessionKey", "truncated"}) {
		t.Fatalf("history keys %v", got)
	}
	var h driver.History
	decodeStrict(t, r.stdout, &h)
	if h.SessionKey != key || len(h.Messages) != 5 || !h.HasMore {
		t.Fatalf("history around a message: %s, %d messages, hasMore %v", h.SessionKey, len(h.Messages), h.HasMore)
	}
	found := false
	for _, m := range h.Messages {
		found = found || m.ID == res.Results[0].MessageID
	}
	if !found {
		t.Errorf("the anchor %s is not in its window", res.Results[0].MessageID)
	}

	// A hidden or missing session is an error, exit 1, on stderr.
	r = runBinary(t, nil, "history", "--db", dbFile, "agent:main:nope")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "sessionsearch history: ") {
		t.Errorf("missing session: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

// Without --json the results are a readable list, without terminal escapes
// when stdout is not a terminal.
func TestReadableOutput(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, "--tools", fixtureDir)
	r := mustRun(t, "search", "--db", dbFile, "--limit", "2", "--group", "message", "授权码")
	if !strings.Contains(r.stdout, "agent:main:session:d23482cc-fe6b-42f9-8d97-2a4415cf8b75") || !strings.Contains(r.stdout, "授权码") ||
		strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, "(more results") {
		t.Errorf("search output:\n%s", r.stdout)
	}
	// Tool output, when asked (docs/search.md Q33): the line names its kind and tool.
	r = mustRun(t, "search", "--db", dbFile, "--scope", "toolResults", "missing_brave_api_key")
	if !strings.Contains(r.stdout, "toolResult web_search") || !strings.Contains(r.stdout, "missing_brave_api_key") {
		t.Errorf("search --scope toolResults:\n%s", r.stdout)
	}
	r = mustRun(t, "search", "--db", dbFile, "zzzzqqqq")
	if !strings.HasPrefix(r.stdout, "no results as agent:main:main (the operator), visibility all, other agents *\n") {
		t.Errorf("no results: %q", r.stdout)
	}
	r = mustRun(t, "history", "--db", dbFile, "--limit", "2", "agent:main:session:8555a0a4-0b79-459d-939c-e17cdbbf4fe2")
	if !strings.Contains(r.stdout, "(earlier messages not shown") || strings.Count(r.stdout, "── ") != 2 {
		t.Errorf("history output:\n%s", r.stdout)
	}
	r = mustRun(t, "status", "--db", dbFile)
	if !strings.Contains(r.stdout, "sessions  6\nevents    660\npending   none") {
		t.Errorf("status:\n%s", r.stdout)
	}
}

// TestToolsFlag: import and sync index tool text only when --tools
// switches the store to; without the flag a command keeps the store's
// setting, --tools=false drops it; a tool scope on a store without it is
// an error, exit 1, from search and from MCP alike (docs/cli.md C28,
// docs/search.md Q36).
func TestToolsFlag(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	search := []string{"search", "--db", dbFile, "--scope", "toolResults", "missing_brave_api_key"}
	refused := func(when string) {
		t.Helper()
		r := runBinary(t, nil, search...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `scope "toolResults"`) ||
			!strings.Contains(r.stderr, "sessionsearch_tool_index(1)") || !strings.Contains(r.stderr, "import --tools") {
			t.Errorf("%s: search --scope toolResults: exit %d, %q, %q", when, r.code, r.stdout, r.stderr)
		}
	}
	found := func(when string) {
		t.Helper()
		if r := mustRun(t, search...); !strings.Contains(r.stdout, "toolResult web_search") {
			t.Errorf("%s: search --scope toolResults:\n%s", when, r.stdout)
		}
	}
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	refused("imported without --tools")
	s := connectMCP(t, "--db", dbFile, "--caller", "agent:main:main", "--visibility", "all")
	if text, isErr := callTool(t, s, "sessions_search", map[string]any{"query": "missing_brave_api_key", "scope": []string{"toolResults"}}); !isErr || !strings.Contains(text, "sessionsearch_tool_index(1)") {
		t.Errorf("MCP, a tool scope without the tool index: error %v, %s", isErr, text)
	}
	if r := mustRun(t, "search", "--db", dbFile, "missing_brave_api_key"); strings.Contains(r.stdout, "toolResult") {
		t.Errorf("the messages' search shows tool text:\n%s", r.stdout)
	}
	mustRun(t, "import", "--db", dbFile, "--tools", fixtureDir)
	found("imported again with --tools")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	found("imported again without the flag")
	mustRun(t, "import", "--db", dbFile, "--tools=false", fixtureDir)
	refused("imported with --tools=false")

	synced := filepath.Join(t.TempDir(), "synced.db")
	mustRun(t, "sync", "--quiet", "--db", synced, "--tools", fixtureDir)
	search[2] = synced
	found("synced with --tools")
}

// A malformed line is reported with its file and line, the rest of the
// file and the other files are imported, and the exit status is 1; so it is
// for paths that cannot be read.
func TestImportProblems(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"type":"session","version":3,"id":"good1"}
{"type":"message","id":"g1","parentId":null,"message":{"role":"user","content":"gänseblümchen in the garden"}}
`), 0o644)
	os.WriteFile(bad, []byte(`{"type":"session","version":3,"id":"bad1"}
{"type":"message","id":"b1","parentId":null,"message":{"role":"user","content":"first line of bad"}}
{"type":"message","id":"b2","parentId":"b1","message":{"role":"assistant","content":"broken
{"type":"message","id":"b3","parentId":"b1","message":{"role":"assistant","content":"periwinkle answer"}}
`), 0o644)
	missing := filepath.Join(dir, "missing.jsonl")
	dbFile := filepath.Join(t.TempDir(), "s.db")
	r := runBinary(t, nil, "import", "--db", dbFile, good, bad, missing)
	if r.code != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		missing + ": stat: no such file or directory",
		bad + ":3: invalid JSON",
		"2 problems in 2 files; the rest was imported",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if !strings.Contains(r.stdout, "imported 2 transcripts from 2 files into "+dbFile+": 5 new events") {
		t.Errorf("stdout %q", r.stdout)
	}
	for q, key := range map[string]string{"periwinkle": "agent:main:session:bad1", "gänseblümchen": "agent:main:session:good1"} {
		res := searchJSON(t, dbFile, q)
		if len(res.Results) != 1 || res.Results[0].SessionKey != key {
			t.Errorf("%s: %+v", q, res.Results)
		}
	}
	if os.Geteuid() != 0 { // root reads anything
		os.Chmod(good, 0)
		r = runBinary(t, nil, "import", "--db", dbFile, good)
		if r.code != 1 || !strings.Contains(r.stderr, good+": open: permission denied") {
			t.Errorf("unreadable file: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	r = runBinary(t, nil, "import", "--db", dbFile, dir+"/nothing-here")
	if r.code != 1 || !strings.Contains(r.stderr, "nothing-here: stat: no such file or directory") {
		t.Errorf("missing directory: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The database is --db, else $SESSIONSEARCH_DB, else under $XDG_DATA_HOME,
// else under ~/.local/share; it is created readable by its owner only.
func TestDatabaseLocation(t *testing.T) {
	home := t.TempDir()
	xdg := t.TempDir()
	explicit := filepath.Join(t.TempDir(), "env.db")
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=" + home}, filepath.Join(home, ".local", "share", "sessionsearch", "sessions.db")},
		{[]string{"HOME=" + home, "XDG_DATA_HOME=" + xdg}, filepath.Join(xdg, "sessionsearch", "sessions.db")},
		{[]string{"HOME=" + home, "XDG_DATA_HOME=relative/dir"}, filepath.Join(home, ".local", "share", "sessionsearch", "sessions.db")},
		{[]string{"HOME=" + home, "XDG_DATA_HOME=" + xdg, "SESSIONSEARCH_DB=" + explicit}, explicit},
	} {
		if r := runBinary(t, tc.env, "reconcile"); r.code != 0 || !strings.Contains(r.stdout, " in "+tc.want+"; none pending") {
			t.Errorf("env %v: reconcile: exit %d, %q, %q; want %s", tc.env, r.code, r.stdout, r.stderr, tc.want)
			continue
		}
		r := runBinary(t, tc.env, "status")
		if r.code != 0 || !strings.Contains(r.stdout, "database  "+tc.want+" ") {
			t.Errorf("env %v: exit %d, %q, %q; want %s", tc.env, r.code, r.stdout, r.stderr, tc.want)
			continue
		}
		info, err := os.Stat(tc.want)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v", tc.want, err, info.Mode())
		}
	}
	r := runBinary(t, []string{"HOME="}, "status")
	if r.code != 1 || !strings.Contains(r.stderr, "no database location: use --db or set SESSIONSEARCH_DB") {
		t.Errorf("no HOME: exit %d, %q", r.code, r.stderr)
	}
}

// The demo runs without arguments or network, finds the CJK queries that
// unicode61 misses, and leaves no database behind.
func TestDemo(t *testing.T) {
	r := mustRun(t, "demo")
	into := strings.SplitN(strings.SplitN(r.stdout, "into ", 2)[1], ":", 2)[0]
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Errorf("demo database %s left behind: %v", into, err)
	}
	for _, q := range demoQueries {
		if !strings.Contains(r.stdout, "  "+q.query) {
			t.Errorf("demo output lacks %q", q.query)
		}
	}
	for _, want := range []string{"日报  (", "    sessionsearch 12, unicode61 0\n", "変更  (", "    sessionsearch 7, unicode61 0\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestHighlight(t *testing.T) {
	for _, tc := range []struct {
		text, query string
		prefix      bool
		want        string
	}{
		{"東京都庁に行きました", "東京", false, "\x1b[1m東京\x1b[0m都庁に行きました"},
		{"Straße and STRASSE", "strasse", false, "\x1b[1mStraße\x1b[0m and \x1b[1mSTRASSE\x1b[0m"},
		{"see report.txt now", "report.txt", false, "see \x1b[1mreport.txt\x1b[0m now"},
		{"Перевіряю HEARTBEAT", "ПЕРЕВІР", true, "\x1b[1mПеревіряю\x1b[0m HEARTBEAT"},
		{"Перевіряю HEARTBEAT", "ПЕРЕВІР", false, "Перевіряю HEARTBEAT"},
		{"a 日报 and 日 报", "日报", false, "a \x1b[1m日报\x1b[0m and 日 报"},
		{"two words here", "here two", false, "\x1b[1mtwo\x1b[0m words \x1b[1mhere\x1b[0m"},
	} {
		if got := highlight(tc.text, tc.query, tc.prefix); got != tc.want {
			t.Errorf("highlight(%q, %q, %v) = %q, want %q", tc.text, tc.query, tc.prefix, got, tc.want)
		}
	}
}

// Sessions written with deferred indexing are pending until `reconcile`
// indexes them; `status` tells.
func TestReconcileCommand(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "reconcile", "--db", dbFile) // creates and migrates it
	db := openDB(t, dbFile)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT sessions_defer_indexing(1)`,
		`INSERT INTO sessions(session_key) VALUES ('agent:main:main')`,
		`INSERT INTO transcript_events VALUES ('agent:main:main', 0, '{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"quetzalcoatl"}}')`,
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	if out := mustRun(t, "status", "--db", dbFile).stdout; !strings.Contains(out, "pending   1 sessions are not searchable yet") {
		t.Fatalf("status before reconcile:\n%s", out)
	}
	if res := searchJSON(t, dbFile, "quetzalcoatl"); len(res.Results) != 0 || !res.Indexing {
		t.Fatalf("a pending session was searched: %+v", res)
	}
	if out := mustRun(t, "reconcile", "--db", dbFile).stdout; out != "indexed 1 sessions in "+dbFile+"; none pending\n" {
		t.Fatalf("reconcile said %q", out)
	}
	if res := searchJSON(t, dbFile, "quetzalcoatl"); len(res.Results) != 1 || res.Indexing {
		t.Fatalf("after reconcile: %+v", res)
	}
}
