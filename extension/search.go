package extension

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/sessionsearch/sessionsearch/query"
	"github.com/sessionsearch/sessionsearch/ranking"
	"github.com/sessionsearch/sessionsearch/redact"
	"github.com/sessionsearch/sessionsearch/sqlfuncs"
	"github.com/sessionsearch/sessionsearch/store"
	"github.com/sessionsearch/sessionsearch/tokenizer"
)

// Search and history: the rules are in package sqlfuncs; these functions
// run them over the store. Visibility takes one path: options → Policy
// (sqlfuncs) → the connection's cached decision for that policy → the rule
// (Policy.VisibleSet). sessions_search hands its decision to the
// session_visible call of its SELECT as an SQL pointer value, so the SELECT
// filters with the very policy the options gave, not a copy re-encoded.

// visibility returns the decision of a policy: the store's, cached on the
// connection while what it reads is unchanged (v, from snapshot).
func visibility(c *call, db conn, v store.Version, policy sqlfuncs.Policy) (*store.Decision, error) {
	return c.state.store.Visibility(db, v, policy)
}

// snapshotSQL holds a read transaction while it is stepped and not reset,
// on a database without the store's tables.
const snapshotSQL = `PRAGMA data_version`

// snapshot holds a read transaction on db until done, so that what the call
// reads is one version of the database, and returns the store.Version that
// names it: the change token when the schema keeps one (store.ChangeSQL,
// whose one row holds the transaction), else the database version. A
// function called by a statement that reads no table (SELECT
// sessions_search(...)) runs outside any transaction, where the version
// SQLite reports is the one of the last transaction and misses other
// connections' commits since.
func snapshot(c *call, db conn) (done func(), v store.Version, err error) {
	hasToken := true
	s, done, err := c.state.keptStatement(db, store.ChangeSQL)
	if err != nil { // no store here
		hasToken = false
		if s, done, err = c.state.keptStatement(db, snapshotSQL); err != nil {
			return nil, v, err
		}
	}
	row, err := s.step()
	if err != nil {
		done()
		return nil, v, err
	}
	if row && hasToken && !s.IsNull(0) {
		if token := s.Text(0); token != "" {
			return done, store.Version{Change: token}, nil
		}
	}
	dv := db.version()
	return done, store.Version{Data: dv[0], Changes: dv[1]}, nil
}

// visibleCache is one caller's visibility, kept for the rest of the
// statement on session_visible's caller argument.
type visibleCache struct {
	caller, options string
	visible         func(target string) bool
}

// fnSessionVisible: session_visible(caller_key, target_key [, options_json])
// → 1 or 0. The caller's visibility is computed once per statement. Inside
// sessions_search the options argument is the search's own decision, bound
// as a pointer (boundDecision).
func fnSessionVisible(c *call) error {
	if err := c.argCount(2, 3, "(caller_key, target_key [, options_json])"); err != nil {
		return err
	}
	caller, target, js := c.text(0), c.text(1), c.text(2)
	if d := c.boundDecision(2); d != nil {
		c.resultInt(boolInt(d.Visible(target)))
		return nil
	}
	if cached, ok := c.auxdata(0).(*visibleCache); ok && cached.caller == caller && cached.options == js {
		c.resultInt(boolInt(cached.visible(target)))
		return nil
	}
	policy, err := sqlfuncs.ParseVisibilityOptions(caller, js)
	if err != nil {
		return err
	}
	done, version, err := snapshot(c, c.conn())
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, c.conn(), version, policy)
	if err != nil {
		return err
	}
	c.setAuxdata(0, &visibleCache{caller, js, d.Visible})
	c.resultInt(boolInt(d.Visible(target)))
	return nil
}

