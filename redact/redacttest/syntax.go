package redacttest

import (
	"encoding/base64"
	"strings"
)

// A Syntax is a way of writing a named value down. In its format {c} is the
// name in camelCase (stripeToken), {s} in snake_case (stripe_token), {E}
// as an environment variable (STRIPE_TOKEN), {w} the bare vendor word
// (stripe), {x} the bare suffix (token) and {V} the value. The list covers the assignments, markup and
// calls that configuration files, source code, shell sessions and prose
// put secrets in (docs/redaction.md R2).
type Syntax struct {
	Name, Format string
}

// Syntaxes are the syntaxes of the syntax × family table.
var Syntaxes = []Syntax{
	{"ini unquoted", "{c}={V}"},
	{"ini quoted", `{c}="{V}"`},
	{"ini spaced", "{c} = {V}"},
	{"python double quote", `{c} = "{V}"`},
	{"python single quote", "{c} = '{V}'"},
	{"json", "{\n    \"{s}\": \"{V}\"\n}"},
	{"json compact", `{"{s}":"{V}","page":2}`},
	{"json escaped", `{\"{s}\": \"{V}\"}`},
	{"json newline in string", `{"config.ini": "{E}={V}\nBACKUP_ENABLED=true"}`},
	{"xml element", "<{c}>{V}</{c}>"},
	{"xml element multiline", "<{c}>\n    {V}\n</{c}>"},
	{"yaml unquoted", "{s}: {V}"},
	{"yaml single quote", "{s}: '{V}'"},
	{"yaml double quote", `{s}: "{V}"`},
	{"c#", `string {c} = "{V}";`},
	{"go var", `var {c} string = "{V}"`},
	{"go short", `{c} := "{V}"`},
	{"go backticks", "{c} := `{V}`"},
	{"java", `String {c} = "{V}";`},
	{"kotlin", `var {c} = "{V}"`},
	{"kotlin typed", `val {c}: String = "{V}"`},
	{"php concat", `${c} .= "{V}"`},
	{"php coalesce", `${c} ??= "{V}"`},
	{"logstash", `  "{c}" => "{V}"`},
	{"java setProperty", `System.setProperty("{E}", "{V}")`},
	{"make recursive", `{E} = "{V}"`},
	{"make simple", `{E} := "{V}"`},
	{"make shell", `{E} ::= "{V}"`},
	{"make evaluated shell", `{E} :::= "{V}"`},
	{"make conditional", `{E} ?= "{V}"`},
	{"make append", `{E} += "{V}"`},
	{"shell export", "export {E}={V}\nthen run make deploy"},
	{"shell quoted", `export {E}="{V}"`},
	{"dotenv in a list", "environment = {PATH=/usr/local/bin, {E}={V}, LC_CTYPE=en_CA.UTF-8},"},
	{"cli flag", "./deploy --{w}-{x} {V} --verbose"},
	{"cli flag equals", "./deploy --{w}-{x}={V} --verbose"},
	{"http header", "X-{w}-{x}: {V}\nAccept: */*"},
	{"url query", "https://example.com/callback?{s}={V}&page=2"},
	{"prose colon", "here is the {w} {x} I mentioned: {V}"},
	{"prose is", "my {w} {x} is {V} so keep it safe"},
}

// Render writes name and value in syntax x.
func (x Syntax) Render(word, suffix, value string) string {
	camel := word + strings.ToUpper(suffix[:1]) + suffix[1:]
	snake := word + "_" + suffix
	r := strings.NewReplacer("{c}", camel, "{s}", snake, "{E}", strings.ToUpper(snake), "{w}", word, "{x}", suffix, "{V}", value)
	return r.Replace(x.Format)
}

// A Family is a kind of secret: the vendor word and the name suffix it is
// assigned to, and a generator of its values. The list follows the families
// of gitleaks' default rule catalogue (v8.30.1), written down again here as
// the value shapes each provider issues.
type Family struct {
	Name         string
	Word, Suffix string
	Value        func(g Gen) string
}

// publicStarts are the starts of values that a mask keeps: a webhook's
// scheme, host and path say where it goes, not how to use it.
var publicStarts = []string{"https://hooks.slack.com/services/"}

func publicLen(v string) int {
	for _, p := range publicStarts {
		if strings.HasPrefix(v, p) {
			return len(p)
		}
	}
	return 0
}

