package redact

import (
	"math"
	"regexp"
	"strings"
)

// What is a secret. Every redaction rule lives in this file; engine.go only
// runs them. docs/redaction.md numbers the rules (R1..R10) and names their
// tests; the comments below cite it. Rule families and their sources of ideas (gitleaks MIT,
// OpenClaw MIT, detect-secrets Apache-2.0, Atuin MIT; no code copied):
//
//   - vendor tokens: a case-sensitive prefix and a body alphabet, with a
//     LOWER bound on the body length and no upper bound, so a key cut by a
//     snippet window still matches (prefixRules);
//   - formats with more structure: JWTs, PEM private keys, legacy OpenAI
//     keys, Telegram bot tokens, Discord tokens;
//   - structure: a secret-named key given a value (key=value, JSON, YAML,
//     headers such as x-api-key, CLI flags), Authorization and Cookie values,
//     bearer tokens, passwords in URLs and on database command lines;
//   - a cut start: text that begins with "…" (a snippet window cut on the
//     left) may begin inside a secret whose prefix or key was cut away.
//
// No rule scans all text for entropy: entropy only gates the value of a
// secret-named key (assignmentEntropy), and word-likeness only decides edge
// cases of rules that already fired.
//
// Truncation. A rule whose secret runs into the end of the text (possibly
// followed by an ellipsis) is "dangling": the text was probably cut there,
// so the rule masks even a short remainder. That is how a snippet ending in
// "sk-ant-api03-AbC…" keeps nothing of the key.

// assignmentEntropy is the Shannon entropy (bits per byte) a value given to
// a secret-named key must reach. 3.0 sits between words and identifiers
// (mostly under 3) and random keys of 16 or more characters (nearly always
// over 3.5); gitleaks uses 3.5 for its generic rule, which lets weak but real
// passwords such as "Tr0ub4dor&3" (3.28) through.
const assignmentEntropy = 3.0

// maxSecretScan bounds how far a rule reads forward for one secret, so that
// a text made of keywords costs linear time. The longest tokens (PyPI,
// JWTs aside) are a few hundred bytes.
const maxSecretScan = 4096

// maxJWTScan bounds how far the JWT rule reads from an "eyJ" either way.
const maxJWTScan = 16 << 10

// minSecretLen is the shortest value a structural rule masks: a shorter value
// cannot leak 8 characters, and short values are mostly words ("true").
const minSecretLen = 8

// prefixRule is a vendor token: a fixed prefix followed by a body alphabet.
type prefixRule struct {
	kind     string
	prefixes []string // case-sensitive
	body     *byteSet
	min      int // shortest body accepted away from the end of the text
	rank     int
	// random: the prefix also starts ordinary identifiers
	// ("sk-learn-compatible-estimator"), so a body made of separated parts
	// must not read as words.
	random bool
	// shape, if set, is what a complete token must start with; the token
	// ends where the shape does.
	shape *regexp.Regexp
	// keepPrefix leaves the prefix visible (a webhook's host and path).
	keepPrefix bool
	// webhook: the path after the prefix is a credential whatever its
	// letters (docs/redaction.md R12); only a template stays.
	webhook bool
	// foldCase: the provider's keys are read whatever the case of the
	// prefix (NPM_…); a prefix in another case must have a whole body.
	foldCase bool
	// max, if set, is the longest body: a longer run (a hash that happens
	// to start like the prefix) is not the token.
	max int
	// wordy: the prefix also starts words and names (sc_bullet, sat.orth),
	// so a body cut by the end of the text must not read as words.
	wordy bool
	// notHex: a body of hex digits only is a hash that starts like the
	// prefix (a git commit id), not the token.
	notHex bool
	// wrapped: the body may run over line breaks (the base64 tool wraps
	// its lines; a JSON string writes them \n), and its "=" padding ends it.
	wrapped bool
}

var (
	alnumBytes          = newByteSet("A-Za-z0-9")
	alnumDashBytes      = newByteSet("A-Za-z0-9_-")
	alnumDotBytes       = newByteSet("A-Za-z0-9_.-")
	base64Bytes         = newByteSet("A-Za-z0-9_+/=-")
	upperDigitBytes     = newByteSet("A-Z0-9")
	hexBytes            = newByteSet("0-9a-fA-F")
	hexDashBytes        = newByteSet("0-9a-fA-F-")
	upperDigitDashBytes = newByteSet("A-Z0-9-")
	slackBytes          = newByteSet("A-Za-z0-9-")
	webhookPathBytes    = newByteSet("A-Za-z0-9_/+-")
	// wrappedBase64Bytes: base64 as the base64 tool writes it, wrapped
	// into lines, also inside a JSON string (\n).
	wrappedBase64Bytes = newByteSet("A-Za-z0-9_+/=\\\r\n-")
)

