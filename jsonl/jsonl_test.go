package jsonl

import (
	"errors"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+1)
	input := "\xef\xbb\xbf{\"a\":1}\r\n\n  {\"b\":2}  \n" + long + "\n{\"c\":3}"
	lr := NewReader(strings.NewReader(input))
	type got struct {
		line string
		n    int
		err  error
		no   int
	}
	var all []got
	for {
		line, n, _, err := lr.Next()
		if err != nil && !errors.Is(err, ErrLineTooLong) {
			break
		}
		all = append(all, got{string(line), n, err, lr.Line()})
	}
	want := []got{
		{`{"a":1}`, 12, nil, 1},
		{``, 1, nil, 2},
		{`{"b":2}`, 12, nil, 3},
		{``, len(long) + 1, ErrLineTooLong, 4},
		{`{"c":3}`, 7, nil, 5},
	}
	if len(all) != len(want) {
		t.Fatalf("got %d lines, want %d", len(all), len(want))
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i+1, all[i], want[i])
		}
	}
}