func lit(parts ...func(Gen) string) func(Gen) string {
	return func(g Gen) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p(g))
		}
		return b.String()
	}
}
func s(text string) func(Gen) string { return func(Gen) string { return text } }
func r(alphabet string, n int) func(Gen) string {
	return func(g Gen) string { return g.Str(alphabet, n) }
}

// Families are the families of the syntax × family table.
var Families = []Family{
	{"aws access key", "aws", "key", lit(s("AKIA"), r(AWSID, 16))},
	{"aws A3T key", "aws", "key", lit(s("A3TX"), r(AWSID, 16))},
	{"aws secret", "aws_secret_access", "key", r(Base64, 40)},
	{"github pat", "github", "token", lit(s("ghp_"), r(Base62, 36))},
	{"github fine-grained", "github", "token", lit(s("github_pat_"), r(Base62, 22), s("_"), r(Base62, 59))},
	{"gitlab pat", "gitlab", "token", lit(s("glpat-"), r(Base64URL, 20))},
	{"slack bot", "slack", "token", lit(s("xoxb-"), r(Digits, 11), s("-"), r(Digits, 12), s("-"), r(Base62, 24))},
	{"slack webhook", "slack", "webhook", lit(s("https://hooks.slack.com/services/T"), r(Upper+Digits, 10), s("/B"), r(Upper+Digits, 10), s("/"), r(Base62, 24))},
	{"stripe", "stripe", "key", lit(s("sk_live_"), r(Base62, 32))},
	{"openai", "openai", "key", lit(s("sk-proj-"), r(Base64URL, 58), s("T3BlbkFJ"), r(Base64URL, 58))},
	{"anthropic", "anthropic", "key", lit(s("sk-ant-api03-"), r(Base64URL, 93), s("AA"))},
	{"google api", "gcp", "key", lit(s("AIza"), r(Base64URL, 35))},
	{"huggingface", "hf", "token", lit(s("hf_"), r(Letters, 34))},
	{"npm", "npm", "token", lit(s("npm_"), r(Base62, 36))},
	{"sendgrid", "sendgrid", "key", lit(s("SG."), r(Base64URL, 22), s("."), r(Base64URL, 43))},
	{"telegram AA", "telegram", "token", lit(s("1"), r(Digits, 9), s(":AA"), r(Base64URL, 33))},
	{"telegram other", "telegram", "token", lit(s("7"), r(Digits, 9), s(":"), r(Upper, 2), r(Base64URL, 33))},
	{"twilio", "twilio", "key", lit(s("SK"), r(Hex, 32))},
	{"jwt", "auth", "token", func(g Gen) string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + g.Str(Digits, 10) + `","iat":1700000000}`))
		return h + "." + p + "." + g.Str(Base64URL, 43)
	}},
	{"jwt base64", "session", "token", func(g Gen) string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + g.Str(Digits, 10) + `","iat":1700000000}`))
		return base64.StdEncoding.EncodeToString([]byte(h + "." + p + "." + g.Str(Base64URL, 43)))
	}},
	{"1password secret key", "onepassword", "key", lit(s("A3-"), r(Upper+Digits, 6), s("-"), r(Upper+Digits, 11), s("-"), r(Upper+Digits, 5), s("-"), r(Upper+Digits, 5), s("-"), r(Upper+Digits, 5))},
	{"adobe", "adobe", "secret", lit(s("p8e-"), r(Base62, 32))},
	{"artifactory", "artifactory", "key", lit(s("AKCp"), r(Base62, 69))},
	{"clojars", "clojars", "token", lit(s("CLOJARS_"), r(Lower+Digits, 60))},
	{"cloudflare origin ca", "cloudflare", "key", lit(s("v1.0-"), r(Hex, 24), s("-"), r(Hex, 146))},
	{"dynatrace", "dynatrace", "token", lit(s("dt0c01."), r(Upper+Digits, 24), s("."), r(Upper+Digits, 64))},
	{"easypost", "easypost", "key", lit(s("EZAK"), r(Base62, 54))},
	{"facebook page", "facebook", "token", lit(s("EAAM"), r(Base62, 110))},
	{"flyio", "fly", "token", lit(s("fo1_"), r(Base64URL, 43))},
	{"grafana api key", "grafana", "key", lit(s("eyJrIjoi"), r(Base62, 80))},
	{"octopus", "octopus", "key", lit(s("API-"), r(Upper+Digits, 26))},
	{"openshift", "openshift", "token", lit(s("sha256~"), r(Base64URL, 43))},
	{"planetscale", "planetscale", "token", lit(s("pscale_tkn_"), r(Base62, 43))},
	{"prefect", "prefect", "token", lit(s("pnu_"), r(Base62, 36))},
	{"rubygems", "rubygems", "token", lit(s("rubygems_"), r(Hex, 48))},
	{"brevo", "sendinblue", "key", lit(s("xkeysib-"), r(Hex, 64), s("-"), r(Base62, 16))},
	{"shippo", "shippo", "token", lit(s("shippo_live_"), r(Hex, 40))},
	{"sourcegraph", "sourcegraph", "token", lit(s("sgp_"), r(Hex, 16), s("_"), r(Hex, 40))},
	{"square", "square", "token", lit(s("sq0atp-"), r(Base64URL, 22))},
	{"mailgun", "mailgun", "key", lit(s("key-"), r(Hex, 32))},
	// Keyword families: a vendor word in the name and a value with no
	// prefix of its own.
	{"hex 32 (adafruit, asana, codecov...)", "adafruit", "token", r(Hex, 32)},
	{"alnum 40 (cloudflare, contentful...)", "cloudflare", "token", r(Lower+Digits, 40)},
	{"base64url 43 (dropbox, fastly...)", "dropbox", "token", r(Base64URL, 43)},
	{"digits 18 (discord client id)", "discord", "secret", r(Digits, 18)},
	{"digits 16 (asana client id)", "asana", "secret", lit(s("1"), r(Digits, 15))},
	{"uuid (heroku key)", "heroku", "key", func(g Gen) string {
		return g.Str(Hex, 8) + "-" + g.Str(Hex, 4) + "-" + g.Str(Hex, 4) + "-" + g.Str(Hex, 4) + "-" + g.Str(Hex, 12)
	}},
	{"alnum 24 (generic)", "service", "secret", r(Base62, 24)},
	{"password with & ( ) , ;", "db", "password", func(g Gen) string {
		return "Xk9#mQ2&vL7!pR4zT(" + g.Str(Base62, 4) + ");," + g.Str(Base62, 3)
	}},
	{"password words and digits", "db", "password", s("hunter2hunter2")},
	// Added with redaction version 3 (docs/redaction.md R12, R13).
	{"slack webhook one case", "slack", "webhook", lit(s("https://hooks.slack.com/services/T"), r(Upper, 10), s("/B"), r(Upper, 10), s("/"), r(Upper, 24))},
	{"azure client secret", "azure", "secret", lit(r(Base62, 3), r(Digits, 1), s("Q~"), r(Base64URL, 34))},
	{"provider client id (adobe)", "adobe_client", "id", r(Hex, 32)},
	{"lower alnum 25 (messagebird)", "messagebird", "token", lit(r(Lower, 3), r(Digits, 2), r(Lower+Digits, 20))},
	{"uuid in capitals (hubspot)", "hubspot", "key", func(g Gen) string {
		return g.Str(Hex, 8) + "-ABCD-ABCD-ABCD-" + g.Str(Hex, 12)
	}},
}

