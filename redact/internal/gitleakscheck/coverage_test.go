package gitleakscheck

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// The rule-by-rule measure of docs/redaction.md R11: every rule of
// gitleaks' default config, with its own samples (gitleaksRuleSamples) and
// with samples drawn from its regular expression, each written four ways.
// A case is one text; it misses when 8 consecutive characters of a secret
// that gitleaks finds in the sample survive redact.Text.

// Ways a secret is written.
const (
	wayBare     = "bare"      // the sample as the rule wrote it or its regex drew it
	wayKeyValue = "KEY=value" // GITHUB_PAT=…, the name made from the rule id
	wayJSON     = "json"      // {"github_pat": "…", …}
	waySentence = "sentence"  // prose naming the secret
)

var ways = []string{wayBare, wayKeyValue, wayJSON, waySentence}

// sentences put a secret (%[2]s) into prose that names it (%[1]s, the
// words of the rule id): the two ways of docs/redaction.md R2's prose.
var sentences = []string{
	"the new %[1]s is %[2]s and the old one is revoked",
	"here is the %[1]s I mentioned: %[2]s (rotate it after the demo)",
}

// coverageCase is one text of the measure.
type coverageCase struct {
	rule, way string
	own       bool     // from the rule's own samples, not drawn from its regex
	text      string   // what redact.Text gets
	secrets   []string // what gitleaks finds: none may keep 8 characters
}

// coverageSet is every case of a run, and the samples gitleaks itself
// does not flag (its entropy floor, allowlists and stopwords reject them:
// they are not secrets by gitleaks' own measure and make no case).
type coverageSet struct {
	cases     []coverageCase
	unflagged map[string]int // per rule
	rules     []string
}

// buildCoverage makes the cases: the own samples of every rule, and draws
// samples drawn from each rule's regex by gofakeit seeded with seed and the
// rule id.
func buildCoverage(tb testing.TB, d *detect.Detector, own map[string]ruleSamples, draws int, seed uint64) coverageSet {
	set := coverageSet{unflagged: map[string]int{}}
	for id := range d.Config.Rules {
		set.rules = append(set.rules, id)
	}
	slices.Sort(set.rules)
	for _, id := range set.rules {
		rule := d.Config.Rules[id]
		if rule.Regex == nil {
			continue // a rule on file names only (pkcs12-file)
		}
		seen := map[string]bool{}
		fixedGroups := capturesOnlyFixedText(rule.Regex.String())
		add := func(sample string, isOwn bool) {
			findings := d.DetectString(sample)
			if len(findings) == 0 {
				set.unflagged[id]++
				return
			}
			var secrets []string
			main := ""
			for _, f := range findings {
				secret := f.Secret
				if f.RuleID == id && fixedGroups {
					secret = f.Match // the groups name the token's kind; the token is the match
				}
				if secret == "" || slices.Contains(secrets, secret) {
					continue
				}
				secrets = append(secrets, secret)
				if f.RuleID == id && main == "" {
					main = secret
				}
			}
			if main == "" {
				main = secrets[0]
			}
			texts := map[string][]string{wayBare: {sample}}
			if !seen[main] { // a rule's own samples hold one secret in many syntaxes
				seen[main] = true
				texts[wayKeyValue] = []string{keyName(id, true) + "=" + main}
				texts[wayJSON] = []string{`{"` + keyName(id, false) + `": "` + jsonEscape(main) + `", "region": "eu-west-1"}`}
				texts[waySentence] = []string{fmt.Sprintf(sentences[len(set.cases)%len(sentences)], strings.ReplaceAll(id, "-", " "), main)}
			}
			for _, way := range ways {
				for _, text := range texts[way] {
					secs := secrets
					if way != wayBare {
						secs = []string{main}
					}
					set.cases = append(set.cases, coverageCase{id, way, isOwn, text, secs})
				}
			}
		}
		for _, tp := range own[id].TruePositives {
			add(tp, true)
		}
		faker := gofakeit.New(seed ^ ruleSeed(id))
		for range draws {
			if s, ok := drawSample(faker, rule); ok {
				add(s, false)
			}
		}
	}
	return set
}

// capturesOnlyFixedText reports a regex whose capture groups can only
// match fixed text (jwt-base64 names the algorithm field it saw): the
// secret gitleaks reports is then a constant, and the match is the secret.
func capturesOnlyFixedText(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false
	}
	groups, fixed := 0, true
	var walk func(re *syntax.Regexp, inGroup bool)
	walk = func(re *syntax.Regexp, inGroup bool) {
		switch re.Op {
		case syntax.OpCapture:
			groups++
			inGroup = true
		case syntax.OpLiteral, syntax.OpConcat, syntax.OpAlternate, syntax.OpEmptyMatch:
		default:
			if inGroup {
				fixed = false
			}
		}
		for _, sub := range re.Sub {
			walk(sub, inGroup)
		}
	}
	walk(re, false)
	return groups > 0 && fixed
}

