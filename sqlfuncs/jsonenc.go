package sqlfuncs

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendHit appends hit as encodeJSON writes it, by hand: sessions_search
// encodes every result, and encoding/json's reflection was 5% of a search
// with ten results. TestAppendHit and FuzzAppendHit check that the bytes
// are the same.
func appendHit(b []byte, hit SearchHit) []byte {
	b = append(b, `{"sessionKey":`...)
	b = AppendJSONString(b, hit.SessionKey)
	b = append(b, `,"messageId":`...)
	b = AppendJSONString(b, hit.MessageID)
	b = append(b, `,"role":`...)
	b = AppendJSONString(b, hit.Role)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, hit.Timestamp, 10)
	b = append(b, `,"snippet":`...)
	b = AppendJSONString(b, hit.Snippet)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, hit.Score)
	if hit.Match != "" {
		b = append(b, `,"match":`...)
		b = AppendJSONString(b, hit.Match)
	}
	if len(hit.Words) > 0 {
		b = append(b, `,"words":[`...)
		for i, w := range hit.Words {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, w)
		}
		b = append(b, ']')
	}
	if hit.Repeats != 0 {
		b = append(b, `,"repeats":`...)
		b = strconv.AppendInt(b, int64(hit.Repeats), 10)
	}
	if hit.SessionScore != 0 {
		b = append(b, `,"sessionScore":`...)
		b = appendJSONFloat(b, hit.SessionScore)
	}
	if hit.Kind != "" {
		b = append(b, `,"kind":`...)
		b = AppendJSONString(b, hit.Kind)
	}
	if hit.Tool != "" {
		b = append(b, `,"tool":`...)
		b = AppendJSONString(b, hit.Tool)
	}
	return append(b, '}')
}

// AppendJSONString appends s as a JSON string, byte for byte as
// encoding/json writes it without HTML escaping (encodeJSON): the short
// escapes for quote, backslash, \b, \f, \n, \r and \t, \u00XX for the
// other control characters, U+FFFD for each byte of invalid UTF-8, and
// \u2028 and \u2029, which JavaScript does not allow in a string.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0 // s[start:i] is yet to be appended as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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

// searchHead and searchTail are encodeJSON of a SearchResult around its
// results: {"results":[ and ],"indexing":…,"truncated":…} (and "time":…
// when period is not nil).
const searchHead = `{"results":[`

func searchTail(indexing, truncated bool, period *TimeRange) string {
	if period != nil {
		tail := searchTail(indexing, truncated, nil)
		return tail[:len(tail)-1] + `,"time":` + string(encodeJSON(period)) + "}"
	}
	switch {
	case indexing && truncated:
		return `],"indexing":true,"truncated":true}`
	case indexing:
		return `],"indexing":true,"truncated":false}`
	case truncated:
		return `],"indexing":false,"truncated":true}`
	}
	return `],"indexing":false,"truncated":false}`
}