// prefixRules are the vendor tokens (docs/redaction.md R4). min is well
// below the real length (a GitHub token body is 36, min 30) so that shapes
// that drifted still match, and well above what prose puts after a prefix
// ("ghp_token").
var prefixRules = []prefixRule{
	{kind: "aws-access-key", prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, body: upperDigitBytes, min: 16},
	{kind: "aws-access-key", prefixes: []string{"A3T"}, body: upperDigitBytes, min: 17},
	{kind: "twilio-key", prefixes: []string{"SK"}, body: hexBytes, min: 32},
	// A JWT encoded once more in base64 starts with the base64 of "eyJ".
	{kind: "jwt", prefixes: []string{"ZXlK"}, body: wrappedBase64Bytes, min: 40, wrapped: true},
	{kind: "aws-bedrock-key", prefixes: []string{"ABSK"}, body: base64Bytes, min: 40, random: true},
	{kind: "github-token", prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, body: alnumBytes, min: 30},
	{kind: "github-token", prefixes: []string{"github_pat_"}, body: alnumDashBytes, min: 40},
	{kind: "gitlab-token", prefixes: []string{"glpat-", "gldt-", "glrt-", "glrtr-", "glptt-", "glft-", "glimt-", "glagent-", "glcbt-", "gloas-", "glsoat-", "glffct-", "GR1348941"}, body: alnumDotBytes, min: 20},
	{kind: "slack-token", prefixes: []string{"xoxb-", "xoxp-"}, body: slackBytes, min: 20},
	{kind: "slack-token", prefixes: []string{"xoxs-", "xoxo-"}, body: slackBytes, min: 8,
		shape: regexp.MustCompile(`^xox[os]-[0-9]+-[0-9]+-[0-9]+-[A-Fa-f0-9]+`)},
	{kind: "slack-token", prefixes: []string{"xoxa-", "xoxr-"}, body: slackBytes, min: 8},
	{kind: "slack-token", prefixes: []string{"xoxe-", "xoxe.xoxb-", "xoxe.xoxp-"}, body: slackBytes, min: 12, foldCase: true},
	{kind: "slack-token", prefixes: []string{"xapp-"}, body: slackBytes, min: 8, foldCase: true,
		shape: regexp.MustCompile(`^(?i:xapp)-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+`)},
	{kind: "slack-webhook", prefixes: []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"}, body: webhookPathBytes, min: 20, keepPrefix: true, webhook: true},
	{kind: "discord-webhook", prefixes: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "ptb.discord.com/api/webhooks/", "canary.discord.com/api/webhooks/"}, body: webhookPathBytes, min: 20, keepPrefix: true, webhook: true},
	{kind: "openai-key", prefixes: []string{"sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"}, body: alnumDashBytes, min: 20},
	{kind: "anthropic-key", prefixes: []string{"sk-ant-"}, body: alnumDashBytes, min: 20},
	{kind: "openrouter-key", prefixes: []string{"sk-or-v1-"}, body: alnumBytes, min: 20},
	// Many providers (DeepSeek, Moonshot, legacy OpenAI, LiteLLM...) use a
	// bare "sk-"; the specific rules above name the ones that can be told.
	{kind: "api-key", prefixes: []string{"sk-"}, body: alnumDashBytes, min: 20, rank: rankVendorLike, random: true},
	{kind: "google-api-key", prefixes: []string{"AIza"}, body: alnumDashBytes, min: 30},
	{kind: "google-oauth-token", prefixes: []string{"ya29."}, body: alnumDotBytes, min: 20},
	{kind: "google-oauth-token", prefixes: []string{"1//0"}, body: alnumDashBytes, min: 30},
	{kind: "google-oauth-secret", prefixes: []string{"GOCSPX-"}, body: alnumDashBytes, min: 20},
	{kind: "stripe-key", prefixes: []string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"}, body: alnumBytes, min: 10},
	{kind: "stripe-webhook-secret", prefixes: []string{"whsec_"}, body: alnumBytes, min: 20},
	{kind: "huggingface-token", prefixes: []string{"hf_"}, body: alnumBytes, min: 30},
	{kind: "huggingface-token", prefixes: []string{"api_org_"}, body: alnumBytes, min: 30},
	{kind: "npm-token", prefixes: []string{"npm_"}, body: alnumBytes, min: 30, foldCase: true},
	{kind: "pypi-token", prefixes: []string{"pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"}, body: alnumDashBytes, min: 40},
	{kind: "sendgrid-key", prefixes: []string{"SG."}, body: newByteSet("A-Za-z0-9_.=-"), min: 40,
		shape: regexp.MustCompile(`^SG\.[A-Za-z0-9_=-]{4,}\.[A-Za-z0-9_=-]{16,}(?:\.[A-Za-z0-9_=-]*[0-9_=-][A-Za-z0-9_=-]*)*|^SG\.[A-Za-z0-9_=.-]{60,}`)},
	{kind: "supabase-key", prefixes: []string{"sbp_", "sb_secret_"}, body: alnumDashBytes, min: 30},
	{kind: "digitalocean-token", prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, body: alnumBytes, min: 40, foldCase: true},
	{kind: "docker-token", prefixes: []string{"dckr_pat_", "dckr_oat_"}, body: alnumDashBytes, min: 20},
	{kind: "groq-key", prefixes: []string{"gsk_"}, body: alnumBytes, min: 30},
	{kind: "xai-key", prefixes: []string{"xai-"}, body: alnumBytes, min: 30},
	{kind: "perplexity-key", prefixes: []string{"pplx-"}, body: alnumBytes, min: 30},
	{kind: "replicate-token", prefixes: []string{"r8_"}, body: alnumBytes, min: 30},
	{kind: "shopify-token", prefixes: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, body: alnumBytes, min: 30},
	{kind: "linear-key", prefixes: []string{"lin_api_"}, body: alnumBytes, min: 30},
	{kind: "notion-token", prefixes: []string{"ntn_"}, body: alnumBytes, min: 30},
	{kind: "databricks-token", prefixes: []string{"dapi"}, body: alnumDashBytes, min: 32, random: true},
	{kind: "atlassian-token", prefixes: []string{"ATATT3"}, body: base64Bytes, min: 30},
	{kind: "sentry-token", prefixes: []string{"sntrys_", "sntryu_"}, body: base64Bytes, min: 30},
	{kind: "grafana-token", prefixes: []string{"glc_", "glsa_"}, body: base64Bytes, min: 30, random: true, foldCase: true},
	{kind: "pulumi-token", prefixes: []string{"pul-"}, body: alnumBytes, min: 40},
	{kind: "doppler-token", prefixes: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."}, body: alnumBytes, min: 30},
	{kind: "netlify-token", prefixes: []string{"nfp_", "nfc_", "nfo_", "nfu_", "nfb_"}, body: alnumBytes, min: 30},
	{kind: "newrelic-key", prefixes: []string{"NRAK-"}, body: upperDigitBytes, min: 20},
	{kind: "postman-key", prefixes: []string{"PMAK-"}, body: slackBytes, min: 40},
	{kind: "figma-token", prefixes: []string{"figd_"}, body: alnumDashBytes, min: 30},
	{kind: "vault-token", prefixes: []string{"hvs.", "hvb.", "hvr."}, body: alnumDashBytes, min: 24},
	{kind: "onepassword-token", prefixes: []string{"ops_eyJ"}, body: base64Bytes, min: 50},
	{kind: "alibaba-access-key", prefixes: []string{"LTAI"}, body: alnumBytes, min: 12},
	{kind: "age-secret-key", prefixes: []string{"AGE-SECRET-KEY-1"}, body: upperDigitBytes, min: 40},
	{kind: "heroku-key", prefixes: []string{"HRKU-"}, body: alnumDashBytes, min: 30},
	// More of the providers of gitleaks' catalogue, each by the prefix it
	// issues its tokens with.
	{kind: "onepassword-secret-key", prefixes: []string{"A3-"}, body: upperDigitDashBytes, min: 30},
	{kind: "adobe-client-secret", prefixes: []string{"p8e-"}, body: alnumBytes, min: 30},
	{kind: "artifactory-key", prefixes: []string{"AKCp"}, body: alnumBytes, min: 60},
	{kind: "artifactory-key", prefixes: []string{"cmVmd"}, body: alnumBytes, min: 50},
	{kind: "clojars-token", prefixes: []string{"CLOJARS_"}, body: alnumBytes, min: 50, foldCase: true},
	{kind: "cloudflare-key", prefixes: []string{"v1.0-"}, body: hexDashBytes, min: 100},
	{kind: "dynatrace-token", prefixes: []string{"dt0c01."}, body: alnumDotBytes, min: 80},
	{kind: "easypost-key", prefixes: []string{"EZAK", "EZTK"}, body: alnumBytes, min: 50},
	{kind: "facebook-token", prefixes: []string{"EAAM", "EAAC"}, body: alnumBytes, min: 90},
	{kind: "flutterwave-key", prefixes: []string{"FLWSECK_TEST-", "FLWSECK-", "FLWPUBK_TEST-", "FLWPUBK-"}, body: alnumDashBytes, min: 12},
	{kind: "flyio-token", prefixes: []string{"fo1_"}, body: alnumDashBytes, min: 40},
	{kind: "flyio-token", prefixes: []string{"fm1a_", "fm1r_", "fm2_"}, body: base64Bytes, min: 90},
	{kind: "frameio-token", prefixes: []string{"fio-u-"}, body: base64Bytes, min: 60},
	{kind: "grafana-token", prefixes: []string{"eyJrIjoi"}, body: base64Bytes, min: 60, foldCase: true},
	{kind: "infracost-token", prefixes: []string{"ico-"}, body: alnumBytes, min: 32},
	{kind: "intra42-secret", prefixes: []string{"s-s4t2ud-", "s-s4t2af-"}, body: hexBytes, min: 60},
	{kind: "octopus-key", prefixes: []string{"API-"}, body: upperDigitBytes, min: 26},
	{kind: "openshift-token", prefixes: []string{"sha256~"}, body: alnumDashBytes, min: 40},
	{kind: "planetscale-token", prefixes: []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, body: newByteSet("A-Za-z0-9_.=-"), min: 30, foldCase: true},
	{kind: "prefect-token", prefixes: []string{"pnu_"}, body: alnumBytes, min: 30},
	{kind: "readme-token", prefixes: []string{"rdme_"}, body: alnumBytes, min: 60},
	{kind: "rubygems-token", prefixes: []string{"rubygems_"}, body: hexBytes, min: 40},
	{kind: "scalingo-token", prefixes: []string{"tk-us-"}, body: alnumDashBytes, min: 40},
	{kind: "brevo-key", prefixes: []string{"xkeysib-", "xsmtpsib-"}, body: alnumDashBytes, min: 60},
	{kind: "settlemint-token", prefixes: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, body: alnumBytes, min: 16},
	{kind: "shippo-token", prefixes: []string{"shippo_live_", "shippo_test_"}, body: hexBytes, min: 40},
	{kind: "sourcegraph-token", prefixes: []string{"sgp_"}, body: alnumDashBytes, min: 40, foldCase: true},
	{kind: "clickhouse-key", prefixes: []string{"4b1d"}, body: alnumBytes, min: 38, max: 38, notHex: true},
	{kind: "harness-token", prefixes: []string{"pat.", "sat."}, body: alnumDotBytes, min: 60, wordy: true,
		shape: regexp.MustCompile(`^[ps]at\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9]{16,}\.[A-Za-z0-9]{16,}`)},
	{kind: "authress-key", prefixes: []string{"authress_", "scauth_", "sc_", "ext_"}, body: newByteSet("A-Za-z0-9_.+/=-"), min: 50, wordy: true,
		shape: regexp.MustCompile(`^[a-z]+_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,}`)},
	{kind: "square-token", prefixes: []string{"sq0atp-", "sq0csp-", "EAAA"}, body: alnumDashBytes, min: 22},
	{kind: "typeform-token", prefixes: []string{"tfp_"}, body: newByteSet("A-Za-z0-9_.=-"), min: 40, foldCase: true},
	{kind: "mailgun-key", prefixes: []string{"key-", "pubkey-"}, body: hexBytes, min: 32},
	{kind: "duffel-token", prefixes: []string{"duffel_test_", "duffel_live_"}, body: base64Bytes, min: 40},
	{kind: "mapbox-token", prefixes: []string{"sk.eyJ"}, body: jwtBytes, min: 60},
	{kind: "gitlab-session", prefixes: []string{"_gitlab_session="}, body: alnumBytes, min: 32, keepPrefix: true},
	{kind: "teams-webhook", prefixes: []string{"webhook.office.com/webhookb2/", "outlook.office.com/webhook/", "outlook.office365.com/webhook/"}, body: newByteSet("A-Za-z0-9_/+@-"), min: 40, keepPrefix: true, webhook: true},
	{kind: "pagerduty-webhook", prefixes: []string{"events.pagerduty.com/integration/"}, body: alnumBytes, min: 20, keepPrefix: true, webhook: true},
}

// triggerKind says which rule a keyword hit runs.
type triggerKind uint8

const (
	triggerPrefix         triggerKind = iota // a vendor prefix; arg indexes prefixRules
	triggerAssignment                        // a secret-named key
	triggerPrivateKey                        // PEM armor
	triggerJWT                               // "eyJ"
	triggerJWTDot                            // ".ey" between the parts of a token that starts "ey"
	triggerInfix                             // a fixed part inside a token; arg indexes infixRules
	triggerTelegram                          // ":AA" of a bot token
	triggerTelegramNear                      // a bot token near "telegram" or in a /bot URL
	triggerURL                               // "://"
	triggerBearer                            // "Bearer <token>"
	triggerDiscord                           // a Discord bot token near "discord"
	triggerCurlUser                          // curl -u user:password
	triggerDatabaseCLI                       // mysql -pPASSWORD and relatives
	triggerProvider                          // a provider's name in a key name
	triggerHookPath                          // "/hooks/" or "/with/key/" in a URL
	triggerQuerySignature                    // "?sig=" or "&sig=" of a signed URL
)

type trigger struct {
	keyword string // lower case, for the prefilter
	// keywords, if set, are the keywords instead of keyword: one trigger,
	// so one entry of detector.covered, for many words.
	keywords []string
	literal  string // the exact case a prefix rule needs
	kind     triggerKind
	arg      int
}

// structuralTriggers are the keywords of the rules that are not plain
// prefixes. The assignment keywords are parts of key names: "pass" finds
// password, passwd and passphrase; "key" finds api_key, apiKey, x-api-key.
var structuralTriggers = []trigger{
	{keyword: "pass", kind: triggerAssignment},
	{keyword: "pwd", kind: triggerAssignment},
	{keyword: "secret", kind: triggerAssignment},
	{keyword: "token", kind: triggerAssignment},
	{keyword: "key", kind: triggerAssignment},
	{keyword: "auth", kind: triggerAssignment},
	{keyword: "credential", kind: triggerAssignment},
	{keyword: "cookie", kind: triggerAssignment},
	{keyword: "private key", kind: triggerPrivateKey},
	{keyword: "eyj", kind: triggerJWT},
	{keyword: ".ey", kind: triggerJWTDot},
	{keyword: "/hooks/", kind: triggerHookPath},
	{keyword: "/with/key/", kind: triggerHookPath},
	{keyword: "?sig=", kind: triggerQuerySignature},
	{keyword: "&sig=", kind: triggerQuerySignature},
	{keyword: ":aa", kind: triggerTelegram},
	{keyword: "telegr", kind: triggerTelegramNear},
	{keyword: "/bot", kind: triggerTelegramNear},
	{keyword: "://", kind: triggerURL},
	{keyword: "bearer", kind: triggerBearer},
	{keyword: "discord", kind: triggerDiscord},
	{keyword: "curl", kind: triggerCurlUser},
	{keyword: "mysql", kind: triggerDatabaseCLI},
	{keyword: "mariadb", kind: triggerDatabaseCLI},
	{keyword: "mongo", kind: triggerDatabaseCLI},
	{keyword: "sshpass", kind: triggerDatabaseCLI},
	{keyword: "redis-cli", kind: triggerDatabaseCLI},
}

// providerWords name the providers whose keys have no prefix of their own,
// so that only the name they are given tells them (docs/redaction.md R13):
// CLOUDFLARE_API_KEY=…, "adafruit": "…", the messagebird key I mentioned:
// …. The list follows the providers of gitleaks' per-provider rules.
var providerWords = []string{"adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian",
	"confluence", "jira", "beamer", "bitbucket", "bittrex", "meraki", "cloudflare", "codecov", "cohere",
	"coinbase", "confluent", "contentful", "datadog", "dnkey", "discord", "droneci", "dropbox", "etsy",
	"facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter", "gocardless", "heroku",
	"hubspot", "intercom", "jfrog", "artifactory", "bintray", "xray", "kraken", "kucoin", "launchdarkly",
	"linear", "linkedin", "sumologic", "linked_in", "linked-in", "lob", "looker", "mailchimp", "mailgun", "mapbox",
	"mattermost", "messagebird", "message_bird", "message-bird", "netlify", "newrelic", "new_relic",
	"new-relic", "nytimes", "newyorktimes", "new-york-times", "new relic", "okta", "plaid", "privateai", "private_ai",
	"private-ai", "rapidapi", "sendbird", "sentry", "snyk", "sonar", "squarespace", "sumo", "telegr",
	"travis", "twitch", "twitter", "typeform", "yandex", "zendesk", "contribsys", "sourcegraph"}

// maxRedactTriggers bounds the per-trigger state a detector keeps on the
// stack.
const maxRedactTriggers = 256

var (
	redactTriggers = buildTriggers()
	redactKeywords = buildKeywordSet(redactTriggers)
)

func buildTriggers() []trigger {
	ts := append([]trigger(nil), structuralTriggers...)
	ts = append(ts, trigger{keywords: providerWords, kind: triggerProvider})
	for i, r := range infixRules {
		ts = append(ts, trigger{keyword: strings.ToLower(r.infix), literal: r.infix, kind: triggerInfix, arg: i})
	}
	for i, r := range prefixRules {
		for _, p := range r.prefixes {
			ts = append(ts, trigger{keyword: strings.ToLower(p), literal: p, kind: triggerPrefix, arg: i})
		}
	}
	if len(ts) > maxRedactTriggers {
		panic("redact: too many redaction triggers")
	}
	return ts
}

func buildKeywordSet(ts []trigger) *keywordSet {
	var words []string
	var owners [][]int
	index := map[string]int{}
	for i, t := range ts {
		for _, k := range append([]string{t.keyword}, t.keywords...) {
			if k == "" {
				continue
			}
			w, ok := index[k]
			if !ok {
				w = len(words)
				index[k] = w
				words = append(words, k)
				owners = append(owners, nil)
			}
			owners[w] = append(owners[w], i)
		}
	}
	return newKeywordSet(words, owners)
}

// fire runs trigger tr for a keyword found at view[start:end].
func (d *detector) fire(tr int, start, end int) {
	t := &redactTriggers[tr]
	switch t.kind {
	case triggerPrefix:
		d.prefixToken(start, end, t.literal, &prefixRules[t.arg])
	case triggerAssignment:
		d.assignment(start, end)
	case triggerPrivateKey:
		d.privateKey(start, end)
	case triggerJWT:
		d.jwt(start, end)
	case triggerJWTDot:
		d.jwtDot(start, end)
	case triggerInfix:
		d.infixToken(start, end, &infixRules[t.arg])
	case triggerTelegram:
		d.telegram(start, end)
	case triggerTelegramNear:
		d.telegramNear(start, end)
	case triggerURL:
		d.urlCredential(start, end)
	case triggerBearer:
		d.bearer(start, end)
	case triggerDiscord:
		d.discordToken(start, end)
	case triggerCurlUser:
		d.curlUser(start, end)
	case triggerDatabaseCLI:
		d.databaseCLI(start, end)
	case triggerProvider:
		d.providerAssignment(start, end)
	case triggerHookPath:
		d.hookPath(start, end)
	case triggerQuerySignature:
		d.querySignature(end)
	}
}

// prefixToken masks a vendor token that starts at view[start:end].
func (d *detector) prefixToken(start, end int, literal string, r *prefixRule) {
	t := d.text
	folded := false
	if t[start:end] != literal {
		if !r.foldCase || !strings.EqualFold(t[start:end], literal) {
			return
		}
		folded = true
	}
	// The prefix must start a token: not inside a word, and not inside a
	// body of its own alphabet ("sk-sk-sk-…" is one run, not many keys).
	if start > 0 && (isAlnumByte(t[start-1]) || (t[start-1] == '-' || t[start-1] == '_') && r.body[t[start-1]]) {
		return
	}
	if start > 0 && t[start-1] == '_' && strings.HasSuffix(literal, "_") {
		return // igb_add_nfc_entry: a part of a snake_case name
	}
	if start > 0 && (t[start-1] == '+' || t[start-1] == '/') && !strings.Contains(literal, "/") {
		return // inside a run of base64 (Dx+EAAAAAAB…), not a token's start
	}
	j := end
	for j < len(t) && j-end < maxSecretScan && r.body[t[j]] {
		j++
		if r.wrapped && t[j-1] == '=' && (j == len(t) || t[j] != '=') {
			break
		}
	}
	for j > end && (t[j-1] == '.' || t[j-1] == '\n' || t[j-1] == '\r' || t[j-1] == '\\') { // a full stop or a line end, not the key
		j--
	}
	body := t[end:j]
	if r.webhook {
		if templateValue(body) {
			return // hooks.slack.com/services/<your-webhook>
		}
	} else if placeholderValue(body) || len(body) >= 3 && strings.Trim(body, "xX*.-_") == "" {
		return // xoxb-xxx, ghp_****: a placeholder (docs/redaction.md R6)
	}
	if r.keepPrefix {
		start = end
	}
	if folded && r.shape == nil && (len(body) < r.min || !strings.ContainsAny(body, "0123456789") && oneCase(body)) {
		return // NPM_CONFIG_REGISTRY: only a whole body of mixed case or digits makes NPM_… a key
	}
	if r.max > 0 && len(body) > r.max || r.notHex && strings.Trim(body, "0123456789abcdef") == "" {
		return
	}
	if d.atEnd(j) {
		// A cut token, unless the prefix starts an identifier made of one
		// plain word (hf_transfer, npm_config), or, for the prefixes that
		// start words too (sc_, sat.), any words.
		if len(body) >= 1 && len(literal)+len(body) >= minSecretLen && !plainLowerWord(body) &&
			(!r.wordy || !naturalText(body, false)) {
			d.add(start, j, r.kind, r.rank)
		}
		return
	}
	if j < len(t) && isAlnumByte(t[j]) { // part of a longer word
		return
	}
	// Only a body with separators can read as an identifier
	// ("sk-learn-compatible-estimator"); a long unbroken run is the key.
	if len(body) < r.min || r.random && strings.ContainsAny(body, "-_.") && naturalText(body, false) {
		return
	}
	if r.shape != nil {
		m := r.shape.FindStringIndex(t[start:j])
		if m == nil {
			return
		}
		j = start + m[1] // "SG.a.b.deploy": the key ends after its second part
	}
	d.add(start, j, r.kind, r.rank)
}

// assignment masks the value given to a secret-named key (docs/redaction.md
// R2, R3): KEY=value,
// "key": "value", key: value, --key value, --key=value, Header: value, and
// in prose "the token is value".
func (d *detector) assignment(start, end int) {
	t := d.text
	ks, ke := start, end
	for ks > 0 && isKeyByte(t[ks-1]) && end-ks < 64 {
		ks--
	}
	for ke < len(t) && isKeyByte(t[ke]) && ke-start < 64 {
		ke++
	}
	if ke <= d.keyEnd {
		return
	}
	d.keyEnd = ke
	if ks >= len(MaskPrefix)-1 && t[ks-len(MaskPrefix)+1:ks] == MaskPrefix[1:] {
		return // "[REDACTED:api-key]" read without its brackets
	}
	if ks > 0 && (t[ks-1] == '/' || t[ks-1] == '\\') {
		return // a file in a path: tests/samplekeys/ssh-rsa.key
	}
	keyStart := ks
	flag := false
	for ks < ke && t[ks] == '-' {
		ks++
		flag = true
	}
	for ke > ks && (t[ke-1] == '.' || t[ke-1] == '-') {
		ke--
	}
	if flag && ks-keyStart > 2 {
		return // "----password" is a rule line, not a flag
	}
	kind := secretKeyKind(t[ks:ke])
	if kind == "" && !flag && strings.EqualFold(t[ks:ke], "key") {
		kind = proseKeyKind(t, ks) // "the heroku key I mentioned: …"
	}
	if kind == "" {
		return
	}

	// The operator: a closing quote of a quoted key, then ":", "=", ":=",
	// "=>", "::=", ".=", "??=", "+="; an XML element's ">"; the comma
	// between a quoted name and a quoted value (setProperty("NAME",
	// "value")); a type between the name and "=" (var x string = …); or
	// white space after a --flag (docs/redaction.md R2).
	i := ke
	quotedKey := false
	switch {
	case keyStart > 0 && isQuote(t[keyStart-1]) && i < len(t) && t[i] == t[keyStart-1]:
		i++
		quotedKey = true
	case keyStart > 1 && t[keyStart-1] == '"' && t[keyStart-2] == '\\' && strings.HasPrefix(t[i:], `\"`):
		i += 2
	case keyStart > 0 && t[keyStart-1] == '<' && i < len(t) && t[i] == '>':
		d.xmlValue(i+1, t[keyStart:ke], kind)
		return
	}
	spaced := i
	i = skipBlanks(t, i)
	spaced = i - spaced
	if !flag && spaced > 0 && i < len(t) && isAlnumByte(t[i]) {
		i = skipTypeName(t, i) // var apiToken string = "…"
	}
	switch {
	case strings.HasPrefix(t[i:], ":::="):
		i += 4
	case strings.HasPrefix(t[i:], "::=") || strings.HasPrefix(t[i:], "??="):
		i += 3
	case strings.HasPrefix(t[i:], ":=") || strings.HasPrefix(t[i:], "=>") || strings.HasPrefix(t[i:], "?=") ||
		strings.HasPrefix(t[i:], ".=") || strings.HasPrefix(t[i:], "+="):
		i += 2
	case quotedKey && strings.HasPrefix(t[i:], "value=") && i+6 < len(t) && isQuote(t[i+6]):
		i += len("value=") // <add key="Password" value="…"/>
	case quotedKey && i < len(t) && t[i] == ',' && i+1 < len(t) && isQuote(t[skipBlanks(t, i+1)]):
		i++
	case i < len(t) && t[i] == ':' && i+1 < len(t) && (t[i+1] == ' ' || t[i+1] == '\t') && isTypeAssignment(t, i+1):
		i = isTypeAssignmentEnd(t, i+1) // val apiToken: String = "…"
	case i < len(t) && t[i] == '=':
		if i+1 < len(t) && t[i+1] == '~' {
			return // a match: password =~ /…/ is code, not a secret
		}
		// A comparison with a literal (token == "…") holds the literal:
		// the value gate keeps token == "" and token == other.
		i++
		for i < len(t) && t[i] == '=' && i-ke < 8 {
			i++
		}
	case i < len(t) && t[i] == ':':
		if i+1 < len(t) && t[i+1] == ':' {
			return
		}
		i++
	case flag && spaced > 0 && i < len(t) && t[i] != '-':
	case !flag && spaced > 0 && (strings.HasPrefix(t[i:], "is ") || strings.HasPrefix(t[i:], "was ")):
		// Prose: "my bot token is MTQ1…". The value gate keeps "the
		// token is valid" and "the password is in the vault" as they are.
		i += strings.IndexByte(t[i:], ' ')
	case !flag && spaced > 0 && proseNameIs(t, i) > 0:
		// Prose that names the secret in more words: "the auth header
		// is S", "the api token for staging was S"; the words complete
		// the name, which must still name a secret.
		j := proseNameIs(t, i)
		words := t[i : i+strings.LastIndexByte(t[i:j], ' ')]
		if kind = secretKeyKind(t[ks:ke] + "_" + strings.ReplaceAll(words, " ", "_")); kind == "" {
			return // the password field is required
		}
		i = j
	case !flag && spaced > 0:
		// Prose: "the token I mentioned: S", a few plain words, then a colon.
		j := proseColon(t, i)
		if j < 0 || j+1 < len(t) && isQuote(t[skipBlanks(t, j)]) {
			return // prose writes the secret bare; a quote here is code
		}
		i = j
	default:
		return
	}
	i = skipBlanks(t, i)

	switch kind {
	case "cookie":
		d.cookieValue(i, strings.EqualFold(t[ks:ke], "set-cookie"))
	case "authorization":
		d.authorizationValue(i)
	default:
		vs, ve, dangling := d.readValue(i)
		if vs == i && !dangling {
			ve = passwordEnd(t, vs, ve)
			if d.atEnd(ve) {
				ve, dangling = trimEllipsis(t, vs, ve), true
			}
		}
		if kind == "password" {
			if plausiblePassword(t[vs:ve], dangling, vs > i) {
				d.add(vs, ve, kind, rankAssignment)
			}
			return
		}
		if plausibleSecret(t[vs:ve], dangling) {
			d.add(vs, ve, kind, rankAssignment)
		}
	}
}

// providerAssignment masks the value given to a name that holds a
// provider's name (docs/redaction.md R13), in the shape of gitleaks'
// per-provider rules: the name (identifier bytes around the provider's
// word), up to four more words, up to three quotes or blanks, an operator
// (= : := ::= => ?= || > , or prose's "is"), up to five quotes, blanks or
// "=", and the value. The value passes the gate of a secret-named key
// (plausibleSecret). A name that ends in a word describing the secret
// (discord_channel_id, sentry_url) gives no secret, except a client, app
// or access id, which the providers issue with the secret.
func (d *detector) providerAssignment(start, end int) {
	t := d.text
	if start < d.providerKeyEnd {
		return // read as part of an earlier name
	}
	// The provider's word must be a word of the name, not letters inside
	// another word: "lob" is not in Global or clobbers.
	if start > 0 && isLowerByte(t[start]) && (isLowerByte(t[start-1]) || isUpperByte(t[start-1])) ||
		end < len(t) && isLowerByte(t[end-1]) && isLowerByte(t[end]) {
		return
	}
	ks := start
	for ks > 0 && start-ks < 50 && isNameByte(t[ks-1]) {
		ks--
	}
	ke := end
	for ke < len(t) && ke-end < 50 && isNameByte(t[ke]) {
		ke++
	}
	d.providerKeyEnd = ke
	if ks > 0 && (t[ks-1] == ':' || t[ks-1] == '/') {
		return // a part of a colon path or a URL: agent:main:telegram:dm:…
	}
	var more []string // the words between the name and the operator
	i := ke
	flag := strings.HasPrefix(t[ks:], "--") && i < len(t) && t[i] == ' '
	for words := 0; !flag; words++ {
		j := i
		for j < len(t) && j-i < 4 && (t[j] == ' ' || t[j] == '\t' || isQuote(t[j]) || t[j] == '\\' ||
			t[j] == '\r' || t[j] == '\n' || t[j] == '\f' || t[j] == '\v') {
			j++
		}
		if op := assignmentOperatorLen(t, j); op > 0 {
			i = j + op
			if t[j] == ':' && op == 1 {
				i = isTypeAssignmentEnd(t, i) // val adobeClientId: String = "…"
			}
			break
		}
		if j == i || words == 5 || (t[i] != ' ' && t[i] != '\t') {
			return
		}
		w := j
		for w < len(t) && w-j <= 16 && isNameByte(t[w]) {
			w++
		}
		if w == j || w-j > 16 {
			return
		}
		if word := t[j:w]; word == "is" || word == "was" {
			if w >= len(t) || t[w] != ' ' {
				return
			}
			i = w
			break
		}
		more, i = append(more, lowerASCII(t[j:w])), w
	}
	if !providerNameGivesSecret(t[ks:ke], more) {
		return
	}
	for k := 0; k < 6 && i < len(t) && (isQuote(t[i]) || t[i] == '=' || t[i] == '\\' || t[i] <= ' '); k++ {
		i++
	}
	vs, ve := i, i
	for ve < len(t) && ve-vs < maxSecretScan && providerValueBytes[t[ve]] {
		ve++
	}
	for ve > vs && (t[ve-1] == '.' || t[ve-1] == ':' || t[ve-1] == ',') {
		ve--
	}
	dangling := d.atEnd(ve)
	if dangling {
		ve = trimEllipsis(t, vs, ve)
	} else if ve < len(t) && (isAlnumByte(t[ve]) || t[ve] == '(') {
		return // a call or a longer word
	}
	v := t[vs:ve]
	if strings.Contains(v, "://") || !plausibleSecret(v, dangling) {
		return
	}
	d.add(vs, ve, "secret", rankProviderName)
}

// providerValueBytes are the bytes of a provider's key: base64 with its
// URL-safe letters and padding, and the | % ~ : of some formats.
var providerValueBytes = newByteSet("A-Za-z0-9_+/=.|%~:-")

// assignmentOperatorLen is the length of the operator at t[i:], or 0.
func assignmentOperatorLen(t string, i int) int {
	for _, op := range []string{":::=", "::=", "??=", ":=", "=>", "?=", ".=", "+=", "||", "=", ":", ">", ","} {
		if strings.HasPrefix(t[i:], op) {
			if op == ":" && i+1 < len(t) && t[i+1] == ':' {
				return 0 // a C++ or Rust path: discord::Client
			}
			return len(op)
		}
	}
	return 0
}

// providerNameGivesSecret reports whether a name with a provider's word
// holds a secret: not when its last word only describes one (an id, a url,
// a name), except the ids providers issue with their secrets.
func providerNameGivesSecret(name string, more []string) bool {
	var buf [12]string
	words := append(splitKeyWords(name, &buf), more...)
	if len(words) == 0 {
		return false
	}
	end := words[len(words)-1]
	if !nonSecretLastWords[end] {
		return true
	}
	if end != "id" || len(words) < 2 {
		return false
	}
	switch words[len(words)-2] {
	case "client", "access", "app", "application", "api", "consumer", "account":
		return true
	}
	return false
}

// isNameByte is a byte of an identifier in the wide sense of gitleaks'
// names: letters, digits, "_", "." and "-".
func isNameByte(c byte) bool { return alnumDotBytes[c] }

// skipTypeName skips a type between a name and its "=" (Go's var x string
// = …, C#'s and Java's declarations put the type first and need nothing):
// one identifier followed by blanks and "=". Otherwise it returns i.
func skipTypeName(t string, i int) int {
	j := i
	for j < len(t) && j-i < 32 && (isAlnumByte(t[j]) || t[j] == '.' || t[j] == '[' || t[j] == ']' || t[j] == '*') {
		j++
	}
	k := skipBlanks(t, j)
	if k > j && k < len(t) && t[k] == '=' && (k+1 >= len(t) || t[k+1] != '=') {
		return k
	}
	return i
}

// isTypeAssignment reports "name: Type = value" (Kotlin, Scala, TypeScript)
// at t[i:], after the colon.
func isTypeAssignment(t string, i int) bool { return isTypeAssignmentEnd(t, i) != i }

func isTypeAssignmentEnd(t string, i int) int {
	i = skipBlanks(t, i)
	j := i
	for j < len(t) && j-i < 32 && (isAlnumByte(t[j]) || t[j] == '?' || t[j] == '<' || t[j] == '>') {
		j++
	}
	if j == i {
		return i
	}
	k := skipBlanks(t, j)
	if k > j && k < len(t) && t[k] == '=' && (k+1 >= len(t) || t[k+1] != '=') {
		return k + 1
	}
	return i
}

// proseNameIs finds "header is " after a secret word in prose: one or
// two plain lower-case words, then "is" or "was" and a blank. It returns
// the offset of that blank, or -1.
func proseNameIs(t string, i int) int {
	for words := 0; words < 3; words++ {
		j := i
		for j < len(t) && isLowerByte(t[j]) && j-i <= 12 {
			j++
		}
		if j == i || j-i > 12 || j >= len(t) || t[j] != ' ' {
			return -1
		}
		if w := t[i:j]; words > 0 && (w == "is" || w == "was") {
			return j
		}
		i = j + 1
	}
	return -1
}

// proseColon finds "I mentioned: " after a secret word in prose: at most
// four plain lower-case words (or "I") and a colon followed by a blank. It
// returns the offset after the colon, or -1.
func proseColon(t string, i int) int {
	words := 0
	for words < 4 {
		j := i
		for j < len(t) && (isLowerByte(t[j]) || t[j] == 'I' && j == i) {
			j++
		}
		if j == i || j-i > 12 {
			return -1
		}
		words++
		if j+1 < len(t) && t[j] == ':' && (t[j+1] == ' ' || t[j+1] == '\t') {
			return j + 1
		}
		if j >= len(t) || t[j] != ' ' {
			return -1
		}
		i = j + 1
	}
	return -1
}

// xmlValue masks the text of an XML element whose name names a secret,
// <apiToken>S</apiToken>, also when the value sits on a line of its own.
func (d *detector) xmlValue(i int, name, kind string) {
	t := d.text
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	limit := min(len(t), i+maxSecretScan)
	e := i
	for e < limit && t[e] != '<' && t[e] != '\n' {
		e++
	}
	ve := e
	for ve > i && (t[ve-1] == ' ' || t[ve-1] == '\t' || t[ve-1] == '\r') {
		ve--
	}
	dangling := d.atEnd(ve)
	if dangling {
		ve = trimEllipsis(t, i, ve)
	} else if !strings.HasPrefix(t[skipSpace(t, e):], "</") {
		return // <Multi_key> in prose is not an element with a value
	}
	v := t[i:ve]
	if dangling && strings.ContainsAny(v, " \t") {
		return
	}
	if kind == "password" && plausiblePassword(v, dangling, true) || kind != "password" && plausibleSecret(v, dangling) {
		d.add(i, ve, kind, rankAssignment)
	}
}

// skipSpace skips blanks and line breaks.
func skipSpace(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}

// passwordEnd extends a bare password over the characters that end other
// bare values: a password may hold & ( ) , ; (DB_PASSWORD=Xk9#mQ2&vL7!pR4z).
// It stops at white space and quotes, before "&name=" (the next parameter
// of a query string) and before a "," or ";" that ends the value.
func passwordEnd(t string, vs, ve int) int {
	limit := min(len(t), vs+maxSecretScan)
	j := ve
	for j < limit {
		c := t[j]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || isQuote(c) || c == '\\' {
			break
		}
		if c == '&' && queryParameterAt(t, j+1) {
			break
		}
		j++
	}
	for j > vs && (t[j-1] == ',' || t[j-1] == ';' || t[j-1] == '}' || t[j-1] == ')' && strings.Count(t[vs:j], "(") < strings.Count(t[vs:j], ")")) {
		j--
	}
	return max(j, ve)
}

// queryParameterAt reports "name=" at t[i:], the start of a query string's
// next parameter.
func queryParameterAt(t string, i int) bool {
	j := i
	for j < len(t) && j-i < 32 && (isAlnumByte(t[j]) || t[j] == '_' || t[j] == '-' || t[j] == '.') {
		j++
	}
	return j > i && j < len(t) && t[j] == '='
}

// plausiblePassword gates the value given to a password-named key. A
// password needs no entropy ("hunter2hunter2") and may hold spaces when it
// is quoted (a passphrase); what stays is what code and documentation put
// there: placeholders, references, type names, variable names (letters
// only, reading as words) and paths.
func plausiblePassword(v string, dangling, quoted bool) bool {
	if len(v) < minSecretLen || placeholderValue(v) || passwordReference(v) {
		return false
	}
	if strings.ContainsAny(v, " \t") {
		// A quoted passphrase, but not a sentence: at most six words and
		// no sentence punctuation at the end.
		if !quoted || strings.Count(v, " ") > 5 || strings.ContainsAny(v[len(v)-1:], ".?!:") {
			return false
		}
		return true
	}
	if dangling && !naturalWord(strings.TrimRight(v, ".:,;")) {
		return true
	}
	letters := true
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-' || c == '.') {
			letters = false
			break
		}
	}
	if letters && naturalText(v, false) {
		return false // a variable or a word: password: hashedPassword
	}
	if (v[0] == '/' || v[0] == '~' || strings.HasPrefix(v, "./")) && naturalText(v, false) {
		return false // a path
	}
	return true
}