// fnSessionsSearchable: sessions_searchable(caller_key, options_json,
// session_key) → BLOB: one byte per session number, 1 where a search by the
// caller reads the session (visible and not pending), only session_key's
// when it is not NULL (docs/search.md Q17). Inside sessions_search the
// options argument is the search's own decision, bound as a pointer.
func fnSessionsSearchable(c *call) error {
	d := c.boundDecision(1)
	db := c.conn()
	if d == nil {
		policy, err := sqlfuncs.ParseVisibilityOptions(c.text(0), c.text(1))
		if err != nil {
			return err
		}
		done, version, err := snapshot(c, db)
		if err != nil {
			return err
		}
		defer done()
		if d, err = visibility(c, db, version, policy); err != nil {
			return err
		}
	}
	mask, err := d.Searchable(db, c.text(2))
	if err != nil {
		return err
	}
	c.resultBlob(mask)
	return nil
}

// bindDecision binds a visibility decision to parameter name of s as an SQL
// pointer value; release after the statement is finalized.
func (s *stmt) bindDecision(name string, d *store.Decision) (release func(), err error) {
	i := s.paramIndex(name)
	if i == 0 {
		return nil, fmt.Errorf("bind: no parameter %s", name)
	}
	h := cgo.NewHandle(d)
	if rc := C.ss_bind_visible(s.s, i, C.uintptr_t(h)); rc != sqliteOK {
		h.Delete()
		return nil, s.c.errorf(rc, "bind %s", name)
	}
	return h.Delete, nil
}

// boundDecision returns the decision bound to argument i by bindDecision,
// or nil when the argument is not such a pointer.
func (c *call) boundDecision(i int) *store.Decision {
	if i >= len(c.args) {
		return nil
	}
	h := C.ss_value_visible(c.args[i])
	if h == 0 {
		return nil
	}
	return cgo.Handle(h).Value().(*store.Decision)
}

// searchPlan is a query's plan (package query) with what the connection
// derives from it once: the phrases snippets centre on, of the query's
// terms and, for relaxed searches, of its words too.
type searchPlan struct {
	query.Plan
	phrases [2][]sqlfuncs.Phrase
	tokened [2]bool
	when    *query.TimePhrase // the query's time phrase (Q40), if it had one read
}

// snippetPhrases returns the phrases snippets centre on, in the tokens of
// the store's tokenizer: the query's terms, and with relaxed the pieces of
// its words as well.
func (p *searchPlan) snippetPhrases(relaxed bool) []sqlfuncs.Phrase {
	i := 0
	if relaxed {
		i = 1
	}
	if !p.tokened[i] {
		terms := p.Terms
		if relaxed {
			terms = p.SnippetTerms()
		}
		p.phrases[i], p.tokened[i] = tokenPhrases(terms), true
	}
	return p.phrases[i]
}

// tokenPhrases returns the phrases of query terms, in the tokens of the
// store's tokenizer.
func tokenPhrases(terms []query.Term) []sqlfuncs.Phrase {
	out := outputs.Get()
	defer outputs.Put(out)
	tokens := sqlfuncs.OutputTokens{Output: out}
	var toks []sqlfuncs.Token
	return sqlfuncs.Phrases(terms, func(term string) []sqlfuncs.Token {
		tokenizer.Options{}.Tokenize([]byte(term), true, out)
		toks = toks[:0]
		for i := range tokens.Len() {
			toks = append(toks, tokens.At(i))
		}
		return toks
	})
}

// snippet cuts the snippet of a text found by the plan (docs/search.md
// Q14): the masked window of at most maxChars characters around its
// matches, of the plan's phrases (snippetPhrases) and the extra ones (the
// words' forms a search found).
func (p *searchPlan) snippet(text string, maxChars int, relaxed bool, extra []sqlfuncs.Phrase) string {
	phrases := p.snippetPhrases(relaxed)
	if len(extra) > 0 {
		phrases = append(phrases[:len(phrases):len(phrases)], extra...)
	}
	out := outputs.Get()
	defer outputs.Put(out)
	return sqlfuncs.SnippetOf(text, maxChars, func() []sqlfuncs.Range {
		tokenizer.Options{}.Tokenize(unsafe.Slice(unsafe.StringData(text), len(text)), false, out)
		return sqlfuncs.Matches(sqlfuncs.OutputTokens{Output: out}, phrases)
	})
}

