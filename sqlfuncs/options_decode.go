package sqlfuncs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Reading an options object through its table, and checking a Go value
// against it: the JSON types here, the ranges in inRange, shared by both.

type unknownOptionError struct {
	name  string
	known []string
}

func (e *unknownOptionError) Error() string {
	return fmt.Sprintf("unknown option %q (known: %s)", e.name, strings.Join(e.known, ", "))
}

// MaxOptionsBytes bounds an options object: far more than any set of
// options takes (the longest is an allow list of agent ids), so that a huge
// argument is refused before it is parsed.
const MaxOptionsBytes = 64 << 10

// parse decodes js into dst, a pointer to the options type, with defaults.
func (specs OptionSpecs) parse(js string, dst any) error {
	if len(js) > MaxOptionsBytes {
		return fmt.Errorf("options must be at most %d bytes of JSON, got %d", MaxOptionsBytes, len(js))
	}
	values, order, err := parseObject(js)
	if err != nil {
		return fmt.Errorf("options must be a JSON object: %w", err)
	}
	return specs.decode("", values, order, fieldsOf(dst))
}

func (specs OptionSpecs) decode(prefix string, values map[string]json.RawMessage, order []string, fields fieldSet) error {
	if err := specs.checkNames(prefix, order); err != nil {
		return err
	}
	for _, s := range specs {
		f := fields.field(s.Name)
		raw, ok := values[s.Name]
		if !ok || string(raw) == "null" {
			if s.Required && f.IsZero() {
				return fmt.Errorf("option %q is required", prefix+s.Name)
			}
			s.fillDefault(f)
			continue
		}
		if err := s.decodeValue(prefix, raw, f); err != nil {
			return err
		}
	}
	return nil
}

// fillDefault sets f, the option's field, to the default when it is zero.
func (s OptionSpec) fillDefault(f reflect.Value) {
	if s.Default != nil && f.IsZero() {
		f.Set(reflect.ValueOf(s.Default).Convert(f.Type()))
	}
}

func (specs OptionSpecs) checkNames(prefix string, order []string) error {
	for i, name := range order {
		switch {
		case slices.Contains(order[:i], name):
			return fmt.Errorf("option %q is given twice", prefix+name)
		case !slices.ContainsFunc(specs, func(s OptionSpec) bool { return s.Name == name }):
			return &unknownOptionError{prefix + name, specs.Names()}
		}
	}
	return nil
}

// decodeValue reads one present, non-null value into its field: the JSON
// type here, the range in check, which Validate shares.
func (s OptionSpec) decodeValue(prefix string, raw json.RawMessage, f reflect.Value) error {
	bad := &OptionError{Option: prefix + s.Name, Want: s.want(), Value: quoteValue(raw)}
	switch s.Type {
	case TypeInteger:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if !isIntegerLiteral(raw) || err != nil {
			return bad
		}
		f.SetInt(n)
	case TypeBoolean:
		switch string(raw) {
		case "true", "false":
			f.SetBool(string(raw) == "true")
		default:
			return bad
		}
	case TypeString:
		var v string
		if raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
			return bad
		}
		f.SetString(v)
	case TypeStrings:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return bad
		}
		var list []string
		for _, item := range items {
			var v string
			if item[0] != '"' || json.Unmarshal(item, &v) != nil {
				return bad
			}
			list = append(list, v)
		}
		f.Set(reflect.ValueOf(list))
	case TypeTime:
		var t time.Time
		if isIntegerLiteral(raw) {
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil || n < s.Min || n > s.Max {
				return bad
			}
			t = time.UnixMilli(n).UTC()
		} else {
			var v string
			if raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
				return bad
			}
			// RFC 3339 allows a lower-case "t" and "z"; Go's parser does not.
			parsed, err := time.Parse(time.RFC3339, strings.ToUpper(v))
			if err != nil {
				return bad
			}
			t = parsed
			if !s.Zone {
				t = t.UTC()
			}
		}
		f.Set(reflect.ValueOf(t))
	case TypeObject:
		if raw[0] != '{' {
			return bad
		}
		// The outer parse has checked the syntax, so this cannot fail.
		values, order, _ := parseObject(string(raw))
		if f.Kind() == reflect.Pointer { // an object that may be absent: the ceiling
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		return s.Fields.decode(prefix+s.Name+".", values, order, fieldSet{f})
	}
	if !s.inRange(f) {
		return bad
	}
	return nil
}