// passwordReference is referenceValue for passwords, which may hold
// parentheses: only a call (getPassword(), os.getenv(...)) names one.
func passwordReference(v string) bool {
	switch {
	case v[0] == '$' || v[0] == '{':
		return true
	case v[0] == '%' && len(v) > 2 && v[len(v)-1] == '%' && identifierWord(v[1:len(v)-1]):
		return true
	case (v[0] == '*' || v[0] == '@' || v[0] == '&' || v[0] == '!') && identifierWord(v[1:]) && naturalText(v[1:], false):
		return true
	}
	if p := strings.IndexByte(v, '('); p > 0 { // a call, whose arguments a quote may have cut
		name := v[:p]
		if identifierWord(strings.ReplaceAll(name, ".", "_")) && naturalText(name, false) {
			return true
		}
	}
	return dottedReference(v) || codeExpression(v)
}

// codeExpression reports a value that is an expression of code rather than
// a secret: brackets or braces around identifiers that read as words
// (*((*unsafe.Pointer)(slotKey)), &Cookie{, []*Cookie{).
func codeExpression(v string) bool {
	if !strings.ContainsAny(v, "(){}[]") {
		return false
	}
	parts := 0
	for _, part := range strings.FieldsFunc(v, func(r rune) bool {
		return !(r < 128 && (isAlnumByte(byte(r)) || r == '_' || r == '.'))
	}) {
		if allDigits(part) {
			continue
		}
		if !identifierWord(strings.ReplaceAll(part, ".", "_")) || !naturalText(part, false) {
			return false
		}
		parts++
	}
	return parts > 0
}

