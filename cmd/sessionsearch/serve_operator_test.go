package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of what an operator of a shared `sessionsearch serve` runs it with
// (docs/serve.md H14–H17): the built binary on loopback, as in
// serve_test.go.

const (
	opReader  = "operator-reader-token-0123"
	opMetrics = "operator-metrics-token-012"
	opLater   = "operator-later-token-01234"
)

// writeFile writes a private file.
func writeFile(t testing.TB, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// operatorTokens is a tokens file: the writer, a reader of
// agent:main:chat's tree, a metrics token, and extra entries.
func operatorTokens(extra ...string) string {
	entries := append([]string{
		fmt.Sprintf(`{"token":%q,"caller":"agent:main:main","visibility":"all","write":true}`, serveWriter),
		fmt.Sprintf(`{"token":%q,"caller":"agent:main:chat"}`, opReader),
		fmt.Sprintf(`{"token":%q,"metrics":true}`, opMetrics),
	}, extra...)
	return `{"tokens":[` + strings.Join(entries, ",") + `]}`
}

// appendSessions stores agent:main:chat, agent:main:subagent:a1 (spawned
// by chat) and agent:ops:main, each with one message.
func appendSessions(t *testing.T, s *served) {
	t.Helper()
	body := `{"sessions":[{"sessionKey":"agent:main:chat"},{"sessionKey":"agent:main:subagent:a1","spawnedBy":"agent:main:chat"},{"sessionKey":"agent:ops:main"}],
	 "events":[
	  {"sessionKey":"agent:main:chat","seq":0,"event":{"type":"message","id":"c0","message":{"role":"user","content":"the weather in Lisbon"}}},
	  {"sessionKey":"agent:main:subagent:a1","seq":0,"event":{"type":"message","id":"a0","message":{"role":"assistant","content":"weather report: set GITHUB_TOKEN=ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u first"}}},
	  {"sessionKey":"agent:ops:main","seq":0,"event":{"type":"message","id":"o0","message":{"role":"user","content":"the weather of the ops agent"}}}]}`
	if st, out := s.request(t, serveWriter, "POST", "/v1/append", []byte(body)); st != 200 {
		t.Fatalf("append: %d %s", st, out)
	}
}

// waitLine waits for a line of the server's stderr that contains want.
func (s *served) waitLine(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line := <-s.line:
			if strings.Contains(line, want) {
				return line
			}
		case <-deadline:
			t.Fatalf("no line with %q on stderr:\n%s", want, s.stderr())
		}
	}
}

