package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Visibility values of the options (docs/search.md).
const (
	visibilitySelf  = "self"
	visibilityTree  = "tree"
	visibilityAgent = "agent"
	visibilityAll   = "all"
	sandboxSpawned  = "spawned"
	sandboxAll      = "all"
)

var (
	visibilities        = []string{visibilitySelf, visibilityTree, visibilityAgent, visibilityAll}
	sandboxVisibilities = []string{sandboxSpawned, sandboxAll}
	identityFields      = []string{"caller", "visibility", "sandboxed", "sandboxVisibility", "agentToAgent"}
)

// member is one name and raw value of a JSON object, in the order written.
type member struct {
	name  string
	value json.RawMessage
}

// object is a JSON object read member by member, so that a repeated name is
// an error instead of the last one silently winning.
type object []member

func (o object) get(name string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// readObject reads a request body that must be one JSON object.
func readObject(r *http.Request) (object, *Error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fail(http.StatusRequestEntityTooLarge, "too_large", "", tooBig.Limit,
				fmt.Sprintf("the request body is over the limit of %d bytes", tooBig.Limit))
		}
		return nil, fail(http.StatusBadRequest, "bad_body", "", nil, "reading the request body: "+err.Error())
	}
	return parseObject(data)
}

func parseObject(data []byte) (object, *Error) {
	bad := func(msg string) *Error {
		return fail(http.StatusBadRequest, "malformed_json", "", nil, "the request body must be one JSON object: "+msg)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(jsonProblem(err))
	}
	if tok != json.Delim('{') {
		return nil, bad(fmt.Sprintf("it starts with %v", tok))
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(jsonProblem(err))
		}
		name := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, bad(jsonProblem(err))
		}
		if _, dup := o.get(name); dup {
			return nil, fail(http.StatusBadRequest, "duplicate_field", name, nil, fmt.Sprintf("field %q is given twice", name))
		}
		o = append(o, member{name, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, bad("there is data after the object")
	}
	return o, nil
}

func jsonProblem(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

// stringField reads a required, non-empty string member.
func stringField(o object, name string) (string, *Error) {
	raw, ok := o.get(name)
	if !ok || string(raw) == "null" {
		return "", fail(http.StatusBadRequest, "missing_field", name, nil, fmt.Sprintf("field %q is required", name))
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil || s == "" {
		return "", fail(http.StatusBadRequest, "invalid_field", name, raw, fmt.Sprintf("field %q must be a non-empty string", name))
	}
	return s, nil
}

// bindIdentity returns the options of a read: the body's members except
// skip, with the identity fields bound to the grant (docs/serve.md H2). A
// body may repeat the grant's identity or narrow it (a smaller visibility,
// sandboxed, fewer agents); naming another caller or widening anything is
// refused with 403 naming the field and value. With no grant (the loopback
// development mode) the body's identity is used as it is.
func bindIdentity(o object, skip string, g *Grant) (json.RawMessage, *Error) {
	var opts object
	for _, m := range o {
		if m.name != skip {
			opts = append(opts, m)
		}
	}
	if g != nil {
		bound, err := narrow(opts, *g)
		if err != nil {
			return nil, err
		}
		opts = bound
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range opts {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// narrow checks the identity members of opts against g and returns opts
// with every identity member set to what the request runs as.
func narrow(opts object, g Grant) (object, *Error) {
	forbidden := func(field string, value json.RawMessage, why string) *Error {
		return fail(http.StatusForbidden, "outside_grant", field, value, why)
	}
	invalid := func(field string, value json.RawMessage, why string) *Error {
		return fail(http.StatusBadRequest, "invalid_field", field, value, why)
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		return s, raw[0] == '"' && json.Unmarshal(raw, &s) == nil
	}
	vis, sandboxed, sandboxVis, a2a := g.Visibility, g.Sandboxed, g.SandboxVisibility, g.AgentToAgent
	if raw, ok := opts.get("caller"); ok && string(raw) != "null" {
		if s, _ := str(raw); s != g.Caller {
			return nil, forbidden("caller", raw, fmt.Sprintf("this token reads as %q; it may not name another caller", g.Caller))
		}
	}
	if raw, ok := opts.get("visibility"); ok && string(raw) != "null" {
		s, isStr := str(raw)
		if !isStr || !oneOf(s, visibilities...) {
			return nil, invalid("visibility", raw, "visibility must be one of "+strings.Join(visibilities, ", "))
		}
		// self is inside every visibility, and all contains tree and agent.
		if s != g.Visibility && s != visibilitySelf && g.Visibility != visibilityAll {
			return nil, forbidden("visibility", raw, fmt.Sprintf("this token may see at most visibility %q", g.Visibility))
		}
		vis = s
	}
	if raw, ok := opts.get("sandboxed"); ok && string(raw) != "null" {
		if string(raw) != "true" && string(raw) != "false" {
			return nil, invalid("sandboxed", raw, "sandboxed must be true or false")
		}
		if g.Sandboxed && string(raw) == "false" {
			return nil, forbidden("sandboxed", raw, "this token is sandboxed; it may not leave the sandbox")
		}
		sandboxed = string(raw) == "true"
	}
	if raw, ok := opts.get("sandboxVisibility"); ok && string(raw) != "null" {
		s, isStr := str(raw)
		if !isStr || !oneOf(s, sandboxVisibilities...) {
			return nil, invalid("sandboxVisibility", raw, "sandboxVisibility must be one of "+strings.Join(sandboxVisibilities, ", "))
		}
		if g.Sandboxed && g.SandboxVisibility == sandboxSpawned && s == sandboxAll {
			return nil, forbidden("sandboxVisibility", raw, `this token's sandbox sees only the sessions it spawned; it may not ask for "all"`)
		}
		if !g.Sandboxed || g.SandboxVisibility == sandboxAll || s == sandboxSpawned {
			sandboxVis = s
		}
	}
	if raw, ok := opts.get("agentToAgent"); ok && string(raw) != "null" {
		var req AgentToAgent
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if raw[0] != '{' || dec.Decode(&req) != nil {
			return nil, invalid("agentToAgent", raw, `agentToAgent must be an object like {"enabled":true,"allow":["*"]}`)
		}
		if req.Enabled {
			if a2a == nil || !a2a.Enabled {
				return nil, forbidden("agentToAgent", raw, "this token may not see other agents' sessions")
			}
			for _, p := range req.Allow {
				if !allowed(a2a.Allow, p) {
					return nil, forbidden("agentToAgent", raw, fmt.Sprintf("this token may not see agents matching %q", p))
				}
			}
		}
		a2a = &req
	}
	var bound object
	for _, m := range opts {
		if !oneOf(m.name, identityFields...) {
			bound = append(bound, m)
		}
	}
	enc := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	bound = append(bound, member{"caller", enc(g.Caller)}, member{"visibility", enc(vis)},
		member{"sandboxed", enc(sandboxed)}, member{"sandboxVisibility", enc(sandboxVis)})
	if a2a != nil {
		bound = append(bound, member{"agentToAgent", enc(a2a)})
	}
	return bound, nil
}

// allowed reports whether pattern is one of the grant's agent patterns (or
// the grant allows every agent): a request may drop patterns, not add them.
func allowed(grant []string, pattern string) bool {
	for _, p := range grant {
		if p == "*" || strings.EqualFold(p, pattern) {
			return true
		}
	}
	return false
}