// readValue reads a value at view[i:]: a quoted string (", ', `, or an
// escaped \" inside JSON text) or a bare word. dangling reports that the
// value runs into the end of the text, so it was probably cut.
func (d *detector) readValue(i int) (vs, ve int, dangling bool) {
	t := d.text
	limit := min(len(t), i+maxSecretScan)
	switch {
	case i < len(t) && isQuote(t[i]):
		q := t[i]
		j := i + 1
		for j < limit && t[j] != q && t[j] != '\n' {
			if t[j] == '\\' {
				j++ // an escaped character, such as \" in a JSON string
			}
			j++
		}
		vs, ve = i+1, min(j, limit)
	case strings.HasPrefix(t[i:], `\"`):
		j := strings.Index(t[i+2:limit], `\"`)
		if j < 0 {
			j = limit - i - 2
		}
		vs, ve = i+2, i+2+j
	default:
		j := i
		for j < limit && !isValueStop(t[j]) {
			j++
		}
		vs, ve = i, j
	}
	if d.atEnd(ve) {
		ve = trimEllipsis(t, vs, ve)
		return vs, ve, true
	}
	return vs, ve, false
}

// cookieValue masks cookie values: every pair of a Cookie header, the first
// pair of a Set-Cookie (the rest are attributes such as Path=/).
func (d *detector) cookieValue(i int, setCookie bool) {
	t := d.text
	limit := min(len(t), i+maxSecretScan)
	if i < limit && isQuote(t[i]) {
		if j := strings.IndexByte(t[i+1:limit], t[i]); j >= 0 {
			limit = i + 1 + j
		}
		i++
	}
	if j := strings.IndexByte(t[i:limit], '\n'); j >= 0 {
		limit = i + j
	}
	for i < limit {
		i = skipBlanks(t, i)
		name := i
		for i < limit && t[i] != '=' && t[i] != ';' {
			i++
		}
		vs := name // a bare value, unless there is a name=
		if i < limit && t[i] == '=' {
			vs = i + 1
		}
		ve := vs
		for ve < limit && t[ve] != ';' && !isQuote(t[ve]) {
			ve++
		}
		end := ve
		for ve > vs && t[ve-1] == ' ' {
			ve--
		}
		dangling := d.atEnd(end)
		if dangling {
			ve = trimEllipsis(t, vs, ve)
		}
		if vs == name && strings.ContainsAny(t[vs:ve], " \t") {
			return // prose about cookies: "cookie: treat a blank domain…"
		}
		if v := t[vs:ve]; len(v) >= minSecretLen && !placeholderValue(v) && !referenceValue(v) && !codeExpression(v) &&
			!(vs == name && dangling && plainLowerWord(strings.TrimRight(v, ".:,;"))) &&
			(vs != name || dangling || !naturalText(v, false)) {
			d.add(vs, ve, "cookie", rankStructure)
		}
		if setCookie || end >= limit || t[end] != ';' {
			return
		}
		i = end + 1
	}
}

// authSchemes are the words before the credentials of an Authorization
// value.
var authSchemes = []string{"bearer", "basic", "token", "api-token", "bot", "digest", "apikey", "api-key", "key", "dpop", "mac", "hmac", "negotiate", "ntlm", "sso-key", "aws4-hmac-sha256"}

// authorizationValue masks the credentials of an Authorization value, after
// its scheme; they run to the end of the line or the closing quote, because
// some schemes (AWS4, Digest) have several comma-separated parts.
func (d *detector) authorizationValue(i int) {
	t := d.text
	limit := min(len(t), i+maxSecretScan)
	if i < limit && isQuote(t[i]) {
		if j := strings.IndexByte(t[i+1:limit], t[i]); j >= 0 {
			limit = i + 1 + j
		}
		i++
	}
	if j := strings.IndexAny(t[i:limit], "\r\n\"'`"); j >= 0 {
		limit = i + j
	}
	w := i
	for w < limit && (isAlnumByte(t[w]) || t[w] == '-') {
		w++
	}
	if w < limit && (t[w] == ' ' || t[w] == '\t') {
		scheme := false
		for _, s := range authSchemes {
			if strings.EqualFold(t[i:w], s) {
				i = skipBlanks(t, w)
				scheme = true
				break
			}
		}
		if !scheme {
			return // prose: "authorization is required and…"
		}
	}
	ve := limit
	for ve > i && (t[ve-1] == ' ' || t[ve-1] == '\t') {
		ve--
	}
	dangling := d.atEnd(limit)
	if dangling {
		ve = trimEllipsis(t, i, ve)
	}
	v := t[i:ve]
	if len(v) < minSecretLen || placeholderValue(v) || referenceValue(v) || !dangling && naturalText(v, false) {
		return
	}
	d.add(i, ve, "authorization", rankStructure)
}

// bearer masks "Bearer <token>" wherever it appears (curl -H, code, logs).
func (d *detector) bearer(start, end int) {
	t := d.text
	if start > 0 && isAlnumByte(t[start-1]) || end >= len(t) || t[end] != ' ' && t[end] != '\t' {
		return
	}
	i := skipBlanks(t, end)
	j := i
	for j < len(t) && j-i < maxSecretScan && isBearerByte(t[j]) {
		j++
	}
	for j > i && t[j-1] == '.' {
		j--
	}
	v := t[i:j]
	if len(v) < minSecretLen || placeholderValue(v) {
		return
	}
	if !d.atEnd(j) && naturalText(v, false) {
		return
	}
	d.add(i, j, "bearer-token", rankStructure)
}

