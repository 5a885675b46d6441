package transcript

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ToolRole reports whether a message of this role can hold tool text: an
// assistant's tool calls, or a tool result (docs/store.md S30).
func ToolRole(role string) bool {
	return role == "assistant" || role == "toolResult" || role == "tool"
}

// ToolText returns the tool text of a message event (docs/store.md S30,
// S31): for an assistant message, each tool call's name and its arguments
// as JSON, a line each; for a tool result (role toolResult or tool), its
// text, the string content or its text blocks joined by newlines. tool
// names the tool: the toolName of a result, the names of the calls joined
// by ", ". Of a long text only its first head and last tail bytes are kept,
// each cut at a character, so that what a huge output costs beside the
// event itself is bounded: x.Head, and x.Tail after x.Gap when bytes
// between them were left out. An event that is not such a message, or not
// JSON, has none.
func ToolText(data []byte, head, tail int) (tool string, x Excerpt) {
	s := scanner{data: data}
	if s.peek() != '{' {
		return "", Excerpt{}
	}
	var typ, role, toolName string
	c := toolContent{calls: newExcerpter(head, tail), texts: newExcerpter(head, tail), block: newExcerpter(head, tail)}
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
		return "", Excerpt{}
	case role == "assistant":
		return strings.Join(c.names, ", "), c.calls.excerpt()
	}
	return toolName, c.texts.excerpt()
}

// Excerpt is the start and the end of a long text (ToolText).
type Excerpt struct {
	Head, Tail string
	Gap        bool // bytes between Head and Tail were left out
}

// Text is the excerpt as one text: Head and Tail, joined by a line
// holding "…" where bytes between them were left out.
func (x Excerpt) Text() string {
	if x.Gap {
		return x.Head + "\n…\n" + x.Tail
	}
	return x.Head + x.Tail
}

// toolContent is what ToolText gathers of message.content: the calls and
// the text, and the text of the block being read.
type toolContent struct {
	calls, texts, block *excerpter
	names               []string
}

// excerpter keeps the first head and the last tail bytes of the lines
// added to it, and whether bytes between them were left out.
type excerpter struct {
	head, tail int
	h, t       []byte
	full, gap  bool // full: the head takes no more
	lines      bool // a line was added: the next starts with a newline
}

func newExcerpter(head, tail int) *excerpter { return &excerpter{head: head, tail: tail} }

func (e *excerpter) reset() { *e = excerpter{head: e.head, tail: e.tail, h: e.h[:0], t: e.t[:0]} }

// add appends part as a line of its own, without its surrounding space.
func (e *excerpter) add(part ...[]byte) {
	n := 0
	for _, p := range part {
		n += len(bytes.TrimSpace(p))
	}
	if n == 0 {
		return
	}
	if e.lines {
		e.write([]byte{'\n'})
	}
	e.lines = true
	for i, p := range part {
		if i == 0 {
			p = bytes.TrimLeftFunc(p, unicode.IsSpace)
		}
		if i == len(part)-1 {
			p = bytes.TrimRightFunc(p, unicode.IsSpace)
		}
		e.write(p)
	}
}

// addFrom appends what o kept as a line of its own.
func (e *excerpter) addFrom(o *excerpter) {
	if len(o.h) == 0 && len(o.t) == 0 {
		return
	}
	if o.gap {
		e.add(o.h)
		e.skip()
		e.write(bytes.TrimRightFunc(o.t, unicode.IsSpace))
		return
	}
	e.add(o.h, o.t)
}

// write appends p: to the head while it has room, then to the tail, which
// keeps only its last tail bytes.
func (e *excerpter) write(p []byte) {
	if !e.full {
		n := min(len(p), e.head-len(e.h))
		for n < len(p) && n > 0 && !utf8.RuneStart(p[n]) {
			n--
		}
		e.h = append(e.h, p[:n]...)
		if p = p[n:]; len(p) == 0 {
			return
		}
		e.full = true
	}
	if len(p) >= e.tail {
		e.gap = e.gap || len(e.t) > 0 || len(p) > e.tail
		e.t = append(e.t[:0], p[len(p)-e.tail:]...)
		return
	}
	if over := len(e.t) + len(p) - e.tail; over > 0 {
		e.gap = true
		e.t = e.t[:copy(e.t, e.t[over:])]
	}
	e.t = append(e.t, p...)
}

// skip records that bytes were left out here: the head ends, and the tail
// starts again after them.
func (e *excerpter) skip() {
	e.full, e.gap = true, true
	e.t = e.t[:0]
}

func (e *excerpter) excerpt() Excerpt {
	t := e.t
	if e.gap {
		for len(t) > 0 && !utf8.RuneStart(t[0]) {
			t = t[1:]
		}
	}
	return Excerpt{Head: validString(e.h), Tail: validString(t), Gap: e.gap}
}

func (s *scanner) toolContent(c *toolContent) {
	switch s.peek() {
	case '"':
		c.texts.add(s.str())
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
		var typ, name string
		var args []byte
		direct := false // the text went to c.texts: its type came first
		c.block.reset()
		s.object(func(key []byte) {
			switch string(key) {
			case "type":
				typ, _ = s.stringValue()
			case "text":
				switch {
				case s.kind() != kindString:
					s.skip(3)
				case textBlock(typ):
					c.texts.add(s.str())
					direct = true
				default:
					// The type may follow: kept aside, bounded.
					c.block.reset()
					c.block.add(s.str())
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
			c.calls.add([]byte(name+"\n"), args)
		default:
			if textBlock(typ) && !direct {
				c.texts.addFrom(c.block)
			}
		}
	})
}

// textBlock reports whether a content block of this type holds text.
func textBlock(typ string) bool { return typ == "text" || typ == "input_text" || typ == "output_text" }

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

// CutFront returns the longest suffix of s of at most n bytes that starts
// at a character.
func CutFront(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
