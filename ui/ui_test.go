package ui

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, path string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec.Result()
}

// TestPagePolicy (docs/ui.md U2): the page and its files come with the
// strict policy, the page has no inline script, style or handler, and its
// files are the embedded ones, gzipped when the browser takes it, with
// their digest as ETag.
func TestPagePolicy(t *testing.T) {
	resp := get(t, "/")
	body, _ := io.ReadAll(resp.Body)
	for name, want := range map[string]string{
		"Content-Security-Policy": ContentSecurityPolicy,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-store",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`),        // an inline script
		regexp.MustCompile(`<script(?:\s(?:[^s>]|s[^r])*)?>`), // a script without src
		regexp.MustCompile(`\sstyle=`),                        // an inline style
		regexp.MustCompile(`<style`),                          // a style element
		regexp.MustCompile(`\son[a-z]+=`),                     // an event handler
		regexp.MustCompile(`https?://`),                       // anything from elsewhere
	} {
		if m := bad.Find(body); m != nil {
			t.Errorf("the page has %q", m)
		}
	}
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "require-trusted-types-for 'script'", "frame-ancestors 'none'"} {
		if !strings.Contains(ContentSecurityPolicy, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}

	plain := get(t, "/assets/app.js")
	js, _ := io.ReadAll(plain.Body)
	embedded, _ := files.ReadFile("assets/app.js")
	if !bytes.Equal(js, embedded) || plain.Header.Get("Content-Security-Policy") != ContentSecurityPolicy ||
		!strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("/assets/app.js: %v", plain.Header)
	}
	zipped := get(t, "/assets/app.js", "Accept-Encoding", "br, gzip;q=0.8")
	if zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip not sent: %v", zipped.Header)
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, embedded) {
		t.Error("the gzipped app.js is not app.js")
	}
	if refused := get(t, "/assets/app.js", "Accept-Encoding", "gzip;q=0"); refused.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a browser that refuses it")
	}
	etag := plain.Header.Get("ETag")
	if again := get(t, "/assets/app.js", "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d", etag, again.StatusCode)
	}
	if missing := get(t, "/assets/nothing.js"); missing.StatusCode != http.StatusNotFound {
		t.Errorf("a missing file: %d", missing.StatusCode)
	}
	if !strings.Contains(string(body), "/assets/app.js?v="+strings.Trim(etag, `"`)) {
		t.Error("the page does not name app.js by its digest")
	}
}

// TestScriptsWriteNoHTML (U3): the page's scripts never hand a string to
// an HTML sink or to eval; the policy's Trusted Types refuse it at run
// time as well (ui/internal/browsercheck TestHostileText).
func TestScriptsWriteNoHTML(t *testing.T) {
	sinks := regexp.MustCompile(`\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(['"\x60]|setAttribute\(['"]on|\.srcdoc|createContextualFragment|DOMParser`)
	fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".js") {
			return err
		}
		src, _ := files.ReadFile(p)
		for _, m := range sinks.FindAll(src, -1) {
			t.Errorf("%s uses %s", p, m)
		}
		return nil
	})
}

// TestWeight (U12): the page's own files, gzipped as they are sent, stay
// under 150 KB.
func TestWeight(t *testing.T) {
	raw, gzipped := Weight()
	t.Logf("the page's files: %d bytes, %d gzipped", raw, gzipped)
	if gzipped > 150<<10 {
		t.Errorf("the page's files are %d bytes gzipped, over 150 KB", gzipped)
	}
	if gzipped == 0 || gzipped >= raw {
		t.Errorf("weights %d, %d", raw, gzipped)
	}
}

// TestEveryFileIsUsed: each embedded file is named by the page or
// imported by a script, so none is dead weight.
func TestEveryFileIsUsed(t *testing.T) {
	page, _ := files.ReadFile("page.html")
	var named bytes.Buffer
	named.Write(page)
	fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".js") {
			src, _ := files.ReadFile(p)
			named.Write(src)
		}
		return err
	})
	fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		if !strings.Contains(named.String(), `"`+name+`"`) && !strings.Contains(named.String(), `'./`+name+`'`) {
			t.Errorf("%s is not used", p)
		}
		return nil
	})
}
