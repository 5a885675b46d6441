// Package jsonl reads JSON Lines files: one line at a time, of any length
// up to MaxLineBytes, with one reused buffer, so memory stays bounded by the
// longest line and not by the file. Every reader of transcripts (OpenClaw's
// and other agents') reads its lines here.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line (or database event) imported; a longer
// one is reported and skipped. OpenClaw compresses events only up to 4 MiB
// and keeps larger ones as text, so the limit is well above what it writes,
// and it bounds the memory one line can take.
const MaxLineBytes = 32 << 20

// ErrLineTooLong is the error of a line longer than MaxLineBytes.
var ErrLineTooLong = fmt.Errorf("line longer than %d MiB", MaxLineBytes>>20)

// Reader reads lines from an io.Reader.
type Reader struct {
	r       *bufio.Reader
	buf     []byte
	line    int  // number of the line last returned, from 1
	newline bool // the line last returned ended with a newline
}

// readBytes is the reader's buffer: a longer line is read in pieces into
// the line buffer. Small, since a reader is made for each file, and a
// first import reads thousands of small files (a buffer of 1 MiB made
// each one cost more than its lines: issue 27).
const readBytes = 64 << 10

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, readBytes)}
}

var utf8BOM = []byte("\xef\xbb\xbf")

// Next returns the next line without surrounding white space (and without a
// byte order mark on line 1), the number of bytes it took in the input and
// whether it ended with a newline (false only for the last line of the
// input, which may still be being written). A line over MaxLineBytes is
// consumed and returns ErrLineTooLong; the end of the input io.EOF.
func (lr *Reader) Next() (line []byte, n int, complete bool, err error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLineBytes+1 { // +1: the newline
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			if n == 0 {
				return nil, 0, false, io.EOF
			}
		} else if err != nil {
			return nil, n, false, err
		}
		lr.newline = err == nil
		break
	}
	lr.line++
	if tooLong {
		return nil, n, lr.newline, ErrLineTooLong
	}
	line = bytes.TrimSpace(lr.buf)
	if lr.line == 1 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	return line, n, lr.newline, nil
}

// Line is the number of the line Next returned last, from 1.
func (lr *Reader) Line() int { return lr.line }
