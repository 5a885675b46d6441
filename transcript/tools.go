package transcript

import (
	"strings"
	"unicode/utf8"
)

// ToolRole reports whether a message of this role can hold tool text: an
// assistant's tool calls, or a tool result (docs/store.md S30).
func ToolRole(role string) bool {
	return role == "assistant" || role == "toolResult" || role == "tool"
}

// ToolText returns the tool text of a message event (docs/store.md S30):
// for an assistant message, each tool call's name and its arguments as
// JSON, a line each; for a tool result (role toolResult or tool), its text,
// the string content or its text blocks joined by newlines. tool names the
// tool: the toolName of a result, the names of the calls joined by ", ".
// The text is a prefix of at most limit bytes, cut at a character, so that
// what a huge output costs beside the event itself is bounded by limit. An
// event that is not such a message, or not JSON, has none.
func ToolText(data []byte, limit int) (tool, text string) {
	s := scanner{data: data}
	if s.peek() != '{' {
		return "", ""
	}
	var typ, role, toolName string
	var c toolContent
	c.limit = limit
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			typ, _ = s.stringValue()
		case "message":
			if s.peek() != '{' {
				s.skip(0)
				return
			}
			s.object(func(key []byte) {
				switch string(key) {
				case "role":
					role, _ = s.stringValue()
				case "toolName":
					toolName, _ = s.stringValue()
				case "content":
					s.toolContent(&c)
				default:
					s.skip(1)
				}
			})
		default:
			s.skip(0)
		}
	})
	switch {
	case s.err != nil || typ != "message" || !ToolRole(role):
		return "", ""
	case role == "assistant":
		return strings.Join(c.names, ", "), c.calls.String()
	}
	return toolName, c.texts.String()
}

// toolContent is what ToolText gathers of message.content: the calls and
// the text, each at most limit bytes.
type toolContent struct {
	limit        int
	calls, texts strings.Builder
	names        []string
}

// prefix is the string of b, but no more than a few bytes past limit (add
// cuts it at a character): a huge output is not copied whole.
func (c *toolContent) prefix(b []byte) string {
	return validString(b[:min(len(b), c.limit+utf8.UTFMax)])
}

// add appends part to b as a line of its own, as much of it as fits.
func (c *toolContent) add(b *strings.Builder, part string) {
	part = strings.TrimSpace(part)
	room := c.limit - b.Len()
	if part == "" || room <= 1 {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
		room--
	}
	b.WriteString(Cut(part, room))
}

func (s *scanner) toolContent(c *toolContent) {
	switch s.peek() {
	case '"':
		c.add(&c.texts, c.prefix(s.str()))
		return
	case '[':
	default:
		s.skip(1)
		return
	}
	s.array(func() {
		if s.peek() != '{' {
			s.skip(2)
			return
		}
		var typ, text, name string
		var args []byte
		s.object(func(key []byte) {
			switch string(key) {
			case "type":
				typ, _ = s.stringValue()
			case "text":
				if s.kind() == kindString {
					text = c.prefix(s.str())
				} else {
					s.skip(3)
				}
			case "name":
				name, _ = s.stringValue()
			case "arguments":
				start := s.pos
				s.skip(3)
				if s.err == nil {
					args = s.data[start:s.pos]
				}
			default:
				s.skip(3)
			}
		})
		switch typ {
		case "toolCall":
			c.names = append(c.names, name)
			c.add(&c.calls, name+"\n"+c.prefix(args))
		case "text", "input_text", "output_text":
			c.add(&c.texts, text)
		}
	})
}

// Cut returns the longest prefix of s of at most n bytes that ends at a
// character.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
