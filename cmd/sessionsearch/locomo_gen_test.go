package main

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchdata"
)

// LoCoMo's conversations (snap-research/locomo, data/locomo10.zip; read
// from ../shared/data/locomo beside the project, never copied into it)
// written as Claude Code keeps sessions, for the import benchmarks: one
// file per LoCoMo session under <home>/.claude/projects/<project>/, speaker
// A as the user and B as the assistant. Each copy gets ids of its own.
// Claude Code 2.1.3xx also writes records of each API request (the request
// itself, its shape) and attachments beside a turn: with bulk set, each
// turn has them, built from the licence texts as a system prompt and tool
// descriptions would be (a stand-in, written for the footprint benchmark).

// locomoSession is one LoCoMo session: its start and its turns.
type locomoSession struct {
	conv, n int
	start   time.Time
	turns   []locomoTurn
}

type locomoTurn struct {
	speakerA bool
	text     string
}

// locomoZip finds locomo10.zip: $SESSIONSEARCH_LOCOMO, else shared/data/locomo
// beside the project's root or a directory above it.
func locomoZip(tb testing.TB) string {
	if p := os.Getenv("SESSIONSEARCH_LOCOMO"); p != "" {
		return p
	}
	dir, _ := filepath.Abs("../..")
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data", "locomo", "locomo10.zip")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	tb.Fatalf("locomo10.zip not found beside %s (../shared/data/locomo): set SESSIONSEARCH_LOCOMO", dir)
	return ""
}