// drawSample draws a string from the rule's regex that the regex matches
// (a generator cannot always satisfy \b or a look at the next character)
// and that is ASCII: a case-insensitive class such as (?i)[a-z] also holds
// the long s and the Kelvin sign, which no issued token contains.
func drawSample(f *gofakeit.Faker, rule config.Rule) (string, bool) {
	for range 20 {
		if s := f.Regex(rule.Regex.String()); isASCII(s) && rule.Regex.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func ruleSeed(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// keyName makes a variable name of a rule id: GITHUB_PAT, github_pat.
func keyName(id string, upper bool) string {
	name := strings.ReplaceAll(id, "-", "_")
	if upper {
		return strings.ToUpper(name)
	}
	return name
}

func jsonEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// coverageResult counts cases and misses per rule and per way.
type coverageResult struct {
	cases, misses map[string]int // by rule
	byWay         map[string][2]int
	examples      map[string][]string // a few misses per rule
	all           []string            // every miss: rule, way, own, text, output
}

func (r coverageResult) total() (cases, misses int) {
	for id, n := range r.cases {
		cases += n
		misses += r.misses[id]
	}
	return
}

func measureCoverage(set coverageSet) coverageResult {
	r := coverageResult{cases: map[string]int{}, misses: map[string]int{}, byWay: map[string][2]int{}, examples: map[string][]string{}}
	for _, c := range set.cases {
		out, _ := redact.Text(c.text)
		// A mask names its kind ([REDACTED:rubygems-token]), which can
		// spell a piece of the secret's prefix: masks are taken out whole.
		bare := maskPattern.ReplaceAllString(out, "\x00")
		miss := ""
		for _, s := range c.secrets {
			if w := survivingPiece(bare, c.text, publicParts.ReplaceAllString(s, "\n")); w != "" {
				miss = w
				break
			}
		}
		r.cases[c.rule]++
		w := r.byWay[c.way]
		w[0]++
		if miss != "" {
			r.misses[c.rule]++
			w[1]++
			r.all = append(r.all, fmt.Sprintf("%s\t%s\t%v\t%q\t%q", c.rule, c.way, c.own, c.text, out))
			if len(r.examples[c.rule]) < 3 {
				r.examples[c.rule] = append(r.examples[c.rule], fmt.Sprintf("%s: %q keeps %q: %q", c.way, c.text, miss, out))
			}
		}
		r.byWay[c.way] = w
	}
	return r
}

var maskPattern = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// envInt reads a positive integer from the environment, or def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s must be a positive integer, got %q", name, v)
	}
	return n
}

// TestGitleaksRuleCoverage is docs/redaction.md R11. GITLEAKS_DRAWS (8 by
// default) sets the samples drawn per rule and GITLEAKS_SEED (1) the
// seed; `make redact-coverage` runs it larger.
func TestGitleaksRuleCoverage(t *testing.T) {
	draws := envInt(t, "GITLEAKS_DRAWS", 8)
	seed := uint64(envInt(t, "GITLEAKS_SEED", 1))
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	own := gitleaksRuleSamples(t, seed)
	set := buildCoverage(t, d, own, draws, seed)
	r := measureCoverage(set)
	cases, misses := r.total()
	for _, id := range set.rules {
		if r.misses[id] > 0 || testing.Verbose() {
			t.Logf("%-45s cases %5d misses %4d unflagged %4d", id, r.cases[id], r.misses[id], set.unflagged[id])
		}
		for _, e := range r.examples[id] {
			t.Logf("    %s", e)
		}
	}
	for _, way := range ways {
		w := r.byWay[way]
		t.Logf("%-10s cases %6d misses %5d (%.2f%%)", way, w[0], w[1], 100*float64(w[1])/float64(max(1, w[0])))
	}
	if path := os.Getenv("GITLEAKS_MISSES"); path != "" {
		if err := os.WriteFile(path, []byte(strings.Join(r.all, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("overall: %d cases, %d misses (%.3f%%), %d rules", cases, misses, 100*float64(misses)/float64(max(1, cases)), len(set.rules))
	promisedCases, promisedMisses := 0, 0
	for _, id := range set.rules {
		if promised(id) {
			promisedCases += r.cases[id]
			promisedMisses += r.misses[id]
			if r.misses[id] > 0 {
				t.Errorf("%s is a family docs/redaction.md R4 promises: %d of %d cases keep 8 characters", id, r.misses[id], r.cases[id])
			}
		}
	}
	t.Logf("promised families: %d rules, %d cases, %d misses", countPromised(set.rules), promisedCases, promisedMisses)
	if cases < 10000 {
		t.Errorf("only %d cases: are gitleaks' rule samples recorded?", cases)
	}
	if float64(misses) > 0.01*float64(cases) {
		t.Errorf("%d of %d cases (%.2f%%) keep 8 characters of a secret gitleaks finds; at most 1%% may", misses, cases, 100*float64(misses)/float64(cases))
	}
}

// promisedRules are the gitleaks rules of the families docs/redaction.md
// R4 promises (a prefix, a format or an armor of their own), by rule id or
// id prefix ("github-" is every GitHub rule). Not one of their cases may
// keep 8 characters.
var promisedRules = []string{"1password-", "adobe-client-secret", "age-secret-key", "anthropic-", "artifactory-",
	"aws-access-token", "clojars-", "cloudflare-origin-ca-key", "databricks-", "digitalocean-", "doppler-",
	"duffel-", "dynatrace-", "easypost-", "facebook-page-access-token", "flutterwave-", "flyio-", "frameio-",
	"gcp-api-key", "github-", "gitlab-", "grafana-", "heroku-api-key-v2", "huggingface-", "infracost-", "jwt",
	"jwt-base64", "linear-api-key", "mailgun-private-api-token", "mailgun-pub-key", "microsoft-teams-webhook",
	"notion-", "npm-", "octopus-", "openai-", "openshift-", "perplexity-", "planetscale-", "postman-",
	"prefect-", "private-key", "pulumi-", "pypi-", "readme-", "rubygems-", "scalingo-", "sendgrid-",
	"sendinblue-", "settlemint-", "shippo-", "shopify-", "slack-", "sourcegraph-", "square-access-token",
	"stripe-", "telegram-", "twilio-", "typeform-", "vault-batch-token"}

func promised(id string) bool {
	for _, p := range promisedRules {
		if id == p || strings.HasSuffix(p, "-") && strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

func countPromised(ids []string) int {
	n := 0
	for _, id := range ids {
		if promised(id) {
			n++
		}
	}
	return n
}
