package scriptmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API (Gemini CLI): POST .../models/<model>:generateContent and
// :streamGenerateContent (server-sent events with ?alt=sse), each chunk a
// GenerateContentResponse: the reasoning as a part with "thought": true,
// then the text, then the function call, the last chunk with the finish
// reason and the usage. :countTokens gets a count.
var geminiAPI = api{
	name: "gemini",
	match: func(r *http.Request) bool {
		return r.Method == http.MethodPost &&
			(strings.HasSuffix(r.URL.Path, ":generateContent") || strings.HasSuffix(r.URL.Path, ":streamGenerateContent"))
	},
	read:  geminiRead,
	reply: geminiReply,
	other: func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, ":countTokens") {
			return false
		}
		writeJSON(w, map[string]any{"totalTokens": 100})
		return true
	},
}

func geminiRead(r *http.Request, body map[string]any) Request {
	path := r.URL.Path
	model := path[strings.LastIndex(path, "/")+1:]
	model, _, _ = strings.Cut(model, ":")
	req := Request{
		Model:  model,
		Stream: strings.HasSuffix(path, ":streamGenerateContent"),
		System: texts(obj(body["systemInstruction"])["parts"]),
	}
	for _, t := range list(body["tools"]) {
		req.Tools = append(req.Tools, toolNames(obj(t)["functionDeclarations"], func(d map[string]any) string { return str(d["name"]) })...)
	}
	config := obj(body["generationConfig"])
	req.JSON = str(config["responseMimeType"]) == "application/json"
	for _, raw := range list(body["contents"]) {
		c := obj(raw)
		role := str(c["role"])
		if role == "model" {
			role = "assistant"
		}
		var text []string
		for _, p := range list(c["parts"]) {
			part := obj(p)
			if resp := obj(part["functionResponse"]); resp != nil {
				req.Messages = append(req.Messages, Message{Role: "tool", Text: jsonText(resp["response"]), CallID: str(resp["id"])})
				continue
			}
			if t := str(part["text"]); t != "" && part["thought"] != true {
				text = append(text, t)
			}
		}
		if len(text) > 0 || role == "assistant" {
			req.Messages = append(req.Messages, Message{Role: role, Text: strings.Join(text, "\n")})
		}
	}
	return req
}

func geminiReply(w http.ResponseWriter, a answer) {
	req, step := a.req, a.step
	var parts []map[string]any
	if step.Thinking != "" {
		parts = append(parts, map[string]any{"text": step.Thinking, "thought": true})
	}
	if step.Text != "" {
		parts = append(parts, map[string]any{"text": step.Text})
	}
	if step.Call != nil {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": a.call, "name": step.Call.Name, "args": step.Call.Args}})
	}
	usage := map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
	response := func(parts []map[string]any, last bool) map[string]any {
		cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
		if last {
			cand["finishReason"] = "STOP"
		}
		r := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model, "responseId": "scripted_" + a.id}
		if last {
			r["usageMetadata"] = usage
		}
		return r
	}
	if !req.Stream {
		writeJSON(w, response(parts, true))
		return
	}
	e := newSSE(w)
	for i, p := range parts {
		e.event("", response([]map[string]any{p}, i == len(parts)-1))
	}
	if len(parts) == 0 {
		e.event("", response(nil, true))
	}
}

// jsonText is v as text: a string as it is, anything else as JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v) // v was decoded from JSON
	return string(b)
}
