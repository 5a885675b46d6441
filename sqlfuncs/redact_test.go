package sqlfuncs

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/internal/golden"
)

// The true-positive corpus is synthetic: random values of each provider's
// alphabet and length, from a fixed seed. No real secret is in this file.

const (
	upperChars     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars     = "abcdefghijklmnopqrstuvwxyz"
	digitChars     = "0123456789"
	base62Chars    = upperChars + lowerChars + digitChars
	hexChars       = "0123456789abcdef"
	base64URLChars = base62Chars + "-_"
	base64Chars    = base62Chars + "+/"
	awsIDChars     = upperChars + "234567"
	letterChars    = upperChars + lowerChars
	passwordChars  = base62Chars + "!#%^*-_+=~"
	urlPassChars   = base62Chars + "-_.~!*"
)

// secretSample is a text with secrets in it.
type secretSample struct {
	family  string
	text    string
	secrets []string // sensitive values: no 8 characters of them may survive
	public  []int    // per secret: the length of its public prefix (ghp_, sk-ant-api03-)
	kind    string   // the mask Redact must write
	keep    []string // text around the secrets that must survive
}

type sampleMaker struct{ rng *rand.Rand }

func (m sampleMaker) str(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[m.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// token returns prefix+random and the length of the public prefix.
func (m sampleMaker) token(prefix, alphabet string, n int) (string, int) {
	return prefix + m.str(alphabet, n), len(prefix)
}

// vendorContext places a vendor token (%[1]s) in text, possibly assigned to
// an environment variable (%[2]s); keep is text that must survive.
type vendorContext struct{ format, keep string }

// vendorContexts are the shapes transcripts put tokens in.
var vendorContexts = []vendorContext{
	{"export %[2]s=%[1]s\nthen run make deploy", "then run make deploy"},
	{"my key is %[1]s, please keep it safe", "please keep it safe"},
	{`{"%[2]s": "%[1]s", "region": "eu-west-1"}`, `"region": "eu-west-1"`},
	{"Use %[1]s.", "Use "},
	{"- %[1]s (rotated yesterday)", "(rotated yesterday)"},
}

func secretSamples() []secretSample {
	m := sampleMaker{rand.New(rand.NewPCG(20261129, 4))}
	var out []secretSample
	// vendorIn puts a fresh token from gen into each context.
	vendorIn := func(contexts []vendorContext, family, kind, env string, gen func() (string, int)) {
		for _, c := range contexts {
			tok, public := gen()
			out = append(out, secretSample{
				family: family, kind: kind, text: fmt.Sprintf(c.format, tok, env),
				secrets: []string{tok}, public: []int{public}, keep: []string{c.keep},
			})
		}
	}
	vendor := func(family, kind, env string, gen func() (string, int)) {
		vendorIn(vendorContexts, family, kind, env, gen)
	}
	tok := func(prefix, alphabet string, n int) func() (string, int) {
		return func() (string, int) { return m.token(prefix, alphabet, n) }
	}
	parts := func(public int, gen ...func() string) func() (string, int) {
		return func() (string, int) {
			var b strings.Builder
			for _, g := range gen {
				b.WriteString(g())
			}
			return b.String(), public
		}
	}
	lit := func(s string) func() string { return func() string { return s } }
	rnd := func(alphabet string, n int) func() string { return func() string { return m.str(alphabet, n) } }

	// Provider keys and tokens.
	for _, p := range []string{"AKIA", "ASIA", "ABIA", "ACCA"} {
		vendor("aws", "aws-access-key", "AWS_ACCESS_KEY_ID", tok(p, awsIDChars, 16))
	}
	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
		vendor("github", "github-token", "GITHUB_TOKEN", tok(p, base62Chars, 36))
	}
	vendor("github", "github-token", "GH_TOKEN", parts(len("github_pat_"), lit("github_pat_"), rnd(base62Chars, 22), lit("_"), rnd(base62Chars, 59)))
	for _, p := range []string{"glpat-", "gldt-", "glrt-", "glptt-"} {
		vendor("gitlab", "gitlab-token", "GITLAB_TOKEN", tok(p, base64URLChars, 20))
	}
	vendor("slack", "slack-token", "SLACK_BOT_TOKEN", parts(len("xoxb-"), lit("xoxb-"), rnd(digitChars, 11), lit("-"), rnd(digitChars, 13), lit("-"), rnd(base62Chars, 24)))
	vendor("slack", "slack-token", "SLACK_USER_TOKEN", parts(len("xoxp-"), lit("xoxp-"), rnd(digitChars, 11), lit("-"), rnd(digitChars, 11), lit("-"), rnd(digitChars, 13), lit("-"), rnd(hexChars, 32)))
	vendor("slack", "slack-token", "SLACK_APP_TOKEN", parts(len("xapp-1-A"), lit("xapp-1-A"), rnd(upperChars+digitChars, 10), lit("-"), rnd(digitChars, 13), lit("-"), rnd(hexChars, 64)))
	slackHook := "https://hooks.slack.com/services/"
	vendor("slack", "slack-webhook", "SLACK_WEBHOOK", parts(len(slackHook)+1, lit(slackHook+"T"), rnd(upperChars+digitChars, 8), lit("/B"), rnd(upperChars+digitChars, 10), lit("/"), rnd(base62Chars, 24)))
	for _, p := range []string{"sk-proj-", "sk-svcacct-", "sk-admin-"} {
		vendor("openai", "openai-key", "OPENAI_API_KEY", parts(len(p), lit(p), rnd(base64URLChars, 74), lit("T3BlbkFJ"), rnd(base64URLChars, 74)))
	}
	vendor("openai", "openai-key", "OPENAI_API_KEY", parts(len("sk-"), lit("sk-"), rnd(base62Chars, 20), lit("T3BlbkFJ"), rnd(base62Chars, 20)))
	for _, p := range []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-"} {
		vendor("anthropic", "anthropic-key", "ANTHROPIC_API_KEY", parts(len(p), lit(p), rnd(base64URLChars, 93), lit("AA")))
	}
	vendor("openrouter", "openrouter-key", "OPENROUTER_API_KEY", tok("sk-or-v1-", hexChars, 64))
	vendor("google", "google-api-key", "GOOGLE_API_KEY", tok("AIza", base64URLChars, 35))
	vendor("google", "google-oauth-token", "GOOGLE_TOKEN", tok("ya29.", base64URLChars, 120))
	for _, p := range []string{"sk_live_", "sk_test_", "rk_live_", "rk_prod_"} {
		vendor("stripe", "stripe-key", "STRIPE_SECRET_KEY", tok(p, base62Chars, 24+m.rng.IntN(76)))
	}
	vendor("stripe", "stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", tok("whsec_", base62Chars, 32))
	vendor("huggingface", "huggingface-token", "HF_TOKEN", tok("hf_", letterChars, 34))
	vendor("npm", "npm-token", "NPM_TOKEN", tok("npm_", base62Chars, 36))
	vendor("pypi", "pypi-token", "PYPI_TOKEN", tok("pypi-AgEIcHlwaS5vcmc", base64URLChars, 150))
	vendor("sendgrid", "sendgrid-key", "SENDGRID_API_KEY", parts(len("SG."), lit("SG."), rnd(base64URLChars, 22), lit("."), rnd(base64URLChars, 43)))
	vendor("telegram", "telegram-bot-token", "TELEGRAM_BOT_TOKEN", func() (string, int) {
		bot := m.str("123456789", 1) + m.str(digitChars, 9) + ":AA"
		return bot + m.str(base64URLChars, 33), len(bot)
	})
	// A Discord bot token has no prefix of its own: it is found near the
	// word "discord", or by the name it is assigned to.
	discordContexts := []vendorContext{
		{"export %[2]s=%[1]s\nthen run make deploy", "then run make deploy"},
		{"my Discord bot token is %[1]s, please keep it safe", "please keep it safe"},
		{"discord.py: client.run('%[1]s')", "discord.py: client.run("},
	}
	vendorIn(discordContexts, "discord", "discord-token", "DISCORD_BOT_TOKEN", func() (string, int) {
		id := base64.RawURLEncoding.EncodeToString([]byte("1" + m.str(digitChars, 17)))
		return id + "." + m.str(base64URLChars, 6) + "." + m.str(base64URLChars, 38), 0
	})
	discordHook := "https://discord.com/api/webhooks/"
	vendor("discord", "discord-webhook", "DISCORD_WEBHOOK_URL", parts(len(discordHook), lit(discordHook+"1"), rnd(digitChars, 17), lit("/"), rnd(base64URLChars, 68)))
	vendor("supabase", "supabase-key", "SUPABASE_ACCESS_TOKEN", tok("sbp_", hexChars, 40))
	vendor("supabase", "supabase-key", "SUPABASE_SECRET_KEY", tok("sb_secret_", base64URLChars, 31))
	vendor("digitalocean", "digitalocean-token", "DIGITALOCEAN_TOKEN", tok("dop_v1_", hexChars, 64))
	vendor("docker", "docker-token", "DOCKER_TOKEN", tok("dckr_pat_", base64URLChars, 27))
	vendor("groq", "groq-key", "GROQ_API_KEY", tok("gsk_", base62Chars, 52))
	vendor("xai", "xai-key", "XAI_API_KEY", tok("xai-", base62Chars, 80))
	vendor("perplexity", "perplexity-key", "PERPLEXITY_API_KEY", tok("pplx-", base62Chars, 48))

	// JWTs: header.payload.signature, also without the signature.
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	for i, format := range []string{
		"Authorization: Bearer %s",
		`{"id_token":"%s","expires_in":3600}`,
		"the session cookie was %s and it expired",
		"token=%s",
	} {
		payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","name":"%s","iat":%d}`,
			m.str(digitChars, 10), m.str(lowerChars, 8), 1700000000+m.rng.IntN(1e8))))
		jwt := header + "." + payload
		if i != 3 {
			jwt += "." + m.str(base64URLChars, 43)
		}
		kind := "jwt"
		out = append(out, secretSample{family: "jwt", kind: kind, text: fmt.Sprintf(format, jwt), secrets: []string{jwt}, public: []int{0}})
	}

	// PEM private keys: full, in a JSON string, and cut (no END line).
	pemBody := func(lines int, sep string) string {
		var b []string
		for i := 0; i < lines; i++ {
			b = append(b, m.str(base64Chars, 64))
		}
		return strings.Join(b, sep) + sep + m.str(base64Chars, 40) + "=="
	}
	for _, label := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"} {
		body := "MII" + pemBody(6, "\n")
		text := "here is the deploy key:\n-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\nremove it after use"
		out = append(out, secretSample{family: "private-key", kind: "private-key", text: text, secrets: []string{body}, public: []int{3},
			keep: []string{"-----BEGIN " + label + "-----", "-----END " + label + "-----", "remove it after use"}})
	}
	jsonBody := "MII" + pemBody(5, `\n`)
	out = append(out, secretSample{family: "private-key", kind: "private-key",
		text:    `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + jsonBody + `\n-----END PRIVATE KEY-----\n", "client_email": "bot@example.iam.gserviceaccount.com"}`,
		secrets: []string{jsonBody}, public: []int{3}, keep: []string{`"client_email": "bot@example.iam.gserviceaccount.com"`}})
	cutBody := "MII" + pemBody(4, "\n")
	out = append(out, secretSample{family: "private-key", kind: "private-key",
		text:    "cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + cutBody,
		secrets: []string{cutBody}, public: []int{3}, keep: []string{"cat id_rsa"}})

	// Authorization and API-key headers.
	header64 := func(n int) string { return m.str(base64URLChars, n) }
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + m.str(passwordChars, 14)))
	for _, s := range []struct{ format, kind, value, keep string }{
		{"curl -H 'Authorization: Bearer %s' https://api.example.com/v1/me", "authorization", header64(40), "https://api.example.com/v1/me"},
		{"GET /v1/me HTTP/1.1\nAuthorization: Basic %s\nAccept: */*", "authorization", basic, "Accept: */*"},
		{`fetch(url, {headers: {"X-API-Key": "%s"}})`, "api-key", m.str(base62Chars, 32), "fetch(url"},
		{"x-api-key: %s\ncontent-type: application/json", "api-key", m.str(base62Chars, 40), "content-type: application/json"},
		{"requests.get(u, headers={'Authorization': 'Bearer %s'})", "authorization", header64(48), "requests.get(u"},
		{"Private-Token: %s", "token", m.str(base64URLChars, 26), "Private-Token: "},
		{"then we sent Bearer %s to the gateway", "bearer-token", header64(36), "to the gateway"},
	} {
		out = append(out, secretSample{family: "header", kind: s.kind, text: fmt.Sprintf(s.format, s.value),
			secrets: []string{s.value}, public: []int{0}, keep: []string{s.keep}})
	}

	// Cookies.
	sid, csrf := m.str(base62Chars, 32), m.str(base64URLChars, 40)
	out = append(out, secretSample{family: "cookie", kind: "cookie", text: "Cookie: sessionid=" + sid + "; theme=dark; csrftoken=" + csrf,
		secrets: []string{sid, csrf}, public: []int{0, 0}, keep: []string{"Cookie: sessionid=", "theme=dark"}})
	sess := m.str(base64URLChars, 44)
	out = append(out, secretSample{family: "cookie", kind: "cookie", text: "Set-Cookie: __Host-session=" + sess + "; Path=/; Secure; HttpOnly; SameSite=Lax",
		secrets: []string{sess}, public: []int{0}, keep: []string{"Path=/; Secure; HttpOnly"}})

	// Passwords and secrets in key=value, JSON, YAML and CLI-flag form.
	pw := func() string { return m.str(passwordChars, 14+m.rng.IntN(10)) }
	for _, s := range []struct{ format, kind, value, keep string }{
		{"DB_PASSWORD=%s\nDB_HOST=db.internal", "password", pw(), "DB_HOST=db.internal"},
		{`{"username": "admin", "password": "%s", "port": 5432}`, "password", pw(), `"port": 5432`},
		{"database:\n  user: app\n  password: %s\n  pool: 5", "password", pw(), "pool: 5"},
		{"mysql -u root -p%s -h db.internal app", "password", pw(), "-h db.internal app"},
		{"mysql -u root -p %s", "password", m.str(base62Chars, 16), "mysql -u root -p "},
		{"mysqldump -u admin --password=%s app > dump.sql", "password", pw(), "app > dump.sql"},
		{"./deploy --password %s --verbose", "password", pw(), "--verbose"},
		{"sshpass -p '%s' ssh deploy@10.0.0.5", "password", pw(), "ssh deploy@10.0.0.5"},
		{"redis-cli -a %s ping", "password", m.str(base62Chars, 20), "ping"},
		{"PGPASSWORD=%s psql -h db -U app", "password", pw(), "psql -h db -U app"},
		{"SECRET_KEY = '%s'", "secret", m.str(hexChars, 64), "SECRET_KEY = '"},
		{"client_secret: %s", "secret", m.str(base64URLChars, 40), "client_secret: "},
		{"API_TOKEN=%s make release", "token", m.str(base62Chars, 40), "make release"},
		{`const config = { apiKey: "%s" };`, "api-key", m.str(base62Chars, 32), "const config = { apiKey: "},
		{"node cli.js --api-key=%s --region us", "api-key", m.str(base62Chars, 32), "--region us"},
		{"aws_secret_access_key = %s", "aws-secret-key", m.str(base64Chars, 40), "aws_secret_access_key = "},
		{`"SecretAccessKey": "%s",`, "aws-secret-key", m.str(base64Chars, 40), `"SecretAccessKey": "`},
		{`$env:MISTRAL_KEY = "%s"`, "secret-key", m.str(base62Chars, 32), "$env:MISTRAL_KEY = "},
		{`{"auth": "%s"}`, "auth", base64.StdEncoding.EncodeToString([]byte("user:" + m.str(base62Chars, 16))), `{"auth": "`},
		{"curl -u admin:%s https://api.example.com", "password", pw(), "https://api.example.com"},
	} {
		out = append(out, secretSample{family: "assignment", kind: s.kind, text: fmt.Sprintf(s.format, s.value),
			secrets: []string{s.value}, public: []int{0}, keep: []string{s.keep}})
	}

	// Credentials in URLs: the password goes, scheme, user and host stay.
	for _, s := range []struct{ format, keep string }{
		{"DATABASE_URL=postgres://app:%s@db.example.com:5432/app", "postgres://app:"},
		{"connect to mongodb+srv://admin:%s@cluster0.example.net/test?retryWrites=true", "@cluster0.example.net/test"},
		{"redis://:%s@cache.internal:6379/0", "@cache.internal:6379/0"},
		{"git clone https://deploy:%s@git.example.com/org/repo.git", "git clone https://deploy:"},
		{"amqp://guest:%s@rabbit:5672/", "@rabbit:5672/"},
	} {
		v := m.str(urlPassChars, 18)
		out = append(out, secretSample{family: "url", kind: "url-credential", text: fmt.Sprintf(s.format, v),
			secrets: []string{v}, public: []int{0}, keep: []string{s.keep}})
	}
	return out
}