// urlCredential masks the password of scheme://user:password@host. A URL
// cut before its "@" (user:passw…) is masked too, unless what follows the
// colon is a port number.
func (d *detector) urlCredential(start, end int) {
	t := d.text
	if start == 0 || !isAlnumByte(t[start-1]) || strings.HasPrefix(t[end:], MaskPrefix[1:]) {
		return // no scheme, or a mask read without its brackets
	}
	colon := -1
	j := end
	for ; j < len(t) && j-end < 512; j++ {
		c := t[j]
		if c == '@' {
			break
		}
		if c <= ' ' || c == '/' || c == '?' || c == '#' || c == '<' || c == '>' || isQuote(c) {
			return
		}
		if c == ':' && colon < 0 {
			colon = j
		}
	}
	if colon < 0 {
		return
	}
	if j < len(t) && t[j] == '@' {
		if pw := t[colon+1 : j]; pw != "" && !placeholderValue(pw) && !referenceValue(pw) && !naturalWord(pw) {
			from := colon + 1
			if randomUser(t[end:colon]) {
				from = end // an API key used as the user name
			}
			d.add(from, j, "url-credential", rankStructure)
		}
		return
	}
	if !d.atEnd(j) {
		return
	}
	j = trimEllipsis(t, colon+1, j)
	if pw := t[colon+1 : j]; pw != "" && !allDigits(pw) && !placeholderValue(pw) && pw[0] != '$' && pw[0] != '{' {
		d.add(colon+1, j, "url-credential", rankStructure)
	}
}

// randomUser reports a user name that is a key itself, as services that
// take an API key as the user of basic authentication have it: random
// characters, or hex digits, of at least minSecretLen.
func randomUser(u string) bool {
	if len(u) < minSecretLen || placeholderValue(u) {
		return false
	}
	if strings.Trim(u, "0123456789abcdefABCDEF") == "" && strings.ContainsAny(u, "0123456789") {
		return true
	}
	return !naturalText(u, false) || len(u) >= 12 && digitsInsideLetters(u)
}

// digitsInsideLetters reports a run of digits with letters on both sides
// (c28wlsosanujy2z), which names of people and services rarely have.
func digitsInsideLetters(u string) bool {
	for i := 1; i+1 < len(u); i++ {
		if isDigitByte(u[i]) && !isDigitByte(u[i-1]) && isAlnumByte(u[i-1]) {
			j := i
			for j < len(u) && isDigitByte(u[j]) {
				j++
			}
			if j < len(u) && isAlnumByte(u[j]) && !isDigitByte(u[j]) {
				return true
			}
		}
	}
	return false
}

// hookPath masks the secret path of a generic incoming webhook
// (docs/redaction.md R12): Mattermost's and Rocket.Chat's /hooks/<key>,
// Zapier's /hooks/catch/<id>/<key>/, IFTTT's /with/key/<key>. Only in a
// URL (a "://" earlier in the same run: .git/hooks/pre-commit is a file),
// from the first segment that holds a digit or does not read as words to
// the end of the path.
func (d *detector) hookPath(start, end int) {
	t := d.text
	s := start
	for s > 0 && start-s < 512 && t[s-1] > ' ' && !isQuote(t[s-1]) {
		s--
	}
	if !strings.Contains(t[s:start], "://") {
		return
	}
	i := end
	for {
		j := i
		for j < len(t) && j-i < maxSecretScan && webhookPathBytes[t[j]] && t[j] != '/' {
			j++
		}
		if j == i {
			return
		}
		if seg := t[i:j]; !strings.ContainsAny(seg, "0123456789") && (len(seg) < minSecretLen || naturalText(seg, false)) {
			if j < len(t) && t[j] == '/' {
				i = j + 1 // catch/ in hooks/catch/<id>/<key>, a word of a path
				continue
			}
			return
		}
		break
	}
	e := i
	for e < len(t) && e-i < maxSecretScan && webhookPathBytes[t[e]] {
		e++
	}
	for e > i && t[e-1] == '/' {
		e--
	}
	if e-i >= minSecretLen && !templateValue(t[i:e]) {
		d.add(i, e, "webhook", rankStructure)
	}
}

// querySignature masks the sig= of a signed URL: Azure's shared access
// signatures and the Logic Apps and Power Automate triggers that Teams
// workflows post to.
func (d *detector) querySignature(end int) {
	t := d.text
	e := end
	for e < len(t) && e-end < maxSecretScan && (isAlnumByte(t[e]) || strings.IndexByte("%+/=_.-~", t[e]) >= 0) {
		e++
	}
	if v := t[end:e]; len(v) >= minSecretLen && !placeholderValue(v) && !referenceValue(v) {
		d.add(end, e, "url-signature", rankStructure)
	}
}

// pemBodyBytes are the bytes of a PEM body, with the backslash of an escaped
// "\n" when the key sits inside a JSON string.
var pemBodyBytes = newByteSet("A-Za-z0-9+/=\\")

// privateKey masks the body of a PEM or OpenSSH private key, keeping its
// armor lines. A block without its END line (a cut snippet) is masked to the
// end of its base64 body; an END line without its BEGIN line (a snippet cut
// on the left) masks the body lines above it.
func (d *detector) privateKey(start, end int) {
	t := d.text
	lineStart := strings.LastIndexByte(t[:start], '\n') + 1
	armor := t[max(lineStart, start-48):start] // "-----BEGIN RSA ", or what a cut left of it
	after := end
	if strings.HasPrefix(t[after:], " BLOCK") {
		after += len(" BLOCK")
	}
	if !strings.HasPrefix(t[after:], "-") {
		return // prose: "your private key is in ~/.ssh"
	}
	for after < len(t) && t[after] == '-' {
		after++
	}
	begin := strings.Contains(armor, "BEGIN")
	cut := cutEllipsisLen(t)
	switch {
	case strings.Contains(armor, "END "):
		be := start - len(armor) + strings.LastIndex(armor, "END ")
		for be > 0 && t[be-1] == '-' {
			be--
		}
		bs := be
		for bs > 0 && (pemBodyBytes[t[bs-1]] || t[bs-1] == '\n' || t[bs-1] == '\r' || t[bs-1] == '\t') {
			bs--
		}
		if bs, be := trimPEMSpace(t, bs, be); be-bs >= minSecretLen {
			d.add(bs, be, "private-key", rankVendor)
		}
	case begin || cut > 0 && lineStart <= cut && start-cut <= 40: // an armor line cut on its left
		body, stop := after, d.pemEndAfter(after)
		complete := stop >= 0
		if !complete && begin {
			// No END line, but the armor closes ("…KEY-----", "…KEY
			// BLOCK-----") after a body of any bytes, as gitleaks reads it.
			window := t[after:min(len(t), after+maxSecretScan)]
			if k := strings.Index(window, "-----"); k >= 64 {
				body := strings.TrimSuffix(window[:k], " BLOCK")
				if strings.HasSuffix(body, "KEY") {
					d.add(after, after+len(body)-len("KEY"), "private-key", rankVendor)
					return
				}
			}
		}
		if !complete {
			body = skipPEMHeaders(t, body)
			stop = body
			for stop < len(t) && (pemBodyBytes[t[stop]] || t[stop] <= ' ') {
				stop++
			}
		}
		bs, be := trimPEMSpace(t, body, stop)
		// Prose that names the armor line ("starts with -----BEGIN RSA
		// PRIVATE KEY----- and ends…") has no long base64 run. Without its
		// BEGIN word (a cut armor line) it must look like a body too.
		if be > bs && (begin && !complete && d.atEnd(stop) || longestBase64Run(t[bs:be]) >= 16) {
			d.add(bs, be, "private-key", rankVendor)
		}
	}
}

// pemEndAfter returns the offset of the first "-----END" at or after i, or
// -1. It remembers the last search, so that many BEGIN lines without an END
// line cost one scan.
func (d *detector) pemEndAfter(i int) int {
	if d.pemEnd.searched && i >= d.pemEnd.from && (d.pemEnd.at < 0 || i <= d.pemEnd.at) {
		return d.pemEnd.at
	}
	at := strings.Index(d.text[i:], "-----END")
	if at >= 0 {
		at += i
	}
	d.pemEnd.searched, d.pemEnd.from, d.pemEnd.at = true, i, at
	return at
}

// skipPEMHeaders skips RFC 1421 header lines ("Proc-Type: 4,ENCRYPTED") and
// the blank line after them.
func skipPEMHeaders(t string, i int) int {
	for {
		j := i
		for j < len(t) && (t[j] == '\r' || t[j] == '\n' || t[j] == ' ') {
			j++
		}
		if strings.HasPrefix(t[j:], `\n`) {
			j += 2
		}
		line := j
		for j < len(t) && (isAlnumByte(t[j]) || t[j] == '-') {
			j++
		}
		if j == line || !strings.HasPrefix(t[j:], ": ") {
			return i
		}
		nl := strings.IndexAny(t[j:], "\n\\")
		if nl < 0 {
			return len(t)
		}
		i = j + nl
	}
}

// trimPEMSpace trims white space and escaped "\n" from both ends of a body.
func trimPEMSpace(t string, s, e int) (int, int) {
	for s < e {
		switch {
		case t[s] <= ' ':
			s++
		case t[s] == '\\' && s+1 < e && (t[s+1] == 'n' || t[s+1] == 'r'):
			s += 2
		default:
			goto end
		}
	}
end:
	for e > s {
		switch {
		case t[e-1] <= ' ':
			e--
		case e-2 >= s && t[e-2] == '\\' && (t[e-1] == 'n' || t[e-1] == 'r'):
			e -= 2
		default:
			return s, e
		}
	}
	return s, e
}

func longestBase64Run(s string) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if pemBodyBytes[s[i]] && s[i] != '\\' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

var jwtBytes = newByteSet("A-Za-z0-9_.-")

// jwt masks a JSON Web Token: "eyJ" + base64url, "." and a second part; the
// signature may be missing or cut. A lone "eyJ…" part is masked only when the
// text ends in it (a token cut after its header), because base64-encoded JSON
// is also used for harmless things like pagination cursors.
func (d *detector) jwt(start, end int) {
	t := d.text
	if t[start:end] != "eyJ" || start > 0 && jwtBytes[t[start-1]] && t[start-1] != '.' {
		return // "eyJ" in the middle of a longer word
	}
	s, e := start, end
	for s > 0 && start-s < maxJWTScan && jwtBytes[t[s-1]] {
		s--
	}
	for e < len(t) && e-end < maxJWTScan && jwtBytes[t[e]] {
		e++
	}
	for e > end && t[e-1] == '.' {
		e--
	}
	for s < start && t[s] == '.' {
		s++
	}
	run := t[s:e]
	segments := strings.Count(run, ".") + 1
	switch {
	case segments >= 2 && e-s >= 24:
	case d.atEnd(e) && e-start >= minSecretLen:
	default:
		return
	}
	d.add(s, e, "jwt", rankVendor)
}

// jwtDot masks a token of JWT shape whose parts start "ey" without the
// "J" of a JSON object ("eymU…17+ characters….eyQ…"), as gitleaks' rule
// reads a JWT: two parts of at least 17 characters after their "ey".
func (d *detector) jwtDot(start, end int) {
	t := d.text
	if t[start:end] != ".ey" {
		return
	}
	s := start
	for s > 0 && start-s < maxJWTScan && isAlnumByte(t[s-1]) {
		s--
	}
	if start-s < 19 || !strings.HasPrefix(t[s:], "ey") || s > 0 && jwtBytes[t[s-1]] {
		return
	}
	e := end
	for e < len(t) && e-end < maxJWTScan && (jwtBytes[t[e]] || t[e] == '/' || t[e] == '\\' && e+1 < len(t) && t[e+1] != 'n') {
		e++
	}
	for e > end && (t[e-1] == '.' || t[e-1] == '\\') {
		e--
	}
	if e-end < 12 && !d.atEnd(e) {
		return
	}
	d.add(s, e, "jwt", rankVendor)
}

// infixRule is a token told by a fixed part inside it rather than at its
// start: the base64 of "OpenAI" in OpenAI keys, which survives a cut that
// removed the "sk-" prefix; the "Q~" of Azure client secrets; the "_mmk"
// that ends MaxMind license keys; the ".atlasv1." of Terraform tokens.
type infixRule struct {
	kind                string
	infix               string // case-sensitive
	before, after       *byteSet
	minBefore, minAfter int // away from a cut
	minTotal            int
	shape               *regexp.Regexp // what the token must start with, if set
}

var infixRules = []infixRule{
	{kind: "openai-key", infix: "T3BlbkFJ", before: alnumDashBytes, after: alnumDashBytes, minTotal: 20},
	{kind: "azure-client-secret", infix: "Q~", before: newByteSet("A-Za-z0-9_~."), after: newByteSet("A-Za-z0-9_~.-"),
		minBefore: 4, minAfter: 31, shape: regexp.MustCompile(`^[A-Za-z0-9_~.]{3}[0-9]Q~`)},
	{kind: "maxmind-license-key", infix: "_mmk", before: alnumDashBytes, after: alnumBytes, minBefore: 36},
	{kind: "terraform-token", infix: ".atlasv1.", before: alnumBytes, after: newByteSet("A-Za-z0-9_=-"), minBefore: 14, minAfter: 60},
}

// infixToken masks the token around an infix found at view[start:end].
// Like a prefix token, a side cut by the end or the start of a snippet
// needs no minimum.
func (d *detector) infixToken(start, end int, r *infixRule) {
	t := d.text
	if t[start:end] != r.infix {
		return
	}
	s, e := start, end
	for s > 0 && start-s < maxSecretScan && r.before[t[s-1]] {
		s--
	}
	for e < len(t) && e-end < maxSecretScan && r.after[t[e]] {
		e++
	}
	for e > end && t[e-1] == '.' {
		e--
	}
	cutLeft, cutRight := s > 0 && s == cutEllipsisLen(t), d.atEnd(e)
	if e < len(t) && isAlnumByte(t[e]) || s > 0 && isAlnumByte(t[s-1]) {
		return // inside a longer word
	}
	if !cutLeft && start-s < r.minBefore || !cutRight && e-end < r.minAfter ||
		!cutLeft && !cutRight && e-s < r.minTotal || e-s < minSecretLen {
		return
	}
	if r.shape != nil && !cutLeft && !r.shape.MatchString(t[s:e]) {
		return
	}
	d.add(s, e, r.kind, rankVendor)
}

