package agents

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/transcript"
)

// jsonlStores are where each JSONL format keeps a session file, relative to
// a home directory, for FuzzJSONLReaders.
var jsonlStores = map[string]string{
	ClaudeCode: ".claude/projects/-home-ana-src-app/0d969b79-a24e-5561-b110-20f9fa33baa8.jsonl",
	Codex:      ".codex/sessions/2025/07/18/rollout-2025-07-18T16-02-44-0198176a-3b2c-7d4e-9f10-2a3b4c5d6e06.jsonl",
	Gemini:     ".gemini/tmp/8eace2e77b251aadcc91156f4c81fe5c9f11d7052fa82d8af1098ab851aca8c5/chats/session-2026-08-10T09-00-8d2e4f61.jsonl",
}

// FuzzJSONLReaders feeds any bytes, as a session file, to every JSONL
// reader (Claude Code, Codex, Gemini) (docs/agents.md A6, A7): listing and reading never panic nor fail
// on the file's content, every event is one the store accepts, and a
// second read gives the same bytes.
func FuzzJSONLReaders(f *testing.F) {
	for agent, rel := range jsonlStores {
		fixture := filepath.Join("testdata", agent, strings.TrimPrefix(rel, "."+strings.SplitN(rel, "/", 2)[0][1:]+"/"))
		if data, err := os.ReadFile(fixture); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\"}]}}\n"))
	f.Add([]byte("{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n{\"id\":\"m1\",\"type\":\"user\",\"content\":\"x\"}\n{\"$rewindTo\":\"m1\"}\n{\"id\":\"m1\",\"type\":\"gemini\",\"content\":[{\"text\":7}]}\n{\"$set\":{\"messages\":[{\"id\":\"m1\"},null]}}\n"))
	f.Add([]byte("{\"timestamp\":\"x\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":7}}\n{\"type\":\"event_msg\",\"payload\":{\"type\":\"thread_rolled_back\",\"num_turns\":-3}}\n"))
	f.Fuzz(fuzzReaders)
}

func fuzzReaders(t *testing.T, data []byte) {
	for agent, rel := range jsonlStores {
		home := t.TempDir()
		path := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(home, strings.SplitN(rel, "/", 2)[0])
		format := Lookup(agent)
		readAll := func() []byte {
			transcripts, _ := format.List(context.Background(), root, Env{Home: home, Getenv: func(string) string { return "" }})
			var all bytes.Buffer
			for _, tr := range transcripts {
				err := tr.Read(context.Background(), -1, func(e Event) error {
					if e.Bad != nil {
						return nil
					}
					if _, err := transcript.Parse(e.JSON); err != nil {
						t.Fatalf("%s: %s: event %s: %v", agent, e.Rec, e.JSON, err)
					}
					all.Write(e.JSON)
					all.WriteByte('\n')
					return nil
				})
				if err != nil {
					t.Fatalf("%s: read %s: %v", agent, tr.Unit, err)
				}
			}
			return all.Bytes()
		}
		done := make(chan [2][]byte, 1)
		go func() { done <- [2][]byte{readAll(), readAll()} }()
		select {
		case reads := <-done:
			if !bytes.Equal(reads[0], reads[1]) {
				t.Fatalf("%s: two reads differ:\n%s\n---\n%s", agent, reads[0], reads[1])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: reading %d bytes takes over 10s: %q", agent, len(data), data)
		}
	}
}