// fnSessionsSnippet: sessions_snippet(text, query, prefix, max_chars) →
// the snippet sessions_search shows for a text it found with the query
// (docs/search.md Q14): the masked window of at most max_chars characters
// around the query's matches.
func fnSessionsSnippet(c *call) error {
	maxChars, err := c.maxChars(3)
	if err != nil {
		return err
	}
	if c.isNull(0) {
		c.resultNull()
		return nil
	}
	prefix := false
	if !c.isNull(2) {
		v, err := c.int(2, "prefix")
		if err != nil {
			return err
		}
		prefix = v != 0
	}
	p, err := c.state.plan(c.text(1), prefix, query.SyntaxLiteral, false)
	if err != nil {
		return err
	}
	// The text is read in place: a message can be megabytes, and nothing
	// here keeps it past the call.
	b := c.textBytes(0)
	c.resultText(p.snippet(unsafe.String(unsafe.SliceData(b), len(b)), int(maxChars), false, nil))
	return nil
}

// SearchSQL is the single SELECT behind sessions_search's exact tier
// (store.SearchSQL), under the name docs/search.md gives it.
var SearchSQL = store.SearchSQL

// fnSessionsSearch: sessions_search(query, options_json) → JSON.
func fnSessionsSearch(c *call) error {
	opts, err := c.state.searchOptions(c.text(1))
	if err != nil {
		return err
	}
	plan, err := c.state.plan(c.text(0), opts.Prefix, opts.Syntax, opts.TimePhrases)
	if err != nil {
		return err
	}
	var period *sqlfuncs.TimeRange
	if plan.when != nil {
		opts, period = opts.Bounded(*plan.when, time.Now())
	}
	db := c.conn()
	done, version, err := snapshot(c, db)
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, db, version, opts.Policy())
	if err != nil {
		return err
	}
	if opts.SessionKey != "" {
		exists, err := d.Exists(db, opts.SessionKey)
		if err != nil {
			return err
		}
		if !d.Visible(opts.SessionKey) || !exists {
			return fmt.Errorf("no session %q visible to %q", opts.SessionKey, opts.Caller)
		}
	}
	if d, err = d.Filtered(db, store.SessionFilter{Agents: opts.Agent, Kinds: opts.Kind, Exclude: opts.Exclude}); err != nil {
		return err
	}
	var results []sqlfuncs.SearchHit
	truncated := false
	if plan.All != query.MatchNothing {
		s := &searcher{state: c.state, db: db, text: c.text(0), plan: plan, opts: opts, d: d}
		if results, truncated, err = s.run(); err != nil {
			return err
		}
	}
	indexing, err := d.Pending(db, opts.SessionKey)
	if err != nil {
		return err
	}
	c.resultBytes(sqlfuncs.SearchJSON(results, indexing, truncated, opts.MaxBytes, period))
	return nil
}

// searcher runs one search: the tiers of its plan (docs/search.md Q26),
// ranked by package ranking.
type searcher struct {
	state *connState
	db    conn
	text  string
	plan  *searchPlan
	opts  sqlfuncs.SearchOptions
	d     *store.Decision
	texts map[int64]string // masked texts read, by candidate RowID
	tools map[int64]string // the tools of the tool texts read
	// formPhrases are the phrases of the words' other forms, once looked up.
	formPhrases []sqlfuncs.Phrase
}

// maxForms bounds the other forms of a word a search adds, and
// maxVocabulary the terms of the index it reads to find them.
const (
	maxForms      = 16
	maxVocabulary = 400
)

