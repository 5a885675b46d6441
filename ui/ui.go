// Package ui is the web page that searches and reads transcripts
// (docs/ui.md): one html/template page, its scripts (plain JavaScript
// modules) and its style sheet, embedded in the binary and served with a
// strict Content-Security-Policy. Nothing is built and nothing comes from
// elsewhere: no CDN, no bundler, no framework. The page reads only the HTTP
// API of package server, with the bearer token a person signs in with, so
// it shows what a search by that token shows and nothing more.
//
// package server serves it at / and /assets/ when its Options.Page is set:
// `sessionsearch serve`, `sessionsearch ui` and the cluster node do.
package ui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed page.html assets
var files embed.FS

// ContentSecurityPolicy is the policy of the page and its files
// (docs/ui.md U2): scripts, styles, images and API calls from this origin
// only; no inline script or style, no eval, no plugins, no frames, no
// forms sent anywhere; and Trusted Types required, so that no script can
// hand a string to an HTML sink (innerHTML and its kin) at all.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
	"require-trusted-types-for 'script'; trusted-types 'none'"

// asset is one embedded file, ready to serve.
type asset struct {
	body, gzipped []byte
	etag          string
	contentType   string
}

var (
	loadOnce sync.Once
	assets   map[string]*asset // by name under assets/
	page     *template.Template
	pageErr  error
)

// load reads the embedded files once: each asset with its digest and its
// gzip form, and the page's template.
func load() {
	assets = map[string]*asset{}
	pageErr = fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(body)
		w.Close()
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = "application/octet-stream"
		}
		assets[strings.TrimPrefix(p, "assets/")] = &asset{body: body, gzipped: z.Bytes(),
			etag: `"` + hex.EncodeToString(sum[:8]) + `"`, contentType: ct}
		return nil
	})
	if pageErr != nil {
		return
	}
	page, pageErr = template.New("page.html").Funcs(template.FuncMap{
		// asset is a file's address with its digest, so that a new build's
		// page never runs with an old build's cached file.
		"asset": func(name string) (string, error) {
			a, ok := assets[name]
			if !ok {
				return "", fs.ErrNotExist
			}
			return "/assets/" + name + "?v=" + strings.Trim(a.etag, `"`), nil
		},
	}).ParseFS(files, "page.html")
}

// Handler serves the page at / and its files at /assets/NAME.
func Handler() http.Handler {
	loadOnce.Do(load)
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
	if pageErr != nil {
		http.Error(w, "the page's files are damaged: "+pageErr.Error(), http.StatusInternalServerError)
		return
	}
	if r.URL.Path == "/" {
		var b bytes.Buffer
		if err := page.Execute(&b, nil); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.Write(b.Bytes())
		return
	}
	a, ok := assets[strings.TrimPrefix(r.URL.Path, "/assets/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (not
// with q=0).
func acceptsGzip(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		if !strings.EqualFold(strings.TrimSpace(fields[0]), "gzip") {
			continue
		}
		for _, p := range fields[1:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && k == "q" {
				if q, err := strconv.ParseFloat(v, 64); err == nil && q == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// Weight is what the page's own files take on the wire: their bytes, and
// their bytes gzipped, as the handler sends them (docs/ui.md U12).
func Weight() (raw, gzipped int) {
	loadOnce.Do(load)
	for _, a := range assets {
		raw += len(a.body)
		gzipped += len(a.gzipped)
	}
	var b bytes.Buffer
	if page != nil {
		page.Execute(&b, nil)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b.Bytes())
	w.Close()
	return raw + b.Len(), gzipped + z.Len()
}