// leak returns an 8-character piece of a secret that survives in out
// (highlight markers removed first), or "". Pieces across a line break of a
// PEM body (a newline or an escaped "\n") are not secret material.
func leak(out string, s secretSample) string {
	out = strings.NewReplacer("[", "", "]", "").Replace(out)
	for k, sec := range s.secrets {
		for i := 0; i+8 <= len(sec); i++ {
			w := sec[i : i+8]
			if i+8 <= s.public[k] || strings.ContainsAny(w, "\n\\") {
				continue
			}
			if strings.Contains(out, w) {
				return w
			}
		}
	}
	return ""
}

func TestRedactFamilies(t *testing.T) {
	samples := secretSamples()
	families := map[string]int{}
	for _, s := range samples {
		families[s.family]++
		out, changed := Redact(s.text)
		if !changed {
			t.Errorf("%s: nothing redacted in %q", s.family, s.text)
			continue
		}
		if w := leak(out, s); w != "" {
			t.Errorf("%s: %q survives in %q", s.family, w, out)
		}
		if !strings.Contains(out, mask(s.kind)) {
			t.Errorf("%s: want a %s mask, got %q", s.family, mask(s.kind), out)
		}
		for _, k := range s.keep {
			if !strings.Contains(out, k) {
				t.Errorf("%s: %q should survive, got %q", s.family, k, out)
			}
		}
	}
	if len(families) < 25 {
		t.Errorf("only %d families in the corpus", len(families))
	}
}

