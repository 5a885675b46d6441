package browsercheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The harness: the sessionsearch binary built from this checkout, its
// services started as real processes on 127.0.0.1, and one Debian
// Chromium whose tabs the tests drive.

var (
	binary      string          // the sessionsearch binary
	screenshots string          // where the screenshots are kept
	browserCtx  context.Context // a chromedp context with the browser started
	axeSource   string          // axe-core, injected by the accessibility checks
)

// chromium is Debian's; the flags are those a closed network needs: no
// background connections, no component updates, no sync (see
// scripts/install-deps).
const chromium = "/usr/bin/chromium"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "browsercheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binary = filepath.Join(tmp, "sessionsearch")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", binary, "./cmd/sessionsearch")
	build.Dir = "../../.."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building sessionsearch: %v\n%s", err, out)
		return 1
	}
	axe, err := os.ReadFile("node_modules/axe-core/axe.min.js")
	if err != nil {
		fmt.Fprintf(os.Stderr, "axe-core is missing (scripts/install-deps installs it): %v\n", err)
		return 1
	}
	axeSource = string(axe)
	screenshots = os.Getenv("SESSIONSEARCH_UI_SCREENSHOTS")
	if screenshots == "" {
		screenshots, err = os.MkdirTemp("", "sessionsearch-ui-screenshots-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := os.MkdirAll(screenshots, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("browsercheck: the screenshots are in %s\n", screenshots)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.UserDataDir(filepath.Join(tmp, "profile")),
		chromedp.WindowSize(1200, 900),
	)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "starting %s: %v\n", chromium, err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// service is a sessionsearch process that serves the page.
type service struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	stderr *bytes.Buffer
}

// start runs `sessionsearch args...` and waits for its first line: the
// address (serve) or the page's URL (ui).
func start(t testing.TB, args ...string) (*service, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &service{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = &lockedWriter{w: s.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		cmd.Wait()
		t.Fatalf("sessionsearch %s printed nothing; stderr: %s", strings.Join(args, " "), s.stderr)
	}
	first := lines.Text()
	go io.Copy(io.Discard, stdout)
	addr := regexp.MustCompile(`127\.0\.0\.1:\d+`).FindString(first)
	if addr == "" {
		t.Fatalf("no address in %q", first)
	}
	s.url = "http://" + addr
	return s, first
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// post sends a request to the API and returns the status and body.
func (s *service) post(t testing.TB, token, path, body string) (int, []byte) {
	t.Helper()
	method := "POST"
	if body == "" {
		method = "GET"
	}
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
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

// tab is one browser tab of a test, with what went wrong in it.
type tab struct {
	t        testing.TB
	ctx      context.Context
	mu       sync.Mutex
	problems []string // uncaught exceptions, CSP and Trusted Types violations
	allowed  []string // problems a test causes on purpose
}

// allow tells the tab that a problem whose text contains s is the test's
// doing.
func (tb *tab) allow(s string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.allowed = append(tb.allowed, s)
}

// open opens a new tab at url.
func open(t testing.TB, url string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	tb := &tab{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Source == "security" || strings.Contains(m.Text, "Content Security Policy") || strings.Contains(m.Text, "Trusted Type") {
				tb.mu.Lock()
				tb.problems = append(tb.problems, m.String())
				tb.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
	problems:
		for _, p := range tb.problems {
			for _, a := range tb.allowed {
				if strings.Contains(p, a) {
					continue problems
				}
			}
			t.Errorf("the page: %s", p)
		}
		cancel()
	})
	tb.do(chromedp.Navigate(url))
	return tb
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression and decodes its value into out.
func (tb *tab) eval(js string, out any) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("%s: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			tb.t.Fatalf("%s: %v (%s)", js, err, raw)
		}
	}
}

func (tb *tab) str(js string) string {
	tb.t.Helper()
	var s string
	tb.eval(js, &s)
	return s
}

// wait waits until the expression is true.
func (tb *tab) wait(js string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		status := tb.str(`location.pathname + location.search + ' | ' + document.getElementById('status').textContent + ' | ' + document.getElementById('error').textContent`)
		tb.t.Fatalf("waiting for %s: %v (the page says: %q)", js, err, status)
	}
}

// key sends key presses to the focused element.
func (tb *tab) key(keys string) {
	tb.t.Helper()
	tb.do(chromedp.KeyEvent(keys))
}

// press presses one printable key as a keyboard does: a keyDown that
// carries its text, so that a handler that prevents the keydown's default
// keeps the character out of the page (chromedp's KeyEvent sends the
// character as an event of its own).
func (tb *tab) press(key, code string, keyCode int64) {
	tb.t.Helper()
	tb.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown,
			Key: key, Code: code, Text: key, UnmodifiedText: key, WindowsVirtualKeyCode: keyCode}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp,
			Key: key, Code: code, WindowsVirtualKeyCode: keyCode})
		return err
	}))
}

// scheme emulates the system's colour scheme, "light" or "dark".
func (tb *tab) scheme(s string) {
	tb.t.Helper()
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}},
		})
		return err
	}))
}

// shot keeps a screenshot of what the window shows as name.png.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(screenshots, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot: %s", path)
}

// axeViolation is one rule axe-core finds broken.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// accessible runs axe-core on the page as it is and fails the test on any
// serious or critical violation (docs/ui.md U10).
func (tb *tab) accessible(what string) {
	tb.t.Helper()
	var loaded bool
	tb.eval(`typeof axe === 'object'`, &loaded)
	if !loaded {
		ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[*runtime.RemoteObject](axeSource)); err != nil {
			tb.t.Fatalf("injecting axe-core: %v", err)
		}
	}
	var violations []axeViolation
	tb.eval(`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v =>
		({id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))`, &violations)
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			tb.t.Errorf("%s: axe-core: %s (%s): %s at %v", what, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			tb.t.Logf("%s: axe-core, %s: %s (%s) at %v", what, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
}
