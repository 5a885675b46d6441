package redact

import (
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
	"github.com/sessionsearch/sessionsearch/redact/redacttest"
)

func TestRedactFamilies(t *testing.T) {
	samples := redacttest.Samples()
	families := map[string]int{}
	for _, s := range samples {
		families[s.Family]++
		out, changed := Text(s.Text)
		if !changed {
			t.Errorf("%s: nothing redacted in %q", s.Family, s.Text)
			continue
		}
		if w := redacttest.Leak(out, s); w != "" {
			t.Errorf("%s: %q survives in %q", s.Family, w, out)
		}
		if !strings.Contains(out, Mask(s.Kind)) {
			t.Errorf("%s: want a %s mask, got %q", s.Family, Mask(s.Kind), out)
		}
		for _, k := range s.Keep {
			if !strings.Contains(out, k) {
				t.Errorf("%s: %q should survive, got %q", s.Family, k, out)
			}
		}
	}
	if len(families) < 25 {
		t.Errorf("only %d families in the corpus", len(families))
	}
}

// TestRedactNoLeakUnderCuts is docs/redaction.md R1 and R5: however a
// snippet window or a highlight cuts through a secret, no 8 consecutive
// characters of it survive. Each sample is cut at every character from the
// left ("…" + rest, as a snippet window writes it) and from the right (with
// and without "…"), plain and with "[" "]" markers put around the token
// parts inside the secret and at random places in it.
func TestRedactNoLeakUnderCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	leaks := map[string]int{} // per family; the first few are shown
	for _, s := range redacttest.Samples() {
		for _, text := range markedVariants(s, rng) {
			for i := range text {
				for _, cut := range []string{"…" + text[i:], text[:i], text[:i] + "…"} {
					out, _ := Text(cut)
					if w := redacttest.Leak(out, s); w != "" {
						leaks[s.Family]++
						if leaks[s.Family] <= 3 {
							t.Errorf("%s: %q survives\n in:  %q\n out: %q", s.Family, w, cut, out)
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
func markedVariants(s redacttest.Sample, rng *rand.Rand) []string {
	variants := []string{s.Text}
	for _, sec := range s.Secrets {
		at := strings.Index(s.Text, sec)
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
			variants = append(variants, insertMarkers(s.Text, at+runs[k][0], at+runs[k][1]))
		}
		for k := 0; k < 2 && len(sec) > 2; k++ {
			a := rng.IntN(len(sec) - 1)
			b := a + 1 + rng.IntN(len(sec)-a-1)
			variants = append(variants, insertMarkers(s.Text, at+a, at+b))
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
		if got, _ := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got  %q\n want %q", tt.in, got, tt.want)
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
		if got, _ := Text(tt.in); got != tt.want {
			t.Errorf("%s: Text(%q)\n got  %q\n want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// falsePositives must come out of Text unchanged.
func falsePositives() []string {
	m := redacttest.NewGen(99, 1)
	uuid := m.Str(redacttest.Hex, 8) + "-" + m.Str(redacttest.Hex, 4) + "-4" + m.Str(redacttest.Hex, 3) + "-a" + m.Str(redacttest.Hex, 3) + "-" + m.Str(redacttest.Hex, 12)
	return []string{
		// Hashes, ids and encoded data.
		"commit " + m.Str(redacttest.Hex, 40) + " fixed the build",
		"sha256 of the tarball is " + m.Str(redacttest.Hex, 64),
		"image: node@sha256:" + m.Str(redacttest.Hex, 64),
		`"integrity": "sha512-` + m.Str(redacttest.Base64, 86) + `=="`,
		"request id " + uuid + " failed",
		`{"sessionId": "` + uuid + `", "key": "` + uuid + `"}`,
		"![chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + m.Str(redacttest.Base64, 2000) + "==)",
		"attachment: " + m.Str(redacttest.Base64, 600),
		"toolu_01" + m.Str(redacttest.Base62, 22) + " returned 3 files",
		"msg_01" + m.Str(redacttest.Base62, 22) + " and req_011C" + m.Str(redacttest.Base62, 20),
		"call_" + m.Str(redacttest.Base62, 24) + " / chatcmpl-" + m.Str(redacttest.Base62, 29),
		"cursor=eyJwYWdlIjoyLCJsaW1pdCI6NTB9&limit=50",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + m.Str(redacttest.Base64, 43) + " me@laptop",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + m.Str(redacttest.Base64, 40) + "\n-----END PUBLIC KEY-----",
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
		// Test logs, shell output and source code (docs/redaction.md R8).
		"PASS: gdb.base/foo.exp: test the thing",
		"FAIL: gdb.base/break.exp: run to main (timeout)",
		"ok  \tgithub.com/sessionsearch/sessionsearch/redact\t0.514s",
		"--- PASS: TestRedactFamilies (0.01s)",
		"pwd: /home/user/project",
		"passFlagToTest := map[string]bool{",
		"var passFlagToTest = map[string]bool{",
		"the hf_hub_download function, from hf_transfer import x, use hf_xet",
		"password: string;",
		"password: Optional[str] = None",
		"password: hashedPassword,",
		`password=getenv("DB_PASSWORD")`,
		"const passwordInput = document.getElementById('password');",
		`password := r.FormValue("password")`,
		"secretKey: process.env.SECRET_KEY",
		"if (password.length < 8) {",
		"--password-file /etc/pw",
		"request id 3f2a9c1e-7b4d-4e8a-9f0c-1a2b3c4d5e6f failed",
		"version 1.2.3-rc.4 and sha 3f2a9c1e7b4d4e8a9f0c1a2b3c4d5e6f7a8b9c0d",
		"sortKey: \"createdAt\", cacheKey = userName",
		// Words that start like a provider's prefix.
		"a key-value store, an API-level change, A3-size paper, sha256~ and key-binding",
		"EAAA is not a word; FLWSECK and the pnu_ prefix are named in docs",
		`<add key="ClearTextPassword" value="%Password%" />`,
		// Placeholders stay (docs/redaction.md R6).
		"xoxb-xxx",
		"SLACK_BOT_TOKEN=xoxb-xxx",
		"token: <your-token>",
		"Authorization: Bearer <your-token>",
		// A cut start that is ordinary text.
		"…configuration of the server",
		"…and then it worked",
		"…README explains the setup",
	}
}

func TestRedactFalsePositives(t *testing.T) {
	for _, in := range falsePositives() {
		if out, changed := Text(in); changed || out != in {
			t.Errorf("Text changed ordinary text\n in:  %q\n out: %q", in, out)
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

// TestRedactTranscripts runs Text over the real transcripts: their prose
// mentions passwords, tokens and API keys but holds no secret, so nothing
// may change.
func TestRedactTranscripts(t *testing.T) {
	texts := transcriptTexts(t)
	if len(texts) < 100 {
		t.Fatalf("only %d texts read from the transcripts", len(texts))
	}
	for _, text := range texts {
		if _, changed := Text(text); changed {
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
	for _, s := range redacttest.Samples() {
		once, _ := Text(s.Text)
		if twice, changed := Text(once); changed {
			t.Errorf("%s: Text of a redacted text changed it again\n once:  %q\n twice: %q", s.Family, once, twice)
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
		out, changed := Text(text)
		if changed || unsafe.StringData(out) != unsafe.StringData(text) {
			t.Errorf("Text(%q) copied clean text", text)
		}
		if n := testing.AllocsPerRun(100, func() { Text(text) }); n != 0 {
			t.Errorf("Text(%q) allocates %v times", text, n)
		}
	}
	// A keyword without a secret behind it does not allocate either.
	text := "the token and the key are configured in settings, see https://example.com/docs"
	if n := testing.AllocsPerRun(100, func() { Text(text) }); n != 0 {
		t.Errorf("Text(%q) allocates %v times", text, n)
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
	for _, s := range redacttest.Samples() {
		spans := Secrets(s.Text)
		for i, sp := range spans {
			if sp.Start < 0 || sp.End > len(s.Text) || sp.Start >= sp.End || i > 0 && sp.Start < spans[i-1].End {
				t.Fatalf("%s: bad spans %v in %q", s.Family, spans, s.Text)
			}
			if !utf8.ValidString(s.Text[sp.Start:sp.End]) {
				t.Errorf("%s: span %v splits a character", s.Family, sp)
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
		":AA", "discord ", "key=", "…", "[", "token is ", "x://a/hooks/", "&sig=a", "adafruit=", ".eyJ",
	} {
		text := strings.Repeat(unit, size/len(unit))
		out, _ := Text(text)
		if !utf8.ValidString(out) && utf8.ValidString(text) {
			t.Errorf("Text(%q × %d) returned invalid UTF-8", unit, size/len(unit))
		}
	}
}

// TestGoldenRedaction pins Text's output on the secret corpus and the
// false positives: the search index holds masked text, so any change must
// be deliberate (run with -update, review the diff, bump redact.Version).
func TestGoldenRedaction(t *testing.T) {
	var b strings.Builder
	texts := falsePositives()
	for _, s := range redacttest.Samples() {
		texts = append(texts, s.Text)
	}
	for _, c := range redacttest.SyntaxSamples() {
		texts = append(texts, c.Text)
	}
	for _, text := range texts {
		out, _ := Text(text)
		fmt.Fprintf(&b, "%+q -> %+q\n", text, out)
	}
	golden.Check(t, "testdata/redact.golden", b.String(), "bump redact.Version")
}

// TestRedactSyntaxFamilies is the syntax × family table: every family of
// redacttest.Families written in every syntax of redacttest.Syntaxes, whole,
// cut by a snippet window on either side of the value, and with highlight
// markers inside it, keeps no 8 characters of the value.
func TestRedactSyntaxFamilies(t *testing.T) {
	leaks := map[string]int{}
	cells := redacttest.SyntaxSamples()
	for _, c := range cells {
		at := strings.Index(c.Text, c.Value)
		texts := []string{c.Text}
		for _, k := range []int{at + 4, at + len(c.Value)/2, at + len(c.Value) - 9} {
			texts = append(texts, c.Text[:k], c.Text[:k]+"…", "…"+c.Text[k:])
		}
		// A highlight around the value's start and around its middle.
		mid := at + len(c.Value)/2
		texts = append(texts, insertMarkers(c.Text, at, at+4), insertMarkers(c.Text, mid-3, mid+3))
		for _, text := range texts {
			out, _ := Text(text)
			if w := redacttest.LeakOf(out, c.Text, c.Value[c.Public:]); w != "" {
				leaks[c.Family]++
				if leaks[c.Family] <= 2 {
					t.Errorf("%s in %s: %q survives\n in:  %q\n out: %q", c.Family, c.Syntax, w, text, out)
				}
			}
		}
	}
	if len(leaks) > 0 {
		t.Errorf("leaks per family (of %d cells): %v", len(cells), leaks)
	}
}

// TestRedactIssueSyntaxes covers the shapes that once leaked: passwords
// holding & ( ) , ;, words-and-digits passwords in JSON and prose, quoted
// passphrases, mysql -p beyond the first &, Telegram tokens not starting
// AA, Slack webhooks, A3T AWS keys, digit-only secrets, base64 JWTs.
func TestRedactIssueSyntaxes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"DB_PASSWORD=Xk9#mQ2&vL7!pR4zT", "DB_PASSWORD=[REDACTED:password]"},
		{"mysql -u root -pXk9mQ2&vL7pR4zT app", "mysql -u root -p[REDACTED:password] app"},
		{`{"password":"hunter2hunter2"}`, `{"password":"[REDACTED:password]"}`},
		{"my password: hunter2hunter2", "my password: [REDACTED:password]"},
		{"the password is hunter2hunter2", "the password is [REDACTED:password]"},
		{`passphrase: "correct horse battery staple"`, `passphrase: "[REDACTED:password]"`},
		{"https://api.telegram.org/bot7263849102:BBHx9mQ2vL7pR4zTXk9mQ2vL7pR4zTabcdEF/getMe", "https://api.telegram.org/bot[REDACTED:telegram-bot-token]/getMe"},
		{"post to https://hooks.slack.com/services/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", "post to https://hooks.slack.com/services/[REDACTED:slack-webhook]"},
		{"client_secret=829304857261938475", "client_secret=[REDACTED:secret]"},
		{"the key is A3TXNOD5HYQBFBAMIDQ6 ok", "the key is [REDACTED:aws-access-key] ok"},
		{"ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5LmV5SnpkV0lpT2lJek1EWXlNRFU0T1RRM0lpd2lh", "[REDACTED:jwt]"},
		{`System.setProperty("GITLAB_TOKEN", "Zk3vP9qXw2LmR7tY0bNc")`, `System.setProperty("GITLAB_TOKEN", "[REDACTED:token]")`},
		{`var apiToken string = "Zk3vP9qXw2LmR7tY0bNc"`, `var apiToken string = "[REDACTED:token]"`},
		{`$apiToken .= "Zk3vP9qXw2LmR7tY0bNc"`, `$apiToken .= "[REDACTED:token]"`},
		{`API_TOKEN ::= "Zk3vP9qXw2LmR7tY0bNc"`, `API_TOKEN ::= "[REDACTED:token]"`},
		{"<apiToken>Zk3vP9qXw2LmR7tY0bNc</apiToken>", "<apiToken>[REDACTED:token]</apiToken>"},
		{"here is the token I mentioned: Zk3vP9qXw2LmR7tY0bNc", "here is the token I mentioned: [REDACTED:token]"},
		{`<add key="ClearTextPassword" value="Xk9#mQ2vL7pR4zT" />`, `<add key="ClearTextPassword" value="[REDACTED:password]" />`},
		{"use dt0c01.K7QX2M9RZ4TVW8PLN3YHB6JD.9F3K7Q2XM8RZ4TVW1PLN6YHB5JDC0G9F3K7Q2XM8RZ4TVW1PLN6YHB5JDC0GA2E4H7K9 here",
			"use [REDACTED:dynatrace-token] here"},
	}
	for _, tt := range tests {
		if got, _ := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

// TestTelegramColon: the scan that lets telegramNear skip its regular
// expressions says yes wherever they match, on strings built from the
// characters that matter (digits, token characters, colons, separators),
// and on the hard cases by hand.
func TestTelegramColon(t *testing.T) {
	for _, c := range []struct {
		s    string
		body int
		want bool
	}{
		{"", 1, false},
		{"12345:a", 1, true},
		{"1234:a", 1, false},
		{"12345:", 1, false},
		{":12345:a", 1, true},
		{"x12345:abc", 1, true},
		{"123456789:" + strings.Repeat("A", 30), 30, true},
		{"123456789:" + strings.Repeat("A", 29), 30, false},
		{"123456789:" + strings.Repeat("A", 29) + " 12345:" + strings.Repeat("b", 30), 30, true},
		{"12:34567:" + strings.Repeat("-", 30), 30, true},
	} {
		if got := telegramColon(c.s, c.body); got != c.want {
			t.Errorf("telegramColon(%q, %d) = %v, want %v", c.s, c.body, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(14, 1))
	const alphabet = "0123456789aZ_-:: .\n"
	for range 200000 {
		b := make([]byte, r.IntN(60))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = "0123456789"[r.IntN(10)]
			}
			if r.IntN(8) == 0 {
				b[i] = 'A'
			}
		}
		// Long bodies, so that the 30-character rule is reached.
		s := string(b) + strings.Repeat("k", r.IntN(35))
		if telegramTokenRe.MatchString(s) && !telegramColon(s, 30) {
			t.Fatalf("telegramTokenRe matches %q, telegramColon(30) says no", s)
		}
		if telegramCutRe.MatchString(s) && !telegramColon(s, 1) {
			t.Fatalf("telegramCutRe matches %q, telegramColon(1) says no", s)
		}
	}
}

// TestRedactWebhookURLs is docs/redaction.md R12: a webhook URL works by
// being known, so its secret path is masked whatever its letters (all one
// case, no digit, a run like abcdef, one letter repeated); the scheme, host
// and fixed path stay, and only a template stays whole. Generic incoming
// webhooks lose their secret path parts, signed URLs their sig=.
func TestRedactWebhookURLs(t *testing.T) {
	slack := "https://hooks.slack.com/services/"
	for _, last := range []string{
		"abcdefghijklmnopqrstuvwx", "ABCDEFGHIJKLMNOPQRSTUVWX", "qwertyuiopasdfghjklzxcvb",
		"QWERTYUIOPASDFGHJKLZXCVB", "XXXXXXXXXXXXXXXXXXXXXXXX", "Xk9mQ2vL7pR4zTXk9mQ2vL7p",
	} {
		for _, parts := range []string{"T0AB12CD3/B0AB12CD3EF/", "TABCDEFGH/BABCDEFGHIJ/", "T00000000/B00000000/"} {
			for _, form := range []string{"%s", "SLACK_WEBHOOK_URL=%s", `{"webhook": "%s"}`, "post the alert to %s and the channel gets it"} {
				in := fmt.Sprintf(form, slack+parts+last)
				out, _ := Text(in)
				if strings.Contains(out, last[:8]) || strings.Contains(out, parts[:8]) || !strings.Contains(out, slack+"[REDACTED:slack-webhook]") {
					t.Errorf("Text(%q) = %q", in, out)
				}
			}
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"https://discord.com/api/webhooks/112233445566778899/abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP",
			"https://discord.com/api/webhooks/[REDACTED:discord-webhook]"},
		{"https://discordapp.com/api/webhooks/112233445566778899/ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOP ok",
			"https://discordapp.com/api/webhooks/[REDACTED:discord-webhook] ok"},
		{"https://contoso.webhook.office.com/webhookb2/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee@ffffffff-0000-1111-2222-333333333333/IncomingWebhook/abcdefabcdefabcdefabcdefabcdefab/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
			"https://contoso.webhook.office.com/webhookb2/[REDACTED:teams-webhook]"},
		// Generic incoming webhooks: the secret path parts go, the words of
		// the path stay; a hooks folder that is not in a URL stays.
		{"curl -X POST https://mattermost.example.com/hooks/xkq8z3mwe7fy5nqopj1hab4tcr -d '{}'",
			"curl -X POST https://mattermost.example.com/hooks/[REDACTED:webhook] -d '{}'"},
		{"https://chat.example.com/hooks/6Xq9K2sLzP3mN8vB/a7GkT4wR2yQ9pL5mX8cV3bN6zH1jK4fD",
			"https://chat.example.com/hooks/[REDACTED:webhook]"},
		{"https://hooks.zapier.com/hooks/catch/1234567/abc1def/", "https://hooks.zapier.com/hooks/catch/[REDACTED:webhook]/"},
		{"https://maker.ifttt.com/trigger/door_open/with/key/dKx9mQ2vL7pR4zTXk9mQ2v", "https://maker.ifttt.com/trigger/door_open/with/key/[REDACTED:webhook]"},
		{"https://events.pagerduty.com/integration/a1b2c3d4e5f60718293a4b5c6d7e8f90/enqueue", "https://events.pagerduty.com/integration/[REDACTED:pagerduty-webhook]/enqueue"},
		{"POST https://prod-12.westus.logic.azure.com:443/workflows/0a1b2c3d/triggers/manual/paths/invoke?api-version=2016-06-01&sv=1.0&sig=Xk9mQ2vL7pR4zTXk9mQ2vL7pR4zTXk9mQ2vL7pR4zT",
			"POST https://prod-12.westus.logic.azure.com:443/workflows/0a1b2c3d/triggers/manual/paths/invoke?api-version=2016-06-01&sv=1.0&sig=[REDACTED:url-signature]"},
		{"cp hooks/pre-commit .git/hooks/pre-commit", "cp hooks/pre-commit .git/hooks/pre-commit"},
		{"see https://git.example.com/docs/hooks/pre-receive-hooks", "see https://git.example.com/docs/hooks/pre-receive-hooks"},
		// Templates stay.
		{"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/<your-webhook-path>", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/<your-webhook-path>"},
		{"url: https://hooks.slack.com/services/${{ secrets.SLACK_HOOK }}", "url: https://hooks.slack.com/services/${{ secrets.SLACK_HOOK }}"},
		{"https://hooks.slack.com/services/YOUR/WEBHOOK/URL", "https://hooks.slack.com/services/YOUR/WEBHOOK/URL"},
	} {
		if got, _ := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}
