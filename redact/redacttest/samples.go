// Package redacttest holds the synthetic secrets that the redaction tests
// run (docs/redaction.md): random values in each provider's alphabet and
// length from fixed seeds, placed in the syntaxes transcripts write them in.
// No real secret is in this package. It is imported only by tests.
package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Every value comes from a seeded generator, so the corpus is the same on
// every run and every machine.

// Alphabets of the generated values.
const (
	Upper            = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Lower            = "abcdefghijklmnopqrstuvwxyz"
	Digits           = "0123456789"
	Base62           = Upper + Lower + Digits
	Hex              = "0123456789abcdef"
	Base64URL        = Base62 + "-_"
	Base64           = Base62 + "+/"
	AWSID            = Upper + "234567"
	Letters          = Upper + Lower
	PasswordChars    = Base62 + "!#%^*-_+=~"
	URLPasswordChars = Base62 + "-_.~!*"
)

// Sample is a text with secrets in it.
type Sample struct {
	Family  string
	Text    string
	Secrets []string // sensitive values: no 8 characters of them may survive
	Public  []int    // per secret: the length of its public prefix (ghp_, sk-ant-api03-)
	Kind    string   // the mask Text must write
	Keep    []string // text around the secrets that must survive
}

// Gen makes random strings from a fixed seed.
type Gen struct{ rng *rand.Rand }

// NewGen returns a generator seeded with seed1 and seed2.
func NewGen(seed1, seed2 uint64) Gen { return Gen{rand.New(rand.NewPCG(seed1, seed2))} }

