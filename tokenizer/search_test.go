package tokenizer

import (
	"strings"
	"testing"
)

// What a search finds, without SQLite: a document is indexed as FTS5 does
// (each token at its position; a colocated token at the previous one), and a
// query matches when the tokens of each of its terms appear at consecutive
// positions (an FTS5 phrase), the last one as a prefix for prefix queries.
// The same cases run through real FTS5 in every host in ../tests/golden.

type postings map[string][]int

func indexDoc(opts Options, doc string) postings {
	var o Output
	opts.Tokenize([]byte(doc), false, &o)
	idx := postings{}
	pos := -1
	for _, t := range o.Tokens {
		if t.Flags&Colocated == 0 {
			pos++
		}
		idx[string(o.Text(t))] = append(idx[string(o.Text(t))], pos)
	}
	return idx
}

func queryTokens(opts Options, term string) []string {
	var o Output
	opts.Tokenize([]byte(term), true, &o)
	var toks []string
	for _, t := range o.Tokens {
		if t.Flags&Colocated != 0 {
			panic("query tokens are never colocated")
		}
		toks = append(toks, string(o.Text(t)))
	}
	return toks
}

func (idx postings) has(tok string, pos int, prefix bool) bool {
	if !prefix {
		for _, p := range idx[tok] {
			if p == pos {
				return true
			}
		}
		return false
	}
	for t, ps := range idx {
		if strings.HasPrefix(t, tok) {
			for _, p := range ps {
				if p == pos {
					return true
				}
			}
		}
	}
	return false
}

// phraseMatches reports whether the phrase toks occurs in idx.
func (idx postings) phraseMatches(toks []string, prefix bool) bool {
	if len(toks) == 0 {
		return false
	}
	starts := idx[toks[0]]
	if prefix && len(toks) == 1 {
		starts = nil
		for t, ps := range idx {
			if strings.HasPrefix(t, toks[0]) {
				starts = append(starts, ps...)
			}
		}
	}
	for _, p := range starts {
		ok := true
		for i := 1; i < len(toks) && ok; i++ {
			ok = idx.has(toks[i], p+i, prefix && i == len(toks)-1)
		}
		if ok {
			return true
		}
	}
	return false
}

// finds reports whether a search for query (white-space separated terms,
// each a phrase, ANDed, as sessions_search does) finds doc.
func finds(opts Options, doc, query string, prefix bool) bool {
	idx := indexDoc(opts, doc)
	terms := strings.Fields(query)
	if len(terms) == 0 {
		return false
	}
	for i, term := range terms {
		if !idx.phraseMatches(queryTokens(opts, term), prefix && i == len(terms)-1) {
			return false
		}
	}
	return true
}

