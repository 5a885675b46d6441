package scriptmodel

import (
	"net/http"
	"strings"
	"time"
)

// OpenAI's Chat Completions API (OpenCode, OpenClaw and most other agents
// with an OpenAI-compatible provider): POST .../chat/completions, streamed
// as chunks (the reasoning as reasoning_content deltas, as DeepSeek and
// vLLM send it, then the text, then the tool call), the finish reason and
// the usage; or one chat.completion object. GET .../models lists the
// model.
var chatAPI = api{
	name: "chat",
	match: func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
	},
	read:  chatRead,
	reply: chatReply,
	other: func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/models") {
			return false
		}
		writeJSON(w, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "scripted", "object": "model", "created": 0, "owned_by": "scriptmodel"},
		}})
		return true
	},
}

func chatRead(r *http.Request, body map[string]any) Request {
	req := Request{
		Model:  str(body["model"]),
		Stream: body["stream"] == true,
		Tools: toolNames(body["tools"], func(t map[string]any) string {
			return str(obj(t["function"])["name"])
		}),
	}
	if f := str(obj(body["response_format"])["type"]); f == "json_object" || f == "json_schema" {
		req.JSON = true
	}
	for _, raw := range list(body["messages"]) {
		m := obj(raw)
		role := str(m["role"])
		switch role {
		case "system", "developer":
			req.System += texts(m["content"])
			req.Messages = append(req.Messages, Message{Role: "system", Text: texts(m["content"])})
		case "tool":
			req.Messages = append(req.Messages, Message{Role: "tool", Text: texts(m["content"]), CallID: str(m["tool_call_id"])})
		default:
			req.Messages = append(req.Messages, Message{Role: role, Text: texts(m["content"])})
		}
	}
	return req
}

func chatReply(w http.ResponseWriter, a answer) {
	req, step := a.req, a.step
	id := "chatcmpl-scripted-" + a.id
	finish := "stop"
	var toolCalls []any
	if step.Call != nil {
		finish = "tool_calls"
		toolCalls = []any{map[string]any{"index": 0, "id": a.call, "type": "function",
			"function": map[string]any{"name": step.Call.Name, "arguments": step.Call.args()}}}
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	created := time.Now().Unix()
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": step.Text}
		if step.Thinking != "" {
			msg["reasoning_content"] = step.Thinking
		}
		if toolCalls != nil {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if step.Thinking != "" {
		chunk(map[string]any{"reasoning_content": step.Thinking}, nil)
	}
	if step.Text != "" {
		chunk(map[string]any{"content": step.Text}, nil)
	}
	if toolCalls != nil {
		chunk(map[string]any{"tool_calls": toolCalls}, nil)
	}
	chunk(map[string]any{}, finish)
	e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
		"choices": []any{}, "usage": usage})
	e.raw("[DONE]")
}
