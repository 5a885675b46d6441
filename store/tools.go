package store

import (
	"fmt"
	"strings"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/transcript"
)

// Tool text (docs/store.md S30-S32): the index keeps, beside the messages,
// the tool calls and tool results on each session's active path, in a
// table of its own (sessionsearch_tools) that a search reads only when its
// scope asks for them (docs/search.md Q33).
//
// Only when the store is switched to keep it (S33-S35): indexing tool
// output costs a first import about half its time again, so a store does
// not keep it unless asked (SetToolIndex). Off, the tool index, its views
// and the trigger's statements for it do not exist, and the bulk load,
// Repath and Reconcile do no tool work.

// toolIndexKey is the sessionsearch_meta row, '1', of a store that keeps
// the tool index.
const toolIndexKey = "tool_index"

// toolTable is the tool index, in a store that keeps it.
var toolTable = object{"VIRTUAL TABLE", "sessionsearch_tools", `USING fts5(text, tokenize='sessionsearch',
		content='sessionsearch_tool_content', content_rowid='id')`}

// toolViews are the tool index's views, in a store that keeps it.
var toolViews = []object{
	// What the tool index holds: the masked tool text of each active
	// entry that may have some (an empty text for an assistant message
	// without tool calls).
	{"VIEW", "sessionsearch_tool_content", `(id, text) AS
		SELECT e.id, sessionsearch_tool_text(t.event)
		FROM sessionsearch_entries AS e
		JOIN sessionsearch_sessions AS s ON s.sid = e.id >> 32
		JOIN transcript_events AS t ON t.session_key = s.session_key AND t.seq = e.id & 4294967295
		WHERE e.active AND ` + toolRolesSQL},
	// The entries of the tool index, by FTS5 rowid, as
	// sessionsearch_messages has the messages.
	{"VIEW", "sessionsearch_tool_entries", `AS
		SELECT e.id AS rowid, s.session_key, e.entry_id AS message_id, e.role, e.ts AS timestamp, s.pending
		FROM sessionsearch_entries AS e JOIN sessionsearch_sessions AS s ON s.sid = e.sid
		WHERE e.active AND ` + toolRolesSQL},
}

// ToolIndexOn reports whether the store in c's database keeps the tool
// index (S33): false too when there is no store yet.
func ToolIndexOn(c Conn) (bool, error) {
	m, err := readMeta(c)
	return m.tools, err
}

// SetToolIndex is sessionsearch_tool_index(on) (S33, S34): it switches the
// store to keep the tool index or not, in one transaction, creating the
// store first when there is none. On, the index is built from every
// active entry already stored (FTS5's rebuild, which reads the content
// view a row at a time and writes its terms out as its buffer fills:
// memory does not grow with the store); off, the index is dropped.
// Switching to what the store already does changes nothing.
func SetToolIndex(c Conn, on bool) error {
	if _, err := Migrate(c); err != nil {
		return err
	}
	m, err := readMeta(c)
	if err != nil || m.tools == on {
		return err
	}
	return atomically(c, m, func() error {
		sql := `DELETE FROM sessionsearch_meta WHERE key = '` + toolIndexKey + `'`
		if on {
			sql = `INSERT INTO sessionsearch_meta(key, value) VALUES ('` + toolIndexKey + `', '1')
				ON CONFLICT(key) DO UPDATE SET value = excluded.value`
		}
		if err := c.Exec(sql); err != nil {
			return err
		}
		m.tools = on
		return migrate(c, m)
	})
}

// ToolIndexSwitch is the statement that switches a store's tool index on,
// which the refusal of a tool scope on a store without it names
// (ToolScopeError), and by which serve tells that refusal from others.
const ToolIndexSwitch = "SELECT sessionsearch_tool_index(1)"

// ToolScopeError is the error of a search whose scope names tool calls or
// results (scope, as given) on a store that does not keep the tool index
// (S35, docs/search.md Q36), when err is SQLite's for the missing table;
// any other err is returned as it is.
func ToolScopeError(scope []string, err error) error {
	if err == nil || !strings.Contains(err.Error(), "no such table: sessionsearch_tool") {
		return err
	}
	return fmt.Errorf("scope %q searches tool calls and results, which this store does not index: switch tool indexing on with %s (or sessionsearch import --tools), once, and search again",
		strings.Join(scope, ","), ToolIndexSwitch)
}

// ToolTextLimit bounds the tool text the index keeps of one entry: all of
// its masked text up to this size, else its first and its last half of it
// (S31), so that the end of a long output, where a build or a test says
// what failed, is searchable too.
const ToolTextLimit = 256 << 10

// toolRedactMargin is how much more than each half is read and masked
// before the cut, so that a secret that crosses a cut is still recognized
// whole: longer than any secret the redaction rules match (a 4096-bit RSA
// private key takes about 3.3 KiB).
const toolRedactMargin = 16 << 10

// toolRolesSQL is the condition on an entry e whose tool text the index
// keeps when e is active: transcript.ToolRole in SQL.
const toolRolesSQL = `e.role IN ('assistant', 'toolResult', 'tool')`

// ToolIndexedText is what the index keeps of the tool text of an event
// (JSON): masked, at most ToolTextLimit bytes and a line "…" where the
// middle of a longer text is left out. tool names the tool
// (transcript.ToolText).
func ToolIndexedText(event []byte) (tool, text string) {
	half := ToolTextLimit / 2
	tool, x := transcript.ToolText(event, half+toolRedactMargin, half+toolRedactMargin)
	if !x.Gap {
		// The whole text: masked as one, then cut only if it is long.
		whole, _ := redact.Text(x.Head + x.Tail)
		if len(whole) <= ToolTextLimit {
			return tool, whole
		}
		return tool, transcript.Excerpt{Head: transcript.Cut(whole, half), Tail: transcript.CutFront(whole, half), Gap: true}.Text()
	}
	return tool, transcript.Excerpt{Head: maskedStart(x.Head, half), Tail: maskedEnd(x.Tail, half), Gap: true}.Text()
}

// maskedStart is raw's first n bytes, masked: the cut is made in raw, at a
// character, and moved past a secret that crosses it, so that what is kept
// was masked with all of raw after it in view, however much shorter the
// masks are than what they replace.
func maskedStart(raw string, n int) string {
	spans := redact.Secrets(raw)
	cut := len(transcript.Cut(raw, n))
	kept := spans[:0]
	for _, sp := range spans {
		if sp.Start >= cut {
			break
		}
		cut = max(cut, sp.End)
		kept = append(kept, sp)
	}
	return redact.Apply(raw[:cut], kept)
}

// maskedEnd is raw's last n bytes, masked, as maskedStart keeps its first:
// the cut is moved back to the start of a secret that crosses it.
func maskedEnd(raw string, n int) string {
	spans := redact.Secrets(raw)
	cut := len(raw) - len(transcript.CutFront(raw, n))
	i := 0
	for i < len(spans) && spans[i].End <= cut {
		i++
	}
	if i < len(spans) {
		cut = min(cut, spans[i].Start)
	}
	kept := make([]redact.Span, 0, len(spans)-i)
	for _, sp := range spans[i:] {
		kept = append(kept, redact.Span{Start: sp.Start - cut, End: sp.End - cut, Kind: sp.Kind})
	}
	return redact.Apply(raw[cut:], kept)
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
	tool, _ := transcript.ToolText(json, 0, 0)
	return tool
}