// TestServeReloadTokens: docs/serve.md H14. SIGHUP reads the tokens file
// again: a request in flight finishes with the grant it started with, new
// requests see the new tokens, and a bad file is refused whole and logged
// while the tokens in use stay.
func TestServeReloadTokens(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, filepath.Join(dir, "tokens.json"), operatorTokens())
	s := startServe(t, "--db", filepath.Join(dir, "s.db"), "--tokens", tokens)
	appendSessions(t, s)

	// A search whose headers have arrived (the server asks for the body
	// once it has authenticated the token) is in flight.
	body := `{"query":"weather","limit":25}`
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		opReader, len(body))
	replies := bufio.NewReader(conn)
	if cont, err := http.ReadResponse(replies, nil); err != nil || cont.StatusCode != http.StatusContinue {
		t.Fatalf("no 100 Continue: %v %v", cont, err)
	}

	// The new file drops the reader's token and adds another.
	writeFile(t, tokens, strings.Replace(operatorTokens(fmt.Sprintf(`{"token":%q,"caller":"agent:ops:main","visibility":"self"}`, opLater)),
		fmt.Sprintf(`{"token":%q,"caller":"agent:main:chat"},`, opReader), "", 1))
	s.cmd.Process.Signal(syscall.SIGHUP)
	if line := s.waitLine(t, "SIGHUP"); !strings.Contains(line, "reloaded 3 tokens") {
		t.Fatalf("after SIGHUP: %s", line)
	}
	if _, err := conn.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(replies, nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v\n%s", err, s.stderr())
	}
	var res struct{ Results []struct{ SessionKey string } }
	json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(res.Results) != 2 {
		t.Errorf("the request in flight: %d %+v, want the old grant's two sessions", resp.StatusCode, res)
	}
	if st, out := s.request(t, opReader, "POST", "/v1/search", []byte(body)); st != 401 {
		t.Errorf("a dropped token after the reload: %d %s", st, out)
	}
	if st, out := s.request(t, opLater, "POST", "/v1/search", []byte(body)); st != 200 || !strings.Contains(string(out), "agent:ops:main") {
		t.Errorf("a new token after the reload: %d %s", st, out)
	}

	// A bad file changes nothing.
	for _, bad := range []struct{ data, why string }{
		{`{"tokens":[{"token":"short","caller":"agent:main:main"}]}`, "tokens[0].token must be at least 16 characters"},
		{`{"tokens":`, "not a tokens file"},
	} {
		writeFile(t, tokens, bad.data)
		s.cmd.Process.Signal(syscall.SIGHUP)
		if line := s.waitLine(t, "SIGHUP"); !strings.Contains(line, "keeping the 3 tokens in use") || !strings.Contains(line, bad.why) {
			t.Errorf("SIGHUP with a bad file: %s", line)
		}
		if st, out := s.request(t, opLater, "POST", "/v1/search", []byte(body)); st != 200 {
			t.Errorf("after a refused reload: %d %s", st, out)
		}
	}
	os.Chmod(tokens, 0o644)
	s.cmd.Process.Signal(syscall.SIGHUP)
	if line := s.waitLine(t, "SIGHUP"); !strings.Contains(line, "keeping the 3 tokens in use") || !strings.Contains(line, "chmod 600") {
		t.Errorf("SIGHUP with a readable file: %s", line)
	}
	s.stop(t)
}

// TestServeRateLimit: docs/serve.md H15. Past its burst a token gets 429
// with Retry-After, and another token is not slowed by it.
func TestServeRateLimit(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, filepath.Join(dir, "tokens.json"), operatorTokens())
	// One request per 1000 s after a burst of 2: the third is refused
	// however slow the machine.
	s := startServe(t, "--db", filepath.Join(dir, "s.db"), "--tokens", tokens, "--rate-limit", "0.001", "--rate-burst", "2")
	body := []byte(`{"query":"weather"}`)
	for i := range 2 {
		if st, out := s.request(t, opReader, "POST", "/v1/search", body); st != 200 {
			t.Fatalf("request %d within the burst: %d %s", i, st, out)
		}
	}
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/v1/search", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+opReader)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != 429 || e.Error.Code != "rate_limited" || retry < 900 || retry > 1000 {
		t.Errorf("over the burst: %d Retry-After %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), e)
	}
	if st, out := s.request(t, serveWriter, "POST", "/v1/search", body); st != 200 {
		t.Errorf("another token: %d %s", st, out)
	}
	s.stop(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-limit", "-1"}, "--rate-limit must be a number of requests per second, 0 or more, got -1"},
		{[]string{"--rate-burst", "-2"}, "--rate-burst must be 0 or more, got -2"},
		{[]string{"--audit-rows", "0", "--audit-key", tokens}, "--audit-rows must be at least 1, got 0"},
	} {
		r := runBinary(t, nil, append([]string{"serve", "--db", filepath.Join(dir, "s.db"), "--tokens", tokens}, c.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %v: exit %d, %s", c.args, r.code, r.stderr)
		}
	}
}

// metricLine matches one sample line of the text format.
var metricLine = regexp.MustCompile(`^([a-z_]+)(\{.*\})? (\S+)$`)

// scrape reads /metrics and returns its samples by name and labels.
func scrape(t *testing.T, s *served, token string) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		m := metricLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a sample line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil && m[3] != "+Inf" {
			t.Fatalf("%q: %v", line, err)
		}
		samples[m[1]+m[2]] = v
	}
	return samples
}

