package sqlfuncs

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendHit appends hit as encodeJSON writes it, by hand: sessions_search
// encodes every result, and encoding/json's reflection was 5% of a search
// with ten results. What the hand path does not write as encoding/json
// would (a string that needs escapes, a score written with an exponent),
// it leaves to encodeJSON; TestAppendHit and FuzzAppendHit check that the
// bytes are the same.
func appendHit(b []byte, hit SearchHit) []byte {
	b = append(b, `{"sessionKey":`...)
	b = appendJSONString(b, hit.SessionKey)
	b = append(b, `,"messageId":`...)
	b = appendJSONString(b, hit.MessageID)
	b = append(b, `,"role":`...)
	b = appendJSONString(b, hit.Role)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, hit.Timestamp, 10)
	b = append(b, `,"snippet":`...)
	b = appendJSONString(b, hit.Snippet)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, hit.Score)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string the way encodeJSON does
// (no HTML escaping): as it is when it needs no escape, else through
// encodeJSON.
func appendJSONString(b []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' {
			return append(b, encodeJSON(s)...)
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	if !ascii {
		// encoding/json writes invalid UTF-8 as U+FFFD and escapes the
		// line and paragraph separators.
		if !utf8.ValidString(s) || containsSeparator(s) {
			return append(b, encodeJSON(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// containsSeparator reports whether s holds U+2028 or U+2029 (E2 80 A8/A9).
func containsSeparator(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xe2 && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			return true
		}
	}
	return false
}

// appendJSONFloat appends f as encoding/json does: without an exponent
// from 1e-6 to below 1e21 (and for 0), which is where scores are; other
// values through encodeJSON. f must be finite.
func appendJSONFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return append(b, encodeJSON(f)...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// searchEnvelope is encodeJSON of a SearchResult without results.
func searchEnvelope(indexing, truncated bool) []byte {
	b := append(make([]byte, 0, 48), `{"results":[],"indexing":`...)
	b = strconv.AppendBool(b, indexing)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, truncated)
	return append(b, '}')
}
