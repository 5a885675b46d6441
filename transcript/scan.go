package transcript

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// A single-pass JSON reader for events: it validates the whole event as
// encoding/json would and picks out the fields the rules need, without
// building values for the rest. Appending an event runs it once, inside the
// INSERT's transaction, so it is written for speed. scan_test.go checks it
// against encoding/json.

type scanner struct {
	data []byte
	pos  int
	err  error
	buf  []byte // scratch for unescaping
	// noText: message text is only checked for being blank, not built.
	noText bool
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("invalid JSON at offset %d: %s", s.pos, fmt.Sprintf(format, args...))
	}
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// atEnd reports whether only white space is left: peek's 0 is also what a
// NUL byte in the data gives.
func (s *scanner) atEnd() bool {
	s.ws()
	return s.pos >= len(s.data)
}

func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.fail("expected %q", c)
		return
	}
	s.pos++
}

// str reads a string and returns its contents, unescaped; the slice may
// point into the input or into s.buf, and is valid until the next str.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.fail("expected a string")
		return nil
	}
	s.pos++
	start := s.pos
	s.pos = plainEnd(s.data, s.pos)
	if s.pos >= len(s.data) {
		s.fail("unterminated string")
		return nil
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		out := s.data[start:s.pos]
		s.pos++
		return out
	case c == '\\':
		return s.escaped(start)
	}
	s.fail("control character in a string")
	return nil
}

// plainEnd returns the index of the first byte at or after i that ends a
// run of plain string bytes: a quote, a backslash or a control character,
// or len(data). It looks at eight bytes at a time: string contents are most
// of an event's bytes.
func plainEnd(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// specialBytes has the high bit set in the lowest byte of w that is a
// quote, a backslash or below 0x20 (bytes above it may be marked wrongly,
// by borrows; the lowest mark is exact), and is 0 when there is none.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*0x20)&^w) & highs
}

// escaped finishes a string that has escapes, from its start.
func (s *scanner) escaped(start int) []byte {
	b := append(s.buf[:0], s.data[start:s.pos]...)
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			s.buf = b
			return b
		case c < 0x20:
			s.fail("control character in a string")
			return nil
		case c != '\\':
			end := plainEnd(s.data, s.pos+1)
			b = append(b, s.data[s.pos:end]...)
			s.pos = end
			continue
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		e := s.data[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
					save := s.pos
					s.pos += 2
					if r2, ok = s.hex4(); !ok {
						return nil
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
					} else {
						s.pos = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			s.fail("bad escape")
			return nil
		}
	}
	s.fail("unterminated string")
	return nil
}

func (s *scanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.data) {
		s.fail("short \\u escape")
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.data[s.pos:s.pos+4]), 16, 32)
	if err != nil {
		s.fail("bad \\u escape")
		return 0, false
	}
	s.pos += 4
	return rune(v), true
}

// number reads a number and returns its text.
func (s *scanner) number() []byte {
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case digits() == 0:
		s.fail("bad number")
		return nil
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			s.fail("bad number")
			return nil
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			s.fail("bad number")
			return nil
		}
	}
	return s.data[start:s.pos]
}

func (s *scanner) literal(word string) {
	if s.pos+len(word) > len(s.data) || string(s.data[s.pos:s.pos+len(word)]) != word {
		s.fail("bad literal")
		return
	}
	s.pos += len(word)
}

// skip reads and discards any value.
func (s *scanner) skip(depth int) {
	if depth > 10000 {
		s.fail("too deeply nested")
		return
	}
	switch s.peek() {
	case '"':
		s.str()
	case '{':
		s.object(func(key []byte) { s.skip(depth + 1) })
	case '[':
		s.array(func() { s.skip(depth + 1) })
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// object reads an object, calling member for each key with the scanner at
// its value; member must read the value.
func (s *scanner) object(member func(key []byte)) {
	s.expect('{')
	if s.peek() == '}' {
		s.pos++
		return
	}
	for s.err == nil {
		key := s.str()
		s.expect(':')
		if s.err != nil {
			return
		}
		member(key)
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return
		default:
			s.fail("expected , or }")
		}
	}
}

func (s *scanner) array(elem func()) {
	s.expect('[')
	if s.peek() == ']' {
		s.pos++
		return
	}
	for s.err == nil {
		elem()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return
		default:
			s.fail("expected , or ]")
		}
	}
}

// kind of the next value.
const (
	kindString = iota
	kindNumber
	kindNull
	kindOther
)

func (s *scanner) kind() int {
	switch c := s.peek(); {
	case c == '"':
		return kindString
	case c == '-' || '0' <= c && c <= '9':
		return kindNumber
	case c == 'n':
		return kindNull
	}
	return kindOther
}

// id reads an id: a string, or a number written as is; anything else is
// no id.
func (s *scanner) id() string {
	switch s.kind() {
	case kindString:
		return validString(s.str())
	case kindNumber:
		return string(s.number())
	}
	s.skip(0)
	return ""
}

// stringValue reads a string, or skips another value and returns "".
func (s *scanner) stringValue() (string, bool) {
	if s.kind() == kindString {
		return validString(s.str()), true
	}
	s.skip(0)
	return "", false
}

// timestamp reads epoch milliseconds or an RFC 3339 time.
func (s *scanner) timestamp() int64 {
	switch s.kind() {
	case kindString:
		b := s.str()
		if ms, ok := utcMillis(b); ok {
			return ms
		}
		t, err := time.Parse(time.RFC3339Nano, string(b))
		if err != nil {
			return 0
		}
		return t.UnixMilli()
	case kindNumber:
		f, err := strconv.ParseFloat(string(s.number()), 64)
		if err != nil {
			return 0
		}
		return int64(f)
	}
	s.skip(0)
	return 0
}

// utcMillis reads the form of time almost every event has,
// 2026-02-07T05:05:47.434Z (UTC, any number of fraction digits from 1 to 9
// or none), as time.Parse with time.RFC3339Nano would, in a fraction of its
// time; ok is false for anything else, which time.Parse then reads.
func utcMillis(b []byte) (ms int64, ok bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	nanos := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		v, ok := num(20, len(frac)-1)
		if !ok {
			return 0, false
		}
		for range 10 - len(frac) {
			v *= 10
		}
		nanos = v
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC).UnixMilli(), true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var errNotObject = errors.New("event is not a JSON object")
