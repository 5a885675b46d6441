package store

import "testing"

func TestKeyProblem(t *testing.T) {
	key := func(typ, text string) KeyValue { return KeyValue{"session_key", typ, text} }
	spawned := func(typ, text string) KeyValue { return KeyValue{"spawned_by", typ, text} }
	for _, tc := range []struct {
		values []KeyValue
		want   string
	}{
		{[]KeyValue{key("text", "agent:main:main")}, ""},
		{[]KeyValue{key("text", "東京"), spawned("null", "")}, ""},
		{[]KeyValue{key("text", "k"), spawned("text", "agent:main:main")}, ""},
		{[]KeyValue{key("blob", "agent:main:main")}, "session_key must be text, got a blob (bind the key as a string, not as bytes or a number)"},
		{[]KeyValue{key("integer", "7")}, "session_key must be text, got an integer (bind the key as a string, not as bytes or a number)"},
		{[]KeyValue{key("null", "")}, "session_key must be text, got NULL (bind the key as a string, not as bytes or a number)"},
		{[]KeyValue{key("text", "")}, "session_key must not be empty"},
		{[]KeyValue{key("text", "bad\xffkey")}, `session_key must be valid UTF-8, got "bad\xffkey"`},
		{[]KeyValue{key("text", "k"), spawned("blob", "p")}, "spawned_by must be text, got a blob (bind the key as a string, not as bytes or a number)"},
		{[]KeyValue{key("text", "k"), {"parent_session_key", "text", ""}}, "parent_session_key must not be empty"},
	} {
		if got := KeyProblem(tc.values...); got != tc.want {
			t.Errorf("KeyProblem(%v) = %q, want %q", tc.values, got, tc.want)
		}
	}
}