// TestRedactNoLeakUnderCuts is the property of the contract: however a
// snippet window or a highlight cuts through a secret, no 8 consecutive
// characters of it survive. Each sample is cut at every character from the
// left ("…" + rest, as a snippet window writes it) and from the right (with
// and without "…"), plain and with "[" "]" markers put around the token
// parts inside the secret and at random places in it.
func TestRedactNoLeakUnderCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	leaks := map[string]int{} // per family; the first few are shown
	for _, s := range secretSamples() {
		for _, text := range markedVariants(s, rng) {
			for i := range text {
				for _, cut := range []string{ellipsis + text[i:], text[:i], text[:i] + ellipsis} {
					out, _ := Redact(cut)
					if w := leak(out, s); w != "" {
						leaks[s.family]++
						if leaks[s.family] <= 3 {
							t.Errorf("%s: %q survives\n in:  %q\n out: %q", s.family, w, cut, out)
						}
					}
				}
			}
		}
	}
	if len(leaks) > 0 {
		t.Errorf("leaks per family: %v", leaks)
	}
}

// markedVariants returns the sample text plain and with highlight markers
// inside its secrets: around each alphanumeric run (where a tokenizer would
// cut a token part) and, twice, around a random stretch.
func markedVariants(s secretSample, rng *rand.Rand) []string {
	variants := []string{s.text}
	for _, sec := range s.secrets {
		at := strings.Index(s.text, sec)
		if at < 0 {
			continue
		}
		var runs [][2]int
		for i := 0; i < len(sec); {
			if !isAlnumByte(sec[i]) {
				i++
				continue
			}
			j := i
			for j < len(sec) && isAlnumByte(sec[j]) {
				j++
			}
			runs = append(runs, [2]int{i, j})
			i = j
		}
		step := max(1, len(runs)/4) // long PEM bodies: a few runs, not all
		for k := 0; k < len(runs); k += step {
			variants = append(variants, insertMarkers(s.text, at+runs[k][0], at+runs[k][1]))
		}
		for k := 0; k < 2 && len(sec) > 2; k++ {
			a := rng.IntN(len(sec) - 1)
			b := a + 1 + rng.IntN(len(sec)-a-1)
			variants = append(variants, insertMarkers(s.text, at+a, at+b))
		}
	}
	return variants
}