// Str returns n random bytes of alphabet.
func (m Gen) Str(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[m.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// token returns prefix+random and the length of the public prefix.
func (m Gen) token(prefix, alphabet string, n int) (string, int) {
	return prefix + m.Str(alphabet, n), len(prefix)
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

// Samples returns the corpus of every family in the syntaxes transcripts
// use most: environment lines, prose, JSON, headers, URLs, command lines.
func Samples() []Sample {
	m := NewGen(20261129, 4)
	var out []Sample
	// vendorIn puts a fresh token from gen into each context.
	vendorIn := func(contexts []vendorContext, family, kind, env string, gen func() (string, int)) {
		for _, c := range contexts {
			tok, public := gen()
			out = append(out, Sample{
				Family: family, Kind: kind, Text: fmt.Sprintf(c.format, tok, env),
				Secrets: []string{tok}, Public: []int{public}, Keep: []string{c.keep},
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
	rnd := func(alphabet string, n int) func() string { return func() string { return m.Str(alphabet, n) } }

	// Provider keys and tokens.
	for _, p := range []string{"AKIA", "ASIA", "ABIA", "ACCA"} {
		vendor("aws", "aws-access-key", "AWS_ACCESS_KEY_ID", tok(p, AWSID, 16))
	}
	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
		vendor("github", "github-token", "GITHUB_TOKEN", tok(p, Base62, 36))
	}
	vendor("github", "github-token", "GH_TOKEN", parts(len("github_pat_"), lit("github_pat_"), rnd(Base62, 22), lit("_"), rnd(Base62, 59)))
	for _, p := range []string{"glpat-", "gldt-", "glrt-", "glptt-"} {
		vendor("gitlab", "gitlab-token", "GITLAB_TOKEN", tok(p, Base64URL, 20))
	}
	vendor("slack", "slack-token", "SLACK_BOT_TOKEN", parts(len("xoxb-"), lit("xoxb-"), rnd(Digits, 11), lit("-"), rnd(Digits, 13), lit("-"), rnd(Base62, 24)))
	vendor("slack", "slack-token", "SLACK_USER_TOKEN", parts(len("xoxp-"), lit("xoxp-"), rnd(Digits, 11), lit("-"), rnd(Digits, 11), lit("-"), rnd(Digits, 13), lit("-"), rnd(Hex, 32)))
	vendor("slack", "slack-token", "SLACK_APP_TOKEN", parts(len("xapp-1-A"), lit("xapp-1-A"), rnd(Upper+Digits, 10), lit("-"), rnd(Digits, 13), lit("-"), rnd(Hex, 64)))
	slackHook := "https://hooks.slack.com/services/"
	vendor("slack", "slack-webhook", "SLACK_WEBHOOK", parts(len(slackHook)+1, lit(slackHook+"T"), rnd(Upper+Digits, 8), lit("/B"), rnd(Upper+Digits, 10), lit("/"), rnd(Base62, 24)))
	for _, p := range []string{"sk-proj-", "sk-svcacct-", "sk-admin-"} {
		vendor("openai", "openai-key", "OPENAI_API_KEY", parts(len(p), lit(p), rnd(Base64URL, 74), lit("T3BlbkFJ"), rnd(Base64URL, 74)))
	}
	vendor("openai", "openai-key", "OPENAI_API_KEY", parts(len("sk-"), lit("sk-"), rnd(Base62, 20), lit("T3BlbkFJ"), rnd(Base62, 20)))
	for _, p := range []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-"} {
		vendor("anthropic", "anthropic-key", "ANTHROPIC_API_KEY", parts(len(p), lit(p), rnd(Base64URL, 93), lit("AA")))
	}
	vendor("openrouter", "openrouter-key", "OPENROUTER_API_KEY", tok("sk-or-v1-", Hex, 64))
	vendor("google", "google-api-key", "GOOGLE_API_KEY", tok("AIza", Base64URL, 35))
	vendor("google", "google-oauth-token", "GOOGLE_TOKEN", tok("ya29.", Base64URL, 120))
	for _, p := range []string{"sk_live_", "sk_test_", "rk_live_", "rk_prod_"} {
		vendor("stripe", "stripe-key", "STRIPE_SECRET_KEY", tok(p, Base62, 24+m.rng.IntN(76)))
	}
	vendor("stripe", "stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", tok("whsec_", Base62, 32))
	vendor("huggingface", "huggingface-token", "HF_TOKEN", tok("hf_", Letters, 34))
	vendor("npm", "npm-token", "NPM_TOKEN", tok("npm_", Base62, 36))
	vendor("pypi", "pypi-token", "PYPI_TOKEN", tok("pypi-AgEIcHlwaS5vcmc", Base64URL, 150))
	vendor("sendgrid", "sendgrid-key", "SENDGRID_API_KEY", parts(len("SG."), lit("SG."), rnd(Base64URL, 22), lit("."), rnd(Base64URL, 43)))
	vendor("telegram", "telegram-bot-token", "TELEGRAM_BOT_TOKEN", func() (string, int) {
		bot := m.Str("123456789", 1) + m.Str(Digits, 9) + ":AA"
		return bot + m.Str(Base64URL, 33), len(bot)
	})
	// A Discord bot token has no prefix of its own: it is found near the
	// word "discord", or by the name it is assigned to.
	discordContexts := []vendorContext{
		{"export %[2]s=%[1]s\nthen run make deploy", "then run make deploy"},
		{"my Discord bot token is %[1]s, please keep it safe", "please keep it safe"},
		{"discord.py: client.run('%[1]s')", "discord.py: client.run("},
	}
	vendorIn(discordContexts, "discord", "discord-token", "DISCORD_BOT_TOKEN", func() (string, int) {
		id := base64.RawURLEncoding.EncodeToString([]byte("1" + m.Str(Digits, 17)))
		return id + "." + m.Str(Base64URL, 6) + "." + m.Str(Base64URL, 38), 0
	})
	discordHook := "https://discord.com/api/webhooks/"
	vendor("discord", "discord-webhook", "DISCORD_WEBHOOK_URL", parts(len(discordHook), lit(discordHook+"1"), rnd(Digits, 17), lit("/"), rnd(Base64URL, 68)))
	vendor("supabase", "supabase-key", "SUPABASE_ACCESS_TOKEN", tok("sbp_", Hex, 40))
	vendor("supabase", "supabase-key", "SUPABASE_SECRET_KEY", tok("sb_secret_", Base64URL, 31))
	vendor("digitalocean", "digitalocean-token", "DIGITALOCEAN_TOKEN", tok("dop_v1_", Hex, 64))
	vendor("docker", "docker-token", "DOCKER_TOKEN", tok("dckr_pat_", Base64URL, 27))
	vendor("groq", "groq-key", "GROQ_API_KEY", tok("gsk_", Base62, 52))
	vendor("xai", "xai-key", "XAI_API_KEY", tok("xai-", Base62, 80))
	vendor("perplexity", "perplexity-key", "PERPLEXITY_API_KEY", tok("pplx-", Base62, 48))

	// JWTs: header.payload.signature, also without the signature.
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	for i, format := range []string{
		"Authorization: Bearer %s",
		`{"id_token":"%s","expires_in":3600}`,
		"the session cookie was %s and it expired",
		"token=%s",
	} {
		payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","name":"%s","iat":%d}`,
			m.Str(Digits, 10), m.Str(Lower, 8), 1700000000+m.rng.IntN(1e8))))
		jwt := header + "." + payload
		if i != 3 {
			jwt += "." + m.Str(Base64URL, 43)
		}
		out = append(out, Sample{Family: "jwt", Kind: "jwt", Text: fmt.Sprintf(format, jwt), Secrets: []string{jwt}, Public: []int{0}})
	}

	// PEM private keys: full, in a JSON string, and cut (no END line).
	pemBody := func(lines int, sep string) string {
		var b []string
		for i := 0; i < lines; i++ {
			b = append(b, m.Str(Base64, 64))
		}
		return strings.Join(b, sep) + sep + m.Str(Base64, 40) + "=="
	}
	for _, label := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"} {
		body := "MII" + pemBody(6, "\n")
		text := "here is the deploy key:\n-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\nremove it after use"
		out = append(out, Sample{Family: "private-key", Kind: "private-key", Text: text, Secrets: []string{body}, Public: []int{3},
			Keep: []string{"-----BEGIN " + label + "-----", "-----END " + label + "-----", "remove it after use"}})
	}
	jsonBody := "MII" + pemBody(5, `\n`)
	out = append(out, Sample{Family: "private-key", Kind: "private-key",
		Text:    `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + jsonBody + `\n-----END PRIVATE KEY-----\n", "client_email": "bot@example.iam.gserviceaccount.com"}`,
		Secrets: []string{jsonBody}, Public: []int{3}, Keep: []string{`"client_email": "bot@example.iam.gserviceaccount.com"`}})
	cutBody := "MII" + pemBody(4, "\n")
	out = append(out, Sample{Family: "private-key", Kind: "private-key",
		Text:    "cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + cutBody,
		Secrets: []string{cutBody}, Public: []int{3}, Keep: []string{"cat id_rsa"}})

	// Authorization and API-key headers.
	header64 := func(n int) string { return m.Str(Base64URL, n) }
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + m.Str(PasswordChars, 14)))
	for _, s := range []struct{ format, kind, value, keep string }{
		{"curl -H 'Authorization: Bearer %s' https://api.example.com/v1/me", "authorization", header64(40), "https://api.example.com/v1/me"},
		{"GET /v1/me HTTP/1.1\nAuthorization: Basic %s\nAccept: */*", "authorization", basic, "Accept: */*"},
		{`fetch(url, {headers: {"X-API-Key": "%s"}})`, "api-key", m.Str(Base62, 32), "fetch(url"},
		{"x-api-key: %s\ncontent-type: application/json", "api-key", m.Str(Base62, 40), "content-type: application/json"},
		{"requests.get(u, headers={'Authorization': 'Bearer %s'})", "authorization", header64(48), "requests.get(u"},
		{"Private-Token: %s", "token", m.Str(Base64URL, 26), "Private-Token: "},
		{"then we sent Bearer %s to the gateway", "bearer-token", header64(36), "to the gateway"},
	} {
		out = append(out, Sample{Family: "header", Kind: s.kind, Text: fmt.Sprintf(s.format, s.value),
			Secrets: []string{s.value}, Public: []int{0}, Keep: []string{s.keep}})
	}

	// Cookies.
	sid, csrf := m.Str(Base62, 32), m.Str(Base64URL, 40)
	out = append(out, Sample{Family: "cookie", Kind: "cookie", Text: "Cookie: sessionid=" + sid + "; theme=dark; csrftoken=" + csrf,
		Secrets: []string{sid, csrf}, Public: []int{0, 0}, Keep: []string{"Cookie: sessionid=", "theme=dark"}})
	sess := m.Str(Base64URL, 44)
	out = append(out, Sample{Family: "cookie", Kind: "cookie", Text: "Set-Cookie: __Host-session=" + sess + "; Path=/; Secure; HttpOnly; SameSite=Lax",
		Secrets: []string{sess}, Public: []int{0}, Keep: []string{"Path=/; Secure; HttpOnly"}})

	// Passwords and secrets in key=value, JSON, YAML and CLI-flag form.
	pw := func() string { return m.Str(PasswordChars, 14+m.rng.IntN(10)) }
	for _, s := range []struct{ format, kind, value, keep string }{
		{"DB_PASSWORD=%s\nDB_HOST=db.internal", "password", pw(), "DB_HOST=db.internal"},
		{`{"username": "admin", "password": "%s", "port": 5432}`, "password", pw(), `"port": 5432`},
		{"database:\n  user: app\n  password: %s\n  pool: 5", "password", pw(), "pool: 5"},
		{"mysql -u root -p%s -h db.internal app", "password", pw(), "-h db.internal app"},
		{"mysql -u root -p %s", "password", m.Str(Base62, 16), "mysql -u root -p "},
		{"mysqldump -u admin --password=%s app > dump.sql", "password", pw(), "app > dump.sql"},
		{"./deploy --password %s --verbose", "password", pw(), "--verbose"},
		{"sshpass -p '%s' ssh deploy@10.0.0.5", "password", pw(), "ssh deploy@10.0.0.5"},
		{"redis-cli -a %s ping", "password", m.Str(Base62, 20), "ping"},
		{"PGPASSWORD=%s psql -h db -U app", "password", pw(), "psql -h db -U app"},
		{"SECRET_KEY = '%s'", "secret", m.Str(Hex, 64), "SECRET_KEY = '"},
		{"client_secret: %s", "secret", m.Str(Base64URL, 40), "client_secret: "},
		{"API_TOKEN=%s make release", "token", m.Str(Base62, 40), "make release"},
		{`const config = { apiKey: "%s" };`, "api-key", m.Str(Base62, 32), "const config = { apiKey: "},
		{"node cli.js --api-key=%s --region us", "api-key", m.Str(Base62, 32), "--region us"},
		{"aws_secret_access_key = %s", "aws-secret-key", m.Str(Base64, 40), "aws_secret_access_key = "},
		{`"SecretAccessKey": "%s",`, "aws-secret-key", m.Str(Base64, 40), `"SecretAccessKey": "`},
		{`$env:MISTRAL_KEY = "%s"`, "secret-key", m.Str(Base62, 32), "$env:MISTRAL_KEY = "},
		{`{"auth": "%s"}`, "auth", base64.StdEncoding.EncodeToString([]byte("user:" + m.Str(Base62, 16))), `{"auth": "`},
		{"curl -u admin:%s https://api.example.com", "password", pw(), "https://api.example.com"},
	} {
		out = append(out, Sample{Family: "assignment", Kind: s.kind, Text: fmt.Sprintf(s.format, s.value),
			Secrets: []string{s.value}, Public: []int{0}, Keep: []string{s.keep}})
	}

	// Credentials in URLs: the password goes, scheme, user and host stay.
	for _, s := range []struct{ format, keep string }{
		{"DATABASE_URL=postgres://app:%s@db.example.com:5432/app", "postgres://app:"},
		{"connect to mongodb+srv://admin:%s@cluster0.example.net/test?retryWrites=true", "@cluster0.example.net/test"},
		{"redis://:%s@cache.internal:6379/0", "@cache.internal:6379/0"},
		{"git clone https://deploy:%s@git.example.com/org/repo.git", "git clone https://deploy:"},
		{"amqp://guest:%s@rabbit:5672/", "@rabbit:5672/"},
	} {
		v := m.Str(URLPasswordChars, 18)
		out = append(out, Sample{Family: "url", Kind: "url-credential", Text: fmt.Sprintf(s.format, v),
			Secrets: []string{v}, Public: []int{0}, Keep: []string{s.keep}})
	}
	return out
}

// Leak returns an 8-character piece of a secret that survives in out
// (highlight markers removed first), or "". Pieces across a line break of a
// PEM body (a newline or an escaped "\n") are not secret material.
func Leak(out string, s Sample) string {
	out = strings.NewReplacer("[", "", "]", "").Replace(out)
	for k, sec := range s.Secrets {
		for i := 0; i+8 <= len(sec); i++ {
			w := sec[i : i+8]
			if i+8 <= s.Public[k] || strings.ContainsAny(w, "\n\\") {
				continue
			}
			if strings.Contains(out, w) {
				return w
			}
		}
	}
	return ""
}
