package tokenizer

import (
	"fmt"
	"strings"
)

// Options are the tokenizer arguments of `tokenize='sessionsearch ...'`.
// The package owns them end to end: ParseOptions reads the arguments,
// Encode and DecodeOptions carry them through the C tokenizer object, so a
// new option touches this file and its tests only.
type Options struct {
	// Trigram indexes n-gram scripts by trigrams as well as single code
	// points (`cjk trigram`); the default is single code points (`cjk unigram`).
	Trigram bool
}

// ParseOptions parses the tokenizer arguments: key value pairs, keys and
// values case-insensitive. Errors name the option and the value; the caller
// says who was given them.
func ParseOptions(args []string) (Options, error) {
	var o Options
	for i := 0; i < len(args); i += 2 {
		key := strings.ToLower(args[i])
		if i+1 >= len(args) {
			return o, fmt.Errorf("option %q needs a value", args[i])
		}
		val := strings.ToLower(args[i+1])
		switch key {
		case "cjk":
			switch val {
			case "unigram":
				o.Trigram = false
			case "trigram":
				o.Trigram = true
			default:
				return o, fmt.Errorf("option cjk must be unigram or trigram, got %q", args[i+1])
			}
		default:
			return o, fmt.Errorf("unknown option %q", args[i])
		}
	}
	return o, nil
}

// ParseOptionString parses arguments written as one string, as in
// `tokenize='sessionsearch cjk trigram'` after the tokenizer's name.
func ParseOptionString(s string) (Options, error) { return ParseOptions(strings.Fields(s)) }

// String returns the arguments that ParseOptions turns into o.
func (o Options) String() string {
	if o.Trigram {
		return "cjk trigram"
	}
	return "cjk unigram"
}

// Encode packs o into the integer the C tokenizer object keeps, so that
// tokenizing a document needs no lookup; DecodeOptions unpacks it.
func (o Options) Encode() uint32 {
	var v uint32
	if o.Trigram {
		v |= optTrigram
	}
	return v
}

// DecodeOptions is the inverse of Options.Encode.
func DecodeOptions(v uint32) Options { return Options{Trigram: v&optTrigram != 0} }

const optTrigram = 1 << 0
