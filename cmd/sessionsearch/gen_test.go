package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Generated OpenClaw state directories for the resume test and the import
// benchmark: agents/<agentId>/sessions/ with sessions.json and transcripts
// shaped like the real ones (header, model and thinking changes, user and
// assistant messages with text, thinking and tool blocks, tool results),
// in several languages. The same seed gives the same bytes.

var genWords = strings.Fields(`the session import search index transcript message agent tool result
query branch leaf compaction heartbeat gateway telegram config model token
配置 文件 日报 授权码 搜索 测试 工具 浏览器 设置 仓库
設定 変更 ファイル 記憶 確認 名前 はくあ 返事
перевіряю сервер репозиторій задачу файл зробити готовий роботи
olá configuração não sessão também você amanhã
Straße über Größe schön`)

// genText returns n words of text.
func genText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(genWords[r.IntN(len(genWords))])
	}
	return b.String()
}

func genID(r *rand.Rand) string { return fmt.Sprintf("%08x", r.Uint32()) }

func genSessionID(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
}

// writeTranscript writes one transcript of about size bytes.
func writeTranscript(path string, r *rand.Rand, sessionID string, size int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	var written int64
	line := func(v map[string]any) {
		b, _ := json.Marshal(v)
		n, _ := w.Write(append(b, '\n'))
		written += int64(n)
	}
	ts := int64(1772323200000)
	iso := func() string {
		ts += int64(r.IntN(60000))
		return fmt.Sprintf("2026-03-01T00:%02d:%02d.%03dZ", ts/60000%60, ts/1000%60, ts%1000)
	}
	line(map[string]any{"type": "session", "version": 3, "id": sessionID, "timestamp": iso(), "cwd": "/home/user/.openclaw/workspace"})
	parent := genID(r)
	line(map[string]any{"type": "model_change", "id": parent, "parentId": nil, "timestamp": iso(), "provider": "ollama", "modelId": "qwen3:8b"})
	for written < int64(size) {
		user := genID(r)
		line(map[string]any{"type": "message", "id": user, "parentId": parent, "timestamp": iso(),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": genText(r, 5+r.IntN(40))}}, "timestamp": ts}})
		call := genID(r)
		line(map[string]any{"type": "message", "id": call, "parentId": user, "timestamp": iso(),
			"message": map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": genText(r, 20+r.IntN(60))},
				map[string]any{"type": "toolCall", "id": "call_" + genID(r), "name": "read", "arguments": map[string]any{"path": "memory/notes.md"}},
			}, "timestamp": ts}})
		result := genID(r)
		line(map[string]any{"type": "message", "id": result, "parentId": call, "timestamp": iso(),
			"message": map[string]any{"role": "toolResult", "toolCallId": "call_x", "toolName": "read", "content": []any{map[string]any{"type": "text", "text": genText(r, 50+r.IntN(200))}}, "timestamp": ts}})
		parent = genID(r)
		line(map[string]any{"type": "message", "id": parent, "parentId": result, "timestamp": iso(),
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": genText(r, 20+r.IntN(150))}}, "timestamp": ts}})
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return written, f.Close()
}

// writeStateDir writes a state directory of about totalBytes of transcripts
// (files of about fileBytes) under root, for agents main and work, and
// returns its size and number of transcripts.
func writeStateDir(tb testing.TB, root string, totalBytes int64, fileBytes int, seed uint64) (int64, int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var total int64
	files := 0
	keys := map[string]map[string]any{}
	for total < totalBytes {
		agent := []string{"main", "work"}[files%2]
		dir := filepath.Join(root, "agents", agent, "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		id := genSessionID(r)
		n, err := writeTranscript(filepath.Join(dir, id+".jsonl"), r, id, fileBytes)
		if err != nil {
			tb.Fatal(err)
		}
		total += n
		if files%3 == 0 {
			if keys[agent] == nil {
				keys[agent] = map[string]any{}
			}
			keys[agent][fmt.Sprintf("agent:%s:subagent:%d", agent, files)] = map[string]any{"sessionId": id, "spawnedBy": "agent:" + agent + ":main", "updatedAt": files}
		}
		files++
	}
	for agent, store := range keys {
		b, _ := json.Marshal(store)
		if err := os.WriteFile(filepath.Join(root, "agents", agent, "sessions", "sessions.json"), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return total, files
}