// telegram masks a Telegram bot token: the bot id, ":AA" and 33 more
// characters; also inside https://api.telegram.org/bot<token>/.
func (d *detector) telegram(start, end int) {
	t := d.text
	if t[start:end] != ":AA" {
		return
	}
	s := start
	for s > 0 && isDigitByte(t[s-1]) && start-s < 16 {
		s--
	}
	digits := start - s
	if digits < 5 && !(s == cutEllipsisLen(t) && s > 0) {
		return
	}
	if s > 0 && isAlnumByte(t[s-1]) && !strings.HasSuffix(t[:s], "bot") {
		return
	}
	j := end
	for j < len(t) && j-end < maxSecretScan && alnumDashBytes[t[j]] {
		j++
	}
	body := j - end
	if d.atEnd(j) && body >= 1 || body >= 30 && (j == len(t) || !isAlnumByte(t[j])) {
		d.add(s, j, "telegram-bot-token", rankVendor)
	}
}

// telegramTokenRe is a Telegram bot token whatever its secret starts with:
// the bot id, a colon, and 35 characters (at least 30, so that a cut one
// counts); telegramCutRe is one cut by the end of the text.
var (
	telegramTokenRe = regexp.MustCompile(`[0-9]{5,16}:[A-Za-z0-9_-]{30,}`)
	telegramCutRe   = regexp.MustCompile(`[0-9]{5,16}:[A-Za-z0-9_-]{1,}$`)
)

// telegramColon reports whether s has a colon with at least 5 digits
// right before it and at least body token characters right after it: the
// one place where telegramTokenRe (body 30) or telegramCutRe (body 1) can
// match. Most windows near the word "telegram" have none, and this scan
// costs a fraction of the regular expression's.
func telegramColon(s string, body int) bool {
	for i := 5; i < len(s); i++ {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		if len(s)-i-1 < body {
			continue
		}
		ok := true
		for k := i - 5; k < i && ok; k++ {
			ok = isDigitByte(s[k])
		}
		for k := i + 1; k <= i+body && ok; k++ {
			ok = alnumDashBytes[s[k]]
		}
		if ok {
			return true
		}
	}
	return false
}

// telegramNear masks bot tokens within discordWindow bytes of the word
// "telegram" or of a /bot URL path (api.telegram.org/bot<token>/).
func (d *detector) telegramNear(start, end int) {
	t := d.text
	ws, we := max(0, start-discordWindow), min(len(t), end+discordWindow)
	if we <= d.telegramScanned {
		return
	}
	ws = max(ws, d.telegramScanned-discordTokenMax)
	d.telegramScanned = we
	if telegramColon(t[ws:we], 30) {
		for _, m := range telegramTokenRe.FindAllStringIndex(t[ws:we], -1) {
			d.add(ws+m[0], ws+m[1], "telegram-bot-token", rankVendor)
		}
	}
	if d.atEnd(we) {
		rest := trimEllipsis(t, end, len(strings.TrimRight(t, ". \t\r\n")))
		if !telegramColon(t[end:rest], 1) {
			return
		}
		if m := telegramCutRe.FindStringIndex(t[end:rest]); m != nil && m[1]-m[0] >= minSecretLen {
			d.add(end+m[0], rest, "telegram-bot-token", rankVendor)
		}
	}
}

// discordTokenRe is a Discord bot token: the base64 of the bot's id, a
// timestamp and an HMAC. discordCutRe is one cut by the end of the text.
var (
	discordTokenRe = regexp.MustCompile(`[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}`)
	discordCutRe   = regexp.MustCompile(`[MNO][A-Za-z0-9_-]{7,27}(?:\.[A-Za-z0-9_-]*){0,2}$`)
)

// base64OfDigits reports whether the first part of s could be the base64 of
// a decimal id, as the first part of a Discord token is: every fourth
// character encodes the top bits of an ASCII digit, which are M, N or O.
func base64OfDigits(s string) bool {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	for i := 0; i < len(s); i += 4 {
		if s[i] != 'M' && s[i] != 'N' && s[i] != 'O' {
			return false
		}
	}
	return true
}

// discordWindow is how far from the word "discord" a token is looked for;
// discordTokenMax is longer than any token.
const (
	discordWindow   = 256
	discordTokenMax = 128
)

func (d *detector) discordToken(start, end int) {
	t := d.text
	ws, we := max(0, start-discordWindow), min(len(t), end+discordWindow)
	// Windows of nearby hits overlap: scan only what the last one did not,
	// going back far enough to see a token that straddles the edge.
	if we <= d.discordScanned {
		return
	}
	ws = max(ws, d.discordScanned-discordTokenMax)
	d.discordScanned = we
	for _, m := range discordTokenRe.FindAllStringIndex(t[ws:we], -1) {
		s, e := ws+m[0], ws+m[1]
		if (s == 0 || !isAlnumByte(t[s-1])) && (e == len(t) || !isAlnumByte(t[e])) && base64OfDigits(t[s:e]) {
			d.add(s, e, "discord-token", rankVendor)
		}
	}
	if d.atEnd(we) {
		rest := trimEllipsis(t, end, len(strings.TrimRight(t, ". \t\r\n")))
		if m := discordCutRe.FindStringIndex(t[end:rest]); m != nil {
			if s := end + m[0]; (s == 0 || !isAlnumByte(t[s-1])) && base64OfDigits(t[s:rest]) {
				d.add(s, rest, "discord-token", rankVendor)
			}
		}
	}
}

// curlUser masks the password of curl -u user:password / --user.
func (d *detector) curlUser(start, end int) {
	t := d.text
	if start > 0 && isAlnumByte(t[start-1]) || end < len(t) && isAlnumByte(t[end]) || start < d.curlLineEnd {
		return
	}
	line := lineEnd(t, end)
	for k := 0; k < 5 && line < len(t) && line > 0 && (t[line-1] == '\\' || line > 1 && t[line-1] == '\r' && t[line-2] == '\\'); k++ {
		line = lineEnd(t, line+1) // a command continued on the next line
	}
	d.curlLineEnd = line
	for i := end; i < line; i++ {
		if t[i] != '-' || (t[i-1] != ' ' && t[i-1] != '\t') {
			continue
		}
		var v int
		switch {
		case strings.HasPrefix(t[i:], "--user=") || strings.HasPrefix(t[i:], "--user "):
			v = i + len("--user ")
		case strings.HasPrefix(t[i:], "-u"):
			v = i + 2
		default:
			continue
		}
		v = skipBlanks(t, v)
		vs, ve, _ := d.readValue(v)
		colon := strings.IndexByte(t[vs:ve], ':')
		if colon < 0 {
			continue
		}
		if vs+colon+1 == ve && ve < len(t) && isQuote(t[ve]) {
			_, ve, _ = d.readValue(ve) // --user kevin:'pRf7…'
		}
		if pw := t[vs+colon+1 : ve]; pw != "" && !placeholderValue(pw) && !referenceValue(pw) {
			from := vs + colon + 1
			if randomUser(t[vs : vs+colon]) {
				from = vs
			}
			d.add(from, ve, "password", rankStructure)
		}
	}
}

// databaseCLI masks the password of a database client command line:
// mysql -pSECRET, sshpass -p SECRET, redis-cli -a SECRET, mongosh -p SECRET.
// mysql and mariadb read a spaced "-p word" as "ask for the password, open
// database word", so there the word is masked only when it is not a plain
// word.
func (d *detector) databaseCLI(start, end int) {
	t := d.text
	if start > 0 && isAlnumByte(t[start-1]) {
		return
	}
	command := strings.ToLower(t[start:end])
	flag := "-p"
	if command == "redis-cli" {
		flag = "-a"
	}
	promptsOnSpace := command == "mysql" || command == "mariadb"
	if start < d.commandLineEnd {
		return // this line was read for an earlier command word
	}
	line := lineEnd(t, end)
	d.commandLineEnd = line
	for i := end; i+2 <= line; i++ {
		if t[i-1] != ' ' && t[i-1] != '\t' || t[i:i+2] != flag {
			continue
		}
		v := i + 2
		attached := v < line && t[v] != ' ' && t[v] != '\t'
		if !attached {
			v = skipBlanks(t, v)
		}
		if v >= line || t[v] == '-' {
			continue
		}
		vs, ve, dangling := d.readValue(v)
		if vs == v && !dangling {
			ve = passwordEnd(t, vs, ve) // mysql -pXk9&vL7: the & is the password's
			if d.atEnd(ve) {
				ve, dangling = trimEllipsis(t, vs, ve), true
			}
		}
		pw := t[vs:ve]
		if pw == "" || placeholderValue(pw) || passwordReference(pw) {
			continue
		}
		// A cut value says too little to call it a word: only a plain one
		// passes.
		if !attached && promptsOnSpace && naturalText(pw, dangling) {
			continue
		}
		d.add(vs, ve, "password", rankStructure)
	}
}

// cutRunBytes are the bytes of a run the cut-start rule looks at: printable
// ASCII except the quotes, brackets and separators around a value, so that
// a run is a whole token with its inner punctuation (base64, JWT dots,
// key=value, paths, the symbols of a password).
var cutRunBytes = newByteSet("!#-&(-/0-;=?A-Z^-_a-z~")

// cutStart handles text that begins with "…" (docs/redaction.md R5): a
// snippet window cut on the left, possibly through a secret whose prefix or key was cut away
// ("…kqNw9Yx3…" from a GitHub token, "…ssword: Xy7…" from a JSON value,
// "…orization: Basic ZGVw…" from a header). The runs of the first
// cutStartReach bytes (at least three) are masked when they do not read as
// plain words, paths or numbers, and so is each following run while the
// previous one was masked (the lines of a PEM body). This is the only place
// where word-likeness alone decides, and it only looks at the text's start.
func (d *detector) cutStart() {
	t := d.text
	i := cutEllipsisLen(t)
	if i == 0 {
		return
	}
	cut := i
	checked, masked := 0, true
	for checked < 3 || masked || i-cut < cutStartReach {
		gap := i
		for i < len(t) && !cutRunBytes[t[i]] && i-gap < 16 {
			i++
		}
		if i >= len(t) || !cutRunBytes[t[i]] {
			return
		}
		s := i
		alnum := 0
		for i < len(t) && cutRunBytes[t[i]] {
			if isAlnumByte(t[i]) {
				alnum++
			}
			i++
		}
		if alnum == 0 {
			continue
		}
		// Words are judged without sentence punctuation; a masked run goes
		// whole, since a password may end in "!".
		we := i
		for we > s && (t[we-1] == '.' || t[we-1] == ':' || t[we-1] == '!' || t[we-1] == '?' || t[we-1] == ',') {
			we--
		}
		masked = i-s >= minSecretLen && !naturalText(t[s:we], true)
		if masked {
			d.add(s, i, "fragment", rankFragment)
		}
		checked++
	}
}

// cutStartReach is how far from a cut start every run is checked: far
// enough to pass a cut command or header ("…ysql -u root -pSECRET").
const cutStartReach = 64

// cutEllipsisLen is the length of the ellipsis a cut snippet starts with.
func cutEllipsisLen(t string) int {
	if strings.HasPrefix(t, "…") || strings.HasPrefix(t, "...") {
		return 3
	}
	return 0
}

// atEnd reports whether view[i:] is only white space, full stops and an
// ellipsis: a secret that runs up to there was probably cut by a snippet
// window (a cut right after a dot inside a token leaves "SG.abc.").
func (d *detector) atEnd(i int) bool {
	rest := strings.TrimLeft(d.text[i:], ". \t\r\n")
	if strings.HasPrefix(rest, "…") {
		rest = strings.TrimLeft(rest[len("…"):], ". \t\r\n")
	}
	return rest == ""
}

// trimEllipsis drops an ellipsis that ends t[s:e] (a cut, not the value).
func trimEllipsis(t string, s, e int) int {
	for e > s && (t[e-1] == ' ' || t[e-1] == '\t' || t[e-1] == '\r' || t[e-1] == '\n') {
		e--
	}
	switch {
	case strings.HasSuffix(t[s:e], "…"):
		e -= len("…")
	case strings.HasSuffix(t[s:e], "..."):
		e -= 3
		for e > s && t[e-1] == '.' {
			e--
		}
	}
	return e
}

