package agents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// hermesSchemaSQL is the sessions and messages tables of Hermes' state.db
// as SCHEMA_SQL declares them (NousResearch/hermes-agent
// hermes_state_common.py@00704d087b7ca25039be87baf11706d01f4da355, schema
// version 30), with the schema_version and state_meta tables beside them.
const hermesSchemaSQL = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT, session_key TEXT,
    chat_id TEXT, chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0, model TEXT, model_config TEXT, system_prompt TEXT,
    system_prompt_hash TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT,
    git_repo_root TEXT, git_metadata_generation INTEGER NOT NULL DEFAULT 0, billing_provider TEXT,
    billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL, actual_cost_usd REAL,
    cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT, title_source TEXT,
    last_activity_at REAL, last_activity_description TEXT, last_activity_provenance TEXT,
    api_call_count INTEGER DEFAULT 0, handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
    compression_failure_cooldown_until REAL, compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0, compression_ineffective_count INTEGER NOT NULL DEFAULT 0,
    compression_recovery_deadline REAL, compression_overload_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT, transport_profile TEXT, rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0, hidden INTEGER NOT NULL DEFAULT 0,
    last_read_at REAL, tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id),
    FOREIGN KEY (system_prompt_hash) REFERENCES system_prompts(hash)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
    reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0,
    _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT, display_metadata TEXT,
    display_identity BLOB, display_order INTEGER
);
CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
INSERT INTO schema_version VALUES (30);
`

// The sessions of the fixture: a Russian/Japanese coding session with a
// rewind in the middle (A), a delegate subagent it spawned (D), a session
// ended by compression with a rewind at its end (B) and its continuation
// (C), and a /branch fork of A compacted in place (E).
const (
	hermesA = "20260301_101500_a1b2c3"
	hermesB = "20260302_090000_d4e5f6"
	hermesC = "20260302_093000_0718aa"
	hermesD = "20260301_101700_9f8e7d"
	hermesE = "20260303_120000_b0b0b0"
)

const hermesFixtureSQL = `
INSERT INTO sessions (id, source, model, model_config, parent_session_id, started_at, ended_at, end_reason, cwd, title) VALUES
 ('20260301_101500_a1b2c3', 'cli', 'anthropic/claude-sonnet-4', '{"provider":"openrouter"}', NULL, 1772360100.25, NULL, NULL, '/home/ana/src/shop', 'Корзина'),
 ('20260301_101700_9f8e7d', 'subagent', 'anthropic/claude-haiku-4', '{"_delegate_from":"20260301_101500_a1b2c3"}', '20260301_101500_a1b2c3', 1772360220.0, 1772360260.0, 'completed', '/home/ana/src/shop', NULL),
 ('20260302_090000_d4e5f6', 'telegram', 'openai/gpt-5', NULL, NULL, 1772442000.0, 1772443800.0, 'compression', NULL, 'Release notes'),
 ('20260302_093000_0718aa', 'telegram', 'openai/gpt-5', NULL, '20260302_090000_d4e5f6', 1772443800.5, NULL, NULL, NULL, 'Release notes #2'),
 ('20260303_120000_b0b0b0', 'cli', 'anthropic/claude-sonnet-4', '{"_branched_from":"20260301_101500_a1b2c3"}', '20260301_101500_a1b2c3', 1772539200.0, NULL, NULL, '/home/ana/src/shop', NULL);
