package sqlfuncs

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/sessionkey"
)

// Who sees which session. Every visibility rule of sessions_search,
// sessions_history and session_visible lives in this file.
//
// Session keys are read by package sessionkey: which agent a key belongs
// to, which key is an agent's main session, which keys are incognito.
//
// Rules, for caller R and target T, applied in this order:
//
//  1. R always sees itself, even when R has no row in the sessions table
//     and even when R is incognito.
//  2. An incognito T (the last ":"-separated part of its key starts with
//     "incognito-", any case) is seen by nobody else: not by the session
//     that spawned it, not by its agent's main session, not under "all".
//  3. A sandboxed R with sandboxVisibility "spawned" (the default) sees only
//     the sessions it spawned, transitively, whatever visibility says
//     (OpenClaw clamps a sandboxed caller to its spawn tree), except "self",
//     which stays R alone: self is inside every visibility. The
//     main-session rule does not apply. With sandboxVisibility "all" the
//     sandbox changes nothing.
//  4. "self": nothing else.
//  5. "tree" (the default): the sessions spawned from R, transitively, in
//     any agent; when R is its agent's main session, also every session of
//     R's agent.
//  6. "agent": every session of R's agent, and nothing of other agents,
//     spawned from R or not (OpenClaw's order: ownership only counts under
//     tree and all).
//  7. "all": every session of R's agent, the sessions spawned from R in any
//     agent, and the sessions of another agent when agentToAgent is enabled
//     and both R's and T's agent ids match an allow pattern.
//
// "Spawned from R, transitively" follows both spawned_by and
// parent_session_key: T is a descendant of R when a chain of those links
// leads from T to R. Links to keys without a row still connect, and cycles
// are harmless (see Forest).
//
// A ceiling (Options.Ceiling) is a second set of these options for the same
// caller: R sees T when both the options and the ceiling let it. Nothing in
// the options can then show a session that the ceiling alone hides
// (docs/search.md Q22).
//
// Allow patterns are "*" (every agent), a glob where each "*" matches any
// run of characters, or an exact id; all compared case-insensitively. An
// empty pattern matches nothing, and so does an empty or missing allow list:
// enabling agentToAgent without naming agents opens nothing.

// Visibility modes and sandbox modes, as spelled in the options JSON.
const (
	VisibilitySelf  = "self"
	VisibilityTree  = "tree"
	VisibilityAgent = "agent"
	VisibilityAll   = "all"

	SandboxSpawned = "spawned"
	SandboxAll     = "all"
)

// Policy is one caller's visibility, normalized for fast decisions. Build it
// with Options.Policy or ParseVisibilityOptions; the zero Policy sees
// nothing but the empty key. Key names it for caches.
type Policy struct {
	caller       string
	callerAgent  string
	callerIsMain bool
	mode         string
	spawnedOnly  bool
	a2a          bool
	allow        []string // lower case, sorted, without repeats; only under "all" with agentToAgent
	ceiling      *Policy  // the ceiling's policy, same caller; nil: none
}

// Policy normalizes the options into a Policy. Values that the option parser
// would reject fall back to the narrowest reading: an unknown visibility is
// "self" (an empty one is the default "tree"), and any sandboxVisibility other
// than "all" is "spawned". A ceiling makes the policy the intersection of
// the options' and the ceiling's (the ceiling's own caller and ceiling are
// not read), unless the options see nothing the ceiling hides on any
// forest: the same policy, or "self".
func (c Options) Policy() Policy {
	p := c.scopePolicy()
	if c.Ceiling == nil {
		return p
	}
	ceiling := Options{Caller: c.Caller, Visibility: c.Ceiling.Visibility, Sandboxed: c.Ceiling.Sandboxed,
		SandboxVisibility: c.Ceiling.SandboxVisibility, AgentToAgent: c.Ceiling.AgentToAgent}.scopePolicy()
	if (p.mode == VisibilitySelf && !p.spawnedOnly) || p.Key() == ceiling.Key() {
		return p
	}
	p.ceiling = &ceiling
	return p
}

// scopePolicy is the policy of the options alone, without their ceiling.
func (c Options) scopePolicy() Policy {
	mode := c.Visibility
	switch mode {
	case "":
		mode = VisibilityTree
	case VisibilitySelf, VisibilityTree, VisibilityAgent, VisibilityAll:
	default:
		mode = VisibilitySelf
	}
	p := Policy{
		caller:       c.Caller,
		callerAgent:  sessionkey.AgentID(c.Caller),
		callerIsMain: sessionkey.IsMain(c.Caller),
		mode:         mode,
		spawnedOnly:  c.Sandboxed && c.SandboxVisibility != SandboxAll && mode != VisibilitySelf,
		a2a:          c.AgentToAgent.Enabled && mode == VisibilityAll,
	}
	if p.a2a {
		for _, pattern := range c.AgentToAgent.Allow {
			p.allow = append(p.allow, strings.ToLower(pattern))
		}
		slices.Sort(p.allow)
		p.allow = slices.Compact(p.allow)
	}
	return p
}

