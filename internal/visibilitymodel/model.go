// Package visibilitymodel restates the visibility rules of docs/search.md
// (Q8–Q11, Q22) per (caller, target) pair, with other machinery than
// sqlfuncs/visibility.go: splitting whole keys into parts, regular
// expressions for globs, and an upward walk over the rows for "spawned
// from" instead of a downward index. It is the reference that the property
// tests of sqlfuncs, the HTTP server and the MCP server compare against,
// with the random sessions and options they draw.
package visibilitymodel

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Row is one row of the sessions table: its key and its two links ("" for
// NULL).
type Row struct{ Key, SpawnedBy, ParentKey string }

// Options are the visibility options of one caller, as the options JSON
// spells them ("" for absent).
type Options struct {
	Caller            string
	Visibility        string
	Sandboxed         bool
	SandboxVisibility string
	AgentToAgent      bool // agentToAgent.enabled
	Allow             []string
}

// parts lower-cases a key and splits it at every colon.
func parts(key string) []string { return strings.Split(strings.ToLower(key), ":") }

// Agent is the agent a key belongs to.
func Agent(key string) string {
	if p := parts(key); len(p) >= 3 && p[0] == "agent" && p[1] != "" {
		return p[1]
	}
	return "main"
}

func isMain(key string) bool {
	p := parts(key)
	return len(p) == 3 && p[0] == "agent" && p[1] != "" && p[2] == "main"
}

func incognito(key string) bool {
	p := parts(key)
	return strings.HasPrefix(p[len(p)-1], "incognito-")
}

// SpawnedFrom walks up from target through every link of every row naming
// it, looking for root.
func SpawnedFrom(rows []Row, root, target string) bool {
	visited := map[string]bool{target: true}
	var up func(key string) bool
	up = func(key string) bool {
		for _, row := range rows {
			if row.Key != key {
				continue
			}
			for _, parent := range []string{row.SpawnedBy, row.ParentKey} {
				if parent == "" || visited[parent] {
					continue
				}
				if parent == root {
					return true
				}
				visited[parent] = true
				if up(parent) {
					return true
				}
			}
		}
		return false
	}
	return up(target)
}

var globs sync.Map // pattern → *regexp.Regexp

func allowed(patterns []string, agent string) bool {
	for _, p := range patterns {
		if p == "" {
			continue
		}
		re, ok := globs.Load(p)
		if !ok {
			pieces := strings.Split(strings.ToLower(p), "*")
			for i := range pieces {
				pieces[i] = regexp.QuoteMeta(pieces[i])
			}
			re, _ = globs.LoadOrStore(p, regexp.MustCompile("^"+strings.Join(pieces, ".*")+"$"))
		}
		if re.(*regexp.Regexp).MatchString(strings.ToLower(agent)) {
			return true
		}
	}
	return false
}

// Mode is the visibility the options mean: "" is the default "tree", and a
// value the parser refuses is read as the narrowest, "self".
func (o Options) Mode() string {
	switch o.Visibility {
	case "":
		return "tree"
	case "self", "tree", "agent", "all":
		return o.Visibility
	}
	return "self"
}

// Visible reports whether the caller of o sees target.
func Visible(o Options, rows []Row, target string) bool {
	caller := o.Caller
	if target == caller {
		return true
	}
	if incognito(target) {
		return false
	}
	spawned := func() bool { return SpawnedFrom(rows, caller, target) }
	sameAgent := func() bool { return Agent(target) == Agent(caller) }
	mode := o.Mode()
	if o.Sandboxed && o.SandboxVisibility != "all" && mode != "self" {
		return spawned()
	}
	switch mode {
	case "tree":
		return spawned() || (isMain(caller) && sameAgent())
	case "agent":
		return sameAgent()
	case "all":
		return sameAgent() || spawned() ||
			(o.AgentToAgent && allowed(o.Allow, Agent(caller)) && allowed(o.Allow, Agent(target)))
	}
	return false // "self"
}

// VisibleWithin is Visible under a ceiling for the same caller: both must
// show the target.
func VisibleWithin(o, ceiling Options, rows []Row, target string) bool {
	ceiling.Caller = o.Caller
	return Visible(o, rows, target) && Visible(ceiling, rows, target)
}

// RandomKey is a session key of one of a few agents, main sessions,
// subagents, incognito keys, keys without an agent and odd spellings.
func RandomKey(rng *rand.Rand) string {
	agents := []string{"main", "ops", "OPS", "dev", "research", "r.d", "x"}
	a := agents[rng.IntN(len(agents))]
	n := rng.IntN(4)
	switch rng.IntN(10) {
	case 0, 1:
		return "agent:" + a + ":main"
	case 2, 3:
		return fmt.Sprintf("agent:%s:subagent:%d", a, n)
	case 4:
		return fmt.Sprintf("agent:%s:dashboard:%s-%d", a, []string{"incognito", "Incognito", "incognit"}[rng.IntN(3)], n)
	case 5:
		return []string{"main", "cron:nightly", "incognito-1", "global"}[rng.IntN(4)]
	case 6:
		return []string{"agent::x", "agent:" + a, "agent:" + a + ":"}[rng.IntN(3)]
	case 7:
		return []string{"AGENT:" + a + ":MAIN", "agent:" + a + ":main:thread:1", "agent:" + a + ":mainline"}[rng.IntN(3)]
	default:
		return fmt.Sprintf("agent:%s:telegram:group:%d", a, n)
	}
}

// RandomOptions are random visibility options of caller; Visibility may be
// "" (absent) or "bogus" (refused by the parser).
func RandomOptions(rng *rand.Rand, caller string) Options {
	patterns := []string{"*", "o*", "*s", "d*v", "OPS", "main", "", "x", "*e*", "re*ch", "**", "r.d"}
	o := Options{
		Caller:            caller,
		Visibility:        []string{"", "self", "tree", "agent", "all", "all", "bogus"}[rng.IntN(7)],
		Sandboxed:         rng.IntN(3) == 0,
		SandboxVisibility: []string{"", "spawned", "all"}[rng.IntN(3)],
		AgentToAgent:      rng.IntN(2) == 0,
	}
	for range rng.IntN(3) {
		o.Allow = append(o.Allow, patterns[rng.IntN(len(patterns))])
	}
	return o
}

// randomLink names no one, a session of the forest (possibly itself, making
// cycles) or a session without a row.
func randomLink(rng *rand.Rand, keys []string) string {
	switch rng.IntN(4) {
	case 0, 1:
		return ""
	case 2:
		return keys[rng.IntN(len(keys))]
	default:
		return RandomKey(rng)
	}
}

// RandomForest is a sessions table of up to n rows with random links, and
// the keys to ask about: every row, every link, and two keys of no row.
func RandomForest(rng *rand.Rand, n int) (keys []string, rows []Row, targets []string) {
	for range 1 + rng.IntN(n) {
		if k := RandomKey(rng); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	rows = make([]Row, len(keys))
	for i, k := range keys {
		rows[i] = Row{Key: k, SpawnedBy: randomLink(rng, keys)}
		if rng.IntN(3) == 0 {
			rows[i].ParentKey = randomLink(rng, keys)
		}
	}
	targets = slices.Clone(keys)
	for _, r := range rows {
		targets = append(targets, r.SpawnedBy, r.ParentKey)
	}
	return keys, rows, append(targets, RandomKey(rng), RandomKey(rng))
}
