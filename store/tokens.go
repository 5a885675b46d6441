package store

import (
	"sync/atomic"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// The index text's tokens, computed beside the writer. FTS5 tokenizes a
// row's text when it is inserted, on the writer's goroutine: a bulk load
// tokenizes each text where it reads the event (Prepare) and hands the
// tokens to the extension's tokenizer for the insert of that text
// (TakeTokens), so that the writer copies them instead. The tokens are the
// tokenizer's own, for the same text and options, so the index is the one
// tokenizing there gives (TestLoadEqualsTrigger).

// indexTokenizer is the tokenizer's options in the index's FTS5 table
// (tokenize='sessionsearch', schema.go): the defaults.
var indexTokenizer = tokenizer.Options{}

// Tokenized is an index text with its tokens.
type Tokenized struct {
	Text      string
	Tokenized bool   // Tokens and Folded are the text's
	Options   uint32 // tokenizer.Options.Encode of the options they were made with
	Tokens    []tokenizer.Token
	Folded    []byte
}

func (t *Tokenized) size() int {
	return len(t.Text) + len(t.Folded) + len(t.Tokens)*int(unsafe.Sizeof(tokenizer.Token{}))
}

// tokenized tokenizes text as a document of the index, in out, and keeps
// copies of the tokens.
func tokenized(text string, out *tokenizer.Output) Tokenized {
	t := Tokenized{Text: text, Tokenized: true, Options: indexTokenizer.Encode()}
	if text == "" {
		return t
	}
	indexTokenizer.Tokenize([]byte(text), false, out)
	t.Tokens = append([]tokenizer.Token(nil), out.Tokens...)
	t.Folded = append([]byte(nil), out.Folded...)
	return t
}

// handoff is the text the loader is inserting into the index, while it
// does.
var handoff atomic.Pointer[Tokenized]

// TakeTokens returns the tokens a bulk load made of text as a document,
// with options (encoded), when text is the one it is inserting into the
// index; nil otherwise, when the caller tokenizes it itself. A text is
// taken once.
func TakeTokens(text []byte, options uint32) *Tokenized {
	t := handoff.Load()
	if t == nil || !t.Tokenized || t.Options != options || len(t.Text) != len(text) || string(text) != t.Text {
		return nil
	}
	if !handoff.CompareAndSwap(t, nil) {
		return nil
	}
	return t
}
