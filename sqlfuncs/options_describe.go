package sqlfuncs

import (
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// What the option tables say to people and programs: a flag's usage, a
// flag that sets a field of the options type, and a JSON Schema for MCP tool
// inputs. All of it comes from the tables in options.go, so a range or a
// default is written there once.

// Lookup returns the option called name.
func (specs OptionSpecs) Lookup(name string) (OptionSpec, bool) {
	i := slices.IndexFunc(specs, func(s OptionSpec) bool { return s.Name == name })
	if i < 0 {
		return OptionSpec{}, false
	}
	return specs[i], true
}

// Select returns the options called names, in that order. Asking for an
// option that does not exist is a programming error: it panics.
func (specs OptionSpecs) Select(names ...string) OptionSpecs {
	out := make(OptionSpecs, len(names))
	for i, name := range names {
		s, ok := specs.Lookup(name)
		if !ok {
			panic("sqlfuncs: no option " + strconv.Quote(name))
		}
		out[i] = s
	}
	return out
}

// Names returns the names of the options, in order.
func (specs OptionSpecs) Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// Usage is the option's help followed by its range and default, as a flag's
// usage shows it: "at most `n` results (1..25, default 10)". Enumerated
// values are named by the help itself.
func (s OptionSpec) Usage() string {
	var notes []string
	switch s.Type {
	case TypeInteger:
		notes = append(notes, fmt.Sprintf("%d..%d", s.Min, s.Max))
	case TypeTime:
		notes = append(notes, "epoch milliseconds or RFC 3339")
	}
	if s.Default != nil && !reflect.ValueOf(s.Default).IsZero() {
		notes = append(notes, fmt.Sprintf("default %v", s.Default))
	}
	if len(notes) == 0 {
		return s.Help
	}
	return s.Help + " (" + strings.Join(notes, ", ") + ")"
}

// Schema is the option's JSON Schema (draft 2020-12, as MCP tool input
// schemas use): its type, a description, and minimum and maximum, enum and
// default where they apply.
func (s OptionSpec) Schema() map[string]any {
	m := map[string]any{"description": strings.ReplaceAll(s.Usage(), "`", "")}
	switch s.Type {
	case TypeInteger:
		m["type"], m["minimum"], m["maximum"] = "integer", s.Min, s.Max
	case TypeString:
		m["type"] = "string"
		if s.Enum != nil {
			m["enum"] = s.Enum
		} else {
			m["minLength"] = 1
		}
	case TypeBoolean:
		m["type"] = "boolean"
	case TypeStrings:
		items := map[string]any{"type": "string"}
		if s.Enum != nil {
			items = map[string]any{"type": "string", "enum": s.Enum}
		}
		m["type"], m["items"] = "array", items
	case TypeTime:
		m["anyOf"] = []any{
			map[string]any{"type": "integer", "minimum": s.Min, "maximum": s.Max},
			map[string]any{"type": "string", "format": "date-time"},
		}
	case TypeObject:
		for k, v := range s.Fields.Schema() {
			m[k] = v
		}
	}
	if s.Default != nil {
		m["default"] = s.Default
	}
	return m
}

// Schema is the JSON Schema of an options object with these options:
// {"type":"object","properties":{...},"required":[...],"additionalProperties":false}.
func (specs OptionSpecs) Schema() map[string]any {
	props := make(map[string]any, len(specs))
	var required []string
	for _, s := range specs {
		props[s.Name] = s.Schema()
		if s.Required {
			required = append(required, s.Name)
		}
	}
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		m["required"] = required
	}
	return m
}

// Flag defines a command-line flag called name that sets the option's field
// in dst, a pointer to the options type the table describes (*SearchOptions
// for SearchOptionSpecs). The flag's usage is Usage, with its placeholder. The
// flag's text is read as the JSON value would be, with the same checks and
// errors (an *OptionError): an integer for integers, the text itself for
// strings, epoch milliseconds or RFC 3339 for times, comma-separated items
// for arrays, JSON for objects; a boolean flag takes no value.
func (s OptionSpec) Flag(fs *flag.FlagSet, name string, dst any) {
	fs.Var(&optionFlag{spec: s, field: fieldsOf(dst).field(s.Name)}, name, s.Usage())
}

type optionFlag struct {
	spec  OptionSpec
	field reflect.Value // invalid in the zero value package flag makes
}

func (v *optionFlag) String() string {
	if !v.field.IsValid() || v.field.IsZero() {
		return ""
	}
	return fmt.Sprint(v.field.Interface())
}

func (v *optionFlag) IsBoolFlag() bool { return v.spec.Type == TypeBoolean }

func (v *optionFlag) Set(text string) error {
	return v.spec.decodeValue("", v.spec.flagJSON(text), v.field)
}

// flagJSON turns a flag's text into the JSON value it stands for. Text that
// is not of the option's type becomes a JSON string, so the error shows it
// as the user wrote it.
func (s OptionSpec) flagJSON(text string) json.RawMessage {
	quoted, _ := json.Marshal(text)
	switch s.Type {
	case TypeInteger, TypeTime:
		if isIntegerLiteral([]byte(text)) {
			return json.RawMessage(text)
		}
	case TypeBoolean:
		if b, err := strconv.ParseBool(text); err == nil {
			return json.RawMessage(strconv.FormatBool(b))
		}
	case TypeStrings:
		items, _ := json.Marshal(strings.Split(text, ","))
		return items
	case TypeObject:
		if json.Valid([]byte(text)) {
			return json.RawMessage(text)
		}
	}
	return quoted
}

// Choices are the values an enumerated option takes, for shell completion;
// nil for any other option.
func (v *optionFlag) Choices() []string { return v.spec.Enum }
