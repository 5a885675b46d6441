package sqlfuncs

import (
	"bytes"
	"encoding/json"
	"math"
)

// The results of sessions_history and sessions_search are JSON whose size is
// capped by maxBytes. Sizes are measured on the bytes that are returned: each
// element is encoded once with encoding/json (HTML escaping off, so "<" stays
// one byte), and the envelope is counted with the flags it will carry; the
// history reserves its longest flags, as they are known only at the end. So
// the output never exceeds maxBytes. The envelope itself (the session key,
// the flags) is never cut: a maxBytes smaller than it gives an empty list,
// not broken JSON.

// OmittedText replaces the text of a history message that does not fit
// maxBytes even alone.
const OmittedText = "[sessions_history omitted: message too large]"

// HistoryMessage is one message of a session's active path.
type HistoryMessage struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Timestamp int64  `json:"timestamp"` // epoch ms
	Text      string `json:"text"`
}

// HistoryResult is the answer of sessions_history, messages oldest first.
type HistoryResult struct {
	SessionKey string           `json:"sessionKey"`
	Messages   []HistoryMessage `json:"messages"`
	Truncated  bool             `json:"truncated"`
	HasMore    bool             `json:"hasMore"`
}

// JSON encodes the result as
// {"sessionKey","messages":[{"id","role","timestamp","text"}],"truncated","hasMore"}.
func (r HistoryResult) JSON() []byte {
	if r.Messages == nil {
		r.Messages = []HistoryMessage{}
	}
	return encodeJSON(r)
}

// historyRoles are the roles sessions_history returns; tool roles only with
// includeTools. Other roles on the path (system, custom ones) are left out,
// as they are never searchable either.
var historyRoles = map[string]bool{"user": true, "assistant": true}
var toolRoles = map[string]bool{"toolResult": true, "tool": true}

// HistoryRole reports whether sessions_history returns messages of role.
func HistoryRole(role string, includeTools bool) bool {
	return historyRoles[role] || (includeTools && toolRoles[role])
}

// HistoryWindowReach is how many of a path's messages HistoryWindow needs
// to give the answer it gives over the whole path, so that a caller
// reading a long session reads no more: without an anchor, the newest
// limit+1 (the one more tells HasMore); with one, the anchor and up to
// perSide on each side of it (a window has at most limit-1 on a side, and
// one more tells HasMore).
func HistoryWindowReach(limit int) (newest, perSide int) { return limit + 1, limit }

// HistoryWindow chooses, redacts and caps the messages sessions_history
// returns. path is the session's active path, oldest first; redact is the
// output redactor and must not be nil.
//
//   - Roles: user and assistant; with IncludeTools also toolResult and tool.
//     The limit and the anchor apply to the messages left after that.
//   - Without MessageID: the newest Limit messages.
//   - With MessageID: a window of up to Limit messages that starts at the
//     anchor and grows alternately one older, one newer (older first, as in
//     OpenClaw); when one side runs out the other keeps growing. An anchor
//     that is not among the messages (not on the active path, or a tool
//     message without IncludeTools) gives no messages and both flags false,
//     not an error.
//   - Each text is redacted, then cut to at most MaxChars characters, the
//     last of them "…" (CutChars).
//   - maxBytes: messages are added from the newest (or from the anchor,
//     alternating as above) while the JSON fits; a side stops at the first
//     message that does not fit, so the result stays contiguous and what is
//     dropped is the oldest (or the farthest from the anchor). A message too
//     large on its own keeps its id, role and timestamp with OmittedText.
//
// Truncated is set when a text was cut, a message was omitted, or a message
// of the window was dropped for maxBytes. HasMore is set when the session
// has messages before or after the returned ones (the anchor window can
// have both).
func HistoryWindow(sessionKey string, path []HistoryMessage, o HistoryOptions, redact func(string) string) HistoryResult {
	res := HistoryResult{SessionKey: sessionKey, Messages: []HistoryMessage{}}
	var msgs []HistoryMessage
	for _, m := range path {
		if HistoryRole(m.Role, o.IncludeTools) {
			msgs = append(msgs, m)
		}
	}
	n := len(msgs)
	if n == 0 {
		return res
	}

	// The window by count: [start, end), grown from anchor.
	start, end, anchor := max(0, n-o.Limit), n, n-1
	if o.MessageID != "" {
		anchor = -1
		for i, m := range msgs {
			if m.ID == o.MessageID {
				anchor = i
				break
			}
		}
		if anchor < 0 {
			return res
		}
		start, end = growWindow(anchor, 0, n, o.Limit, func(int) bool { return true })
	}

	// The window by bytes, grown the same way inside the count window.
	// "false" is longer than "true", so reserving the envelope with both
	// flags false covers whatever the flags become.
	budget := o.MaxBytes - len(encodeJSON(HistoryResult{SessionKey: sessionKey, Messages: []HistoryMessage{}}))
	prepared := make([]HistoryMessage, end)
	used := 0
	fits := func(i int) bool {
		m := msgs[i]
		red := redact(m.Text)
		m.Text = CutChars(red, o.MaxChars)
		res.Truncated = res.Truncated || len(m.Text) != len(red)
		size := len(encodeJSON(m))
		if size > budget {
			m.Text = OmittedText
			size = len(encodeJSON(m))
			res.Truncated = true
		}
		if used > 0 {
			size++ // the comma
		}
		if used+size > budget {
			return false
		}
		used += size
		prepared[i] = m
		return true
	}
	lo, hi := anchor, anchor
	switch {
	case o.MessageID == "":
		lo, hi = end, end
		for lo > start && fits(lo-1) {
			lo--
		}
	case fits(anchor):
		lo, hi = growWindow(anchor, start, end, end-start, fits)
	}
	if lo != start || hi != end {
		res.Truncated = true
	}
	for i := lo; i < hi; i++ {
		res.Messages = append(res.Messages, prepared[i])
	}
	res.HasMore = lo > 0 || hi < n
	return res
}