// forms looks up the other forms of each word of the plan in the index's
// vocabulary (docs/search.md Q28): terms that start as the word and its
// stem do, with the word's stem. It returns their FTS5 strings, by word.
// A store without the vocabulary table (a schema before it) has no forms.
func (s *searcher) forms() ([][]string, error) {
	out := make([][]string, len(s.plan.Words))
	var terms []query.Term
	cache := s.state.words(s.db)
	for i, w := range s.plan.Words {
		prefix := w.FormPrefix()
		if prefix == "" {
			continue
		}
		key := w.Lang + "\x00" + w.Token
		if forms, ok := cache.forms[key]; ok {
			out[i] = forms
			for _, f := range forms {
				terms = append(terms, query.Term{Text: f[1 : len(f)-1]})
			}
			continue
		}
		st, done, err := s.state.keptStatement(s.db, store.VocabularySQL)
		if err != nil {
			if strings.Contains(err.Error(), "no such table") {
				return out, nil // a schema before the vocabulary: no forms until sessionsearch_migrate()
			}
			return nil, err
		}
		err = st.each(func(r store.Row) error {
			if term := r.Text(0); len(out[i]) < maxForms && w.IsForm(term) {
				out[i] = append(out[i], `"`+term+`"`)
				terms = append(terms, query.Term{Text: term})
			}
			return nil
		}, prefix, prefix+string(utf8.MaxRune), maxVocabulary)
		done()
		if err != nil {
			return nil, err
		}
		cache.forms[key] = out[i]
	}
	s.formPhrases = tokenPhrases(terms)
	return out, nil
}

// How many candidates a ranked search reads from each tier: enough for
// the limit and the near-identical hits it may fold, and, for sessions,
// enough hits to score the sessions on.
const (
	messageCandidates = 3
	sessionCandidates = 500
)

// filters are the parameters every tier's statement takes.
func (s *searcher) filters() named {
	project, projectDir := s.opts.SQLProject()
	var session, role any
	if s.opts.SessionKey != "" {
		session = s.opts.SessionKey
	}
	if s.opts.Role != "" {
		role = s.opts.Role
	}
	return named{":caller": s.opts.Caller, ":session": session, ":after": s.opts.SQLAfter(), ":before": s.opts.SQLBefore(),
		":project": project, ":project_dir": projectDir, ":role": role}
}