// TestServeMetrics: docs/serve.md H16. /metrics counts requests by endpoint
// and status with their latency, says when the last append was, the
// database's size and its pending sessions, and holds no query, session
// key, caller or token; only a token granted "metrics" reads it.
func TestServeMetrics(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, filepath.Join(dir, "tokens.json"), operatorTokens())
	s := startServe(t, "--db", filepath.Join(dir, "s.db"), "--tokens", tokens)
	before := time.Now()
	appendSessions(t, s)
	s.request(t, opReader, "POST", "/v1/search", []byte(`{"query":"lisbonquery"}`))
	s.request(t, opReader, "POST", "/v1/search", []byte(`{"query":"weather"}`))
	s.request(t, opReader, "POST", "/v1/history", []byte(`{"sessionKey":"agent:ops:main"}`))
	s.request(t, opReader, "DELETE", "/v1/sessions/agent:main:subagent:a1", nil)
	s.request(t, "wrong-token-0123456789", "GET", "/v1/status", nil)
	if st, _ := s.request(t, opReader, "GET", "/metrics", nil); st != 403 {
		t.Errorf("a reader's token read /metrics: %d", st)
	}
	if st, _ := s.request(t, "", "GET", "/metrics", nil); st != 401 {
		t.Errorf("/metrics without a token: %d", st)
	}
	m := scrape(t, s, opMetrics)
	for name, want := range map[string]float64{
		`sessionsearch_http_requests_total{endpoint="/v1/append",status="200"}`:                            1,
		`sessionsearch_http_requests_total{endpoint="/v1/search",status="200"}`:                            2,
		`sessionsearch_http_requests_total{endpoint="/v1/history",status="404"}`:                           1,
		`sessionsearch_http_requests_total{endpoint="/v1/sessions/{key}",status="403"}`:                    1,
		`sessionsearch_http_requests_total{endpoint="/v1/status",status="401"}`:                            1,
		`sessionsearch_http_requests_total{endpoint="/metrics",status="403"}`:                              1,
		`sessionsearch_http_request_duration_seconds_count{endpoint="/v1/search",status="200"}`:            2,
		`sessionsearch_http_request_duration_seconds_bucket{endpoint="/v1/search",status="200",le="+Inf"}`: 2,
		`sessionsearch_database_up`:      1,
		`sessionsearch_pending_sessions`: 0,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if got := m["sessionsearch_database_bytes"]; got < 4096 {
		t.Errorf("sessionsearch_database_bytes = %v", got)
	}
	if got := m["sessionsearch_last_append_timestamp_seconds"]; got < float64(before.Unix()) || got > float64(time.Now().Unix()+1) {
		t.Errorf("sessionsearch_last_append_timestamp_seconds = %v, the append was at %v", got, before.Unix())
	}
	if got := m[`sessionsearch_http_request_duration_seconds_sum{endpoint="/v1/search",status="200"}`]; got <= 0 {
		t.Errorf("search latency sum %v", got)
	}
	_, text := s.request(t, opMetrics, "GET", "/metrics", nil)
	for _, secret := range []string{"lisbonquery", "weather", "agent:", "chat", opReader, opMetrics, serveWriter, "wrong-token"} {
		if strings.Contains(string(text), secret) {
			t.Errorf("/metrics holds %q", secret)
		}
	}
	s.stop(t)
}

