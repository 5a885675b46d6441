package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Tests of `sessionsearch ui` (docs/cli.md C24, C25); the page itself is
// tested in a browser by ui/internal/browsercheck.

// startUI runs `sessionsearch ui args...` and returns it with the two
// lines it prints first.
func startUI(t *testing.T, args ...string) (*exec.Cmd, string, string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"ui"}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewReader(stdout)
	address, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("ui printed no address: %v", err)
	}
	who, _ := lines.ReadString('\n')
	go io.Copy(io.Discard, stdout)
	return cmd, strings.TrimSpace(address), strings.TrimSpace(who)
}

// uiRequest sends a request to the page's API at base, as to serve's.
func uiRequest(t *testing.T, base, token, method, path, body string) (int, []byte) {
	t.Helper()
	return (&served{addr: strings.TrimPrefix(base, "http://")}).request(t, token, method, path, []byte(body))
}

var uiAddress = regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)/#token=([A-Za-z0-9_-]{43})$`)

// TestUICommand: ui prints an address on 127.0.0.1 whose fragment holds a
// token drawn at start, serves the page and the API as the operator (or
// --caller) with that token only, may not write, leaves the database as it
// was, and stops on SIGTERM (C24, C25).
func TestUICommand(t *testing.T) {
	dbFile := filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "import", "--db", dbFile, fixtureDir)
	db := openDB(t, dbFile)
	before, _, _ := contentHash(t, db.DB)

	cmd, address, who := startUI(t, "--db", dbFile)
	m := uiAddress.FindStringSubmatch(address)
	if m == nil {
		t.Fatalf("ui printed %q", address)
	}
	base, token := m[1], m[2]
	if !strings.Contains(who, "as agent:main:main (the operator), visibility all") {
		t.Errorf("ui's second line: %q", who)
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "/assets/app.js") || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("GET /: %d %s", resp.StatusCode, page)
	}
	if st, _ := uiRequest(t, base, "", "POST", "/v1/search", `{"query":"the"}`); st != 401 {
		t.Errorf("a search without the token: %d", st)
	}
	st, out := uiRequest(t, base, token, "POST", "/v1/search", `{"query":"the","limit":25}`)
	var res struct{ Results []struct{ SessionKey string } }
	json.Unmarshal(out, &res)
	if st != 200 || len(res.Results) == 0 {
		t.Errorf("a search with the token: %d %s", st, out)
	}
	st, out = uiRequest(t, base, token, "GET", "/v1/me", "")
	if st != 200 || !strings.Contains(string(out), `"caller":"agent:main:main","visibility":"all"`) || strings.Contains(string(out), `"write":true`) {
		t.Errorf("/v1/me: %d %s", st, out)
	}
	if st, _ := uiRequest(t, base, token, "DELETE", "/v1/sessions/"+res.Results[0].SessionKey, ""); st != 403 {
		t.Errorf("a delete with the page's token: %d", st)
	}
	_, other, _ := startUI(t, "--db", dbFile, "--caller", "agent:main:nobody", "--visibility", "self")
	if o := uiAddress.FindStringSubmatch(other); o == nil || o[2] == token {
		t.Errorf("a second ui printed %q; its token must be its own", other)
	} else {
		st, out := uiRequest(t, o[1], o[2], "POST", "/v1/search", `{"query":"the"}`)
		if st != 200 || !strings.Contains(string(out), `"results":[]`) {
			t.Errorf("ui --caller agent:main:nobody --visibility self found: %d %s", st, out)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("ui after SIGTERM: %v", err)
	}
	if after, _, _ := contentHash(t, db.DB); after != before {
		t.Error("ui changed the database")
	}
}

// TestUIUsage: ui's refusals are usage errors that name the flag (C1,
// C24); -h tells where the token is.
func TestUIUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ui", "--db", db, "--listen", "0.0.0.0:0"}, 2, `--listen must be a loopback address (127.0.0.1, ::1 or localhost) for the page of this machine's database, got "0.0.0.0:0"`},
		{[]string{"ui", "--db", db, "--visibility", "everyone"}, 2, `invalid value "everyone" for flag -visibility`},
		{[]string{"ui", "--db", db, "now"}, 2, `ui takes no arguments, got "now"`},
		{[]string{"ui", "--db", db}, 1, "no sessionsearch database at " + db},
	} {
		r := runBinary(t, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, r.code, r.stdout, r.stderr, c.code, c.want)
		}
	}
	help := mustRun(t, "ui", "-h").stdout
	for _, want := range []string{"-listen address", "-caller key", "-visibility", "#token="} {
		if !strings.Contains(help, want) {
			t.Errorf("ui -h lacks %q:\n%s", want, help)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("ui created the database")
	}
}