// run returns the results and whether more matched.
func (s *searcher) run() ([]sqlfuncs.SearchHit, bool, error) {
	grouped := s.opts.Group == sqlfuncs.GroupSession
	relaxed := s.opts.Match == sqlfuncs.MatchRelaxed
	if !grouped && s.opts.Order != sqlfuncs.OrderBlend && s.opts.Syntax != query.SyntaxQuery && !s.opts.SearchesTools() {
		// The common case: the exact tier alone fills the limit, and its
		// statement (SearchSQL) does it with snippets.
		hits, err := s.exact()
		if err != nil || !relaxed || len(hits) > s.opts.Limit {
			return hits[:min(len(hits), s.opts.Limit)], len(hits) > s.opts.Limit, err
		}
	}
	var forms [][]string
	if relaxed {
		var err error
		if forms, err = s.forms(); err != nil {
			return nil, false, err
		}
	}
	// Words are weighed to order relaxed hits and to score sessions; the
	// exact tier's hits need no weights.
	var weights ranking.Weights
	if relaxed || grouped {
		var err error
		if weights, err = s.weights(forms); err != nil {
			return nil, false, err
		}
	}
	want := s.opts.Limit + 1
	if relaxed {
		want *= messageCandidates
	}
	if grouped {
		want = max(sessionCandidates, s.opts.Limit*s.opts.PerSession*messageCandidates)
	}
	// When the exact tier's expression is the words' own, the relaxed tier
	// finds its rows too, first (Q37): one scan of the index, not two.
	fromRelaxed := relaxed && s.plan.WordsAreAll()
	var hits []ranking.Hit
	if !fromRelaxed {
		var err error
		if hits, err = s.candidates(s.plan.All, nil, true, want); err != nil {
			return nil, false, err
		}
	}
	// Grouped results always look further than the exact tier: a session is
	// scored on the words all its messages hold (Q30).
	if relaxed && (grouped || fromRelaxed || len(hits) < want) {
		if expr, groups := s.plan.Relaxed(forms); expr != "" {
			more, err := s.candidates(expr, groups, false, want)
			if err != nil {
				return nil, false, err
			}
			seen := make(map[int64]bool, len(hits))
			for _, h := range hits {
				seen[h.RowID] = true
			}
			for _, h := range more {
				if !seen[h.RowID] {
					hits = append(hits, h)
				}
			}
		}
	}
	ranking.Order(hits, weights, s.opts.Order)
	var shown []ranking.Hit
	var scores []float64
	truncated := false
	var readErr error
	if grouped {
		vocabularies := map[int64]ranking.Vocabulary{}
		vocabulary := func(rowid int64) ranking.Vocabulary {
			if v, ok := vocabularies[rowid]; ok {
				return v
			}
			text, err := s.content(rowid)
			if err != nil && readErr == nil {
				readErr = err
			}
			v := ranking.VocabularyOf(text)
			vocabularies[rowid] = v
			return v
		}
		sessions := ranking.Group(hits, weights)
		if s.opts.Order == sqlfuncs.OrderRecent {
			ranking.Newest(sessions)
		}
		truncated = len(sessions) > s.opts.Limit
		for _, sess := range sessions[:min(len(sessions), s.opts.Limit)] {
			for _, h := range ranking.Collapse(sess.Hits, s.opts.PerSession, vocabulary) {
				shown = append(shown, h)
				scores = append(scores, sess.Score)
			}
		}
	} else {
		truncated = len(hits) > s.opts.Limit
		shown = hits[:min(len(hits), s.opts.Limit)]
	}
	if readErr != nil {
		return nil, false, readErr
	}
	words := len(s.plan.Words)
	results := make([]sqlfuncs.SearchHit, len(shown))
	for i, h := range shown {
		text, err := s.content(h.RowID)
		if err != nil {
			return nil, false, err
		}
		r := sqlfuncs.SearchHit{SessionKey: h.SessionKey, MessageID: h.MessageID, Role: h.Role, Timestamp: h.Timestamp,
			Snippet: s.plan.snippet(text, s.opts.SnippetChars, relaxed, s.formPhrases), Score: h.Score, Repeats: h.Repeats}
		if s.opts.SearchesTools() {
			r.Kind, r.Tool = sqlfuncs.HitMessage, s.tools[h.RowID]
			if _, ok := toolRow(h.RowID); ok {
				r.Kind = sqlfuncs.HitToolResult
				if h.Role == "assistant" {
					r.Kind = sqlfuncs.HitToolCall
				}
			}
		}
		if relaxed {
			r.Match = h.Match(words)
		}
		if r.Match != ranking.MatchAll && r.Match != "" {
			for _, w := range h.Held(words) {
				r.Words = append(r.Words, s.plan.Words[w].Text)
			}
		}
		if grouped {
			r.SessionScore = scores[i]
		}
		results[i] = r
	}
	return results, truncated, nil
}

// statsCap bounds the matches a search counts to weigh a word: a word in
// more messages than that is common, and counted as being in that many.
const statsCap = 20000

// weights returns what each word of the plan is worth (ranking.Weights):
// its messages and sessions, counted up to statsCap, of the store's.
func (s *searcher) weights(forms [][]string) (ranking.Weights, error) {
	cache := s.state.words(s.db)
	if !cache.store {
		err := s.db.Query(store.StatsSQL, func(r store.Row) error {
			cache.messages, cache.sessions = store.RowCount([]byte(r.Text(0))), r.Int(1)
			return nil
		})
		if err != nil {
			return ranking.Weights{}, err
		}
		cache.store = true
	}
	messages := make([]int64, len(s.plan.Words))
	sessions := make([]int64, len(s.plan.Words))
	for i, w := range s.plan.Words {
		alts := w.Phrases()
		if i < len(forms) {
			alts = append(alts, forms[i]...)
		}
		expr := strings.Join(alts, " OR ")
		if c, ok := cache.counts[expr]; ok {
			messages[i], sessions[i] = c[0], c[1]
			continue
		}
		st, done, err := s.state.keptStatement(s.db, store.WordStatsSQL)
		if err != nil {
			return ranking.Weights{}, err
		}
		err = st.each(func(r store.Row) error {
			messages[i], sessions[i] = r.Int(0), r.Int(1)
			return nil
		}, expr, statsCap)
		done()
		if err != nil {
			return ranking.Weights{}, err
		}
		cache.counts[expr] = [2]int64{messages[i], sessions[i]}
	}
	return ranking.NewWeights(max(cache.messages, statsCap), max(cache.sessions, 1), messages, sessions), nil
}

