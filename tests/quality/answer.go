package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Returned is one message an answer returned: its session and, when the
// system names it, the message's id in that session.
type Returned struct {
	Session string
	Message string
}

// Answer is what a system returned for one query, in the order it gave: the
// messages, and the distinct sessions in the order they first appear (a
// session may be returned with no message of its own). Bytes is the size of
// the answer as the system prints it, what a model pays to read it.
type Answer struct {
	Messages []Returned
	Sessions []string
	Bytes    int
}

// ReadSearchAnswer reads an answer of sessions_search whatever its shape:
// every object with a "messageId" is a returned message, of the session its
// own "sessionKey" names or, failing that, the nearest enclosing object's;
// sessions are the "sessionKey" values in the order they first appear. So
// the flat answer of docs/search.md Q13 and an answer grouped by session
// ({"sessionKey":…,"hits":[{"messageId":…}]}) read the same, in document
// order.
func ReadSearchAnswer(data []byte) (Answer, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := readNode(dec)
	if err != nil {
		return Answer{}, fmt.Errorf("sessions_search answer %.200q: %w", data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Answer{}, fmt.Errorf("sessions_search answer %.200q: more than one JSON value", data)
	}
	a := Answer{Bytes: len(data)}
	seen := map[string]bool{}
	var walk func(n node, session string)
	walk = func(n node, session string) {
		if n.fields != nil {
			if s, ok := n.field("sessionKey"); ok {
				session = s
				if !seen[s] {
					seen[s] = true
					a.Sessions = append(a.Sessions, s)
				}
			}
			if id, ok := n.field("messageId"); ok {
				a.Messages = append(a.Messages, Returned{session, id})
			}
		}
		for _, f := range n.fields {
			walk(f.value, session)
		}
		for _, e := range n.items {
			walk(e, session)
		}
	}
	walk(root, "")
	return a, nil
}

// node is a JSON value with its object fields in document order.
type node struct {
	fields []field // an object's fields; nil for anything else
	items  []node  // an array's elements
	str    *string // a string
}

type field struct {
	name  string
	value node
}

// field returns the string value of the object's field name.
func (n node) field(name string) (string, bool) {
	for _, f := range n.fields {
		if f.name == name && f.value.str != nil {
			return *f.value.str, true
		}
	}
	return "", false
}

// readNode reads the next JSON value of dec.
func readNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := node{fields: []field{}}
			for dec.More() {
				name, err := dec.Token()
				if err != nil {
					return n, err
				}
				value, err := readNode(dec)
				if err != nil {
					return n, err
				}
				n.fields = append(n.fields, field{name.(string), value})
			}
			_, err := dec.Token()
			return n, err
		case '[':
			var n node
			for dec.More() {
				e, err := readNode(dec)
				if err != nil {
					return n, err
				}
				n.items = append(n.items, e)
			}
			_, err := dec.Token()
			return n, err
		}
		return node{}, fmt.Errorf("unexpected %v", t)
	case string:
		return node{str: &t}, nil
	}
	return node{}, nil
}
