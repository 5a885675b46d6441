package scriptmodel

import (
	"net/http"
	"strings"
)

// Anthropic's Messages API (Claude Code): POST /v1/messages, streamed as
// message_start, content blocks (thinking with its signature, text,
// tool_use with its input as JSON deltas), message_delta and message_stop;
// or one message object when not streamed. count_tokens gets a count.
var anthropicAPI = api{
	name: "anthropic",
	match: func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages")
	},
	read:  anthropicRead,
	reply: anthropicReply,
	other: func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens") {
			return false
		}
		writeJSON(w, map[string]any{"input_tokens": 100})
		return true
	},
}

func anthropicRead(r *http.Request, body map[string]any) Request {
	req := Request{
		Model:  str(body["model"]),
		Stream: body["stream"] == true,
		System: texts(body["system"]),
		Tools:  toolNames(body["tools"], func(t map[string]any) string { return str(t["name"]) }),
	}
	for _, raw := range list(body["messages"]) {
		m := obj(raw)
		role := str(m["role"])
		// A user message's tool_result blocks are tool results; its other
		// blocks are what the user (or the agent on its behalf) said.
		for _, b := range list(m["content"]) {
			block := obj(b)
			if str(block["type"]) == "tool_result" {
				req.Messages = append(req.Messages, Message{Role: "tool",
					Text: texts(block["content"]), CallID: str(block["tool_use_id"])})
			}
		}
		if text := texts(m["content"], "tool_result", "thinking"); text != "" || role == "assistant" {
			req.Messages = append(req.Messages, Message{Role: role, Text: text})
		}
	}
	return req
}

func anthropicReply(w http.ResponseWriter, a answer) {
	req, step := a.req, a.step
	var content []map[string]any
	if step.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": step.Thinking, "signature": signature})
	}
	if step.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": step.Text})
	}
	stop := "end_turn"
	if step.Call != nil {
		content = append(content, map[string]any{"type": "tool_use", "id": a.call, "name": step.Call.Name, "input": step.Call.Args})
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := map[string]any{"id": "msg_scripted_" + a.id, "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil, "usage": usage, "content": []any{}}
	if !req.Stream {
		msg["content"], msg["stop_reason"] = content, stop
		writeJSON(w, msg)
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": msg})
	for i, block := range content {
		start := map[string]any{"type": block["type"]}
		var deltas []map[string]any
		switch block["type"] {
		case "thinking":
			start["thinking"], start["signature"] = "", ""
			deltas = []map[string]any{
				{"type": "thinking_delta", "thinking": step.Thinking},
				{"type": "signature_delta", "signature": signature},
			}
		case "text":
			start["text"] = ""
			deltas = []map[string]any{{"type": "text_delta", "text": step.Text}}
		case "tool_use":
			start["id"], start["name"], start["input"] = block["id"], block["name"], map[string]any{}
			deltas = []map[string]any{{"type": "input_json_delta", "partial_json": step.Call.args()}}
		}
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		for _, d := range deltas {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// signature stands for the signature a thinking block carries; agents
// keep it and send it back, none checks it.
const signature = "c2NyaXB0ZWQ="