// TestServeAudit: docs/serve.md H17. With --audit-key every search and
// history answered is a row of sessionsearch_audit: the caller, the
// endpoint, the HMAC of the query under the key, the sessions shown and
// the masked snippets; never the query or any text; the oldest rows go
// past --audit-rows. Without the flag there is no table.
func TestServeAudit(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, filepath.Join(dir, "tokens.json"), operatorTokens())
	key := "audit-key-of-the-test-0123456789abcdef"
	keyFile := writeFile(t, filepath.Join(dir, "audit.key"), key)
	dbFile := filepath.Join(dir, "s.db")
	s := startServe(t, "--db", dbFile, "--tokens", tokens, "--audit-key", keyFile, "--audit-rows", "3")
	appendSessions(t, s)
	for _, q := range []string{"nothingmatches", "lisbon", "weather"} {
		if st, out := s.request(t, opReader, "POST", "/v1/search", []byte(fmt.Sprintf(`{"query":%q}`, q))); st != 200 {
			t.Fatalf("search %s: %d %s", q, st, out)
		}
	}
	if st, out := s.request(t, opReader, "POST", "/v1/history", []byte(`{"sessionKey":"agent:main:subagent:a1"}`)); st != 200 {
		t.Fatalf("history: %d %s", st, out)
	}
	s.request(t, opReader, "POST", "/v1/history", []byte(`{"sessionKey":"agent:ops:main"}`)) // 404: not audited
	s.stop(t)

	mac := func(q string) string {
		h := hmac.New(sha256.New, []byte(key))
		h.Write([]byte(q))
		return hex.EncodeToString(h.Sum(nil))
	}
	type row struct {
		Caller, Endpoint, Keys string
		Hash                   *string
		Redacted               int
	}
	db := openDB(t, dbFile)
	rows, err := db.Query(`SELECT caller, endpoint, query_hmac, session_keys, redacted FROM sessionsearch_audit ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.Caller, &r.Endpoint, &r.Hash, &r.Keys, &r.Redacted); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	lisbon, weather := mac("lisbon"), mac("weather")
	want := []row{ // the first search went: three rows are kept; keys sorted here
		{"agent:main:chat", "/v1/search", `["agent:main:chat"]`, &lisbon, 0},
		{"agent:main:chat", "/v1/search", `["agent:main:chat","agent:main:subagent:a1"]`, &weather, 1},
		{"agent:main:chat", "/v1/history", `["agent:main:subagent:a1"]`, nil, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("audit rows %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		var keys []string
		json.Unmarshal([]byte(g.Keys), &keys)
		slices.Sort(keys)
		sorted, _ := json.Marshal(keys)
		g.Keys = string(sorted)
		if g.Caller != w.Caller || g.Endpoint != w.Endpoint || g.Keys != w.Keys || g.Redacted != w.Redacted || (g.Hash == nil) != (w.Hash == nil) || g.Hash != nil && *g.Hash != *w.Hash {
			t.Errorf("audit row %d: %+v (hash %v), want %+v (hash %v)", i, g, g.Hash, w, w.Hash)
		}
	}
	var dump string
	db.QueryRow(`SELECT group_concat(time || caller || endpoint || coalesce(query_hmac, '') || session_keys || redacted) FROM sessionsearch_audit`).Scan(&dump)
	for _, secret := range []string{"lisbon", "weather", "ghp_", opReader, key} {
		if strings.Contains(dump, secret) {
			t.Errorf("the audit trail holds %q", secret)
		}
	}

	// Off by default; a key file others can read, or a short key, is refused.
	plain := filepath.Join(dir, "plain.db")
	s = startServe(t, "--db", plain, "--tokens", tokens)
	appendSessions(t, s)
	s.request(t, opReader, "POST", "/v1/search", []byte(`{"query":"weather"}`))
	s.stop(t)
	var n int
	openDB(t, plain).QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'sessionsearch_audit'`).Scan(&n)
	if n != 0 {
		t.Error("an audit table without --audit-key")
	}
	short := writeFile(t, filepath.Join(dir, "short.key"), "0123456789")
	open := writeFile(t, filepath.Join(dir, "open.key"), key)
	os.Chmod(open, 0o644)
	for _, c := range []struct{ file, want string }{
		{short, "10 bytes, need at least 32"},
		{open, "lets others read it; run chmod 600"},
		{filepath.Join(dir, "missing.key"), "audit key file"},
	} {
		r := runBinary(t, nil, "serve", "--db", plain, "--tokens", tokens, "--audit-key", c.file)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve --audit-key %s: exit %d, %s", c.file, r.code, r.stderr)
		}
	}
}