// wordCache is what weighing words and finding their forms read of the
// index (docs/store.md S36), kept by a connection while the database is
// unchanged: PRAGMA data_version (another connection's commit) and the
// connection's own changes. A person asks again with the same words, and
// an agent's questions share theirs.
type wordCache struct {
	version            [2]int64
	store              bool                // messages and sessions are read
	messages, sessions int64               // StatsSQL's counts
	counts             map[string][2]int64 // WordStatsSQL's, by the expression of a word and its forms
	forms              map[string][]string // the other forms of a word, by its language and token
}

// maxCachedWords bounds the words a connection keeps.
const maxCachedWords = 4096

// words returns the connection's word cache for the database as it is now.
func (st *connState) words(db conn) *wordCache {
	c := &st.wordCache
	if v := db.version(); v != c.version || c.counts == nil || len(c.counts)+len(c.forms) > maxCachedWords {
		*c = wordCache{version: v, counts: map[string][2]int64{}, forms: map[string][]string{}}
	}
	return c
}

// exact runs SearchSQL (or RecentSQL) for up to Limit+1 hits, the one more
// telling whether the results were cut. :options is the search's
// visibility decision itself, as a pointer value.
func (s *searcher) exact() ([]sqlfuncs.SearchHit, error) {
	sql := store.SearchSQL
	if s.opts.Order == sqlfuncs.OrderRecent {
		sql = store.RecentSQL
	}
	args := s.filters()
	args[":query"], args[":prefix"], args[":limit"], args[":snippet_chars"] = s.text, s.opts.Prefix, s.opts.Limit+1, s.opts.SnippetChars
	var hits []sqlfuncs.SearchHit
	err := s.query(sql, args, func(st *stmt) {
		hits = append(hits, sqlfuncs.SearchHit{SessionKey: st.Text(0), MessageID: st.Text(1),
			Role: st.Text(2), Timestamp: st.Int(3), Snippet: st.Text(4), Score: st.Float(5)})
		if s.opts.Match == sqlfuncs.MatchRelaxed {
			hits[len(hits)-1].Match = ranking.MatchAll
		}
	})
	return hits, err
}

// candidates runs CandidatesSQL for an expression of the plan: up to n
// matches with their scores and coverage, of each index the scope reads
// (docs/search.md Q33). exact marks the rows of the exact tier, which hold
// every word; a relaxed tier's rows that hold every word as written are the
// exact tier's too when the plan says so (query.Plan.WordsAreAll,
// docs/search.md Q37). A row of the tool index has its rowid complemented
// (toolRow), since an assistant message may be a row of both.
func (s *searcher) candidates(expr string, groups []byte, exact bool, n int) ([]ranking.Hit, error) {
	messages, calls, results := s.opts.Scopes()
	recent := s.opts.Order == sqlfuncs.OrderRecent
	var hits []ranking.Hit
	if messages {
		sql := store.CandidatesSQL
		if recent {
			sql = store.RecentCandidatesSQL
		}
		var err error
		if hits, err = s.candidatesOf(sql, nil, expr, groups, exact, n); err != nil {
			return nil, err
		}
	}
	if calls || results {
		sql := store.ToolCandidatesSQL
		if recent {
			sql = store.RecentToolCandidatesSQL
		}
		more, err := s.candidatesOf(sql, named{":calls": calls, ":results": results}, expr, groups, exact, n)
		if err != nil {
			return nil, store.ToolScopeError(s.opts.Scope, err)
		}
		for i := range more {
			more[i].RowID = ^more[i].RowID
		}
		hits = append(hits, more...)
	}
	return hits, nil
}

