package sqlfuncs

import "testing"

// BenchmarkSearchOptionsPath: what sessions_search does with its options on
// every call before the SELECT: parse them and key the caller's policy.
func BenchmarkSearchOptionsPath(b *testing.B) {
	const js = `{"caller":"agent:ops:subagent:a","visibility":"all","agentToAgent":{"enabled":true,"allow":["main","o*"]},"limit":5,"order":"recent"}`
	for b.Loop() {
		o, err := ParseSearchOptions(js)
		if err != nil || o.Limit != 5 {
			b.Fatal(o, err)
		}
		_ = o.Policy().Key()
	}
}
