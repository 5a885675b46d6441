// Package browsercheck tests the web page (docs/ui.md) in a real Chromium,
// driven through the DevTools protocol by chromedp, against the real
// sessionsearch binary on 127.0.0.1. It is a module of its own so that the
// library's go.mod never holds chromedp: only `make test` and its
// benchmark need it.
package browsercheck