// toolRow returns the rowid in the tool index of a candidate's RowID, and
// whether it is one.
func toolRow(id int64) (int64, bool) { return ^id, id < 0 }

// candidatesOf runs one statement of candidates, with its own parameters
// beside the plan's.
func (s *searcher) candidatesOf(sql string, own named, expr string, groups []byte, exact bool, n int) ([]ranking.Hit, error) {
	args := s.filters()
	args[":expr"], args[":groups"], args[":candidates"] = expr, store.Blob(groups), n
	for k, v := range own {
		args[k] = v
	}
	var hits []ranking.Hit
	words := len(s.plan.Words)
	full := ranking.Full(words)
	allWords := !exact && s.plan.WordsAreAll()
	err := s.query(sql, args, func(st *stmt) {
		h := ranking.Hit{RowID: st.Int(0), SessionKey: st.Text(1), MessageID: st.Text(2), Role: st.Text(3),
			Timestamp: st.Int(4), Score: st.Float(5), Cov: ranking.Coverage(st.Int(6)), Exact: exact}
		if exact {
			h.Cov = full
		}
		h.Exact = exact || allWords && h.Cov.NExact() >= words
		hits = append(hits, h)
	})
	return hits, err
}

// query runs one of the statements of the tiers, with the search's
// visibility decision bound to :options as a pointer value.
func (s *searcher) query(sql string, args named, row func(*stmt)) error {
	st, done, err := s.state.keptStatement(s.db, sql)
	if err != nil {
		return err
	}
	release, err := st.bindDecision(":options", s.d)
	if err != nil {
		done()
		return err
	}
	// The handle goes after the statement has let go of it.
	defer func() { done(); release() }()
	return st.each(func(store.Row) error {
		row(st)
		return nil
	}, args)
}

// content returns the masked text of a candidate (a message, or tool text
// with its tool in s.tools), read once per search.
func (s *searcher) content(rowid int64) (string, error) {
	if t, ok := s.texts[rowid]; ok {
		return t, nil
	}
	sql, id := store.ContentSQL, rowid
	tool, isTool := toolRow(rowid)
	if isTool {
		sql, id = store.ToolContentSQL, tool
	}
	st, done, err := s.state.keptStatement(s.db, sql)
	if err != nil {
		return "", err
	}
	defer done()
	text := ""
	err = st.each(func(r store.Row) error {
		text = r.Text(0)
		if isTool {
			if s.tools == nil {
				s.tools = map[int64]string{}
			}
			s.tools[rowid] = store.ToolOf([]byte(r.Text(1)))
		}
		return nil
	}, id)
	if err == nil {
		if s.texts == nil {
			s.texts = map[int64]string{}
		}
		s.texts[rowid] = text
	}
	return text, err
}

// fnSessionsHistory: sessions_history(session_key, options_json) → JSON.
func fnSessionsHistory(c *call) error {
	key := c.text(0)
	opts, err := sqlfuncs.ParseHistoryOptions(c.text(1))
	if err != nil {
		return err
	}
	db := c.conn()
	done, version, err := snapshot(c, db)
	if err != nil {
		return err
	}
	defer done()
	d, err := visibility(c, db, version, opts.Policy())
	if err != nil {
		return err
	}
	var path []sqlfuncs.HistoryMessage
	found := false
	if d.Visible(key) {
		if path, found, err = store.HistoryCandidates(db, key, opts); err != nil {
			return err
		}
	}
	if !found {
		// Missing and hidden sessions are one error: the caller learns
		// nothing about sessions it cannot see.
		return fmt.Errorf("no session %q visible to %q", key, opts.Caller)
	}
	res := sqlfuncs.HistoryWindow(key, path, opts, func(s string) string {
		out, _ := redact.Text(s)
		return out
	})
	c.resultBytes(res.JSON())
	return nil
}
