package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

var errLineTooLong = fmt.Errorf("line longer than %d MiB", MaxLineBytes>>20)

// lineReader reads JSONL lines of any length up to MaxLineBytes with one
// reused buffer, so memory stays bounded by the longest line, not the file.
type lineReader struct {
	r       *bufio.Reader
	buf     []byte
	line    int  // number of the line last returned, from 1
	newline bool // the line last returned ended with a newline
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20)}
}

var utf8BOM = []byte("\xef\xbb\xbf")

// next returns the next line without surrounding white space (and without a
// byte order mark on line 1), and the number of bytes it took in the input.
// A line over MaxLineBytes is consumed and reported as errLineTooLong. At
// the end of the input it returns io.EOF.
func (lr *lineReader) next() (line []byte, n int, err error) {
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
				return nil, 0, io.EOF
			}
		} else if err != nil {
			return nil, n, err
		}
		lr.newline = err == nil
		break
	}
	lr.line++
	if tooLong {
		return nil, n, errLineTooLong
	}
	line = bytes.TrimSpace(lr.buf)
	if lr.line == 1 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	return line, n, nil
}
