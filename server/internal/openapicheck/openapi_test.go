// Package openapicheck checks docs/openapi.json with kin-openapi, a full
// OpenAPI 3 implementation, in its own module so that the library's go.mod
// never needs it. The server's own tests check every response against the
// same file (server/openapi_test.go); this checks the file itself and that
// the small validator there agrees with kin-openapi on examples of every
// response schema.
package openapicheck

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	data, err := os.ReadFile("../../../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	return doc
}

// TestSpecIsValid: docs/openapi.json is a valid OpenAPI 3 document.
func TestSpecIsValid(t *testing.T) {
	doc := load(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	for _, path := range []string{"/healthz", "/readyz", "/v1/search", "/v1/history", "/v1/status", "/v1/append",
		"/v1/reconcile", "/v1/watermarks", "/v1/sessions/{key}", "/v1/me", "/v1/options", "/v1/highlight", "/v1/session", "/v1/activity"} {
		if doc.Paths.Find(path) == nil {
			t.Errorf("docs/openapi.json has no path %s", path)
		}
	}
}

// TestSchemas: answers the server sends pass the spec's schemas, and
// broken ones fail, by kin-openapi's reading of the file.
func TestSchemas(t *testing.T) {
	doc := load(t)
	for _, c := range []struct {
		schema, body string
		ok           bool
	}{
		{"SearchResult", `{"results":[{"sessionKey":"k","messageId":"m","role":"user","timestamp":1,"snippet":"s","score":0.5}],"indexing":false,"truncated":false}`, true},
		{"SearchResult", `{"results":[{"sessionKey":"k"}],"indexing":false,"truncated":false}`, false},
		{"SearchResult", `{"results":[{"sessionKey":"k","messageId":"m","role":"user","timestamp":1,"snippet":"s","score":0.5,"match":"some","words":["flight"],"repeats":2,"sessionScore":4.5}],"indexing":false,"truncated":false}`, true},
		{"SearchResult", `{"results":[{"sessionKey":"k","messageId":"m","role":"user","timestamp":1,"snippet":"s","score":0.5,"match":"fuzzy"}],"indexing":false,"truncated":false}`, false},
		{"HistoryResult", `{"sessionKey":"k","messages":[{"id":"m","role":"user","timestamp":0,"text":"t"}],"truncated":false,"hasMore":false}`, true},
		{"StoreStatus", `{"version":"v","schema":2,"sessions":1,"events":1,"pendingSessions":0}`, true},
		{"Me", `{"authenticated":true,"caller":"agent:main:main","visibility":"all","sandboxVisibility":"spawned","agentToAgent":{"enabled":true,"allow":["*"]}}`, true},
		{"Me", `{"caller":"agent:main:main"}`, false},
		{"HighlightResult", `{"matches":[[[0,5],[6,9]],[]]}`, true},
		{"HighlightResult", `{"matches":[[["a"]]]}`, false},
		{"SessionInfo", `{"sessionKey":"k","agent":"main","children":[{"sessionKey":"c","agent":"main","link":"spawned"}],"childrenTruncated":false,"messages":2,"pending":false,"resume":{"argv":["openclaw","resume","k"],"shell":"openclaw resume k"}}`, true},
		{"SessionInfo", `{"sessionKey":"k","agent":"main","children":[{"sessionKey":"c","agent":"main","link":"parent"}],"childrenTruncated":false,"messages":2,"pending":false}`, false},
		{"Activity", `{"days":[{"day":"2026-01-01","agent":"main","messages":4}],"agents":[{"agent":"main","messages":4}],"projects":[{"project":"/src","messages":1}],"messages":4}`, true},
		{"Activity", `{"days":[],"agents":[],"projects":[]}`, false},
		{"StoreStatus", `{"version":"v","schema":2,"sessions":1,"events":1,"pendingSessions":0,"extra":1}`, false},
		{"Error", `{"error":{"code":"outside_grant","field":"caller","value":"agent:main:main","message":"m"}}`, true},
		{"Error", `{"error":{"field":"caller"}}`, false},
		{"AppendRequest", `{"sessions":[{"sessionKey":"k","spawnedBy":null}],"events":[{"sessionKey":"k","seq":0,"event":{"type":"message"}}]}`, true},
		{"AppendRequest", `{"events":[{"sessionKey":"k","seq":-1,"event":{}}]}`, false},
		{"WatermarksResult", `{"sessions":[{"sessionKey":"k","exists":true,"nextSeq":3}]}`, true},
	} {
		ref := doc.Components.Schemas[c.schema]
		if ref == nil {
			t.Fatalf("no schema %s", c.schema)
		}
		var v any
		if err := json.Unmarshal([]byte(c.body), &v); err != nil {
			t.Fatal(err)
		}
		err := ref.Value.VisitJSON(v)
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v, want ok=%v", c.schema, c.body, err, c.ok)
		}
	}
}
