package store

import (
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Tool text (docs/store.md S30-S32): the index keeps, beside the messages,
// the tool calls and tool results on each session's active path, in a
// table of its own (sessionsearch_tools) that a search reads only when its
// scope asks for them (docs/search.md Q33).

// ToolTextLimit bounds the tool text the index keeps of one entry: the
// first 256 KiB of its masked text (S31).
const ToolTextLimit = 256 << 10

// toolRedactMargin is how much more than ToolTextLimit is masked before
// the cut, so that a secret that crosses the cut is still recognized
// whole: longer than any secret the redaction rules match (a 4096-bit RSA
// private key takes about 3.3 KiB).
const toolRedactMargin = 16 << 10

// toolRolesSQL is the condition on an entry e whose tool text the index
// keeps when e is active: transcript.ToolRole in SQL.
const toolRolesSQL = `e.role IN ('assistant', 'toolResult', 'tool')`

// ToolIndexedText is what the index keeps of the tool text of an event
// (JSON): masked, at most ToolTextLimit bytes. tool names the tool
// (transcript.ToolText).
func ToolIndexedText(event []byte) (tool, text string) {
	tool, text = transcript.ToolText(event, ToolTextLimit+toolRedactMargin)
	if text == "" {
		return tool, ""
	}
	text, _ = redact.Text(text)
	return tool, transcript.Cut(text, ToolTextLimit)
}

// ToolText is sessionsearch_tool_text(session_key, seq, event): the
// masked tool text of a stored event (JSON or a frame), "" when it has
// none or does not decode.
func (s *State) ToolText(event []byte) string {
	json, err := EventJSON(event, s.frame)
	if err != nil {
		return ""
	}
	if IsFrame(event) {
		s.frame = json
	}
	_, text := ToolIndexedText(json)
	return text
}

// ToolOf returns the tool an event names (ToolIndexedText's tool).
func ToolOf(event []byte) string {
	json, err := EventJSON(event, nil)
	if err != nil {
		return ""
	}
	tool, _ := transcript.ToolText(json, 0)
	return tool
}