// SyntaxSample is one cell of the table: a family's value in one syntax.
type SyntaxSample struct {
	Syntax, Family string
	Text, Value    string
	Public         int // the length of the value's public start
}

// SyntaxSamples returns every cell of the syntax × family table, each
// with a fresh value.
func SyntaxSamples() []SyntaxSample {
	g := NewGen(20261201, 10)
	var out []SyntaxSample
	for _, f := range Families {
		for _, x := range Syntaxes {
			v := f.Value(g)
			out = append(out, SyntaxSample{x.Name, f.Name, x.Render(f.Word, f.Suffix, v), v, publicLen(v)})
		}
	}
	return out
}

// LeakOf returns an 8-character piece of secret that survives in out
// (highlight markers removed first), or "". A piece that the text also
// holds outside the secret (CLOJARS_ in CLOJARS_TOKEN=CLOJARS_…) tells
// nothing about the secret and does not count.
func LeakOf(out, text, secret string) string {
	out = strings.NewReplacer("[", "", "]", "").Replace(out)
	rest := strings.ToLower(strings.Replace(text, secret, "\x00", 1))
	for i := 0; i+8 <= len(secret); i++ {
		if w := secret[i : i+8]; strings.Contains(out, w) && !strings.Contains(rest, strings.ToLower(w)) {
			return w
		}
	}
	return ""
}