// secretKeyKind names the secret a key holds, or "" when the key name does
// not name a secret. The key is split into words (snake_case, kebab-case,
// dotted and camelCase); the last word decides most cases, so password_file
// and token_count are not secrets while db_password and auth_token are.
func secretKeyKind(key string) string {
	var buf [12]string
	parts := splitKeyWords(key, &buf)
	n := len(parts)
	if n == 0 {
		return ""
	}
	last := parts[n-1]
	if (last == "header" || last == "headers") && n >= 2 && (parts[n-2] == "auth" || parts[n-2] == "authorization") {
		return "authorization" // AUTH_HEADER="Bearer …"
	}
	if nonSecretLastWords[last] {
		return ""
	}
	prev := ""
	if n >= 2 {
		prev = parts[n-2]
	}
	has := func(words ...string) bool {
		for _, p := range parts {
			for _, w := range words {
				if p == w {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("authorization"):
		return "authorization"
	case last == "cookie" || last == "cookies":
		return "cookie"
	case has("password", "passwd", "passphrase", "passcode"):
		return "password"
	case n >= 2 && (last == "pass" || last == "pwd"):
		// DB_PASS, smtpPwd; but not PASS: (a test log), pwd: (a
		// directory) or passFlagToTest.
		return "password"
	case has("aws") && has("secret"), has("secret") && has("access") && last == "key":
		return "aws-secret-key"
	case last == "token":
		if nonSecretTokenWords[prev] {
			return ""
		}
		return "token"
	case has("secret"):
		return "secret"
	case last == "key":
		switch {
		case n == 1:
			return "" // "key": "value" is any dictionary
		case prev == "api":
			return "api-key"
		case prev == "private":
			return "private-key"
		case secretKeyWords[prev]:
			return "secret-key"
		case !nonSecretKeyWords[prev]:
			// OPENAI_KEY, herokuKey: a provider's key. The value gate
			// keeps words and identifiers (sortKey: "name").
			return "secret-key"
		}
		return ""
	case has("token"):
		return "token"
	case has("credential", "credentials", "creds"):
		return "credential"
	case has("auth"):
		return "auth"
	}
	return ""
}

// proseKeyKind names the key of prose that writes a name in two words
// ("the heroku key", "aws_secret_access key"): the word before "key" at
// ks, after one blank, decides as it would in heroku_key.
func proseKeyKind(t string, ks int) string {
	if ks < 2 || t[ks-1] != ' ' {
		return ""
	}
	ws := ks - 1
	for ws > 0 && ks-ws < 64 && (isKeyByte(t[ws-1])) {
		ws--
	}
	word := t[ws : ks-1]
	if word == "" || proseDeterminers[strings.ToLower(word)] {
		return ""
	}
	return secretKeyKind(word + "_key")
}

// proseDeterminers come before "key" without naming it: "my key", "the key".
// Declaration words of code ("const key = …") count as determiners too.
var proseDeterminers = setOf("the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "that",
	"these", "those", "same", "one", "which", "what", "new", "old", "any", "each", "every", "no", "some", "another",
	"const", "let", "var", "val", "final", "static", "auto", "def", "local", "export", "public", "private")

// nonSecretLastWords end key names that describe a secret without holding
// it: token_count, password_file, api_key_id, secretName.
var nonSecretLastWords = setOf("id", "ids", "type", "types", "count", "counts", "length", "len", "size",
	"max", "min", "limit", "limits", "name", "names", "url", "uri", "urls", "path", "paths", "file", "files",
	"dir", "env", "var", "vars", "version", "expires", "expiry", "expiration", "expired", "ttl", "format",
	"header", "headers", "field", "fields", "hint", "mode", "enabled", "enable", "disabled", "required",
	"policy", "provider", "source", "endpoint", "ref", "prompt", "label", "placeholder", "usage", "budget",
	"index", "kind", "method", "scheme", "class", "strategy", "location", "timeout", "interval", "age",
	"rotation", "strength", "stdin", "fd", "command", "cmd", "helper", "validator", "validation", "pattern",
	"regex", "rule", "rules", "prefix", "suffix", "position", "offset", "tokens", "keys", "secrets",
	"passwords", "description", "desc", "help", "example", "examples", "schema", "set", "sets", "store",
	"manager", "service", "config", "settings", "exists", "present", "valid", "invalid", "missing", "error",
	"errors", "status", "state", "template", "estimate", "rate", "cost", "price", "metrics", "stats",
	"timestamp", "time", "date", "created", "updated", "at", "duration", "seconds", "ms", "hash", "digest")

// nonSecretTokenWords come before "token" in names of tokens that are not
// credentials: pagination cursors and the special tokens of a tokenizer.
var nonSecretTokenWords = setOf("next", "page", "continuation", "pagination", "cursor", "sync", "max", "num",
	"total", "input", "output", "prompt", "completion", "cache", "bos", "eos", "pad", "unk", "sep", "cls",
	"mask", "special", "start", "end", "stop", "first", "last", "current", "prev", "resume",
	"cancellation", "cancel", "lexer", "parser", "syntax")

// secretKeyWords come before "key" in names of keys that are secrets.
var secretKeyWords = setOf("access", "secret", "auth", "client", "signing", "sign", "encryption", "encrypt",
	"decryption", "master", "service", "account", "license", "licence", "deploy", "app", "admin", "root",
	"shared", "webhook", "subscription", "storage", "consumer", "write", "ssh", "gpg", "pgp", "hmac", "jwt",
	"crypto", "cipher", "aes", "server", "x", "apikey", "developer", "dev", "prod", "live", "test")

// nonSecretKeyWords come before "KEY" in environment-style names that are
// not secrets (SESSION_KEY, CACHE_KEY, PRIMARY_KEY).
var nonSecretKeyWords = setOf("primary", "foreign", "sort", "partition", "cache", "session", "public",
	"idempotency", "hot", "shortcut", "lookup", "map", "dict", "object", "cursor", "row", "unique",
	"composite", "i18n", "translation", "react", "list", "group", "hash", "range", "index", "name", "s3",
	"bucket", "file", "path", "route", "redis", "lock", "queue", "topic", "event", "message", "msg",
	"metadata", "config", "setting", "settings", "env", "state", "store", "model", "agent", "user", "task",
	"job", "run", "trace", "request", "thread", "chat", "conversation", "memory", "prompt", "dedupe",
	"dedup", "search", "table", "column", "field", "attribute", "label", "tag", "item", "entry", "record")

// keyCompounds are secret names written as one word.
var keyCompounds = map[string][2]string{
	"apikey": {"api", "key"}, "apitoken": {"api", "token"}, "authtoken": {"auth", "token"},
	"accesstoken": {"access", "token"}, "refreshtoken": {"refresh", "token"},
	"accesskey": {"access", "key"}, "secretkey": {"secret", "key"}, "privatekey": {"private", "key"},
	"clientsecret": {"client", "secret"}, "apisecret": {"api", "secret"},
	"sessiontoken": {"session", "token"}, "bearertoken": {"bearer", "token"},
	"secretaccesskey": {"secret", "key"}, "botkey": {"bot", "key"}, "bottoken": {"bot", "token"},
}

// compoundSuffixes end names written as one word: PGPASSWORD, DBPASSWD,
// BOTTOKEN.
var compoundSuffixes = []string{"password", "passwd", "secret", "token"}

// splitKeyWords splits a key name into lower-case words. Words are cut at
// punctuation, at a lower-to-upper change, before the last capital of an
// acronym ("APIKey" → api, key) and between letters and digits.
func splitKeyWords(key string, buf *[12]string) []string {
	parts := buf[:0]
	push := func(w string) {
		if len(parts)+2 > len(buf) || w == "" {
			return
		}
		if c, ok := keyCompounds[w]; ok {
			parts = append(parts, c[0], c[1])
			return
		}
		for _, suffix := range compoundSuffixes {
			if len(w) > len(suffix) && strings.HasSuffix(w, suffix) {
				parts = append(parts, w[:len(w)-len(suffix)], suffix)
				return
			}
		}
		parts = append(parts, w)
	}
	for i := 0; i < len(key); {
		if !isAlnumByte(key[i]) {
			i++
			continue
		}
		j := wordPieceEnd(key, i)
		push(lowerASCII(key[i:j]))
		i = j
	}
	return parts
}

// plainLowerWord reports a lower-case word of at least six letters that
// could be English: what follows hf_ or npm_ in an identifier, and what the
// random body of a token cut that short almost never is.
func plainLowerWord(w string) bool {
	if len(w) < 6 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isLowerByte(w[i]) {
			return false
		}
	}
	return pronounceable(w) && !hasForeignPair(w)
}

// lowerASCII lower-cases an ASCII word, without allocating when it already
// is lower case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// plausibleSecret gates the value of a secret-named key. A dangling value
// (cut by the end of the text) skips the entropy and word tests: its first
// characters say too little, and masking it costs little.
func plausibleSecret(v string, dangling bool) bool {
	if len(v) < minSecretLen || placeholderValue(v) || passwordReference(v) {
		return false
	}
	if h := strings.TrimRight(v, ").,;"); len(h) <= 18 && (strings.HasPrefix(h, "0x") || strings.HasPrefix(h, "0X")) && strings.Trim(h[2:], "0123456789abcdefABCDEF") == "" {
		return false // a number or a key id: GnuPG key: 0x7EC2DBB6F4DBF434
	}
	if dangling {
		w := strings.TrimRight(v, ".:,;")
		if len(w) > 1 && isUpperByte(w[0]) && plainLowerWord(w[1:]) {
			return false // "Likewise." at the end of a ChangeLog line
		}
		// An identifier of words is a name, even cut: ClientAuth =
		// RequireAndVerifyClientCert, l.key = mutex_locked.
		if identifierWord(w) && !strings.ContainsAny(w, "0123456789") && naturalText(w, false) && !choppy(w) &&
			(len(w) >= 16 || snakeWords(w)) {
			return false
		}
		return !dottedReference(v) && !plainLowerWord(w)
	}
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' || v[i] == '\t' {
			return false // prose ("Enter your password") or a passphrase
		}
	}
	if allDigits(v) {
		return len(v) >= 10 // a client id or secret; shorter numbers are ports, counts
	}
	return shannonEntropy(v) >= assignmentEntropy && (!naturalText(v, false) || choppy(v) || gibberish(v))
}

// gibberish reports a run of lower-case letters and digits that reads as
// pieces of words only because vowels fall often enough in random letters
// ("ifqayvqhh80ly0sevhjupgxiy"): at least 16 letters and digits, both, and
// two or more letter pairs that English words hardly use.
func gibberish(v string) bool {
	if len(v) < 16 || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	pairs := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnumByte(c) {
			return false
		}
		if i > 0 && isLowerByte(c) && isLowerByte(v[i-1]) && foreignPairSet[v[i-1]-'a']&(1<<(c-'a')) != 0 {
			pairs++
		}
	}
	return pairs >= 2
}

// snakeWords reports a snake_case name of lower-case words of at least
// three letters each (mutex_locked).
func snakeWords(w string) bool {
	parts := strings.Split(w, "_")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) < 3 || strings.ToLower(p) != p || !pronounceable(p) {
			return false
		}
	}
	return true
}

// choppy reports a value whose letters change case too often for a name:
// "gsohaTwasj8ulKjWJCwyUsjp" breaks into pieces of three letters on
// average, identifiers into words of five or more.
func choppy(v string) bool {
	pieces, alnum := 0, 0
	for i := 0; i < len(v); {
		if !isAlnumByte(v[i]) {
			i++
			continue
		}
		j := wordPieceEnd(v, i)
		pieces++
		alnum += j - i
		i = j
	}
	return pieces >= 6 && alnum < 4*pieces
}

// placeholderValue reports documentation stand-ins for a secret
// (docs/redaction.md R6): your_api_key_here, xxxx, ****, <TOKEN>, EXAMPLE keys, "..." and masks.
func placeholderValue(v string) bool {
	if v == "" {
		return true
	}
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	// A long value of one letter or a run such as 12345678 in a long
	// value is a made-up secret, but a secret all the same: only short ones
	// and fillers (xxxx, ****, 0000) are stand-ins.
	long := len(v) >= longMadeUpSecret
	if same && len(v) >= 4 && (!long || strings.IndexByte("xX*0.-_#", v[0]) >= 0) {
		return true
	}
	// xoxb-xxx, sk-***: a prefix and a stand-in.
	if k := strings.LastIndexAny(v, "-_"); k >= 0 && len(v)-k > 3 && strings.Trim(v[k+1:], "xX*") == "" {
		return true
	}
	if !long {
		return placeholderMarks.any(v) || sequentialRun(v) >= 6
	}
	// In a long random token, letters can spell a mark in mixed case
	// ("YoUr" in base64): there a word counts in one case only (EXAMPLE,
	// your, Example).
	return placeholderMarks.anyWhere(v, func(s, e int) bool {
		if !isAlnumByte(v[s]) { // "...", "…", "<": a cut or a template only at an end
			return s == 0 || e == len(v)
		}
		return oneCase(v[s:e])
	})
}

// oneCase reports a word written in lower case, upper case or capitalized.
func oneCase(w string) bool {
	lower, upper := 0, 0
	for i := 1; i < len(w); i++ {
		switch {
		case isLowerByte(w[i]):
			lower++
		case isUpperByte(w[i]):
			upper++
		}
	}
	return upper == 0 || lower == 0 && !isLowerByte(w[0])
}

// longMadeUpSecret is the length from which repeated or sequential
// characters no longer make a value a placeholder: gitleaks' own samples
// hold keys such as 12345678-ABCD-ABCD-ABCD-1234567890AB.
const longMadeUpSecret = 20

// templateValue reports the stand-ins of a template in a webhook's path:
// <your-webhook>, {{ secrets.X }}, ${HOOK}, YOUR/WEBHOOK/URL. Unlike
// placeholderValue it passes repeated or sequential letters, which are as
// good a credential as any in a URL that works by being known.
func templateValue(v string) bool {
	return strings.ContainsAny(v, "<>{}$") || webhookTemplateWords.any(v)
}

