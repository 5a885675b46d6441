package query

import (
	"testing"
	"time"
)

// now is a Wednesday; its week starts on Monday 2026-12-07.
var now = time.Date(2026, 12, 9, 15, 0, 0, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestFindTimePhrase: a time phrase of the query's language becomes a
// period and leaves the query (docs/search.md Q40, Q41), in the languages
// the tokenizer is tested in, from the generated CLDR table.
func TestFindTimePhrase(t *testing.T) {
	for _, c := range []struct {
		lang, q, rest, phrase string
		start, end            time.Time
	}{
		{"en", "what did we decide last week about the cache", "what did we decide about the cache", "last week", day(2026, 11, 30), day(2026, 12, 7)},
		{"en", "Yesterday's standup notes", "'s standup notes", "Yesterday", day(2026, 12, 8), day(2026, 12, 9)},
		{"en", "deploy failed 3 days ago?", "deploy failed ?", "3 days ago", day(2026, 12, 6), day(2026, 12, 7)},
		{"en", "bugs fixed THIS WEEK", "bugs fixed", "THIS WEEK", day(2026, 12, 7), day(2026, 12, 14)},
		{"en", "invoices from 2 weeks ago", "invoices from", "2 weeks ago", day(2026, 11, 23), day(2026, 11, 30)},
		{"en", "what we shipped last year", "what we shipped", "last year", day(2025, 1, 1), day(2026, 1, 1)},
		{"ja", "先週の会議で決めたこと", "の会議で決めたこと", "先週", day(2026, 11, 30), day(2026, 12, 7)},
		{"ja", "昨日 デプロイ", "デプロイ", "昨日", day(2026, 12, 8), day(2026, 12, 9)},
		{"ja", "一昨日のバグ", "のバグ", "一昨日", day(2026, 12, 7), day(2026, 12, 8)},
		{"zh", "上周讨论的缓存问题", "讨论的缓存问题", "上周", day(2026, 11, 30), day(2026, 12, 7)},
		{"zh", "上个月的发票", "的发票", "上个月", day(2026, 11, 1), day(2026, 12, 1)},
		{"zh", "3天前的部署", "的部署", "3天前", day(2026, 12, 6), day(2026, 12, 7)},
		{"ru", "что мы решили на прошлой неделе о кэше", "что мы решили о кэше", "на прошлой неделе", day(2026, 11, 30), day(2026, 12, 7)},
		{"ru", "Вчера упал деплой", "упал деплой", "Вчера", day(2026, 12, 8), day(2026, 12, 9)},
		{"de", "was haben wir letzte Woche zum Cache entschieden", "was haben wir zum Cache entschieden", "letzte Woche", day(2026, 11, 30), day(2026, 12, 7)},
		{"de", "was war vorgestern mit dem Build", "was war mit dem Build", "vorgestern", day(2026, 12, 7), day(2026, 12, 8)},
		{"fr", "qu'avons-nous décidé la semaine dernière pour le cache", "qu'avons-nous décidé pour le cache", "la semaine dernière", day(2026, 11, 30), day(2026, 12, 7)},
		{"fr", "le déploiement d'il y a 2 jours", "le déploiement d'", "il y a 2 jours", day(2026, 12, 7), day(2026, 12, 8)},
		{"es", "qué decidimos la semana pasada sobre la caché", "qué decidimos sobre la caché", "la semana pasada", day(2026, 11, 30), day(2026, 12, 7)},
		{"es", "lo que hicimos ayer en el servidor", "lo que hicimos en el servidor", "ayer", day(2026, 12, 8), day(2026, 12, 9)},
		{"hi", "पिछला सप्ताह कैश के बारे में क्या तय किया", "कैश के बारे में क्या तय किया", "पिछला सप्ताह", day(2026, 11, 30), day(2026, 12, 7)},
		{"th", "สัปดาห์ที่แล้วเราตัดสินใจอะไร", "เราตัดสินใจอะไร", "สัปดาห์ที่แล้ว", day(2026, 11, 30), day(2026, 12, 7)},
		{"th", "เมื่อวานซืนเกิดอะไรขึ้น", "เกิดอะไรขึ้น", "เมื่อวานซืน", day(2026, 12, 7), day(2026, 12, 8)},
		{"ko", "지난주 회의", "회의", "지난주", day(2026, 11, 30), day(2026, 12, 7)},
		{"pt", "o que decidimos na semana passada", "o que decidimos na", "semana passada", day(2026, 11, 30), day(2026, 12, 7)},
	} {
		rest, p, ok := FindTimePhrase(c.q)
		if !ok {
			t.Errorf("%s %q: no time phrase found", c.lang, c.q)
			continue
		}
		start, end := p.Period(now)
		if rest != c.rest || p.Text != c.phrase || p.Lang != c.lang || !start.Equal(c.start) || !end.Equal(c.end) {
			t.Errorf("%s %q: rest %q, phrase %q (%s), period %v..%v; want %q, %q (%s), %v..%v",
				c.lang, c.q, rest, p.Text, p.Lang, start, end, c.rest, c.phrase, c.lang, c.start, c.end)
		}
	}
}

// TestNoTimePhrase: what stays words.
func TestNoTimePhrase(t *testing.T) {
	for _, q := range []string{
		"weather report",
		"yesterday",                  // nothing but the phrase: a word to search for
		`"last week" notes`,          // a quoted phrase is text
		"notes -yesterday",           // an excluded term
		"yesterday OR today",         // terms an OR joins
		"today* notes",               // a prefix
		"plans for next week",        // a future time: history holds none
		"mañana temprano",            // Spanish tomorrow
		"ma and pa",                  // Hungarian "ma" (today) in an English query
		"servers 10000 days ago",     // a number past maxTimeNumber
		"कल क्या हुआ",                // Hindi कल is yesterday and tomorrow
		"letzte Woche Budget",        // German with no German evidence: English is Latin's usual language
		"the week before the launch", // "week" alone is no phrase
	} {
		if rest, p, ok := FindTimePhrase(q); ok {
			t.Errorf("%q: found %q (%s %s %d), rest %q; want none", q, p.Text, p.Lang, p.Unit, p.Offset, rest)
		}
	}
}

// TestTimePhrasePeriod: periods in now's time zone, across month and year
// ends, and weeks from Monday.
func TestTimePhrasePeriod(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, c := range []struct {
		p          TimePhrase
		now        time.Time
		start, end time.Time
	}{
		{TimePhrase{Unit: UnitDay, Offset: -1}, time.Date(2026, 12, 9, 1, 0, 0, 0, tokyo), time.Date(2026, 12, 8, 0, 0, 0, 0, tokyo), time.Date(2026, 12, 9, 0, 0, 0, 0, tokyo)},
		{TimePhrase{Unit: UnitDay, Offset: -1}, day(2026, 3, 1), day(2026, 2, 28), day(2026, 3, 1)},
		{TimePhrase{Unit: UnitMonth, Offset: -1}, day(2026, 3, 31), day(2026, 2, 1), day(2026, 3, 1)},
		{TimePhrase{Unit: UnitMonth, Offset: -1}, day(2026, 1, 15), day(2025, 12, 1), day(2026, 1, 1)},
		{TimePhrase{Unit: UnitWeek, Offset: -1}, day(2026, 12, 7), day(2026, 11, 30), day(2026, 12, 7)},  // a Monday
		{TimePhrase{Unit: UnitWeek, Offset: -1}, day(2026, 12, 13), day(2026, 11, 30), day(2026, 12, 7)}, // a Sunday
		{TimePhrase{Unit: UnitWeek, Offset: 0}, day(2027, 1, 1), day(2026, 12, 28), day(2027, 1, 4)},     // a Friday
		{TimePhrase{Unit: UnitYear, Offset: -3}, day(2026, 6, 1), day(2023, 1, 1), day(2024, 1, 1)},      // "3 years ago"
		{TimePhrase{Unit: UnitDay, Offset: -30}, day(2026, 3, 15), day(2026, 2, 13), day(2026, 2, 14)},   // "30 days ago"
		{TimePhrase{Unit: UnitWeek, Offset: -2}, day(2026, 12, 9), day(2026, 11, 23), day(2026, 11, 30)}, // "2 weeks ago"
	} {
		start, end := c.p.Period(c.now)
		if !start.Equal(c.start) || !end.Equal(c.end) || start.Location() != c.now.Location() {
			t.Errorf("%+v at %v: %v..%v, want %v..%v in %v", c.p, c.now, start, end, c.start, c.end, c.now.Location())
		}
	}
}

// TestTimePhraseTable: the generated table holds past and present phrases
// only, each of a known unit, for the languages the tests above use.
func TestTimePhraseTable(t *testing.T) {
	langs := map[string]int{}
	for _, p := range timePhraseList {
		switch p.unit {
		case UnitDay, UnitWeek, UnitMonth, UnitYear:
		default:
			t.Errorf("%s %q: unit %q", p.lang, p.tokens, p.unit)
		}
		if p.offset > 0 || len(p.tokens) == 0 {
			t.Errorf("%s %q: offset %d, %d tokens", p.lang, p.tokens, p.offset, len(p.tokens))
		}
		langs[p.lang]++
	}
	for _, lang := range []string{"en", "ja", "zh", "ru", "de", "fr", "es", "hi", "th", "ko", "pt"} {
		if langs[lang] < 8 {
			t.Errorf("%s: %d phrases, want at least 8", lang, langs[lang])
		}
	}
}
