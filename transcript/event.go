// Package transcript holds the rules of OpenClaw transcripts that decide
// what is searchable: which events are messages, what their text is, and
// which entries are on a session's active path. Pure Go, no SQLite: the
// extension's triggers and reconciliation apply these rules to tables.
package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Entry is what the store keeps of one transcript event (one JSONL line).
type Entry struct {
	Type      string
	ID        string // "" when the entry has no id
	HasParent bool   // the event has a parentId field (null counts)
	ParentID  string // the parentId, "" when null
	TargetID  string // where a leaf entry moves the leaf
	Side      bool   // appendMode "side": the entry does not move the leaf
	Role      string // message.role
	Timestamp int64  // epoch milliseconds, 0 when unknown
	Message   bool   // a user or assistant message with text: searchable
}

// Leaf reports whether the entry is a leaf entry (a rewind or branch switch).
func (e Entry) Leaf() bool { return e.Type == "leaf" }

// Reset reports whether the entry is a reset entry: OpenClaw's in-window
// /reset, which later entries do not cross (docs/store.md S6).
func (e Entry) Reset() bool { return e.Type == "reset" }

// ErrNoType is returned for an event without a "type".
var ErrNoType = errors.New(`event has no "type"`)

// Parse reads the entry of an event. It fails when the event is not a JSON
// object or has no type.
func Parse(data []byte) (Entry, error) {
	e, _, err := Read(data)
	return e, err
}

// Read reads the entry of an event and, for a message, its text (see
// MessageText; the text of a tool result or system message is read the same
// way, for sessions_history, but is never searchable), in one pass.
func Read(data []byte) (e Entry, text string, err error) {
	return read(data, allText)
}

// ReadIndexed is Read for the index: the text only of a searchable
// message (e.Message), "" for any other. A message whose role comes before
// its content, as OpenClaw writes them, then has the text of its tool
// results and system messages left unbuilt.
func ReadIndexed(data []byte) (e Entry, text string, err error) {
	e, text, err = read(data, indexedText)
	if !e.Message {
		text = ""
	}
	return e, text, err
}

// ReadEntry is Read without the text: the same entry, for less work when
// the text is not needed now (an event appended while its session is
// pending is indexed later).
func ReadEntry(data []byte) (Entry, error) {
	e, _, err := read(data, noText)
	return e, err
}

// What read builds of a message's text.
type textMode int

const (
	noText      textMode = iota
	allText              // of every message
	indexedText          // of user and assistant messages, once the role is read
)

func read(data []byte, mode textMode) (e Entry, text string, err error) {
	s := scanner{data: data, noText: mode == noText}
	if s.peek() != '{' {
		return Entry{}, "", errNotObject
	}
	var role string
	var content, textField messageContent
	var msgTimestamp int64
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			e.Type, _ = s.stringValue()
		case "id":
			e.ID = s.id()
		case "parentId":
			e.HasParent = true
			e.ParentID = s.id()
		case "targetId":
			e.TargetID = s.id()
		case "appendMode":
			v, _ := s.stringValue()
			e.Side = v == "side"
		case "timestamp":
			e.Timestamp = s.timestamp()
		case "message":
			role, content, textField, msgTimestamp = "", messageContent{}, messageContent{}, 0
			s.noText = mode == noText
			if s.peek() != '{' {
				s.skip(0)
				return
			}
			s.object(func(key []byte) {
				switch string(key) {
				case "role":
					role, _ = s.stringValue()
					if mode == indexedText {
						s.noText = role != "user" && role != "assistant"
					}
				case "content":
					content = s.content()
				case "text":
					textField = s.content()
				case "timestamp":
					msgTimestamp = s.timestamp()
				default:
					s.skip(1)
				}
			})
		default:
			s.skip(0)
		}
	})
	if s.err == nil && !s.atEnd() {
		s.fail("data after the event")
	}
	if s.err != nil {
		return Entry{}, "", fmt.Errorf("event is not a JSON object: %w", s.err)
	}
	if e.Type == "" {
		return Entry{}, "", ErrNoType
	}
	e.Role = role
	if e.Timestamp == 0 {
		e.Timestamp = msgTimestamp
	}
	if e.Type == "message" {
		// The text: the string content (trimmed), else message.text
		// (trimmed), else the joined blocks; nonBlank says whether it
		// is empty without building it.
		chosen := content
		switch {
		case content.isString:
			text = strings.TrimSpace(content.text)
		case textField.isString:
			chosen = textField
			text = strings.TrimSpace(textField.text)
		default:
			text = content.text
		}
		e.Message = chosen.nonBlank && (role == "user" || role == "assistant")
	}
	return e, text, nil
}

// MessageText returns the searchable text of a user or assistant message:
// the string content (trimmed), else message.text, else the non-blank text,
// input_text and output_text blocks joined by newlines. Thinking, images,
// tool calls and every other block are never searchable. ok is false when
// the event is not such a message or its text is blank.
func MessageText(data []byte) (text string, ok bool) {
	e, text, err := Read(data)
	if err != nil || !e.Message {
		return "", false
	}
	return text, true
}

// messageContent is message.content or message.text: a string, or the
// joined text of text, input_text and output_text blocks. nonBlank: the
// string, or a block, has a character that is not white space (text is
// left empty when the scanner reads no text).
type messageContent struct {
	isString bool
	nonBlank bool
	text     string
}

func (s *scanner) content() messageContent {
	switch s.peek() {
	case '"':
		b := s.str()
		if s.noText {
			return messageContent{isString: true, nonBlank: nonBlank(b)}
		}
		text := validString(b)
		return messageContent{isString: true, nonBlank: strings.TrimSpace(text) != "", text: text}
	case '[':
	default:
		s.skip(1)
		return messageContent{}
	}
	var b strings.Builder
	found := false
	s.array(func() {
		if s.peek() != '{' {
			s.skip(2)
			return
		}
		var typ, text string
		blank := true
		s.object(func(key []byte) {
			switch string(key) {
			case "type":
				typ, _ = s.stringValue()
			case "text":
				if s.noText {
					if s.kind() == kindString {
						blank = !nonBlank(s.str())
					} else {
						s.skip(3)
						blank = true
					}
					return
				}
				text, _ = s.stringValue()
				blank = strings.TrimSpace(text) == ""
			default:
				s.skip(3)
			}
		})
		if (typ != "text" && typ != "input_text" && typ != "output_text") || blank {
			return
		}
		found = true
		if s.noText {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
	})
	return messageContent{nonBlank: found, text: b.String()}
}

// nonBlank reports whether the string b, as validString would make it, has
// a character that is not white space: an invalid byte becomes U+FFFD,
// which is not.
func nonBlank(b []byte) bool { return len(bytes.TrimSpace(b)) > 0 }

// validString returns b as a string with each invalid UTF-8 byte replaced
// by U+FFFD, as encoding/json decodes strings.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out.WriteRune(r)
		b = b[n:]
	}
	return out.String()
}
