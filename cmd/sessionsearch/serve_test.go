package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Tests of `sessionsearch serve` as a user runs it: the built binary on
// 127.0.0.1:0, reached over loopback (docs/serve.md).

const (
	serveWriter = "serve-writer-token-0123456789"
	serveSelf   = "serve-self-token-0123456789ab"
)

// served is a running `sessionsearch serve`.
type served struct {
	cmd  *exec.Cmd
	addr string // host:port it printed
	mu   sync.Mutex
	errs bytes.Buffer // its stderr so far
	line chan string  // its stderr, line by line
	done chan error
}

// startServe starts the binary with args and waits for its address.
func startServe(t testing.TB, args ...string) *served {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, line: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.errs.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case s.line <- sc.Text():
			default:
			}
		}
	}()
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve printed no address: %v\nstderr: %s", err, s.stderr())
	}
	go func() { io.Copy(io.Discard, stdout); s.done <- cmd.Wait() }()
	s.addr = strings.TrimPrefix(strings.TrimSpace(first), "listening on ")
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

func (s *served) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs.String()
}

// stop sends SIGTERM and waits for the exit.
func (s *served) stop(t testing.TB) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-s.done; err != nil {
		t.Fatalf("serve exited with %v\nstderr: %s", err, s.stderr())
	}
}

func (s *served) request(t testing.TB, token, method, path string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+s.addr+path, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func writeTokens(t testing.TB, caller string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.json")
	data := fmt.Sprintf(`{"tokens":[{"token":%q,"caller":"agent:main:main","visibility":"all","write":true},
		{"token":%q,"caller":%q,"visibility":"self"}]}`, serveWriter, serveSelf, caller)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// appendFixture sends a fixture transcript through the API in batches of
// 40 events, as a sync client would.
func appendFixture(t *testing.T, s *served, f fixture) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(f.raw, "\n"), "\n")
	type ev struct {
		SessionKey string          `json:"sessionKey"`
		Seq        int             `json:"seq"`
		Event      json.RawMessage `json:"event"`
	}
	for start := 0; start < len(lines); start += 40 {
		req := map[string]any{}
		if start == 0 {
			req["sessions"] = []map[string]any{{"sessionKey": f.key}}
		}
		var evs []ev
		for i := start; i < min(start+40, len(lines)); i++ {
			evs = append(evs, ev{f.key, i, json.RawMessage(lines[i])})
		}
		req["events"] = evs
		body, _ := json.Marshal(req)
		if st, out := s.request(t, serveWriter, "POST", "/v1/append", body); st != 200 {
			t.Fatalf("%s: append at %d: %d %s", f.name, start, st, out)
		}
	}
}

// TestServeImportSearchHistory: docs/serve.md H2, H4, H5, H8. The fixtures
// appended through HTTP read back through HTTP exactly as the file's
// active path; a search through HTTP is byte for byte sessions_search with
// the token's identity; a self token sees only its session; the access
// log holds no message text.
func TestServeImportSearchHistory(t *testing.T) {
	fixtures := loadFixtures(t)
	dbFile := filepath.Join(t.TempDir(), "served.db")
	self := fixtures[0].key
	s := startServe(t, "--db", dbFile, "--tokens", writeTokens(t, self))
	for _, f := range fixtures {
		appendFixture(t, s, f)
	}
	// Sending a fixture again changes nothing.
	appendFixture(t, s, fixtures[1])
	for _, f := range fixtures {
		st, out := s.request(t, serveWriter, "POST", "/v1/history",
			[]byte(fmt.Sprintf(`{"sessionKey":%q,"limit":1000,"maxBytes":4194304,"maxChars":1}`, f.key)))
		if st != 200 {
			t.Fatalf("%s: history %d %s", f.name, st, out)
		}
		var h struct {
			Messages []struct{ ID string }
		}
		json.Unmarshal(out, &h)
		var ids []string
		for _, m := range h.Messages {
			ids = append(ids, m.ID)
		}
		if want := f.searchable(); !reflect.DeepEqual(ids, want) {
			t.Errorf("%s: history through HTTP has %v, the file's active path %v", f.name, ids, want)
		}
	}
	queries := []string{"the", "东京", "error", "ok"}
	answers := map[string][]byte{}
	for _, q := range queries {
		st, out := s.request(t, serveWriter, "POST", "/v1/search", []byte(fmt.Sprintf(`{"query":%q,"limit":25}`, q)))
		if st != 200 {
			t.Fatalf("search %q: %d %s", q, st, out)
		}
		answers[q] = out
		st, out = s.request(t, serveSelf, "POST", "/v1/search", []byte(fmt.Sprintf(`{"query":%q,"limit":25}`, q)))
		var res struct{ Results []struct{ SessionKey string } }
		json.Unmarshal(out, &res)
		for _, r := range res.Results {
			if r.SessionKey != self {
				t.Errorf("the self token of %s found %s", self, r.SessionKey)
			}
		}
		if st, out := s.request(t, serveSelf, "POST", "/v1/history", []byte(fmt.Sprintf(`{"sessionKey":%q}`, fixtures[1].key))); st != 404 {
			t.Errorf("the self token read another session: %d %s", st, out)
		}
	}
	if !bytes.Contains(answers["the"], []byte(`"sessionKey"`)) {
		t.Fatalf("a search for \"the\" found nothing: %s", answers["the"])
	}
	s.stop(t)

	// The same searches in-process, with the options the token binds: its
	// grant's visibility where the body says nothing, its caller, and its
	// grant as the ceiling (docs/serve.md H2).
	db := openDB(t, dbFile)
	for _, q := range queries {
		var want string
		err := db.QueryRow(`SELECT sessions_search(?1, ?2)`, q,
			`{"limit":25,"visibility":"all","sandboxVisibility":"spawned","caller":"agent:main:main","ceiling":{"visibility":"all","sandboxVisibility":"spawned"}}`).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(string(answers[q]), "\n"); got != want {
			t.Errorf("search %q through HTTP:\n%s\nin-process:\n%s", q, got, want)
		}
	}
	log := s.stderr()
	if n := strings.Count(log, `"path":"/v1/append"`); n < len(fixtures) {
		t.Errorf("the access log has %d appends:\n%s", n, log)
	}
	for _, f := range fixtures {
		for _, e := range f.entries {
			if e.isSearchable() && len(e.text()) >= 12 && strings.Contains(log, e.text()[:12]) {
				t.Fatalf("the access log contains message text %q", e.text()[:12])
			}
		}
	}
	for _, secret := range []string{"东京", `"the"`, serveWriter, serveSelf} {
		if strings.Contains(log, secret) {
			t.Errorf("the access log contains %q", secret)
		}
	}
}