var webhookTemplateWords = newKeywordSet([]string{"your", "example", "placeholder", "redacted", "…", "..."}, nil)

// placeholderMarks are the words and signs of documentation stand-ins, in
// one automaton so that a value is scanned once.
var placeholderMarks = newKeywordSet([]string{"example", "xxxx", "****", "•••", "...", "…", "your",
	"placeholder", "redacted", "changeme", "change_me", "change-me", "dummy", "sample", "<", ">", "${", "{{",
	"$(", "insert", "replace", "_here", "-here", "todo", "fixme"}, nil)

// referenceValue reports a value that names a secret instead of holding it:
// $VAR, ${VAR}, %VAR%, getToken(), os.environ["KEY"], process.env.KEY, and
// the YAML alias *db_password. A symbol in front of random characters is
// just a password that starts with a symbol.
func referenceValue(v string) bool {
	switch {
	case v[0] == '$' || v[0] == '{':
		return true
	case v[0] == '%' && len(v) > 2 && v[len(v)-1] == '%' && identifierWord(v[1:len(v)-1]):
		return true
	case (v[0] == '*' || v[0] == '@' || v[0] == '&' || v[0] == '!') && identifierWord(v[1:]) && naturalText(v[1:], false):
		return true
	}
	return strings.ContainsAny(v, "()") || dottedReference(v)
}

// dottedReference reports an identifier path such as process.env.API_KEY or
// settings.secret_key: identifiers joined by dots, reading as words.
func dottedReference(v string) bool {
	if strings.IndexByte(v, '.') <= 0 {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if len(part) < 2 || !identifierWord(part) || allDigits(strings.Trim(part, "_")) {
			return false
		}
	}
	return naturalText(v, false)
}

// identifierWord reports a programming identifier: letters, digits and
// underscores, not starting with a digit.
func identifierWord(s string) bool {
	if s == "" || isDigitByte(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnumByte(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// sequentialRun is the longest run like "abcdef" or "123456" in v.
func sequentialRun(v string) int {
	best, run := 1, 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1]+1 && isAlnumByte(v[i]) {
			run++
			best = max(best, run)
		} else {
			run = 1
		}
	}
	return best
}

// shannonEntropy is the entropy of s in bits per byte.
func shannonEntropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// naturalText reports whether s reads as words, identifiers, paths or
// version numbers (getUserName, x86_64, python3.11, src/main.go) rather
// than random characters (kqNw9Yx3, 3f9a8b7c, Xk9#pQ2m). Each alphanumeric
// segment is split into pieces at case and letter-digit changes; random
// text breaks into many short pieces or pieces that cannot be pronounced,
// and symbols such as # or ~ do not occur in words at all.
//
// strict is for the start of a cut snippet, where a run may be the tail of
// a key and a wrong "natural" costs a leak while a wrong "random" costs one
// masked word: only plain words pass (plainSegment).
func naturalText(s string, strict bool) bool {
	segments, alnum := 0, 0 // segments with letters, and their length
	pieces, letters := 0, 0 // letter pieces, and their length
	var styles [4]bool      // letter case styles of the segments, for strict
	for i := 0; i < len(s); {
		if !isAlnumByte(s[i]) {
			if passwordSymbols[s[i]] {
				return false
			}
			// At a cut start, a "," or ";" glued to the next character is
			// a password's, not prose's: "YKV);,675".
			if strict && (s[i] == ',' || s[i] == ';') && i+1 < len(s) && isAlnumByte(s[i+1]) {
				return false
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnumByte(s[j]) {
			j++
		}
		if !naturalSegment(s[i:j], strict) {
			return false
		}
		if !allDigits(s[i:j]) {
			segments++
			alnum += j - i
			styles[caseStyle(s[i:j])] = true
		}
		for k := i; k < j; {
			e := wordPieceEnd(s, k)
			if !isDigitByte(s[k]) {
				pieces++
				letters += e - k
			}
			k = e
		}
		i = j
	}
	// "x_ab-cd", "ERrXB-D59O=Ig6z": many tiny pieces are noise, not words.
	if pieces >= 4 && letters < 3*pieces {
		return false
	}
	if !strict {
		return true
	}
	// "jdpy-IM_e34": a real name keeps one style (snake_case, Content-Type,
	// API_KEY); a key's tail mixes them.
	mixed := 0
	for _, style := range []int{styleLower, styleCapital, styleUpper} {
		if styles[style] {
			mixed++
		}
	}
	if mixed > 1 {
		return false
	}
	return segments < 3 || alnum >= 3*segments
}

// Case styles of a segment's letters.
const (
	styleNone    = iota // one letter, or no letter
	styleLower          // lower case: snake_case parts
	styleCapital        // Capitalized: Content-Type parts
	styleUpper          // upper case: API_KEY parts
)

func caseStyle(seg string) int {
	upper, lower := 0, 0
	first := -1
	for i := 0; i < len(seg); i++ {
		switch {
		case isUpperByte(seg[i]):
			upper++
			if first < 0 {
				first = i
			}
		case isLowerByte(seg[i]):
			lower++
		}
	}
	switch {
	case upper+lower <= 1:
		return styleNone
	case upper == 0:
		return styleLower
	case lower == 0:
		return styleUpper
	case upper == 1 && first == 0:
		return styleCapital
	}
	return styleNone // camelCase: plainSegment judges it
}

func naturalSegment(seg string, strict bool) bool {
	if strict {
		return plainSegment(seg)
	}
	pieces := 0
	for i := 0; i < len(seg); {
		j := wordPieceEnd(seg, i)
		p := seg[i:j]
		switch {
		case isDigitByte(p[0]):
			if len(p) > 4 {
				return false
			}
		case len(p) <= 2, consonantWords[strings.ToLower(p)]:
		case isUpperByte(p[0]) && isUpperByte(p[1]): // an acronym or an upper-case word
			if len(p) > 5 && !pronounceable(p) {
				return false
			}
		default:
			if !pronounceable(p) {
				return false
			}
		}
		pieces++
		i = j
	}
	return pieces < 4 || len(seg) >= 3*pieces
}

// plainSegment is the strict test, for runs at a cut start. It passes only
// what the tail of a random key hardly ever is: a number of at most four
// digits (a date part, a version), an acronym of at most three capitals
// (API, URL), one letter and a small number (v2, x86), or one lower-case or
// capitalized word that can be pronounced and holds no foreign letter pair.
// camelCase, longer acronyms and words with digits fail: masking "…README"
// costs a word, passing the tail of an AWS key id costs the key.
func plainSegment(seg string) bool {
	j := wordPieceEnd(seg, 0)
	w := seg[:j]
	switch {
	case isDigitByte(seg[0]):
		return j == len(seg) && j <= 4
	case j == 1 && j < len(seg): // v2, x86
		k := wordPieceEnd(seg, j)
		return isDigitByte(seg[j]) && k == len(seg) && k-j <= 4
	case j < len(seg):
		return false
	case len(w) >= 2 && isUpperByte(w[1]):
		return len(w) <= 3
	case len(w) == 2 && isUpperByte(w[0]): // "Tm" is not a word, "Go" is
		return pronounceable(w)
	case len(w) <= 2 || consonantWords[strings.ToLower(w)]:
		return true
	}
	return pronounceable(w) && !hasForeignPair(w) && (len(w) < 5 || englishOnset(w))
}

// englishOnsets are the pairs of consonants an English word can start with.
var englishOnsets = setOf("bl", "br", "ch", "cl", "cr", "dr", "dw", "fl", "fr", "gh", "gl", "gn", "gr", "kl", "kn",
	"kr", "ph", "pl", "pn", "pr", "ps", "qu", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "sq", "st", "sw", "th", "tr",
	"ts", "tw", "wh", "wr")

// englishOnset reports whether a word starts as English words can: with a
// vowel, one consonant before a vowel, or a pair of englishOnsets. A random
// run of letters starts with two consonants that no word starts with
// ("wbimfafor", "cnaniagrh") about half of the time.
func englishOnset(w string) bool {
	vowel := func(c byte) bool {
		switch c | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
		return false
	}
	if vowel(w[0]) || vowel(w[1]) {
		return true
	}
	return englishOnsets[strings.ToLower(w[:2])]
}

// foreignPairs are the letter pairs that fewer than three English words of
// the Go standard library's documentation use (its 9,010 lower-case words
// seen three times or more in comments, counted once when this table was
// written). A random string of eight letters holds one with probability
// 0.85; 1.2% of the words of the fixture transcripts do (compounds such as
// "dashboard", names such as "sqlite").
const foreignPairs = "aj aq bh bk bq bx bz cj cz dh dk dq dx fb fh fj fk fq fv fx fz gb gj gk gq gw gx hb hh hj " +
	"hk hq hv hx hz ih ij iu iw iy jb jc jf jg jh jj jk jl jm jn jq jr jt jv jw jx jy jz kh kj kk kq kv kx kz " +
	"lh lj lm lq lx mh mj mq mr mw mx mz nx oq oz pb pj pq px pz qa qb qc qd qe qf qg qh qi qj qk ql qm qn qo " +
	"qp qq qr qt qv qw qx qy qz rq rx rz sj sx sz tj tk tq uh uj uk uq uu uv uw uy vb vf vh vj vk vl vn vp vq " +
	"vt vu vw vx vz wj wk wq wu wv ww wx wy wz xb xd xf xj xk xo xq xr xs xu xv xw xz yd yf yg yj yk yq yu yv " +
	"yx yy zb zc zf zg zh zj zk zl zm zn zp zq zr zs zt zu zv zw zx zy"

// foreignPairSet holds foreignPairs: bit b of row a is the pair a,b.
var foreignPairSet = func() (set [26]uint32) {
	for _, p := range strings.Fields(foreignPairs) {
		set[p[0]-'a'] |= 1 << (p[1] - 'a')
	}
	return set
}()

// hasForeignPair reports whether a word of ASCII letters holds a pair of
// foreignPairs.
func hasForeignPair(w string) bool {
	for i := 1; i < len(w); i++ {
		a, b := w[i-1]|0x20, w[i]|0x20
		if foreignPairSet[a-'a']&(1<<(b-'a')) != 0 {
			return true
		}
	}
	return false
}

// consonantWords are common technical words without a vowel.
var consonantWords = setOf("https", "http", "html", "xhtml", "sftp", "smtp", "sshd", "grpc", "dpkg", "pnpm", "lxml", "sqlite",
	"xml", "ctx", "pkcs", "crt", "cfg", "mgr", "ptr", "str", "src", "dst", "msg", "tmp", "buf", "fmt", "std", "lib")

// passwordSymbols do not occur inside identifiers, paths or words; a value
// with one in it is a password or a random token.
var passwordSymbols = newByteSet("!#$%^&*~+|?")

// wordPieceEnd returns the end of the word piece of s that starts at i.
func wordPieceEnd(s string, i int) int {
	c := s[i]
	j := i + 1
	switch {
	case isDigitByte(c):
		for j < len(s) && isDigitByte(s[j]) {
			j++
		}
	case isUpperByte(c):
		if j < len(s) && isLowerByte(s[j]) {
			for j < len(s) && isLowerByte(s[j]) {
				j++
			}
			return j
		}
		for j < len(s) && isUpperByte(s[j]) {
			j++
		}
		if j < len(s) && isLowerByte(s[j]) && j-i > 1 {
			j-- // "HTTPServer": the S starts "Server"
		}
	default:
		for j < len(s) && isLowerByte(s[j]) {
			j++
		}
	}
	return j
}

// pronounceable reports whether a word of letters could be a word: at least
// one letter in six is a vowel ("string") and no more than four consonants
// stand together ("instruction").
func pronounceable(w string) bool {
	vowels, run := 0, 0
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowels++
			run = 0
		default:
			run++
			if run > 4 {
				return false
			}
		}
	}
	return vowels > 0 && vowels*6 >= len(w)
}

// naturalWord reports a plain word or identifier without digits, the kind
// of password documentation writes into a URL (user:password@, postgres:
// postgres@).
func naturalWord(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-') {
			return false
		}
	}
	return naturalText(v, false)
}

// byteSet is a set of bytes written like a regexp class body ("A-Za-z0-9_-").
type byteSet [256]bool

func newByteSet(class string) *byteSet {
	var s byteSet
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			for c := int(class[i]); c <= int(class[i+2]); c++ {
				s[c] = true
			}
			i += 2
			continue
		}
		s[class[i]] = true
	}
	return &s
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isAlnumByte(c byte) bool { return alnumBytes[c] }
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
func isQuote(c byte) bool     { return c == '"' || c == '\'' || c == '`' }
func isKeyByte(c byte) bool   { return alnumDotBytes[c] }

// isBearerByte is the RFC 6750 b64token alphabet.
func isBearerByte(c byte) bool {
	return isAlnumByte(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
}

// isValueStop ends a bare (unquoted) value.
func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', ';', '&', ')', '}', '>', '|', '\\':
		return true
	}
	return false
}

func skipBlanks(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

func lineEnd(t string, i int) int {
	if j := strings.IndexByte(t[i:], '\n'); j >= 0 && j < 4096 {
		return i + j
	}
	return min(len(t), i+4096)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return s != ""
}
