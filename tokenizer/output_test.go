package tokenizer

import (
	"bytes"
	"testing"
)

// Retained counts what a huge text leaves in an Output, so that the
// extension drops such an Output rather than keeping megabytes for every
// later text: the folded text, the tokens and the folding scratch.
func TestRetained(t *testing.T) {
	var o Output
	Options{}.Tokenize([]byte("small text"), false, &o)
	if r := o.Retained(); r > 4096 {
		t.Errorf("Retained after a small text = %d, want at most 4096", r)
	}
	big := bytes.Repeat([]byte("Überprüfung parseSessionKey 東京 "), 1<<16) // 2.4 MB, not ASCII
	Options{}.Tokenize(big, false, &o)
	if r, min := o.Retained(), len(o.Folded)+20*len(o.Tokens); r < min {
		t.Errorf("Retained after %d bytes (%d folded, %d tokens) = %d, want at least %d", len(big), len(o.Folded), len(o.Tokens), r, min)
	}
}

// loadShort puts 1 to 7 bytes at their places in a word, zero above: the
// ASCII path's last bytes of a text, whose classes and specials it reads.
func TestLoadShort(t *testing.T) {
	src := []byte("ab_\xffZ9 x")
	for n := 1; n <= 7; n++ {
		for at := 0; at+n <= len(src); at++ {
			var want uint64
			for k := n - 1; k >= 0; k-- {
				want = want<<8 | uint64(src[at+k])
			}
			if got := loadShort(src[at : at+n]); got != want {
				t.Errorf("loadShort(%q) = %#x, want %#x", src[at:at+n], got, want)
			}
		}
	}
}