// Key is a canonical text of the policy, for caching what it decides: the
// same for options that differ only where no decision can tell (the allow
// patterns' order, case and repeats, agentToAgent outside "all"), and
// different whenever a decision could differ.
func (p Policy) Key() string {
	var b strings.Builder
	b.WriteString(strconv.Quote(p.caller))
	b.WriteString(" " + p.mode)
	if p.spawnedOnly {
		b.WriteString(" sandboxed")
	}
	if p.a2a {
		b.WriteString(" agentToAgent")
		for _, pattern := range p.allow {
			b.WriteString(" " + strconv.Quote(pattern))
		}
	}
	if p.ceiling != nil {
		// The same caller: the ceiling's key after it.
		_, rest, _ := strings.Cut(p.ceiling.Key(), " ")
		b.WriteString(" within " + rest)
	}
	return b.String()
}

// Caller is the key of the asking session.
func (p Policy) Caller() string { return p.caller }

// NeedsForest reports whether decisions depend on spawn links. When it is
// false the caller may skip loading the sessions table and pass a nil Forest.
func (p Policy) NeedsForest() bool {
	return p.spawnedOnly || p.mode == VisibilityTree || p.mode == VisibilityAll || p.ceiling != nil && p.ceiling.NeedsForest()
}

// VisibleSet does the per-caller work once (the descendant walk, the caller's
// own allow match) and returns a decision whose cost does not depend on the
// number of sessions, for filtering thousands of search hits. The returned
// function is safe for concurrent use. f may be nil when NeedsForest is false
// or the sessions table is empty.
func (p Policy) VisibleSet(f *Forest) func(target string) bool {
	var spawned map[string]bool
	if p.NeedsForest() {
		spawned = f.Descendants(p.caller)
	}
	if p.ceiling != nil {
		own, ceiling := p.scopeSet(spawned), p.ceiling.scopeSet(spawned)
		return func(target string) bool { return own(target) && ceiling(target) }
	}
	return p.scopeSet(spawned)
}

// scopeSet is VisibleSet without the ceiling, over the caller's
// descendants.
func (p Policy) scopeSet(spawned map[string]bool) func(target string) bool {
	crossAgent := p.a2a && p.allows(p.callerAgent)
	return func(target string) bool {
		switch {
		case target == p.caller:
			return true
		case sessionkey.IsIncognito(target):
			return false
		case p.spawnedOnly:
			return spawned[target]
		}
		switch p.mode {
		case VisibilityTree:
			return spawned[target] || (p.callerIsMain && sessionkey.AgentID(target) == p.callerAgent)
		case VisibilityAgent:
			return sessionkey.AgentID(target) == p.callerAgent
		case VisibilityAll:
			agent := sessionkey.AgentID(target)
			return agent == p.callerAgent || spawned[target] || (crossAgent && p.allows(agent))
		}
		return false
	}
}

// allows reports whether a lower-case agent id matches an allow pattern.
func (p Policy) allows(agent string) bool {
	for _, pattern := range p.allow {
		if globMatch(pattern, agent) {
			return true
		}
	}
	return false
}

// globMatch matches s against a pattern in which each "*" stands for any run
// of characters. It keeps one backtrack point (the last star), so it costs at
// most len(pattern)·len(s) steps and never goes exponential on "*a*a*a*b".
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return false
	}
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// SessionLinks is one row of the sessions table, reduced to its spawn links.
// An empty SpawnedBy or ParentKey stands for NULL.
type SessionLinks struct {
	Key, SpawnedBy, ParentKey string
}

// Forest is the spawn graph of the sessions table: for each key, the keys
// whose spawned_by or parent_session_key names it. Despite the name it may
// hold cycles and links to keys without a row; both are tolerated.
type Forest struct {
	children map[string][]string
}

// NewForest indexes the rows by parent. Self-links are ignored.
func NewForest(rows []SessionLinks) *Forest {
	f := &Forest{children: make(map[string][]string, len(rows))}
	for _, r := range rows {
		if r.SpawnedBy != "" && r.SpawnedBy != r.Key {
			f.children[r.SpawnedBy] = append(f.children[r.SpawnedBy], r.Key)
		}
		if r.ParentKey != "" && r.ParentKey != r.Key && r.ParentKey != r.SpawnedBy {
			f.children[r.ParentKey] = append(f.children[r.ParentKey], r.Key)
		}
	}
	return f
}

// Descendants returns every key reachable from root through child links, not
// including root itself even when a cycle leads back to it. Each key is
// visited once, so cycles end the walk instead of hanging it. A nil Forest
// has no links.
func (f *Forest) Descendants(root string) map[string]bool {
	seen := map[string]bool{}
	if f == nil {
		return seen
	}
	queue := []string{root}
	for len(queue) > 0 {
		key := queue[0]
		queue = queue[1:]
		for _, child := range f.children[key] {
			if child != root && !seen[child] {
				seen[child] = true
				queue = append(queue, child)
			}
		}
	}
	return seen
}