// readLoCoMo reads the sessions of every conversation.
func readLoCoMo(tb testing.TB) []locomoSession {
	z, err := zip.OpenReader(locomoZip(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer z.Close()
	var out []locomoSession
	for conv, f := range z.File {
		if !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		var doc map[string]json.RawMessage
		err = json.NewDecoder(rc).Decode(&doc)
		rc.Close()
		if err != nil {
			tb.Fatalf("%s: %v", f.Name, err)
		}
		var speakerA string
		json.Unmarshal(doc["speaker_a"], &speakerA)
		for n := 1; ; n++ {
			raw, ok := doc["session_"+strconv.Itoa(n)]
			if !ok {
				if _, more := doc["session_"+strconv.Itoa(n)+"_date_time"]; more {
					continue
				}
				break
			}
			var turns []struct{ Speaker, Text string }
			if json.Unmarshal(raw, &turns) != nil || len(turns) == 0 {
				continue
			}
			var when string
			json.Unmarshal(doc["session_"+strconv.Itoa(n)+"_date_time"], &when)
			start, err := time.Parse("3:04 pm on 2 January, 2006", when)
			if err != nil {
				start = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			s := locomoSession{conv: conv, n: n, start: start}
			for _, t := range turns {
				s.turns = append(s.turns, locomoTurn{speakerA: t.Speaker == speakerA, text: t.Text})
			}
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].conv < out[j].conv })
	return out
}

// ccUUID is a stable UUID-shaped id from its parts.
func ccUUID(parts ...any) string {
	h := sha256.Sum256([]byte(fmt.Sprint(parts...)))
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-4" + x[13:16] + "-8" + x[17:20] + "-" + x[20:32]
}

// writeLoCoMoClaude writes copies of the sessions (the first limit of
// them, 0 for all) as Claude Code session files under home and returns the
// bytes written, the sessions and the messages.
func writeLoCoMoClaude(tb testing.TB, home string, sessions []locomoSession, copies, limit int, bulk bool) (size int64, files, messages int) {
	if limit > 0 && limit < len(sessions) {
		sessions = sessions[:limit]
	}
	version := "2.1.197"
	var prose []string
	if bulk {
		version = "2.1.332"
		prose = benchdata.Prose()
		if len(prose) == 0 {
			tb.Fatal("no licence texts in /usr/share/common-licenses for the request records")
		}
	}
	for c := range copies {
		for _, s := range sessions {
			project := fmt.Sprintf("-home-user-locomo-%d-%d", c, s.conv)
			dir := filepath.Join(home, ".claude", "projects", project)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
			sid := ccUUID("session", c, s.conv, s.n)
			n, msgs, err := writeClaudeSession(filepath.Join(dir, sid+".jsonl"), sid, "/home/user/locomo-"+strconv.Itoa(s.conv), version, c, s, prose)
			if err != nil {
				tb.Fatal(err)
			}
			size += n
			files++
			messages += msgs
		}
	}
	return size, files, messages
}

// writeClaudeSession writes one session file.
func writeClaudeSession(path, sid, cwd, version string, copyN int, s locomoSession, prose []string) (int64, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriter(f)
	var written int64
	line := func(v any) {
		b, _ := json.Marshal(v)
		n, _ := w.Write(append(b, '\n'))
		written += int64(n)
	}
	common := func(typ, uuid string, parent any, at time.Time) map[string]any {
		return map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": sid,
			"version": version, "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z")}
	}
	var parent any
	var conversation []map[string]any
	at := s.start
	for i, t := range s.turns {
		at = at.Add(30 * time.Second)
		uuid := ccUUID("turn", copyN, s.conv, s.n, i)
		if t.speakerA {
			if prose != nil {
				parent = writeRequestRecords(line, common, copyN, s, i, parent, at, conversation, prose)
			}
			rec := common("user", uuid, parent, at)
			rec["message"] = map[string]any{"role": "user", "content": t.text}
			line(rec)
			conversation = append(conversation, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": t.text}}})
		} else {
			rec := common("assistant", uuid, parent, at)
			rec["message"] = map[string]any{"id": "msg_01" + uuid[:22], "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
				"content": []any{map[string]any{"type": "text", "text": t.text}}, "stop_reason": "end_turn", "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": 4, "cache_creation_input_tokens": 120 + i, "cache_read_input_tokens": 15000 + 40*i,
					"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 120 + i, "ephemeral_1h_input_tokens": 0},
					"output_tokens":  20 + len(t.text)/4, "service_tier": "standard"}}
			rec["requestId"] = "req_011C" + strings.ReplaceAll(uuid[:23], "-", "")
			line(rec)
			conversation = append(conversation, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": t.text}}})
		}
		parent = uuid
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, 0, err
	}
	return written, len(s.turns), f.Close()
}

// writeRequestRecords writes what Claude Code 2.1.3xx records before a
// user turn is answered: attachments, the shape of the API request and the
// request itself (its system prompt, its tools and the conversation so
// far), twice, as a turn makes a request for the answer and a smaller one
// beside it. It returns the last record's uuid, which the turn hangs from.
func writeRequestRecords(line func(any), common func(string, string, any, time.Time) map[string]any, copyN int, s locomoSession, i int,
	parent any, at time.Time, conversation []map[string]any, prose []string) any {
	pick := func(k, n int) string { // n bytes of licence text, from text k
		p := prose[k%len(prose)]
		off := (k * 7919) % max(len(p)-n, 1)
		return p[off:min(off+n, len(p))]
	}
	system := pick(0, 12000) + "\n\n" + pick(3, 8000)
	var tools []any
	for k := range 36 {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("Tool%d", k), "description": pick(k+1, 1500+(k%5)*500),
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{
				"path":  map[string]any{"type": "string", "description": "The absolute path to the file"},
				"limit": map[string]any{"type": "number", "description": "The number of lines to read"}},
				"required": []string{"path"}, "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}})
	}
	for k, kind := range []string{"todo_reminder", "hook_additional_context"} {
		uuid := ccUUID("attachment", copyN, s.conv, s.n, i, k)
		rec := common("attachment", uuid, parent, at)
		rec["attachment"] = map[string]any{"type": kind, "content": pick(10+k+i, 2000), "itemCount": k}
		line(rec)
		parent = uuid
	}
	for k, request := range []map[string]any{
		{"model": "claude-sonnet-4-5-20250929", "max_tokens": 32000, "system": []any{map[string]any{"type": "text", "text": system, "cache_control": map[string]any{"type": "ephemeral"}}},
			"tools": tools, "messages": conversation, "metadata": map[string]any{"user_id": "user_" + ccUUID("user", copyN)}, "stream": true,
			"thinking": map[string]any{"type": "enabled", "budget_tokens": 10000}},
		{"model": "claude-haiku-4-5-20251001", "max_tokens": 512, "system": []any{map[string]any{"type": "text", "text": pick(5, 3000)}},
			"tools": tools[:12], "messages": conversation[max(len(conversation)-2, 0):], "stream": false},
	} {
		uuid := ccUUID("request", copyN, s.conv, s.n, i, k)
		requestID := "req_011C" + strings.ReplaceAll(uuid[:23], "-", "")
		shape := common("api-request-shape", ccUUID("shape", copyN, s.conv, s.n, i, k), parent, at)
		shape["requestId"] = requestID
		shape["shape"] = map[string]any{"model": request["model"], "systemBlocks": 1, "tools": len(request["tools"].([]any)),
			"messages": len(request["messages"].([]map[string]any)), "maxTokens": request["max_tokens"]}
		line(shape)
		blob := common("api-request-blob", uuid, parent, at)
		blob["requestId"] = requestID
		blob["blob"] = request
		line(blob)
		parent = uuid
	}
	return parent
}