// growWindow grows [anchor, anchor+1) inside [floor, ceil) to at most limit
// elements, alternately one older and one newer, older first. add decides
// whether an element may join; a side that is refused stops growing.
func growWindow(anchor, floor, ceil, limit int, add func(i int) bool) (lo, hi int) {
	lo, hi = anchor, anchor+1
	older, newer := true, true
	for hi-lo < limit && (older || newer) {
		older = older && lo > floor
		if older {
			if add(lo - 1) {
				lo--
			} else {
				older = false
			}
		}
		newer = newer && hi < ceil && hi-lo < limit
		if newer {
			if add(hi) {
				hi++
			} else {
				newer = false
			}
		}
	}
	return lo, hi
}

// SearchHit is one hit of sessions_search.
type SearchHit struct {
	SessionKey string  `json:"sessionKey"`
	MessageID  string  `json:"messageId"`
	Role       string  `json:"role"`
	Timestamp  int64   `json:"timestamp"` // epoch ms
	Snippet    string  `json:"snippet"`
	Score      float64 `json:"score"` // higher is better
	// How the message matched (docs/search.md Q26): "all", "forms" or
	// "some" of the query's words, and which words it holds when not all.
	Match   string   `json:"match,omitempty"`
	Words   []string `json:"words,omitempty"`
	Repeats int      `json:"repeats,omitempty"` // near-identical messages folded into this one (Q30)
	// With group session, the score of the hit's session (Q30).
	SessionScore float64 `json:"sessionScore,omitempty"`
	// With a scope beyond the messages (Q33): what the hit is (message,
	// toolCall or toolResult) and, for tool text, which tool.
	Kind string `json:"kind,omitempty"`
	Tool string `json:"tool,omitempty"`
}

// Kinds of a search hit (SearchHit.Kind).
const (
	HitMessage    = "message"
	HitToolCall   = "toolCall"
	HitToolResult = "toolResult"
)

// SearchResult is the answer of sessions_search.
type SearchResult struct {
	Results   []SearchHit `json:"results"`
	Indexing  bool        `json:"indexing"`
	Truncated bool        `json:"truncated"`
	Time      *TimeRange  `json:"time,omitempty"` // the period a time phrase bounded the search to (Q41)
}

// TimeRange is the period a time phrase of the query bounded a search to
// (docs/search.md Q41): the phrase as the query wrote it, and the bounds
// the search applied, in epoch milliseconds (after < timestamp < before),
// the options' after and before included.
type TimeRange struct {
	Phrase string `json:"phrase"`
	After  int64  `json:"after"`
	Before int64  `json:"before"`
}

// SearchJSON encodes the answer of sessions_search as
// {"results":[{"sessionKey","messageId","role","timestamp","snippet","score"}],"indexing","truncated"},
// with "time" when period is not nil.
// If it would exceed maxBytes, whole results are dropped from the end (the
// lowest ranked) until it fits, and truncated is set. A score that is not a
// finite number, which JSON cannot carry, is written as 0.
func SearchJSON(results []SearchHit, indexing, truncated bool, maxBytes int, period *TimeRange) []byte {
	// The hits are written once, one after another; ends[k] is where the
	// answer would stop with k+1 of them, before the tail that closes the
	// array and gives indexing and truncated. That is what encoding the
	// whole SearchResult gives (TestAppendHit).
	out := append(make([]byte, 0, 256*len(results)+64), searchHead...)
	ends := make([]int, len(results))
	for i, hit := range results {
		if math.IsNaN(hit.Score) || math.IsInf(hit.Score, 0) {
			hit.Score = 0
		}
		if math.IsNaN(hit.SessionScore) || math.IsInf(hit.SessionScore, 0) {
			hit.SessionScore = 0
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = appendHit(out, hit)
		ends[i] = len(out)
	}
	if tail := searchTail(indexing, truncated, period); len(out)+len(tail) <= maxBytes {
		return append(out, tail...)
	}
	// Whole hits go from the end until it fits; at least one goes, or
	// truncated would lie.
	tail := searchTail(indexing, true, period)
	keep := 0
	for keep < len(results)-1 && ends[keep]+len(tail) <= maxBytes {
		keep++
	}
	out = out[:len(searchHead)]
	if keep > 0 {
		out = out[:ends[keep-1]]
	}
	return append(out, tail...)
}

// encodeJSON is json.Marshal without HTML escaping and without the newline
// an Encoder appends. The values encoded here cannot fail to encode.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("sqlfuncs: encoding " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