// TestServeGracefulShutdown: docs/serve.md H10. A request in flight when
// SIGTERM arrives is finished and answered; then the process exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "served.db")
	s := startServe(t, "--db", dbFile, "--tokens", writeTokens(t, "agent:main:main"))
	body := `{"sessions":[{"sessionKey":"agent:main:main"}],"events":[{"sessionKey":"agent:main:main","seq":0,"event":{"type":"message","id":"m0","message":{"role":"user","content":"finished in flight"}}}]}`
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// With Expect: 100-continue the server says when the handler has
	// started reading the body: from then on the request is in flight.
	fmt.Fprintf(conn, "POST /v1/append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		serveWriter, len(body))
	replies := bufio.NewReader(conn)
	cont, err := http.ReadResponse(replies, nil)
	if err != nil || cont.StatusCode != http.StatusContinue {
		t.Fatalf("no 100 Continue: %v %v", cont, err)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	for line := range s.line {
		if strings.Contains(line, "stopping") {
			break
		}
	}
	// The listener is closed: a new connection is refused.
	if c, err := net.Dial("tcp", s.addr); err == nil {
		c.Close()
		t.Error("a new connection was accepted after SIGTERM")
	}
	io.WriteString(conn, body)
	resp, err := http.ReadResponse(replies, nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v\nstderr: %s", err, s.stderr())
	}
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(out), `"eventsAppended":1`) {
		t.Errorf("in-flight append: %d %s", resp.StatusCode, out)
	}
	if err := <-s.done; err != nil {
		t.Fatalf("serve exited with %v\nstderr: %s", err, s.stderr())
	}
	var n int
	openDB(t, dbFile).QueryRow(`SELECT count(*) FROM transcript_events`).Scan(&n)
	if n != 1 {
		t.Errorf("after shutdown the database has %d events, want the in-flight one", n)
	}
}

// TestServeFlags: docs/serve.md H1. No tokens, no service, except the
// loudly named development flag on a loopback address.
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	open := filepath.Join(dir, "open.json")
	os.WriteFile(open, []byte(`{"tokens":[{"token":"0123456789abcdef0123","caller":"agent:main:main"}]}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--db", db}, 2, "--tokens FILE is required"},
		{[]string{"--db", db, "--listen", "0.0.0.0:0", "--insecure-loopback-no-auth"}, 2, `needs a loopback --listen address (127.0.0.1, ::1 or localhost), got "0.0.0.0:0"`},
		{[]string{"--db", db, "--listen", ":0", "--insecure-loopback-no-auth"}, 2, `got ":0"`},
		{[]string{"--db", db, "--tokens", open}, 1, "lets others read it; run chmod 600"},
		{[]string{"--db", db, "--tokens", filepath.Join(dir, "missing.json")}, 1, "tokens file"},
		{[]string{"--db", db, "--tokens", open, "--insecure-loopback-no-auth"}, 2, "exclude each other"},
	} {
		r := runBinary(t, nil, append([]string{"serve"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %v: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused serve created the database")
	}
	// The development mode: a loud warning, and each request names its caller.
	s := startServe(t, "--db", db, "--insecure-loopback-no-auth")
	if !strings.Contains(<-s.line, "WARNING: --insecure-loopback-no-auth") {
		t.Errorf("no warning: %s", s.stderr())
	}
	if st, out := s.request(t, "", "POST", "/v1/search", []byte(`{"query":"x","caller":"agent:main:main"}`)); st != 200 {
		t.Errorf("search in the development mode: %d %s", st, out)
	}
	if st, out := s.request(t, "", "POST", "/v1/search", []byte(`{"query":"x"}`)); st != 400 || !strings.Contains(string(out), `"field":"caller"`) {
		t.Errorf("search without a caller in the development mode: %d %s", st, out)
	}
	s.stop(t)
}
