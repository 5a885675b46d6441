//go:build sqlite_fts5

package soak

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// A word of the soak's vocabulary: how messages write it and how a search
// asks for it. The words are chosen so that no query matches another word's
// text (the CJK, Thai and Hangul ones share no character), and several test
// the tokenizer's folding on the way (accents, ß, case, camelCase).
type word struct {
	Text  string `json:"text"`
	Query string `json:"query"`
}

var vocabulary = []word{
	{"amber", "amber"}, {"Birch", "birch"}, {"cobalt", "cobalt"}, {"DELTA", "delta"},
	{"ember", "ember"}, {"fjord", "fjord"}, {"garnet", "garnet"}, {"harbor", "harbor"},
	{"Café", "cafe"}, {"Straße", "strasse"}, {"東京", "東京"}, {"Москва", "москва"},
	{"ภาษา", "ภาษา"}, {"parseSessionKey", "parsesessionkey"}, {"naïve", "naive"}, {"한국어", "한국어"},
}

// An entry of the writer's model of one session: what the writer appended,
// with the parent it resolved (docs/store.md: ids resolve when an entry is
// appended).
type entry struct {
	id      string
	parent  int    // index in session.entries, -1 for a root
	role    string // "user", "assistant", "toolResult"; "" for a leaf entry
	indexed []int  // the vocabulary words a search must find it by
}

// A session as the writer's model has it. Leaf entries are kept too (they
// take a seq and an id) but are never anyone's parent or the leaf.
type session struct {
	key     string
	exists  bool
	entries []entry
	leaf    int // index of the active leaf, -1 for none
	events  int // events appended since the session was (re)created
}

func (s *session) clone() *session {
	c := *s
	c.entries = slices.Clone(s.entries)
	return &c
}

// path returns the active path, oldest first: the leaf and its ancestors.
func (s *session) path() []int {
	var p []int
	for i := s.leaf; i >= 0; i = s.entries[i].parent {
		p = append(p, i)
	}
	slices.Reverse(p)
	return p
}

// expected returns, for each vocabulary word, the ids of the session's
// messages a search for it must find (sorted), and the ids history must
// show, in order.
func (s *session) expected() (search map[int][]string, history []string) {
	search = map[int][]string{}
	history = []string{}
	if !s.exists {
		return search, nil
	}
	for _, i := range s.path() {
		e := s.entries[i]
		if e.role != "user" && e.role != "assistant" {
			continue
		}
		history = append(history, e.id)
		for _, w := range e.indexed {
			if !slices.Contains(search[w], e.id) {
				search[w] = append(search[w], e.id)
			}
		}
	}
	for _, ids := range search {
		slices.Sort(ids)
	}
	return search, history
}

// An op is one change the writer makes to one session, as the events it
// appends; apply changes the model the same way the store must.
type op struct {
	kind   string // append, branch, root, tool, rewind, delete, create
	events [][]byte
}

// generator makes the writer's events: ids unique across the run, and
// timestamps that increase.
type generator struct {
	rng  *rand.Rand
	next int
	now  time.Time
}

func (g *generator) id() string {
	g.next++
	return fmt.Sprintf("e%d", g.next)
}

func (g *generator) timestamp() string {
	g.now = g.now.Add(time.Millisecond)
	return g.now.UTC().Format(time.RFC3339Nano)
}

// words picks one to three vocabulary words.
func (g *generator) words() []int {
	n := 1 + g.rng.IntN(3)
	var ws []int
	for range n {
		w := g.rng.IntN(len(vocabulary))
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}

func text(ws []int) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = vocabulary[w].Text
	}
	return strings.Join(parts, ", ")
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// message appends a message to s with the given parent (-1: a root, with
// "parentId": null; omitParent: no parentId field, so it hangs from the
// leaf) and returns its event. Assistant messages sometimes carry a
// thinking block with other words, and tool results carry words too: a
// search must never find those.
func (g *generator) message(s *session, role string, parent int, omitParent bool) []byte {
	id := g.id()
	ws := g.words()
	ev := map[string]any{"type": "message", "id": id, "timestamp": g.timestamp()}
	if omitParent {
		parent = s.leaf
	} else if parent >= 0 {
		ev["parentId"] = s.entries[parent].id
	} else {
		ev["parentId"] = nil
	}
	var content any = text(ws)
	indexed := ws
	switch {
	case role == "toolResult":
		content = []any{map[string]any{"type": "text", "text": text(ws)}}
		ev["message"] = map[string]any{"role": role, "toolCallId": "call-" + id, "content": content}
		indexed = nil
	case role == "assistant" && g.rng.IntN(3) == 0:
		content = []any{
			map[string]any{"type": "thinking", "thinking": text(g.words())},
			map[string]any{"type": "text", "text": text(ws)},
		}
		fallthrough
	default:
		ev["message"] = map[string]any{"role": role, "content": content}
	}
	s.entries = append(s.entries, entry{id: id, parent: parent, role: role, indexed: indexed})
	s.leaf = len(s.entries) - 1
	s.events++
	return mustJSON(ev)
}

// leafEntry appends a leaf entry that moves the leaf to target.
func (g *generator) leafEntry(s *session, target int) []byte {
	id := g.id()
	ev := mustJSON(map[string]any{"type": "leaf", "id": id, "targetId": s.entries[target].id, "timestamp": g.timestamp()})
	// Recorded so that seqs and ids stay in step; never a parent or the leaf.
	s.entries = append(s.entries, entry{id: id, parent: -1})
	s.leaf = target
	s.events++
	return ev
}

// candidates returns the entries that may be a parent or a leaf target.
func (s *session) candidates() []int {
	var c []int
	for i, e := range s.entries {
		if e.role != "" {
			c = append(c, i)
		}
	}
	return c
}

// maxEvents is when the writer deletes a session and starts it again, so
// that sessions stay far below the store's inline limits.
const maxEvents = 120

// nextOp changes s (a clone the caller commits or throws away) by one
// randomly chosen op and returns it.
func (g *generator) nextOp(s *session, deletable bool) op {
	if !s.exists {
		s.exists, s.entries, s.leaf, s.events = true, nil, -1, 0
		return op{kind: "create"}
	}
	if deletable && (s.events >= maxEvents || g.rng.IntN(100) < 2) {
		s.exists = false
		return op{kind: "delete"}
	}
	role := "user"
	if s.leaf >= 0 && s.entries[s.leaf].role == "user" {
		role = "assistant"
	}
	c := s.candidates()
	switch r := g.rng.IntN(100); {
	case len(c) < 3 || r < 55:
		return op{kind: "append", events: [][]byte{g.message(s, role, s.leaf, r%5 == 0)}}
	case r < 62:
		// An assistant message calling a tool, its result, the answer.
		evs := [][]byte{g.message(s, "assistant", s.leaf, false)}
		evs = append(evs, g.message(s, "toolResult", s.leaf, false))
		evs = append(evs, g.message(s, "assistant", s.leaf, false))
		return op{kind: "tool", events: evs}
	case r < 75:
		return op{kind: "branch", events: [][]byte{g.message(s, role, c[g.rng.IntN(len(c)-1)], false)}}
	case r < 77:
		return op{kind: "root", events: [][]byte{g.message(s, "user", -1, false)}}
	default:
		return op{kind: "rewind", events: [][]byte{g.leafEntry(s, c[g.rng.IntN(len(c))])}}
	}
}
