package tokenizer

// WordBoundaries returns the byte offsets of the UAX #29 word boundaries in
// text, in order, from 0 to len(text) (none for empty text). These are the
// plain Unicode boundaries that the tokenizer starts from, before its own
// splits (script changes, identifier parts, n-grams); tests compare them with
// other implementations of UAX #29, such as ICU's.
func WordBoundaries(text []byte) []int {
	if len(text) == 0 {
		return nil
	}
	bounds := []int{0}
	for i := 0; i < len(text); {
		i = segmentEnd(text, i)
		bounds = append(bounds, i)
	}
	return bounds
}