INSERT INTO messages (id, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, reasoning, active, compacted, _compressed_summary) VALUES
 (1, '20260301_101500_a1b2c3', 'user', 'Почини тест корзины: test_total_with_discount падает', NULL, NULL, NULL, 1772360101.0, NULL, 1, 0, 0),
 (2, '20260301_101500_a1b2c3', 'assistant', '', NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"pytest tests/test_cart.py -q\"}"}}]', NULL, 1772360105.0, 'Сначала запущу pytest и посмотрю на ошибку.', 1, 0, 0),
 (3, '20260301_101500_a1b2c3', 'tool', 'FAILED tests/test_cart.py::test_total_with_discount - assert 89.99 == 90.0', 'call_1', NULL, 'terminal', 1772360110.0, NULL, 1, 0, 0),
 (4, '20260301_101500_a1b2c3', 'assistant', '', NULL, '[{"id":"call_2","type":"function","function":{"name":"delegate_task","arguments":"{\"goal\":\"Find where the discount is computed\"}"}}]', NULL, 1772360200.0, NULL, 1, 0, 0),
 (5, '20260301_101700_9f8e7d', 'user', 'Find where the discount is computed in cart.py', NULL, NULL, NULL, 1772360221.0, NULL, 1, 0, 0),
 (6, '20260301_101700_9f8e7d', 'assistant', '', NULL, '[{"id":"call_7","type":"function","function":{"name":"search_files","arguments":', NULL, 1772360225.0, NULL, 1, 0, 0),
 (7, '20260301_101700_9f8e7d', 'assistant', '', NULL, '[{"id":"call_8","type":"function","function":{"name":"search_files","arguments":"{\"pattern\":\"discount\"}"}}]', NULL, 1772360230.0, NULL, 1, 0, 0),
 (8, '20260301_101700_9f8e7d', 'tool', 'cart.py:42: total = round(price, 2) * (1 - discount)', 'call_8', NULL, 'search_files', 1772360240.0, NULL, 1, 0, 0),
 (9, '20260301_101700_9f8e7d', 'assistant', 'The discount is applied after rounding, on line 42 of cart.py.', NULL, NULL, NULL, 1772360255.0, NULL, 1, 0, 0),
 (10, '20260301_101500_a1b2c3', 'tool', 'The discount is applied after rounding, on line 42 of cart.py.', 'call_2', NULL, 'delegate_task', 1772360261.0, NULL, 1, 0, 0),
 (11, '20260301_101500_a1b2c3', 'assistant', 'Ошибка округления: скидка применялась после round(). Исправил cart.py.', NULL, NULL, NULL, 1772360270.0, 'Нужно округлять после скидки, а не до.', 1, 0, 0),
 (12, '20260301_101500_a1b2c3', 'user', 'Перепиши весь модуль на Rust', NULL, NULL, NULL, 1772360300.0, NULL, 0, 0, 0),
 (13, '20260301_101500_a1b2c3', 'assistant', 'Хорошо, начинаю переписывать cart.py на Rust.', NULL, NULL, NULL, 1772360305.0, NULL, 0, 0, 0),
 (14, '20260301_101500_a1b2c3', 'user', '割引10%のテストも追加してください', NULL, NULL, NULL, 1772360400.0, NULL, 1, 0, 0),
 (15, '20260301_101500_a1b2c3', 'assistant', '追加しました：test_discount_ten_percent。', NULL, NULL, NULL, 1772360410.0, 'テスト名は英語のままにする。', 1, 0, 0),
 (16, '20260301_101500_a1b2c3', 'system', 'Напоминание: часовой пояс пользователя Europe/Moscow', NULL, NULL, NULL, 1772360411.0, NULL, 1, 0, 0),
 (17, '20260302_090000_d4e5f6', 'user', 'Plan the release notes for v2.3', NULL, NULL, NULL, 1772442001.0, NULL, 1, 0, 0),
 (18, '20260302_090000_d4e5f6', 'assistant', 'Draft: faster sync, the Thai tokenizer, fewer locks.', NULL, NULL, NULL, 1772442010.0, NULL, 1, 0, 0),
 (19, '20260302_090000_d4e5f6', 'user', 'Actually, drop the changelog section', NULL, NULL, NULL, 1772443000.0, NULL, 0, 0, 0),
 (20, '20260302_093000_0718aa', 'user', '[CONTEXT COMPACTION] Earlier turns planned the v2.3 release notes.', NULL, NULL, NULL, 1772443801.0, NULL, 1, 0, 1),
 (21, '20260302_093000_0718aa', 'user', 'Add the Thai translation: เพิ่มคำแปลภาษาไทยของบันทึกประจำรุ่น', NULL, NULL, NULL, 1772443810.0, NULL, 1, 0, 0),
 (22, '20260302_093000_0718aa', 'assistant', 'เพิ่มคำแปลภาษาไทยแล้ว', NULL, NULL, NULL, 1772443820.0, NULL, 1, 0, 0),
 (23, '20260303_120000_b0b0b0', 'user', 'Объясни разницу между WAL и DELETE', NULL, NULL, NULL, 1772539201.0, NULL, 0, 1, 0),
 (24, '20260303_120000_b0b0b0', 'assistant', 'WAL пишет изменения в отдельный журнал, DELETE — в сам файл.', NULL, NULL, NULL, 1772539210.0, NULL, 0, 1, 0),
 (25, '20260303_120000_b0b0b0', 'user', 'And in Japanese?', NULL, NULL, NULL, 1772539220.0, NULL, 0, 0, 0),
 (26, '20260303_120000_b0b0b0', 'user', '[CONTEXT COMPACTION] Discussed WAL and DELETE journal modes.', NULL, NULL, NULL, 1772539230.0, NULL, 1, 0, 1),
 (27, '20260303_120000_b0b0b0', 'user', 'And in Japanese?', NULL, NULL, NULL, 1772539220.0, NULL, 1, 0, 0);
