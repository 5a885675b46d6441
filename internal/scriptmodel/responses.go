package scriptmodel

import (
	"net/http"
	"strings"
)

// OpenAI's Responses API (Codex CLI): POST /v1/responses, streamed as
// response.created, each output item (reasoning with its summary, the
// assistant message, a function call) added, its text as deltas, done, and
// response.completed with the usage; or one response object.
var responsesAPI = api{
	name: "responses",
	match: func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
	},
	read:  responsesRead,
	reply: responsesReply,
}

func responsesRead(r *http.Request, body map[string]any) Request {
	req := Request{
		Model:  str(body["model"]),
		Stream: body["stream"] == true,
		System: str(body["instructions"]),
		Tools: toolNames(body["tools"], func(t map[string]any) string {
			if n := str(t["name"]); n != "" {
				return n
			}
			return str(t["type"]) // local_shell, web_search: tools without a name
		}),
	}
	if format := obj(obj(body["text"])["format"]); str(format["type"]) == "json_schema" {
		req.JSON = true
	}
	if s, ok := body["input"].(string); ok {
		req.Messages = append(req.Messages, Message{Role: "user", Text: s})
		return req
	}
	for _, raw := range list(body["input"]) {
		item := obj(raw)
		switch str(item["type"]) {
		case "message", "":
			role := str(item["role"])
			if role == "developer" || role == "system" {
				role = "system"
			}
			req.Messages = append(req.Messages, Message{Role: role, Text: texts(item["content"])})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			out := item["output"]
			if o := obj(out); o != nil {
				out = o["content"]
			}
			req.Messages = append(req.Messages, Message{Role: "tool", Text: texts(out), CallID: str(item["call_id"])})
		case "function_call", "custom_tool_call", "local_shell_call", "reasoning":
			req.Messages = append(req.Messages, Message{Role: "assistant"})
		}
	}
	return req
}

func responsesReply(w http.ResponseWriter, a answer) {
	req, step := a.req, a.step
	var items []map[string]any
	if step.Thinking != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": "rs_scripted_" + a.id,
			"summary": []any{map[string]any{"type": "summary_text", "text": step.Thinking}}})
	}
	if step.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": "msg_scripted_" + a.id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}})
	}
	if step.Call != nil {
		items = append(items, map[string]any{"type": "function_call", "id": "fc_scripted_" + a.id, "status": "completed",
			"call_id": a.call, "name": step.Call.Name, "arguments": step.Call.args()})
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 120}
	resp := map[string]any{"id": "resp_scripted_" + a.id, "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}
	if !req.Stream {
		resp["status"], resp["output"], resp["usage"] = "completed", items, usage
		writeJSON(w, resp)
		return
	}
	e := newSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		e.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": resp})
	for i, item := range items {
		ev("response.output_item.added", map[string]any{"output_index": i, "item": item})
		switch item["type"] {
		case "reasoning":
			ev("response.reasoning_summary_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "summary_index": 0, "delta": step.Thinking})
		case "message":
			ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": step.Text})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	resp["status"], resp["output"], resp["usage"] = "completed", items, usage
	ev("response.completed", map[string]any{"response": resp})
}
