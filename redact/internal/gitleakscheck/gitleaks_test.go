// Package gitleakscheck is a test-only module: it checks the redaction
// rules against gitleaks' default detector, so that gitleaks and its
// modules stay out of the library's go.mod (docs/redaction.md, "The
// gitleaks cross-check").
package gitleakscheck

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/redact/redacttest"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// A differential check against gitleaks v8.30.1 with its default rules.
// gitleaks is imported only here, in a module of its own: it never reaches
// the library's users (it is too slow per snippet and misses truncated keys).

// gitleaksFalsePositives are gitleaks findings in the true-positive corpus
// that are not secrets, so redact.Text may leave them. Keep this list short and
// say why for each entry.
var gitleaksFalsePositives = map[string]string{}

// publicParts are the parts of a gitleaks finding that are not secret and
// that redact.Text keeps: the armor lines of a PEM block, the scheme, host and
// path of a webhook URL, the name of a cookie.
var publicParts = regexp.MustCompile(`-----(?:BEGIN|END)[A-Z0-9 ]*-----|-----BEGIN[ A-Za-z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----|KEY(?: BLOCK)?-----$|` +
	`(?:https?://)?(?:hooks\.slack\.com/(?:services|workflows|triggers)|(?:discord|discordapp)\.com/api/webhooks)/|` +
	`_gitlab_session=`)

// TestRedactCoversGitleaks runs gitleaks over the true-positive corpus and
// requires that redact.Text leaves no 8 characters of anything gitleaks flags.
// Samples where redact.Text masks and gitleaks finds nothing are logged (go test
// -v) as a review list: they are truncation cases, URL passwords and
// shapes gitleaks has no rule for.
func TestRedactCoversGitleaks(t *testing.T) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	flagged, onlyOurs := 0, 0
	for _, s := range redacttest.Samples() {
		findings := d.DetectString(s.Text)
		out, _ := redact.Text(s.Text)
		if len(findings) == 0 {
			onlyOurs++
			t.Logf("review: gitleaks finds nothing in %s sample %q", s.Family, s.Text)
			continue
		}
		flagged++
		bare := strings.NewReplacer("[", "", "]", "").Replace(out)
		for _, f := range findings {
			if why, ok := gitleaksFalsePositives[f.Secret]; ok {
				t.Logf("allowed gitleaks finding %s %q: %s", f.RuleID, f.Secret, why)
				continue
			}
			if w := survivingPiece(bare, s.Text, publicParts.ReplaceAllString(f.Secret, "\n")); w != "" {
				t.Errorf("%s: gitleaks %s flags %q; %q survives in %q", s.Family, f.RuleID, f.Secret, w, out)
			}
		}
	}
	if flagged < len(redacttest.Samples())/2 {
		t.Errorf("gitleaks flagged only %d samples: is its default config loaded?", flagged)
	}
	t.Logf("gitleaks flags %d samples; %d are masked by redact.Text alone", flagged, onlyOurs)
}

// survivingPiece returns an 8-character piece of secret found in out, not
// counting pieces across line breaks, nor pieces that text holds outside
// the secret too (RUBYGEMS_TOKEN=rubygems_…: the name tells nothing), or "".
func survivingPiece(out, text, secret string) string {
	rest := strings.ToLower(strings.Replace(text, secret, "\x00", 1))
	for i := 0; i+8 <= len(secret); i++ {
		w := secret[i : i+8]
		if strings.ContainsAny(w, "\n\\") || strings.Contains(rest, strings.ToLower(w)) {
			continue
		}
		if strings.Contains(out, w) {
			return w
		}
	}
	return ""
}

// TestSyntaxTableCoversGitleaks runs gitleaks over every cell of the
// syntax × family table (redacttest.SyntaxSamples): whatever gitleaks flags
// there must keep no 8 characters after redaction either.
func TestSyntaxTableCoversGitleaks(t *testing.T) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cells := redacttest.SyntaxSamples()
	flagged := 0
	for _, c := range cells {
		findings := d.DetectString(c.Text)
		if len(findings) == 0 {
			continue
		}
		flagged++
		out, _ := redact.Text(c.Text)
		bare := strings.NewReplacer("[", "", "]", "").Replace(out)
		for _, f := range findings {
			if w := survivingPiece(bare, c.Text, publicParts.ReplaceAllString(f.Secret, "\n")); w != "" {
				t.Errorf("%s in %s: gitleaks %s flags %q; %q survives in %q", c.Family, c.Syntax, f.RuleID, f.Secret, w, out)
			}
		}
	}
	if flagged < len(cells)/2 {
		t.Errorf("gitleaks flagged only %d of %d cells: is its default config loaded?", flagged, len(cells))
	}
	t.Logf("gitleaks flags %d of %d cells", flagged, len(cells))
}