`

// hermesMakeDB writes a database for a test (the test's own file, never a
// user's).
func hermesMakeDB(t *testing.T, path string, sqls ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range sqls {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// hermesExec runs one statement with arguments on a test's database.
func hermesExec(t *testing.T, path, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// hermesEnv opens databases read-only, as the lead's opener does.
func hermesEnv() Env {
	return Env{OpenDB: openReadOnly, Getenv: func(string) string { return "" }}
}

// hermesFixture writes the fixture store under a temporary home and
// returns the Hermes home.
func hermesFixture(t *testing.T) string {
	home := filepath.Join(t.TempDir(), ".hermes")
	db := filepath.Join(home, "state.db")
	hermesMakeDB(t, db, hermesSchemaSQL, hermesFixtureSQL)
	// multimodal content: JSON parts after Hermes' "\x00json:" sentinel
	hermesExec(t, db, `INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (28, ?, 'assistant', ?, 1772539240.0)`,
		hermesE, "\x00json:"+`[{"type":"text","text":"WALは変更を別のログに書き込みます。"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]`)
	return home
}

func hermesTranscripts(t *testing.T, path string) map[string]Transcript {
	t.Helper()
	ts, problems := Lookup(Hermes).List(context.Background(), path, hermesEnv())
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	out := map[string]Transcript{}
	for _, tr := range ts {
		out[tr.Unit] = tr
	}
	return out
}

func TestHermesSessions(t *testing.T) {
	home := hermesFixture(t)
	db := filepath.Join(home, "state.db")
	ts, _ := Lookup(Hermes).List(context.Background(), home, hermesEnv())
	var units []string
	for _, tr := range ts {
		units = append(units, tr.Unit)
		if tr.Agent != Hermes || tr.Path != db || tr.Resumable || tr.Gen == "" {
			t.Errorf("%s: agent %q path %q resumable %v gen %q", tr.Unit, tr.Agent, tr.Path, tr.Resumable, tr.Gen)
		}
	}
	// oldest first, as they started
	if want := []string{hermesA, hermesD, hermesB, hermesC, hermesE}; !reflect.DeepEqual(units, want) {
		t.Fatalf("sessions %v, want %v", units, want)
	}
	got := hermesTranscripts(t, home)
	for _, tt := range []struct {
		unit, spawnedBy, parent, project string
		created                          int64
	}{
		{hermesA, "", "", "/home/ana/src/shop", 1772360100250},
		{hermesD, "agent:hermes:" + hermesA, "", "/home/ana/src/shop", 1772360220000},
		{hermesB, "", "", "", 1772442000000},
		{hermesC, "", "agent:hermes:" + hermesB, "", 1772443800500},
		{hermesE, "", "agent:hermes:" + hermesA, "/home/ana/src/shop", 1772539200000},
	} {
		tr := got[tt.unit]
		s := tr.Session
		if s.Key != "agent:hermes:"+tt.unit || s.SpawnedBy != tt.spawnedBy || s.ParentSessionKey != tt.parent ||
			s.CreatedAt != tt.created || tr.Project != tt.project {
			t.Errorf("%s: session %+v project %q, want spawnedBy %q parent %q created %d project %q",
				tt.unit, s, tr.Project, tt.spawnedBy, tt.parent, tt.created, tt.project)
		}
		events, _ := read(t, tr, -1)
		h, err := transcript.Parse(events[0])
		if err != nil || h.Type != "session" || h.ID != tt.unit || h.Timestamp != tt.created ||
			!bytes.Contains(events[0], []byte(`"agent":"hermes"`)) {
			t.Errorf("%s: header %s", tt.unit, events[0])
		}
		if tt.project != "" && !bytes.Contains(events[0], []byte(`"cwd":"`+tt.project+`"`)) {
			t.Errorf("%s: header %s lacks the cwd", tt.unit, events[0])
		}
	}
}

func TestHermesActivePath(t *testing.T) {
	got := hermesTranscripts(t, hermesFixture(t))
	for _, tt := range []struct {
		unit       string
		path       []string
		searchable []bool
	}{
		{hermesA, []string{
			"user: Почини тест корзины: test_total_with_discount падает",
			"assistant: ",
			"toolResult: FAILED tests/test_cart.py::test_total_with_discount - assert 89.99 == 90.0",
			"assistant: ",
			"toolResult: The discount is applied after rounding, on line 42 of cart.py.",
			"assistant: Ошибка округления: скидка применялась после round(). Исправил cart.py.",
			// rows 12 and 13 were rewound (active = 0): off the path
			"user: 割引10%のテストも追加してください",
			"assistant: 追加しました：test_discount_ten_percent。",
			"system: Напоминание: часовой пояс пользователя Europe/Moscow",
		}, []bool{true, false, false, false, false, true, true, true, false}},
		// the bad row 6 is reported and skipped; the rest is read
		{hermesD, []string{
			"user: Find where the discount is computed in cart.py",
			"assistant: ",
			"toolResult: cart.py:42: total = round(price, 2) * (1 - discount)",
			"assistant: The discount is applied after rounding, on line 42 of cart.py.",
		}, []bool{true, false, false, true}},
		// the last row was rewound: a leaf entry moves back to row 18
		{hermesB, []string{
			"user: Plan the release notes for v2.3",
			"assistant: Draft: faster sync, the Thai tokenizer, fewer locks.",
		}, []bool{true, true}},
		{hermesC, []string{
			"system: [CONTEXT COMPACTION] Earlier turns planned the v2.3 release notes.",
			"user: Add the Thai translation: เพิ่มคำแปลภาษาไทยของบันทึกประจำรุ่น",
			"assistant: เพิ่มคำแปลภาษาไทยแล้ว",
		}, []bool{false, true, true}},
		// compacted rows stay on the path; row 25, the carried tail's
		// original, is superseded by its copy 27 (active = 0, compacted = 0)
		{hermesE, []string{
			"user: Объясни разницу между WAL и DELETE",
			"assistant: WAL пишет изменения в отдельный журнал, DELETE — в сам файл.",
			"system: [CONTEXT COMPACTION] Discussed WAL and DELETE journal modes.",
			"user: And in Japanese?",
			"assistant: WALは変更を別のログに書き込みます。",
		}, []bool{true, true, false, true, true}},
	} {
		events, _ := read(t, got[tt.unit], -1)
		path, searchable := activePath(t, events)
		if !reflect.DeepEqual(path, tt.path) || !reflect.DeepEqual(searchable, tt.searchable) {
			t.Errorf("%s: active path\n%q %v\nwant\n%q %v", tt.unit, path, searchable, tt.path, tt.searchable)
		}
	}
}

// hermesRoles counts the message entries of events by role, on the path or
// not, and returns the events' ids.
func hermesRoles(t *testing.T, events [][]byte) (map[string]int, []string) {
	t.Helper()
	roles := map[string]int{}
	var ids []string
	for _, ev := range events {
		e, err := transcript.Parse(ev)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == "message" {
			roles[e.Role]++
		}
		ids = append(ids, e.Type+":"+e.ID)
	}
	return roles, ids
}

func TestHermesRecords(t *testing.T) {
	got := hermesTranscripts(t, hermesFixture(t))
	events, bad := read(t, got[hermesA], -1)
	roles, ids := hermesRoles(t, events)
	// rewound rows are kept in the store, off the path
	if want := map[string]int{"user": 3, "assistant": 5, "toolResult": 2, "system": 1}; !reflect.DeepEqual(roles, want) {
		t.Errorf("A roles %v, want %v", roles, want)
	}
	if want := []string{"session:" + hermesA, "message:m1", "message:m2", "message:m3", "message:m4", "message:m10",
		"message:m11", "message:m12", "message:m13", "leaf:", "message:m14", "message:m15", "message:m16"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("A entries %v, want %v", ids, want)
	}
	if len(bad) != 0 {
		t.Errorf("A bad %v", bad)
	}
	all := string(bytes.Join(events, []byte("\n")))
	for _, want := range []string{
		`{"type":"thinking","thinking":"Сначала запущу pytest и посмотрю на ошибку."}`,
		`{"type":"toolCall","id":"call_1","name":"terminal","arguments":{"command":"pytest tests/test_cart.py -q"}}`,
		`"role":"toolResult","content":[{"type":"text","text":"FAILED`,
		`"toolCallId":"call_1","toolName":"terminal"`,
		`"model":"anthropic/claude-sonnet-4"`,
		`Перепиши весь модуль на Rust`,
		`"timestamp":"2026-03-01T10:15:01.000Z"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("A events lack %s", want)
		}
	}
	// thinking is never search text
	for _, ev := range events {
		if text, ok := transcript.MessageText(ev); ok && strings.Contains(text, "pytest и посмотрю") {
			t.Errorf("thinking is searchable: %s", ev)
		}
	}

	events, bad = read(t, got[hermesD], -1)
	if len(bad) != 1 || bad[0].Rec != "message 6" || !strings.Contains(bad[0].Bad.Error(), "tool_calls is not JSON") {
		t.Fatalf("D bad %+v, want message 6 with tool_calls that is not JSON", bad)
	}
	if roles, _ := hermesRoles(t, events); !reflect.DeepEqual(roles, map[string]int{"user": 1, "assistant": 2, "toolResult": 1}) {
		t.Errorf("D roles %v", roles)
	}

	events, _ = read(t, got[hermesB], -1)
	last, _ := transcript.Parse(events[len(events)-1])
	if last.Type != "leaf" || last.TargetID != "m18" {
		t.Errorf("B ends with %s, want a leaf entry back to m18", events[len(events)-1])
	}
	events, _ = read(t, got[hermesE], -1)
	if all := string(bytes.Join(events, nil)); strings.Contains(all, "image_url") || strings.Contains(all, "json:") {
		t.Errorf("E: JSON content not decoded to its text parts: %s", all)
	}
}

func TestHermesReadsTwiceTheSameAndOnlyReads(t *testing.T) {
	home := hermesFixture(t)
	db := filepath.Join(home, "state.db")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	first := hermesTranscripts(t, home)
	second := hermesTranscripts(t, home)
	for unit, tr := range first {
		a, _ := read(t, tr, -1)
		b, _ := read(t, second[unit], -1)
		if !reflect.DeepEqual(a, b) || tr.Gen != second[unit].Gen {
			t.Errorf("%s: two reads differ", unit)
		}
		if n := int64(len(a)); n > tr.Events {
			t.Errorf("%s: %d events, estimated %d", unit, n, tr.Events)
		}
		// after skips the events at or before a position
		tail, _ := read(t, tr, 0)
		if len(tail) != len(a)-1 || (len(tail) > 0 && !bytes.Equal(tail[0], a[1])) {
			t.Errorf("%s: Read(0) gave %d events, want all but the header", unit, len(tail))
		}
	}
	after, _ := os.ReadFile(db)
	if sha256.Sum256(before) != sha256.Sum256(after) {
		t.Error("reading changed the database")
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("reading left files beside the database: %v", entries)
	}
}

func TestHermesGenFollowsChanges(t *testing.T) {
	home := hermesFixture(t)
	db := filepath.Join(home, "state.db")
	gens := func() map[string]string {
		out := map[string]string{}
		for u, tr := range hermesTranscripts(t, home) {
			out[u] = tr.Gen
		}
		return out
	}
	g0 := gens()
	for _, tt := range []struct {
		name, sql string
		changed   string
	}{
		{"a rewind of the last turn", `UPDATE messages SET active = 0 WHERE id >= 14 AND session_id = '` + hermesA + `'`, hermesA},
		{"a new message", `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('` + hermesC + `', 'user', 'ещё', 1772443900)`, hermesC},
		{"an edit in place", `UPDATE messages SET content = '' WHERE id = 22`, hermesC},
		{"the session ends", `UPDATE sessions SET ended_at = 1772539999, end_reason = 'cli_close' WHERE id = '` + hermesE + `'`, hermesE},
	} {
		hermesMakeDB(t, db, tt.sql)
		g1 := gens()
		for u := range g0 {
			if (g0[u] != g1[u]) != (u == tt.changed) {
				t.Errorf("%s: gen of %s went %s -> %s", tt.name, u, g0[u], g1[u])
			}
		}
		g0 = g1
	}
	// the rewound session's path now ends before the rewound turn
	events, _ := read(t, hermesTranscripts(t, home)[hermesA], -1)
	path, _ := activePath(t, events)
	if last := path[len(path)-1]; !strings.HasPrefix(last, "assistant: Ошибка округления") {
		t.Errorf("after the rewind the path ends with %q", last)
	}
}

// An older state.db has only the first columns: no active flag, no
// reasoning, no cwd. Every row is on the path.
func TestHermesOlderSchema(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hermes-old", "state.db")
	hermesMakeDB(t, db, `CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT,
		model_config TEXT, system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
		end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
		input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
		role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
		token_count INTEGER, finish_reason TEXT)`,
		`INSERT INTO sessions (id, source, started_at) VALUES ('20250801_080000_aaaaaa', 'cli', 1754035200)`,
		`INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp) VALUES
		 ('20250801_080000_aaaaaa', 'user', 'สวัสดี ช่วยดูไฟล์นี้หน่อย', NULL, NULL, NULL, 1754035201),
		 ('20250801_080000_aaaaaa', 'assistant', '', '[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]', NULL, NULL, 1754035202),
		 ('20250801_080000_aaaaaa', 'tool', 'hello', NULL, 'c1', 'read_file', 1754035203),
		 ('20250801_080000_aaaaaa', 'session_meta', '{"resumed":true}', NULL, NULL, NULL, 1754035204),
		 ('20250801_080000_aaaaaa', 'assistant', 'ไฟล์มีคำว่า hello', NULL, NULL, NULL, 1754035205)`)
	ts := hermesTranscripts(t, db)
	tr := ts["20250801_080000_aaaaaa"]
	if len(ts) != 1 || tr.Project != "" || tr.Session.CreatedAt != 1754035200000 {
		t.Fatalf("transcripts %+v", ts)
	}
	events, bad := read(t, tr, -1)
	path, searchable := activePath(t, events)
	want := []string{"user: สวัสดี ช่วยดูไฟล์นี้หน่อย", "assistant: ", "toolResult: hello", "assistant: ไฟล์มีคำว่า hello"}
	if len(bad) != 0 || !reflect.DeepEqual(path, want) || !reflect.DeepEqual(searchable, []bool{true, false, false, true}) {
		t.Errorf("path %q %v bad %v, want %q", path, searchable, bad, want)
	}
	// an unknown role is kept on the path, not as a message
	if e, _ := transcript.Parse(events[4]); e.Type != "hermes.message" || e.ID != "m4" {
		t.Errorf("session_meta row: %s", events[4])
	}
}

func TestHermesNotAStore(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "state.db")
	hermesMakeDB(t, other, `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)`)
	ts, problems := Lookup(Hermes).List(context.Background(), other, hermesEnv())
	if len(ts) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "not a Hermes state.db") {
		t.Errorf("another program's state.db: %v %v", ts, problems)
	}
	ts, problems = Lookup(Hermes).List(context.Background(), filepath.Join(dir, "missing"), hermesEnv())
	if len(ts) != 0 || len(problems) != 0 {
		t.Errorf("a missing root: %v %v", ts, problems)
	}
	ts, problems = Lookup(Hermes).List(context.Background(), hermesFixture(t), Env{})
	if len(ts) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "no read-only opener") {
		t.Errorf("no opener: %v %v", ts, problems)
	}
}

func TestHermesProfiles(t *testing.T) {
	home := hermesFixture(t)
	hermesMakeDB(t, filepath.Join(home, "profiles", "work", "state.db"), hermesSchemaSQL,
		`INSERT INTO sessions (id, source, started_at) VALUES ('20260310_090000_cccccc', 'cli', 1773133200)`)
	ts := hermesTranscripts(t, home)
	if tr, ok := ts["20260310_090000_cccccc"]; len(ts) != 6 || !ok || tr.Path != filepath.Join(home, "profiles", "work", "state.db") {
		t.Errorf("profiles: %v", ts)
	}
	// a session without messages is its header alone
	events, _ := read(t, ts["20260310_090000_cccccc"], -1)
	if len(events) != 1 {
		t.Errorf("empty session: %q", events)
	}
}

func TestHermesRoots(t *testing.T) {
	env := Env{Home: "/home/ana", Getenv: func(string) string { return "" }}
	if got := hermesRoots(env); !reflect.DeepEqual(got, []string{"/home/ana/.hermes"}) {
		t.Errorf("roots %v", got)
	}
	env.Getenv = func(k string) string { return map[string]string{"HERMES_HOME": "/srv/hermes"}[k] }
	if got := hermesRoots(env); !reflect.DeepEqual(got, []string{"/srv/hermes"}) {
		t.Errorf("roots with $HERMES_HOME %v", got)
	}
	env.Getenv = func(k string) string { return map[string]string{"HERMES_DATA_DIR_SUFFIX": "-dev"}[k] }
	if got := hermesRoots(env); !reflect.DeepEqual(got, []string{"/home/ana/.hermes-dev"}) {
		t.Errorf("roots with a suffix %v", got)
	}
}

func TestHermesSpawnedRule(t *testing.T) {
	parent := func(end string, ended float64, key string) *hermesSession {
		return &hermesSession{id: "p", endReason: end, ended: ended, hasEnded: ended != 0, sessionKey: key}
	}
	for _, tt := range []struct {
		name    string
		child   *hermesSession
		parent  *hermesSession
		spawned bool
	}{
		{"delegate marker", &hermesSession{modelConfig: map[string]any{"_delegate_from": "p"}}, parent("", 0, ""), true},
		{"no marker, parent still open", &hermesSession{}, parent("", 0, ""), true},
		{"parent gone", &hermesSession{}, nil, true},
		{"compression continuation", &hermesSession{}, parent("compression", 10, ""), false},
		{"continuation of a delegate inherits its marker", &hermesSession{modelConfig: map[string]any{"_delegate_from": "g"}}, parent("compression", 10, ""), false},
		{"branch marker", &hermesSession{modelConfig: map[string]any{"_branched_from": "p"}}, parent("", 0, ""), false},
		{"legacy branch", &hermesSession{started: 11}, parent("branched", 10, ""), false},
		{"legacy branch started before the parent ended", &hermesSession{started: 9}, parent("branched", 10, ""), true},
		{"reset marker", &hermesSession{modelConfig: map[string]any{"_reset_from": "p"}}, parent("", 0, ""), false},
		{"legacy reset on the same key", &hermesSession{sessionKey: "tg:42"}, parent("idle", 10, "tg:42"), false},
		{"reset reason on another key", &hermesSession{sessionKey: "tg:43"}, parent("idle", 10, "tg:42"), true},
		{"null marker", &hermesSession{modelConfig: map[string]any{"_branched_from": nil}}, parent("", 0, ""), true},
	} {
		if got := hermesSpawned(tt.child, tt.parent); got != tt.spawned {
			t.Errorf("%s: spawned %v, want %v", tt.name, got, tt.spawned)
		}
	}
}

func TestHermesClaims(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, ".hermes")
	hermesMakeDB(t, filepath.Join(home, "state.db"), hermesSchemaSQL)
	backup := filepath.Join(dir, "backups", "hermes-2026-03.sqlite")
	hermesMakeDB(t, backup, hermesSchemaSQL, hermesFixtureSQL)
	other := filepath.Join(dir, "app", "state.db")
	hermesMakeDB(t, other, `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)`)
	// a sessionsearch store has a sessions table too
	ours := filepath.Join(dir, "search", "state.db")
	hermesMakeDB(t, ours, `CREATE TABLE sessions (session_key TEXT PRIMARY KEY, spawned_by TEXT, parent_session_key TEXT, created_at INTEGER)`,
		`CREATE TABLE transcript_events (session_key TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_key, seq))`,
		`CREATE TABLE sessionsearch_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, tool_call_id TEXT)`)
	// a chat app's database with sessions and messages, but not Hermes' columns
	chat := filepath.Join(dir, "chat", "history.db")
	// (SQLite stores later schema rows first: the calls table's text follows messages')
	hermesMakeDB(t, chat, `CREATE TABLE calls (id INTEGER PRIMARY KEY, tool_call_id TEXT)`,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, body TEXT)`)
	openclaw := filepath.Join(dir, ".openclaw", "agents", "main", "sessions")
	if err := os.MkdirAll(openclaw, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		home:                            true,
		filepath.Join(home, "state.db"): true,
		filepath.Join(home, "profiles", "work", "state.db"): true,
		filepath.Join(home, "sessions", hermesA+".jsonl"):   true,
		backup:                                true,
		filepath.Join(dir, "new", "state.db"): true, // not there yet: by its name
		other:                                 false,
		ours:                                  false,
		chat:                                  false,
		filepath.Dir(backup):                  false,
		filepath.Join(dir, ".openclaw"):       false,
		openclaw:                              false,
		filepath.Join(dir, ".hermes-old"):     false,
	} {
		if got := hermesClaims(path); got != want {
			t.Errorf("Claims(%s) = %v, want %v", path, got, want)
		}
	}
	// no other agent's fixtures
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, f := range fixtures {
		if filepath.Base(f) != Hermes && hermesClaims(f) {
			t.Errorf("Claims(%s) = true", f)
		}
	}
}

