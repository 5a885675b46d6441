// Package scriptmodel is a model server for tests that drive real agent
// programs offline: an HTTP server on 127.0.0.1 that speaks enough of each
// provider's API for an agent to run a turn against it (Anthropic Messages,
// OpenAI Responses, OpenAI Chat Completions, Gemini generateContent), and
// answers from a Script instead of a model.
//
// A Script is a list of turns. A turn is recognised by a word of the user's
// message (its Prompt); its Steps are the model's replies in order: the
// request that follows the user's message gets the first step, the request
// after the agent has sent back one tool result the second, and so on. The
// server reads each request into one neutral Request whatever the API, so
// the script does not depend on the provider; only the encoding of the
// reply (streamed or not) does. Requests that offer no tools (titles,
// summaries, an agent's own checks) get Script.Otherwise.
package scriptmodel

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Script is what the model says.
type Script struct {
	Turns []Turn
	// Otherwise answers a request that matches no turn, or offers no tools;
	// nil: the text "ok", or "{}" when the request asks for JSON.
	Otherwise func(Request) Step
}

// Turn is one user turn of the conversation and the model's replies to it.
type Turn struct {
	// Prompt is a word of the user's message that only this turn's message
	// holds.
	Prompt string
	// Steps: Steps[i] answers the request made after i tool results of
	// this turn; the last step answers any request after that.
	Steps []Step
}

// Step is one reply of the model: its reasoning, its text, and the tool
// it calls (nil: none, the turn ends).
type Step struct {
	Thinking string
	Text     string
	Call     *Call
}

// Call is a tool call. ID is the call's id ("" gives call_<turn>_<step>).
type Call struct {
	ID   string
	Name string
	Args any // encoded as the call's JSON arguments
}

// Request is a request the server answered, read the same way whatever the
// API.
type Request struct {
	API      string // "anthropic", "responses", "chat" or "gemini"
	Path     string
	Model    string
	Stream   bool
	JSON     bool     // the reply must be JSON (a response schema or format)
	Tools    []string // the names of the tools offered
	System   string   // the system prompt or instructions
	Messages []Message
}

// Message is one message of a request's conversation.
type Message struct {
	Role   string // "user", "assistant" or "tool" (a tool result)
	Text   string
	CallID string // a tool result: the call it answers
}

// Server is a running scripted model.
type Server struct {
	URL string // http://127.0.0.1:port

	script Script
	srv    *http.Server
	ln     net.Listener

	mu       sync.Mutex
	requests []Request
	unknown  []string // requests no API took: "POST /path"
	errors   []string
}

// Start serves script on a free port of 127.0.0.1 until Close.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("scriptmodel: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, ln: ln}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln) //nolint:errcheck // ends with Close
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Problems lists the requests the server could not answer: unknown paths
// and bodies it could not read. A test prints them when an agent fails.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(append([]string(nil), s.unknown...), s.errors...)
}

// An api reads its requests and writes its replies.
type api struct {
	name string
	// match reports whether the request is this API's.
	match func(r *http.Request) bool
	// read turns a request body into a Request.
	read func(r *http.Request, body map[string]any) Request
	// reply writes an answer.
	reply func(w http.ResponseWriter, a answer)
	// other answers the API's requests that are not generations (token
	// counts, model lists); false when r is none of them.
	other func(w http.ResponseWriter, r *http.Request) bool
}

var apis = []api{anthropicAPI, responsesAPI, chatAPI, geminiAPI}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet) {
		return // a reachability check (Claude Code makes one)
	}
	for _, a := range apis {
		if a.other != nil && a.other(w, r) {
			return
		}
		if !a.match(r) {
			continue
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			s.fail(w, fmt.Sprintf("%s %s: the body is not a JSON object: %v", r.Method, r.URL.Path, err))
			return
		}
		req := a.read(r, body)
		req.API, req.Path = a.name, r.URL.Path
		s.mu.Lock()
		s.requests = append(s.requests, req)
		n := len(s.requests)
		s.mu.Unlock()
		step, turn, at := s.pick(req)
		ans := answer{req: req, step: step, id: strconv.Itoa(n)}
		if step.Call != nil {
			ans.call = step.Call.ID
			if ans.call == "" {
				ans.call = fmt.Sprintf("call_%d_%d", turn, at)
			}
		}
		a.reply(w, ans)
		return
	}
	s.mu.Lock()
	s.unknown = append(s.unknown, r.Method+" "+r.URL.String())
	s.mu.Unlock()
	http.Error(w, "scriptmodel: no API serves "+r.URL.Path, http.StatusNotFound)
}

func (s *Server) fail(w http.ResponseWriter, msg string) {
	s.mu.Lock()
	s.errors = append(s.errors, msg)
	s.mu.Unlock()
	http.Error(w, msg, http.StatusBadRequest)
}

// answer is the server's reply to one request.
type answer struct {
	req  Request
	step Step
	id   string // the request's number: the ids of the reply and its parts end with it, as a provider's are unique
	call string // the id of the step's call; "" without one
}

// pick picks the step that answers req: the turn whose prompt is in the
// latest user message, the step after as many tool results as follow that
// message. It returns the turn's and the step's index (-1 for Otherwise).
func (s *Server) pick(req Request) (Step, int, int) {
	if len(req.Tools) > 0 {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			m := req.Messages[i]
			if m.Role != "user" {
				continue
			}
			for t, turn := range s.script.Turns {
				if turn.Prompt == "" || len(turn.Steps) == 0 || !strings.Contains(m.Text, turn.Prompt) {
					continue
				}
				results := 0
				for _, later := range req.Messages[i+1:] {
					if later.Role == "tool" {
						results++
					}
				}
				at := min(results, len(turn.Steps)-1)
				return turn.Steps[at], t, at
			}
		}
	}
	if s.script.Otherwise != nil {
		return s.script.Otherwise(req), -1, -1
	}
	if req.JSON {
		return Step{Text: "{}"}, -1, -1
	}
	return Step{Text: "ok"}, -1, -1
}

// args is the JSON of a call's arguments.
func (c *Call) args() string {
	b, err := json.Marshal(c.Args)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// sse writes server-sent events.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; name "" writes only its data.
func (e sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (e sse) raw(line string) {
	fmt.Fprintf(e.w, "data: %s\n\n", line)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Helpers to read the loosely typed JSON of a request.

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// texts joins the "text" of each block of a content list (or the content
// when it is a string), skipping blocks of the types in skip.
func texts(content any, skip ...string) string {
	if s, ok := content.(string); ok {
		return s
	}
	var b strings.Builder
	for _, raw := range list(content) {
		block := obj(raw)
		typ := str(block["type"])
		skipped := false
		for _, t := range skip {
			skipped = skipped || typ == t
		}
		if skipped {
			continue
		}
		if t := str(block["text"]); t != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

func toolNames(tools any, name func(map[string]any) string) []string {
	var out []string
	for _, t := range list(tools) {
		if n := name(obj(t)); n != "" {
			out = append(out, n)
		}
	}
	return out
}