// inRange checks a field's value against the range and allowed values.
func (s OptionSpec) inRange(f reflect.Value) bool {
	switch s.Type {
	case TypeInteger:
		return f.Int() >= s.Min && f.Int() <= s.Max
	case TypeString:
		return f.String() != "" && (s.Enum == nil || slices.Contains(s.Enum, f.String()))
	case TypeStrings:
		for _, v := range f.Interface().([]string) {
			if s.Enum != nil && !slices.Contains(s.Enum, v) {
				return false
			}
		}
		return true
	case TypeTime:
		ms := f.Interface().(time.Time).UnixMilli()
		return ms >= s.Min && ms <= s.Max
	}
	return true
}

// validate checks the non-zero fields of a Go value.
func (specs OptionSpecs) validate(dst any) error { return specs.validateFields("", fieldsOf(dst)) }

func (specs OptionSpecs) validateFields(prefix string, fields fieldSet) error {
	for _, s := range specs {
		f := fields.field(s.Name)
		switch {
		case f.IsZero() && s.Required:
			return fmt.Errorf("option %q is required", prefix+s.Name)
		case f.IsZero():
		case s.Type == TypeObject:
			if f.Kind() == reflect.Pointer {
				f = f.Elem()
			}
			if err := s.Fields.validateFields(prefix+s.Name+".", fieldSet{f}); err != nil {
				return err
			}
		case !s.inRange(f):
			js, _ := json.Marshal(f.Interface())
			return &OptionError{Option: prefix + s.Name, Want: s.want(), Value: quoteValue(js)}
		}
	}
	return nil
}

// fieldSet finds the fields of an options struct by their JSON names, in
// embedded structs too, so the table and the struct tags cannot name
// different things.
type fieldSet struct{ v reflect.Value }

// fieldsOf takes a pointer to an options struct.
func fieldsOf(dst any) fieldSet { return fieldSet{reflect.ValueOf(dst).Elem()} }

func (fs fieldSet) field(name string) reflect.Value {
	index, ok := jsonIndex(fs.v.Type())[name]
	if !ok {
		panic(fmt.Sprintf("sqlfuncs: %s has no field with JSON name %q", fs.v.Type(), name))
	}
	return fs.v.FieldByIndex(index)
}

var jsonIndexes sync.Map // reflect.Type → map[string][]int

func jsonIndex(t reflect.Type) map[string][]int {
	if m, ok := jsonIndexes.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); !f.Anonymous && f.IsExported() && name != "" && name != "-" {
			m[name] = f.Index
		}
	}
	jsonIndexes.Store(t, m)
	return m
}

// want says what a value must be, for OptionError.
func (s OptionSpec) want() string {
	switch s.Type {
	case TypeInteger:
		return fmt.Sprintf("an integer %d..%d", s.Min, s.Max)
	case TypeBoolean:
		return "true or false"
	case TypeString:
		if s.Enum != nil {
			return orList(s.Enum, strconv.Quote)
		}
		return "a non-empty string"
	case TypeStrings:
		if s.Enum != nil {
			return "an array of " + orList(s.Enum, strconv.Quote)
		}
		return "an array of strings"
	case TypeTime:
		return fmt.Sprintf("epoch milliseconds %d..%d or an RFC 3339 time like %q", s.Min, s.Max, "2026-11-01T09:30:00Z")
	case TypeObject:
		return "an object like " + s.Example
	}
	return string(s.Type)
}

// orList writes "a", "b" or "c".
func orList(items []string, quote func(string) string) string {
	quoted := make([]string, len(items))
	for i, a := range items {
		quoted[i] = quote(a)
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// parseObject splits a JSON object into its raw member values and the names
// in the order written, repeats included. It walks the tokens itself because
// decoding into a map would silently keep the last of two equal names.
func parseObject(js string) (values map[string]json.RawMessage, order []string, err error) {
	defer func() {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("unexpected end of input")
		}
	}()
	values = map[string]json.RawMessage{}
	if s := strings.TrimSpace(js); s == "" || s == "null" {
		return values, nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(js))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("got %s", quoteValue([]byte(js)))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name := tok.(string) // inside an object the decoder only yields string names
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		values[name] = raw
		order = append(order, name)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("unexpected data after the object")
	}
	return values, order, nil
}

// isIntegerLiteral accepts the JSON integer syntax: digits after an optional
// minus. The decoder has already rejected leading zeros and plus signs.
func isIntegerLiteral(v []byte) bool {
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// quoteValue shows a bad value in an error message as JSON, compacted and cut
// to 60 bytes, so a huge value does not drown the message.
func quoteValue(v []byte) string {
	const max = 60
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		v = buf.Bytes()
	}
	if len(v) <= max {
		return string(v)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "…"
}