// What Hermes does to a session over time (appends, /undo, in-place
// compaction) extends the events read before: a re-import appends, it
// never meets an event that changed (docs/agents/hermes.md AH5).
func TestHermesChangesExtendTheEvents(t *testing.T) {
	db := filepath.Join(t.TempDir(), ".hermes", "state.db")
	const sid = "20260305_080000_e1e2e3"
	hermesMakeDB(t, db, hermesSchemaSQL,
		`INSERT INTO sessions (id, source, started_at, cwd) VALUES ('`+sid+`', 'cli', 1772697600, '/home/ana/src/shop')`)
	add := func(role, content string, ts float64) {
		hermesExec(t, db, `INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)`, sid, role, content, ts)
	}
	var prev [][]byte
	step := func(name string, want []string) {
		t.Helper()
		events, bad := read(t, hermesTranscripts(t, db)[sid], -1)
		if len(bad) != 0 {
			t.Fatalf("%s: bad %v", name, bad)
		}
		if len(events) < len(prev) || (len(prev) > 0 && !reflect.DeepEqual(events[:len(prev)], prev)) {
			t.Errorf("%s: the events read before changed:\nbefore %q\nafter  %q", name, prev, events)
		}
		if path, _ := activePath(t, events); !reflect.DeepEqual(path, want) {
			t.Errorf("%s: path %q, want %q", name, path, want)
		}
		prev = events
	}
	add("user", "Сколько стоит доставка?", 1772697601)
	add("assistant", "Доставка бесплатна от 3000 ₽.", 1772697602)
	add("user", "А в Японию?", 1772697603)
	add("assistant", "日本への配送は有料です。", 1772697604)
	step("four turns", []string{"user: Сколько стоит доставка?", "assistant: Доставка бесплатна от 3000 ₽.",
		"user: А в Японию?", "assistant: 日本への配送は有料です。"})

	// /undo: rewind_to_message deactivates the last user turn and what follows
	hermesExec(t, db, `UPDATE messages SET active = 0 WHERE session_id = ? AND id >= 3 AND active = 1`, sid)
	step("undo", []string{"user: Сколько стоит доставка?", "assistant: Доставка бесплатна от 3000 ₽."})

	add("user", "А в Казахстан?", 1772697610)
	add("assistant", "В Казахстан — 900 ₽.", 1772697611)
	step("a new turn after the undo", []string{"user: Сколько стоит доставка?", "assistant: Доставка бесплатна от 3000 ₽.",
		"user: А в Казахстан?", "assistant: В Казахстан — 900 ₽."})

	// archive_and_compact with a carried tail of one row: the live rows are
	// archived (active = 0, compacted = 1), the tail's original superseded
	// (active = 0, compacted = 0), a summary and the tail's copy appended
	hermesExec(t, db, `UPDATE messages SET active = 0, compacted = 0 WHERE id = 6`)
	hermesExec(t, db, `UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND active = 1`, sid)
	hermesExec(t, db, `INSERT INTO messages (session_id, role, content, timestamp, _compressed_summary) VALUES (?, 'user', '[CONTEXT COMPACTION] Shipping prices.', 1772697620, 1)`, sid)
	hermesExec(t, db, `INSERT INTO messages (session_id, role, content, timestamp) SELECT session_id, role, content, timestamp FROM messages WHERE id = 6`)
	step("in-place compaction", []string{"user: Сколько стоит доставка?", "assistant: Доставка бесплатна от 3000 ₽.",
		"user: А в Казахстан?", "system: [CONTEXT COMPACTION] Shipping prices.", "assistant: В Казахстан — 900 ₽."})

	add("user", "Спасибо!", 1772697630)
	step("a turn after the compaction", []string{"user: Сколько стоит доставка?", "assistant: Доставка бесплатна от 3000 ₽.",
		"user: А в Казахстан?", "system: [CONTEXT COMPACTION] Shipping prices.", "assistant: В Казахстан — 900 ₽.",
		"user: Спасибо!"})
}

