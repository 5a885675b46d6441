package scriptmodel

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Each API, asked over HTTP as an agent asks it: the request after the
// user's message gets the turn's first step (its thinking and its tool
// call, with the call's id), the request after the tool's result the next
// (the answer), a request of another turn that turn's steps, and a request
// without tools the answer of Otherwise.
func TestEachAPIFollowsTheScript(t *testing.T) {
	s, err := Start(Script{Turns: []Turn{
		{Prompt: "uno", Steps: []Step{
			{Thinking: "pienso", Call: &Call{Name: "leer", Args: map[string]any{"ruta": "/tmp/a"}}},
			{Text: "respuesta uno"},
		}},
		{Prompt: "dos", Steps: []Step{{Thinking: "de nuevo", Text: "respuesta dos"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name, path, body string
		want             []string // in the reply, in this order
	}{
		{"anthropic, first step", "/v1/messages?beta=true",
			`{"model":"m","stream":true,"tools":[{"name":"leer"}],"messages":[{"role":"user","content":[{"type":"text","text":"uno"}]}]}`,
			[]string{`"thinking":"pienso","type":"thinking_delta"`, `"signature_delta"`, `"id":"call_0_0"`, `"type":"tool_use"`, `"partial_json":"{\"ruta\":\"/tmp/a\"}"`, `"stop_reason":"tool_use"`}},
		{"anthropic, after the tool result", "/v1/messages",
			`{"model":"m","stream":false,"tools":[{"name":"leer"}],"messages":[{"role":"user","content":"uno"},
			{"role":"assistant","content":[{"type":"tool_use","id":"call_0_0","name":"leer","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0_0","content":"contenido"}]}]}`,
			[]string{`"text":"respuesta uno"`, `"stop_reason":"end_turn"`}},
		{"anthropic, without tools", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"uno"}]}`,
			[]string{`"text":"ok"`}},
		{"responses, first step", "/v1/responses",
			`{"model":"m","stream":true,"tools":[{"type":"function","name":"leer"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"uno"}]}]}`,
			[]string{`"type":"response.created"`, `"text":"pienso","type":"summary_text"`, `"call_id":"call_0_0"`, `"arguments":"{\"ruta\":\"/tmp/a\"}"`, `"type":"response.completed"`}},
		{"responses, the second turn", "/v1/responses",
			`{"model":"m","stream":true,"tools":[{"type":"function","name":"leer"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"uno"}]},
			{"type":"function_call","call_id":"call_0_0","name":"leer","arguments":"{}"},{"type":"function_call_output","call_id":"call_0_0","output":"contenido"},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"dos"}]}]}`,
			[]string{`"text":"de nuevo"`, `"delta":"respuesta dos"`, `"text":"respuesta dos","type":"output_text"`}},
		{"chat, first step", "/v1/chat/completions",
			`{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"leer"}}],"messages":[{"role":"system","content":"s"},{"role":"user","content":"uno"}]}`,
			[]string{`"reasoning_content":"pienso"`, `"tool_calls":[{"function":{"arguments":"{\"ruta\":\"/tmp/a\"}","name":"leer"},"id":"call_0_0"`, `"finish_reason":"tool_calls"`, `data: [DONE]`}},
		{"chat, after the tool result", "/v1/chat/completions",
			`{"model":"m","tools":[{"type":"function","function":{"name":"leer"}}],"messages":[{"role":"user","content":"uno"},
			{"role":"assistant","tool_calls":[{"id":"call_0_0","type":"function","function":{"name":"leer","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_0_0","content":"contenido"}]}`,
			[]string{`"finish_reason":"stop"`, `"content":"respuesta uno"`}},
		{"chat, a title without tools", "/v1/chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"a title for: uno"}]}`, []string{`"content":"ok"`}},
		{"gemini, first step", "/v1beta/models/m:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"uno"}]}],"tools":[{"functionDeclarations":[{"name":"leer"}]}]}`,
			[]string{`"text":"pienso","thought":true`, `"functionCall":{"args":{"ruta":"/tmp/a"},"id":"call_0_0","name":"leer"}`, `"finishReason":"STOP"`}},
		{"gemini, after the tool result", "/v1beta/models/m:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"uno"}]},{"role":"model","parts":[{"functionCall":{"name":"leer","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"leer","response":{"output":"contenido"}}}]}],"tools":[{"functionDeclarations":[{"name":"leer"}]}]}`,
			[]string{`"text":"respuesta uno"`}},
		{"gemini, JSON without tools", "/v1beta/models/m:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"uno"}]}],"generationConfig":{"responseMimeType":"application/json"}}`,
			[]string{`"text":"{}"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(s.URL+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			rest := string(body)
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%s (%s): the reply lacks %s after what came before:\n%s", tt.path, resp.Status, w, body)
				}
				rest = rest[i+len(w):]
			}
		})
	}
	if p := s.Problems(); len(p) != 0 {
		t.Errorf("problems: %q", p)
	}
	// A path no API serves is a problem, said as such.
	resp, err := http.Post(s.URL+"/v2/unknown", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(s.Problems()) != 1 || s.Problems()[0] != "POST /v2/unknown" {
		t.Errorf("unknown path: %s, problems %q", resp.Status, s.Problems())
	}
}
