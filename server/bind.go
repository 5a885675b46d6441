package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
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
// skip, bound to the grant (docs/serve.md H2). The caller is the grant's
// (a body that names another caller is refused with 403), and the grant is
// the ceiling of the options (docs/search.md Q22), which a body may not
// set: whatever the body asks to see, sqlfuncs shows only what the grant
// shows too. A visibility option that the body leaves out, or sends as
// null, is the grant's, so a body without any sees what the grant sees.
// With no grant (the loopback development mode) the body is used as it is.
func bindIdentity(o object, skip string, g *Grant) (json.RawMessage, *Error) {
	var opts object
	for _, m := range o {
		if m.name != skip {
			opts = append(opts, m)
		}
	}
	if g != nil {
		bound, err := bindGrant(opts, *g)
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

func bindGrant(opts object, g Grant) (object, *Error) {
	if raw, ok := opts.get("caller"); ok && string(raw) != "null" {
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil || s != g.Caller {
			return nil, fail(http.StatusForbidden, "outside_grant", "caller", raw,
				fmt.Sprintf("this token reads as %q; it may not name another caller", g.Caller))
		}
	}
	if raw, ok := opts.get("ceiling"); ok {
		return nil, fail(http.StatusForbidden, "outside_grant", "ceiling", raw,
			"the ceiling of this token's reads is its grant; a request may not set it")
	}
	scope := g.scope()
	grant, _ := parseObject(scope) // the grant's own JSON
	var bound object
	for _, m := range opts {
		if m.name != "caller" && (string(m.value) != "null" || !slices.ContainsFunc(grant, func(gm member) bool { return gm.name == m.name })) {
			bound = append(bound, m)
		}
	}
	for _, m := range grant {
		if _, ok := bound.get(m.name); !ok {
			bound = append(bound, m)
		}
	}
	caller, _ := json.Marshal(g.Caller)
	return append(bound, member{"caller", caller}, member{"ceiling", scope}), nil
}