// hardCases: per script and feature, whether a search for query finds doc.
var hardCases = []struct {
	name, doc, query string
	want             bool
}{
	// 1. Canonical and compatibility equivalence.
	{"nfd document, nfc query", "cafe\u0301 au lait", "café", true},
	{"nfc document, nfd query", "café au lait", "cafe\u0301", true},
	{"full-width letters", "ＡＢＣ１２３ model", "abc123", true},
	{"half-width katakana", "ｶﾞｯｺｳ", "ガッコウ", true},
	{"ligature fi", "ﬁnance report", "finance", true},
	{"circled digit", "step ① done", "1", true},
	{"superscript is compatibility-equivalent", "x² + y²", "x2", true},
	{"superscript digit", "area in m²", "m2", true},
	{"roman numeral", "chapter Ⅻ", "xii", true},
	// 2. Full case folding.
	{"german sharp s", "Die Straße ist lang", "STRASSE", true},
	{"german capital sharp s", "STRAẞE", "strasse", true},
	{"greek final sigma", "ΟΔΥΣΣΕΥΣ", "Οδυσσεύς", true},
	{"turkish dotted capital I", "İstanbul'da", "istanbul", true},
	{"turkish dotless i", "ıstanbul", "istanbul", true},
	{"cherokee", "ᏣᎳᎩ", "ꮳꮃꭹ", true},
	// 3. Optional diacritics go, letter marks stay.
	{"french accents", "Élève à l'école", "eleve ecole", true},
	{"vietnamese stacked", "Tiếng Việt rất hay", "tieng viet", true},
	{"vietnamese nfd", "Tie\u0302\u0301ng", "tiếng", true},
	{"vietnamese d with stroke", "Đặng Thị", "dang thi", true},
	{"danish o with stroke", "Øresund bridge", "oresund", true},
	{"polish l with stroke", "Łódź", "lodz", true},
	{"maltese h with stroke", "Ħamrun", "hamrun", true},
	{"ae ligature", "Æsir and cræzy", "aesir craezy", true},
	{"oe ligature", "Œuvre complète", "oeuvre", true},
	{"greek tonos", "Καλημέρα κόσμε", "καλημερα", true},
	{"greek dialytika", "Μάϊος", "μαιος", true},
	{"cyrillic yo", "ёлка", "елка", true},
	{"cyrillic short i stays", "йод", "иод", false},
	{"cyrillic stress mark", "молоко\u0301", "молоко", true},
	{"ukrainian yi stays", "їжак", "іжак", false},
	{"arabic harakat", "العَرَبِيَّة", "العربية", true},
	{"arabic tatweel", "عـــربي", "عربي", true},
	{"arabic hamza alef", "أحمد و إسلام و آمن", "احمد اسلام امن", true},
	{"arabic waw hamza stays", "مؤمن", "مومن", false},
	{"hebrew niqqud", "שָׁלוֹם", "שלום", true},
	{"hindi conjunct whole", "हिन्दी भाषा", "हिन्दी", true},
	{"hindi matra not split", "हिन्दी", "हन", false},
	{"hindi vowel sign kept", "किताब", "कताब", false},
	{"hindi nukta composed and decomposed", "ज़रूरी", "ज\u093Cरूरी", true},
	{"bengali", "বাংলা ভাষা", "বাংলা", true},
	{"japanese dakuten kept", "がっこう", "かっこう", false},
	{"japanese dakuten nfd", "か\u3099っこう", "がっこう", true},
	// 4. Word boundaries and script changes; invisible characters.
	{"korean particle", "한국어를 배웁니다", "한국어", true},
	{"latin next to hangul", "ID를 입력하세요", "id", true},
	{"katakana next to latin", "ユーザIDを入力", "ID", true},
	{"soft hyphen", "infor\u00ADmation", "information", true},
	{"zero width joiner in word", "infor\u200Dmation", "information", true},
	{"zero width non-joiner persian", "می\u200Cخواهم", "میخواهم", true},
	{"zero width space in word", "infor\u200Bmation", "information", true},
	// 5. Identifiers, file names, domains, versions, numbers.
	{"snake case whole", "call parse_session_key now", "parse_session_key", true},
	{"snake case part", "call parse_session_key now", "session", true},
	{"camel case whole", "call parseSessionKey now", "parseSessionKey", true},
	{"camel case lower-case query", "call parseSessionKey now", "parsesessionkey", true},
	{"camel case part", "call parseSessionKey now", "session", true},
	{"camel case inner parts", "call parseSessionKey now", "sessionKey", true},
	{"acronym camel", "an HTTPServer here", "server", true},
	{"acronym plural whole", "list the URLs and IDs", "urls", true},
	{"acronym plural stays whole", "list the URLs and IDs", "ls", false},
	{"acronym plural in camel case", "call getURLsFor(x)", "for", true},
	{"acronym plural in camel case whole", "call getURLsFor(x)", "urls", true},
	{"acronym plural, not ASCII", "the ÄPIs and ПКs", "is", false},
	{"acronym plural, not ASCII, whole", "the ÄPIs and ПКs", "apis", true},
	{"file name", "open report.txt please", "report.txt", true},
	{"file name part", "open report.txt please", "txt", true},
	{"domain", "see www.example.com today", "example.com", true},
	{"version", "upgrade to v1.2.3 now", "v1.2.3", true},
	{"version part", "upgrade to v1.2.3 now", "v1", true},
	{"number with separators", "total 1,234.56 EUR", "1,234.56", true},
	{"number part", "total 1,234.56 EUR", "234", true},
	{"apostrophe", "I can't stop", "can't", true},
	{"curly apostrophe", "I can’t stop", "can't", true},
	{"url path", "fetch https://api.example.com/v1/sessions?limit=10", "api.example.com", true},
	{"email", "mail ops@example.com", "ops", true},
	// 6. Substring search in n-gram scripts.
	{"chinese two chars", "我住在東京都庁の近く", "東京", true},
	{"chinese one char", "我住在東京都庁の近く", "庁", true},
	{"chinese across punctuation", "東、京", "東京", false},
	{"chinese across space", "東 京", "東京", false},
	{"chinese missing", "我住在東京", "大阪", false},
	{"japanese mixed run", "日本語のテキストです", "語のテ", true},
	{"korean inner", "대한민국", "한민", true},
	{"thai inner", "ภาษาไทยง่ายนิดเดียว", "ง่าย", true},
	{"thai tone mark kept", "ภาษาไทยง่ายนิดเดียว", "งาย", false},
	{"lao", "ພາສາລາວ", "ລາວ", true},
	{"khmer", "ភាសាខ្មែរ", "ខ្មែរ", true},
	{"myanmar", "မြန်မာဘာသာ", "ဘာသာ", true},
	// Emoji and symbols.
	{"emoji", "ship it 👍 today", "👍", true},
	{"emoji skin tone", "ship it 👍🏽 today", "👍", true},
	{"flag", "from 🇫🇮 with love", "🇫🇮", true},
	// FTS5 syntax in text is text.
	{"operators are words", "the NOT operator", "not", true},
	// T12: case never matters, also for a query with a capital inside a word.
	{"query GitHub finds github", "see github today", "GitHub", true},
	{"query GitHub finds GITHUB", "see GITHUB today", "GitHub", true},
	{"query github finds GitHub", "see GitHub today", "github", true},
	{"query iOS finds ios", "an ios app", "iOS", true},
	{"query macOS finds MACOS", "on MACOS", "macOS", true},
	{"query OpenAI finds openai", "openai api", "OpenAI", true},
	{"query PostgreSQL finds postgresql", "use postgresql", "PostgreSQL", true},
	{"query JavaScript finds JAVASCRIPT", "JAVASCRIPT code", "JavaScript", true},
	{"query JavaScript finds JavaScript", "JavaScript code", "JavaScript", true},
	{"query camel word, not ASCII", "ПАРСЕРКЛЮЧ", "ПарсерКлюч", true},
	{"query camel word, no false part", "git and hub", "GitHub", false},
	// T13: runs of parts, and words that underscores join.
	{"camel inner run", "call getHTTPResponseCode now", "httpResponse", true},
	{"camel inner run query lower case", "call getHTTPResponseCode now", "httpresponse", true},
	{"camel prefix run", "call parseSessionKey now", "parseSession", true},
	{"snake finds camel query", "call parse_session_key now", "sessionKey", true},
	{"snake finds camel whole query", "call parse_session_key now", "parseSessionKey", true},
	{"snake whole, lower case", "call parse_session_key now", "parsesessionkey", true},
	{"snake inner run", "call parse_session_key now", "sessionkey", true},
	{"snake and camel", "call parse_sessionKey now", "sessionKey", true},
	{"snake not across other punctuation", "see parse.session_key", "parsesessionkey", false},
	{"camel query is not two words", "session key", "sessionKey", false},
	// T12: a camelCase word inside a longer query term is its parts, as the
	// document indexes the term.
	{"camel word and file extension", "open myFile.txt now", "myFile.txt", true},
	{"camel word and a call", "run parseSessionKey(x) now", "parseSessionKey(x)", true},
	{"camel word in a phrase", "call parseSessionKey now", "call parseSessionKey now", true},
	{"camel word before a particle", "aA를 보다", "aA를", true},
	{"acronym inside a term", "an HTTPServer here", "an HTTPServer here", true},
	// T14: Persian words joined by a ZWNJ, whole and by parts.
	{"zwnj part first", "پیش\u200cفرض", "پیش", true},
	{"zwnj part last", "پیش\u200cفرض", "فرض", true},
	{"zwnj whole without it", "پیش\u200cفرض", "پیشفرض", true},
	{"zwnj whole query finds word without it", "پیشفرض", "پیش\u200cفرض", true},
	{"zwnj plural", "کتاب\u200cها", "کتاب", true},
	{"zwnj verb prefix", "می\u200cشود", "شود", true},
	{"zwnj in Devanagari stays inside the word", "क्\u200cष", "ष", false},
	// T5: decimal digits of every script are ASCII digits.
	{"arabic-indic digits", "سال ١٢٣", "123", true},
	{"persian digits", "سال ۱۳۷۹", "1379", true},
	{"devanagari digits", "अंक १२३", "123", true},
	{"bengali digits", "সংখ্যা ৭০৬", "706", true},
	{"thai digits", "เลข ๑๒๓", "123", true},
	{"ascii finds persian digits", "1379", "۱۳۷۹", true},
	{"persian digits find arabic-indic", "١٣٧٩", "۱۳۷۹", true},
	// T7: Arabic-script letter variants.
	{"farsi yeh", "های", "هاي", true},
	{"alef maksura", "بنى", "بني", true},
	{"yeh barree", "هاے", "هاي", true},
	{"keheh", "کشاندن", "كشاندن", true},
	{"heh with yeh above", "كتابۀ", "كتابه", true},
	{"persian ezafe hamza", "پروندهٔ", "پرونده", true},
	{"persian ezafe hamza decomposed", "پرونده\u0654", "پرونده", true},
	{"heh goal", "زادہ", "زاده", true},
	{"heh doachashmee", "ھەولێر", "هەولێر", true},
	{"sorani ae", "ئەو", "ئهو", true},
	{"teh marbuta", "فاطمة", "فاطمه", true},
	{"teh marbuta query", "فاطمه", "فاطمة", true},
	{"sorani rreh", "\u0692", "\u0695", true},
	{"yeh hamza stays", "مسئله", "مسيله", false},
	// T6, T8: Latin letters with attachments, small capitals, letters of their own, eth.
	{"d with stroke and eth", "Ðakovo", "dakovo", true},
	{"eth", "verður", "verdur", true},
	{"dotless j with stroke", "ɟa", "ja", true},
	{"barred o", "ɵ Ɵ", "o", true},
	{"u bar", "ʉ Ʉ", "u", true},
	{"l with double bar", "ⱡ", "l", true},
	{"p with stroke through descender", "ꝑ", "p", true},
	{"small capital l with stroke", "ᴌ", "l", true},
	{"small capitals", "ᴛᴇsᴛ", "test", true},
	{"av with bar", "ꜻ", "av", true},
	{"long s with high stroke", "ẝ", "s", true},
	{"schwa stays", "ə", "e", false},
	{"eng stays", "ŋ", "n", false},
	{"open e stays", "ɛ", "e", false},
	{"open o stays", "ɔ", "o", false},
	{"thorn stays", "þorn", "thorn", false},
	{"thorn with stroke is thorn", "ꝥ", "þ", true},
	{"ezh stays", "ʒ", "z", false},
	{"script g", "ɡood", "good", true},
	{"r rotunda", "ꝛ", "r", true},
	// T9: Indic sequences that look like a precomposed vowel letter.
	{"devanagari a + aa", "अाज", "आज", true},
	{"devanagari aa finds a + aa", "आज", "अाज", true},
	{"devanagari a + o", "अोम", "ओम", true},
	{"devanagari e + e", "एेसा", "ऐसा", true},
	{"devanagari a + au", "अौर", "और", true},
	{"bengali a + aa", "অামি", "আমি", true},
	{"gurmukhi ura + u", "ੳੁਸ", "ਉਸ", true},
	{"bengali khanda ta", "ত\u09cd\u200dকার", "ৎকার", true},
	{"devanagari ka + aa stays", "का", "क", false},
}

func TestHardCases(t *testing.T) {
	for _, trigram := range []bool{false, true} {
		opts := Options{Trigram: trigram}
		for _, c := range hardCases {
			if got := finds(opts, c.doc, c.query, false); got != c.want {
				t.Errorf("%s (%s): search %q in %q found=%v, want %v", c.name, opts, c.query, c.doc, got, c.want)
			}
		}
	}
}

func TestPrefixSearch(t *testing.T) {
	cases := []struct {
		doc, query string
		want       bool
	}{
		{"folding and folded", "fold", true},
		{"Straße", "STRA", true},
		{"parseSessionKey", "parseSess", true},
		{"parse_session_key", "parse_sess", true},
		{"東京都庁", "東京", true},
		{"東京都庁", "京都庁", true},
		{"東京都庁", "庁", true},
		{"東京都庁", "京庁", false},
		{"nothing here", "fold", false},
	}
	for _, trigram := range []bool{false, true} {
		opts := Options{Trigram: trigram}
		for _, c := range cases {
			if got := finds(opts, c.doc, c.query, true); got != c.want {
				t.Errorf("%s: prefix search %q* in %q found=%v, want %v", opts, c.query, c.doc, got, c.want)
			}
		}
	}
}