// hermesReal is a state.db Hermes Agent wrote for one of its users (schema
// version 6, April 2026), published in a fork of Hermes (agents/testdata/REAL.md).
const hermesReal = "testdata/hermes-schema6/state.db"

// docs/agents/hermes.md AH3, AH9, AH10 on a database Hermes wrote: every
// session is read, without a problem, from a schema older than the
// reader knows; what the user typed and the model answered is found;
// reasoning, tool calls and tool results are kept and not found; a
// /skill invocation is the skill's text, kept and not found; reading
// leaves the file as it was.
func TestHermesRealStateDB(t *testing.T) {
	before, err := os.ReadFile(hermesReal)
	if err != nil {
		t.Fatal(err)
	}
	trs, problems := hermesList(context.Background(), hermesReal, Env{OpenDB: openReadOnly})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var keys []string
	searchable, thinking, calls, results := 0, 0, 0, 0
	var all []string
	for _, tr := range trs {
		keys = append(keys, tr.Session.Key)
		events, bad := read(t, tr, -1)
		if len(bad) > 0 {
			t.Errorf("%s: bad rows %v", tr.Session.Key, bad)
		}
		texts := searchableTexts(t, events)
		searchable += len(texts)
		all = append(all, texts...)
		for _, e := range events {
			thinking += bytes.Count(e, []byte(`{"type":"thinking"`))
			calls += bytes.Count(e, []byte(`{"type":"toolCall"`))
			if bytes.Contains(e, []byte(`"role":"toolResult"`)) {
				results++
			}
		}
		if tr.Project != "" || tr.Session.SpawnedBy != "" || tr.Session.ParentSessionKey != "" {
			t.Errorf("%s: project %q, links %q %q", tr.Session.Key, tr.Project, tr.Session.SpawnedBy, tr.Session.ParentSessionKey)
		}
	}
	want := []string{"agent:hermes:20260420_130311_a41c5a", "agent:hermes:20260420_131817_5fb96e",
		"agent:hermes:20260420_133144_91c4ce", "agent:hermes:20260420_133811_7e8e82"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("sessions %v, want %v", keys, want)
	}
	// 8 user rows besides the 2 skill invocations, 35 assistant rows with text.
	if searchable != 43 || thinking != 49 || calls != 82 || results != 82 {
		t.Errorf("%d searchable messages, %d thinking blocks, %d tool calls, %d tool results; want 43, 49, 82, 82",
			searchable, thinking, calls, results)
	}
	joined := strings.Join(all, "\n")
	for _, found := range []string{"hey do you have postgres db read functionality", "what schemas are in the database?",
		"Plan saved to `.hermes/plans/2026-04-20_131821-conversation-plan.md`"} {
		if !strings.Contains(joined, found) {
			t.Errorf("%q is not found", found)
		}
	}
	for _, notFound := range []string{"The full skill content is loaded below", "Plan mode for Hermes", "Runtime note",
		`"exit_code": 127`, "skills_list"} {
		if strings.Contains(joined, notFound) {
			t.Errorf("%q is found", notFound)
		}
	}
	after, err := os.ReadFile(hermesReal)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("reading changed %s", hermesReal)
	}
	if _, err := os.Stat(hermesReal + "-wal"); err == nil {
		t.Errorf("reading left a -wal beside %s", hermesReal)
	}
}