func insertMarkers(text string, a, b int) string {
	return text[:a] + "[" + text[a:b] + "]" + text[b:]
}

func TestRedactMasks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"password=Xk9#pQ2mN7vB4zz!", "password=[REDACTED:password]"},
		{`"password": "Xk9#pQ2mN7vB4zz!"`, `"password": "[REDACTED:password]"`},
		{"postgres://app:Xk9pQ2mN7vB4zz@db.example.com/app", "postgres://app:[REDACTED:url-credential]@db.example.com/app"},
		{"token ghp_" + strings.Repeat("aB3x", 9) + " ok", "token [REDACTED:github-token] ok"},
		{"GITHUB_TOKEN=ghp_" + strings.Repeat("aB3x", 9), "GITHUB_TOKEN=[REDACTED:github-token]"},
		// A highlight pair around a secret goes with it.
		{"see [ghp]_" + strings.Repeat("aB3x", 9) + " now", "see [REDACTED:github-token] now"},
		{"see ghp_aB3x[aB3x]" + strings.Repeat("aB3x", 7) + " now", "see [REDACTED:github-token] now"},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",
			"-----BEGIN PRIVATE KEY-----\n[REDACTED:private-key]\n-----END PRIVATE KEY-----"},
		// Masks already in a text are left alone.
		{"password=[REDACTED:password] and [REDACTED:github-token]", "password=[REDACTED:password] and [REDACTED:github-token]"},
	}
	for _, tt := range tests {
		if got, _ := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactTruncated covers the edges of a snippet: a key cut at the start
// or the end of the text, a PEM block without its END line, a dangling
// vendor prefix.
func TestRedactTruncated(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"anthropic cut short", "key: sk-ant-api03-" + "AbCdEfGhIjKlMnOpQrSt", "key: [REDACTED:anthropic-key]"},
		{"anthropic cut with ellipsis", "export ANTHROPIC_API_KEY=sk-ant-api03-AbC…", "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]…"},
		{"github prefix and four characters", "the token was ghp_aB3x", "the token was [REDACTED:github-token]"},
		{"github prefix alone", "the token was ghp_", "the token was ghp_"},
		{"aws id cut", "AWS_ACCESS_KEY_ID=AKIAQX4Z", "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]"},
		{"pem without END", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nc2gtZWQy",
			"-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED:private-key]"},
		{"pem without BEGIN", "…Yx3Kq/9Zp+7Lm2Nv\nQ8Rt5Wu1Xy4Zb6Cd==\n-----END RSA PRIVATE KEY-----", "…[REDACTED:private-key]\n-----END RSA PRIVATE KEY-----"},
		{"jwt header only", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6", "Authorization: Bearer [REDACTED:jwt]"},
		{"jwt cut in payload", "id_token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx", "id_token [REDACTED:jwt]"},
		{"password cut", `{"password": "Xk9#pQ2m`, `{"password": "[REDACTED:password]`},
		{"url password cut before @", "DATABASE_URL=postgres://app:Xk9pQ2mN", "DATABASE_URL=postgres://app:[REDACTED:url-credential]"},
		{"url port is not a password", "open http://localhost:3000", "open http://localhost:3000"},
		{"left cut into a token", "…qNw9Yx3ZpQ7LmKv2 was the key", "…[REDACTED:fragment] was the key"},
		{"left cut into a JSON value", `…ssword": "Xk9#pQ2mN7vB4zz", "port": 5432`, `…ssword": "[REDACTED:fragment]", "port": 5432`},
		{"left cut after Bearer", "…earer Zk3vP9qXw2LmR7tY0bNc then", "…earer [REDACTED:fragment] then"},
		{"left cut keeps words", "…configuration of the server", "…configuration of the server"},
		{"left cut keeps a date", "…2026-02-07 meeting notes", "…2026-02-07 meeting notes"},
		{"telegram cut", "TELEGRAM_BOT_TOKEN=1234567890:AAHx", "TELEGRAM_BOT_TOKEN=[REDACTED:telegram-bot-token]"},
	}
	for _, tt := range tests {
		if got, _ := Redact(tt.in); got != tt.want {
			t.Errorf("%s: Redact(%q)\n got  %q\n want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// falsePositives must come out of Redact unchanged.
func falsePositives() []string {
	m := sampleMaker{rand.New(rand.NewPCG(99, 1))}
	uuid := m.str(hexChars, 8) + "-" + m.str(hexChars, 4) + "-4" + m.str(hexChars, 3) + "-a" + m.str(hexChars, 3) + "-" + m.str(hexChars, 12)
	return []string{
		// Hashes, ids and encoded data.
		"commit " + m.str(hexChars, 40) + " fixed the build",
		"sha256 of the tarball is " + m.str(hexChars, 64),
		"image: node@sha256:" + m.str(hexChars, 64),
		`"integrity": "sha512-` + m.str(base64Chars, 86) + `=="`,
		"request id " + uuid + " failed",
		`{"sessionId": "` + uuid + `", "key": "` + uuid + `"}`,
		"![chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + m.str(base64Chars, 2000) + "==)",
		"attachment: " + m.str(base64Chars, 600),
		"toolu_01" + m.str(base62Chars, 22) + " returned 3 files",
		"msg_01" + m.str(base62Chars, 22) + " and req_011C" + m.str(base62Chars, 20),
		"call_" + m.str(base62Chars, 24) + " / chatcmpl-" + m.str(base62Chars, 29),
		"cursor=eyJwYWdlIjoyLCJsaW1pdCI6NTB9&limit=50",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + m.str(base64Chars, 43) + " me@laptop",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + m.str(base64Chars, 40) + "\n-----END PUBLIC KEY-----",
		// Paths, versions, identifiers.
		"/home/archeo/.openclaw/workspace/HEARTBEAT.md",
		`C:\Users\me\AppData\Local\Temp\token-cache.json`,
		"src/components/TokenInput.tsx:42",
		"upgraded to v1.2.3, then 2.31.0+dfsg-1ubuntu1.1 and python3.11",
		"getAccessTokenFromKeychain(passwordResetTokenExpiry, handleSecretRotation)",
		"x86_64-linux-gnu and UTF-8",
		// Code that names secrets without holding them.
		`token := os.Getenv("GITHUB_TOKEN")`,
		"const key = process.env.OPENAI_API_KEY;",
		`secret = os.environ["AWS_SECRET_ACCESS_KEY"]`,
		`if password == "" { return errMissingPassword }`,
		"apiKey: config.apiKey,",
		"func (c *Client) SetToken(token string) error",
		`api_version = "2024-01-01"`,
		"max_tokens=4096, input_tokens: 1234, token_count = 99",
		"sessionKey: agent:main:telegram:dm:1604754210",
		"cache_key = 'user:42:profile'",
		`{"type": "password", "name": "password", "placeholder": "Password"}`,
		"password_file: /run/secrets/db_password",
		"docker login --password-stdin < token.txt",
		"RUN --mount=type=secret,id=npmrc cat /run/secrets/npmrc",
		// Prose about passwords and keys.
		"set your password in settings",
		"Please rotate the API key and the GitHub token before Friday.",
		"The password must be at least 12 characters long.",
		"use a bearer token in the Authorization header",
		"Bearer authentication is required for this endpoint",
		"private key files live in ~/.ssh and must not be shared",
		"Password: must be 8+ characters",
		"He was the bearer of bad news.",
		// Placeholders.
		"BRAVE_API_KEY=your_api_key_here",
		"OPENAI_API_KEY=your-openai-key",
		"token: <TOKEN>",
		"API_KEY=${API_KEY}",
		"password=$(cat key)",
		"api_key: xxxx",
		"password: ****",
		"password: ********",
		"keys look like sk-... or sk-ant-api03-... in the docs",
		"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"Authorization: Bearer <token>",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer ${{ secrets.API_TOKEN }}",
		"postgres://user:password@localhost:5432/db",
		"postgres://postgres:postgres@localhost/app",
		"mysql -u root -p mydb < schema.sql",
		"mysql -u root -p",
		"password: null",
		"SLACK_TOKEN=REDACTED",
		// URLs and near misses of vendor shapes.
		"https://example.com:8443/path?page=2 and http://localhost:3000",
		"git@github.com:org/repo.git",
		"[link](https://docs.openclaw.ai/faq)",
		"sk-learn is a typo for scikit-learn",
		"ASIAN markets opened; the AKIA prefix marks AWS key ids",
		"the task-queue and risk-assessment-report-2024 modules",
		"meeting at 12:AA",
		"key: value",
		"primary_key = id",
		"Cookie: theme=dark",
		"the hf_hub_download function and npm_config_cache",
		// A cut start that is ordinary text.
		"…configuration of the server",
		"…and then it worked",
		"…README explains the setup",
	}
}

func TestRedactFalsePositives(t *testing.T) {
	for _, in := range falsePositives() {
		if out, changed := Redact(in); changed || out != in {
			t.Errorf("Redact changed ordinary text\n in:  %q\n out: %q", in, out)
		}
	}
}

// transcriptTexts returns the indexed text of every user and assistant
// message of the fixture transcripts (string content, message.text, or the
// text, input_text and output_text blocks).
func transcriptTexts(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("..", "internal", "fixtures", "transcripts", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in ../internal/fixtures/transcripts (%v)", err)
	}
	var texts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct {
				Type    string
				Message struct {
					Role    string
					Text    string
					Content json.RawMessage
				}
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if e.Type != "message" || e.Message.Role != "user" && e.Message.Role != "assistant" {
				continue
			}
			var s string
			if json.Unmarshal(e.Message.Content, &s) == nil {
				texts = append(texts, s)
				continue
			}
			var blocks []struct{ Type, Text string }
			_ = json.Unmarshal(e.Message.Content, &blocks)
			var parts []string
			for _, b := range blocks {
				if b.Type == "text" || b.Type == "input_text" || b.Type == "output_text" {
					parts = append(parts, b.Text)
				}
			}
			if len(parts) == 0 && e.Message.Text != "" {
				parts = append(parts, e.Message.Text)
			}
			if len(parts) > 0 {
				texts = append(texts, strings.Join(parts, "\n"))
			}
		}
	}
	return texts
}

// TestRedactTranscripts runs Redact over the real transcripts: their prose
// mentions passwords, tokens and API keys but holds no secret, so nothing
// may change.
func TestRedactTranscripts(t *testing.T) {
	texts := transcriptTexts(t)
	if len(texts) < 100 {
		t.Fatalf("only %d texts read from the transcripts", len(texts))
	}
	for _, text := range texts {
		if _, changed := Redact(text); changed {
			for _, s := range Secrets(text) {
				t.Errorf("transcript text redacted: %s %q in %q", s.Kind, text[s.Start:s.End], around(text, s.Start, s.End))
			}
		}
	}
}

func around(text string, s, e int) string {
	return text[max(0, s-40):min(len(text), e+40)]
}

func TestRedactIdempotent(t *testing.T) {
	for _, s := range secretSamples() {
		once, _ := Redact(s.text)
		if twice, changed := Redact(once); changed {
			t.Errorf("%s: Redact of a redacted text changed it again\n once:  %q\n twice: %q", s.family, once, twice)
		}
	}
}

// TestRedactCleanTextIsFree checks the fast path: text with no keyword is
// returned as the same string, without allocating.
func TestRedactCleanTextIsFree(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("The quick brown fox jumps over the lazy dog. ", 7),
		"你好，我们明天在会议室讨论新的设计方案。",
		"[1, 2, 3] are the [highlighted] words",
		"",
	} {
		out, changed := Redact(text)
		if changed || unsafe.StringData(out) != unsafe.StringData(text) {
			t.Errorf("Redact(%q) copied clean text", text)
		}
		if n := testing.AllocsPerRun(100, func() { Redact(text) }); n != 0 {
			t.Errorf("Redact(%q) allocates %v times", text, n)
		}
	}
	// A keyword without a secret behind it does not allocate either.
	text := "the token and the key are configured in settings, see https://example.com/docs"
	if n := testing.AllocsPerRun(100, func() { Redact(text) }); n != 0 {
		t.Errorf("Redact(%q) allocates %v times", text, n)
	}
}

func TestSecretsSpans(t *testing.T) {
	gh := "ghp_" + strings.Repeat("Zx9Q", 9)
	text := "A=" + gh + " B=postgres://u:Xk9pQ2mN7vB4zz@h/db C=" + gh
	spans := Secrets(text)
	want := []Span{
		{2, 2 + len(gh), "github-token"},
		{strings.Index(text, "Xk9"), strings.Index(text, "@h"), "url-credential"},
		{strings.LastIndex(text, gh), len(text), "github-token"},
	}
	if fmt.Sprint(spans) != fmt.Sprint(want) {
		t.Errorf("Secrets = %v, want %v", spans, want)
	}
	// Overlapping findings merge into one span named by the most specific
	// rule: the assignment rule and the GitHub rule both see this value.
	if got := Secrets("GITHUB_TOKEN=" + gh); len(got) != 1 || got[0].Kind != "github-token" {
		t.Errorf("Secrets(GITHUB_TOKEN=…) = %v", got)
	}
	for _, s := range secretSamples() {
		spans := Secrets(s.text)
		for i, sp := range spans {
			if sp.Start < 0 || sp.End > len(s.text) || sp.Start >= sp.End || i > 0 && sp.Start < spans[i-1].End {
				t.Fatalf("%s: bad spans %v in %q", s.family, spans, s.text)
			}
			if !utf8.ValidString(s.text[sp.Start:sp.End]) {
				t.Errorf("%s: span %v splits a character", s.family, sp)
			}
		}
	}
}

func TestSecretKeyKind(t *testing.T) {
	tests := []struct{ key, want string }{
		{"password", "password"}, {"DB_PASSWORD", "password"}, {"dbPassword", "password"}, {"passwd", "password"},
		{"password_file", ""}, {"passwordPolicy", ""}, {"PASSWORD_LENGTH", ""},
		{"api_key", "api-key"}, {"apiKey", "api-key"}, {"APIKey", "api-key"}, {"x-api-key", "api-key"}, {"apikey", "api-key"},
		{"api_key_id", ""}, {"key", ""}, {"public_key", ""}, {"session_key", ""}, {"sessionKey", ""}, {"SESSION_KEY", ""},
		{"cache_key", ""}, {"primary_key", ""}, {"OPENAI_KEY", "secret-key"}, {"ENCRYPTION_KEY", "secret-key"},
		{"private_key", "private-key"}, {"modelKey", ""},
		{"token", "token"}, {"GITHUB_TOKEN", "token"}, {"accessToken", "token"}, {"auth_token", "token"},
		{"max_tokens", ""}, {"token_count", ""}, {"next_page_token", ""}, {"csrf_token", "token"}, {"tokenizer", ""},
		{"client_secret", "secret"}, {"SECRET", "secret"}, {"secretName", ""},
		{"aws_secret_access_key", "aws-secret-key"}, {"AWS_SECRET_ACCESS_KEY", "aws-secret-key"},
		{"Authorization", "authorization"}, {"Proxy-Authorization", "authorization"},
		{"Cookie", "cookie"}, {"Set-Cookie", "cookie"},
		{"credentials", "credential"}, {"auth", "auth"}, {"oauth", ""}, {"author", ""},
	}
	for _, tt := range tests {
		if got := secretKeyKind(tt.key); got != tt.want {
			t.Errorf("secretKeyKind(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestNaturalText(t *testing.T) {
	tests := []struct {
		s              string
		lenient, plain bool
	}{
		{"configuration", true, true},
		{"getUserName", true, false}, // camelCase is a word only outside a cut start
		{"python3.11", true, false},  // a word with digits could be a key's tail
		{"x86_64-linux-gnu", true, true},
		{"/home/user/project/main.go", true, true},
		{"2026-02-07", true, true},
		{"README", true, false},
		{"kqNw9Yx3ZpQ7", false, false},
		{"3f9a8b7c6d5e", false, false},
		{"Tr0ub4dor", false, false},
		{"QWZXKRTPLMNB", false, false},
		{"aZkPqRbXwY", false, false},
	}
	for _, tt := range tests {
		if got := naturalText(tt.s, false); got != tt.lenient {
			t.Errorf("naturalText(%q, lenient) = %v", tt.s, got)
		}
		if got := naturalText(tt.s, true); got != tt.plain {
			t.Errorf("naturalText(%q, strict) = %v", tt.s, got)
		}
	}
}

// TestKeywordSet checks the prefilter: case-folded, blind to highlight
// markers, and silent on text without keywords.
func TestKeywordSet(t *testing.T) {
	m := newKeywordSet([]string{"ghp_", "key", "private key"}, [][]int{{0}, {1}, {2}})
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"GHP_abc", true}, {"[ghp]_abc", true}, {"a Key here", true}, {"PRIVATE [KEY]", true},
		{"gh p_", false}, {"ke y", false}, {"", false}, {"private ke", false},
	} {
		if got := m.any(tt.text); got != tt.want {
			t.Errorf("any(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestRedactLargeInputs feeds texts made of keywords and unterminated
// shapes. Each rule reads a bounded stretch per hit, so these stay linear;
// a quadratic rule would make this test take minutes.
func TestRedactLargeInputs(t *testing.T) {
	const size = 512 << 10
	for _, unit := range []string{
		"curl ", "mysql -p", "password: '", "Cookie: a=", "Authorization: '", "eyJ", "eyJa.",
		"-----BEGIN PRIVATE KEY-----\n", "-----END PRIVATE KEY-----\n", "x://", "AKIA", "sk-", "Bearer ",
		":AA", "discord ", "key=", "…", "[", "token is ",
	} {
		text := strings.Repeat(unit, size/len(unit))
		out, _ := Redact(text)
		if !utf8.ValidString(out) && utf8.ValidString(text) {
			t.Errorf("Redact(%q × %d) returned invalid UTF-8", unit, size/len(unit))
		}
	}
}

// TestGoldenRedaction pins Redact's output on the secret corpus and the
// false positives: the search index holds masked text, so any change must
// be deliberate (run with -update, review the diff, bump RedactionVersion).
func TestGoldenRedaction(t *testing.T) {
	var b strings.Builder
	texts := falsePositives()
	for _, s := range secretSamples() {
		texts = append(texts, s.text)
	}
	for _, text := range texts {
		out, _ := Redact(text)
		fmt.Fprintf(&b, "%+q -> %+q\n", text, out)
	}
	golden.Check(t, "testdata/redact.golden", b.String(), "bump RedactionVersion")
}
