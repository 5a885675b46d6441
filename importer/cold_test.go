package importer

import (
	"strings"
	"testing"
)

func TestColdArchiveEvent(t *testing.T) {
	const ev = `{"type":"message","id":"m1","message":{"role":"user","content":"東京"}}`
	for _, tt := range []struct {
		line, event, err string
		ok               bool
	}{
		{`{"kind":"header","version":1,"sessionId":"s1","generation":"g1"}`, "", "", false},
		{`{"kind":"event","row":{"seq":0,"event_json":"{\"type\":\"message\",\"id\":\"m1\",\"message\":{\"role\":\"user\",\"content\":\"東京\"}}","created_at":1}}`, ev, "", true},
		{`{"kind":"identity","row":{"event_id":"m1","seq":0}}`, "", "", false},
		{`{"kind":"active","row":{"active_position":0,"event_seq":0}}`, "", "", false},
		{`{"kind":"index","row":{"indexed_seq":0}}`, "", "", false},
		{`{"kind":"fts","row":{"seq":0}}`, "", "", false},
		{ev, ev, "", true},
		{`{"kind":"event","row":{"seq":3}}`, "", "no row.event_json", false},
		{`{"kind":"blob"}`, "", `unknown kind "blob"`, false},
		{`{"id":"x"}`, "", `neither "kind" nor "type"`, false},
		{`[1,2]`, "", "not a JSON object", false},
	} {
		event, ok, err := ColdArchiveEvent([]byte(tt.line))
		if string(event) != tt.event || ok != tt.ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ColdArchiveEvent(%s) = %s, %v, %v; want %s, %v, error %q", tt.line, event, ok, err, tt.event, tt.ok, tt.err)
		}
	}
}