// docs/agents/hermes.md AH10: what the user typed with a skill, as Hermes
// writes it for one skill and for a bundle, is theirs; the skill is not.
func TestHermesSkillInvocation(t *testing.T) {
	for _, tt := range []struct{ content, instruction string }{
		{"[IMPORTANT: The user has invoked the \"plan\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n# Plan\nDo not implement.\n\nThe user has provided the following instruction alongside the skill invocation: ग्राहक के लिए योजना\n\n[Runtime note: Save to .hermes/plans/x.md]", "ग्राहक के लिए योजना"},
		{"[SYSTEM: The user has invoked the \"plan\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n# Plan", ""},
		{"[IMPORTANT: The user has invoked the \"web\" skill bundle, which loads 2 skills.]\nUser instruction: 東京の天気\n\n[Loaded as part of the \"web\" bundle: search]\n# Search", "東京の天気"},
	} {
		scaffold, instruction, ok := hermesSkillMessage(&hermesRow{role: "user", content: tt.content})
		if !ok || scaffold != tt.content || instruction != tt.instruction {
			t.Errorf("%.40q: %v %q, want the instruction %q", tt.content, ok, instruction, tt.instruction)
		}
	}
	if _, _, ok := hermesSkillMessage(&hermesRow{role: "user", content: "[SYSTEM: hi]"}); ok {
		t.Error("a user message is taken for a skill invocation")
	}
	if _, _, ok := hermesSkillMessage(&hermesRow{role: "assistant", content: "[IMPORTANT: The user has invoked the x skill"}); ok {
		t.Error("an assistant message is taken for a skill invocation")
	}
}
