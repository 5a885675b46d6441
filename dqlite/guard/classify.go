// Package guard keeps the statements a program sends to a dqlite cluster on
// the path dqlite replicates (docs/cluster.md K1 to K4). dqlite replicates
// what goes through its exec request and nothing else: a statement that
// writes, sent as a query, changes the leader's copy alone and the node's
// next write aborts it; a statement that returns a row, sent as an exec,
// fails with "another row available" after its write has replicated.
//
// Check classifies one statement for one path, from its tokens (strings,
// quoted names and comments are skipped, never matched); Connector wraps a
// database/sql connector so that every Exec and Query passes Check first and
// a refused statement never reaches the cluster, so that a write waits for
// the leader's write lock instead of failing (K10), and so that a failed
// write says whether it may be in the cluster (K11). The package is pure Go.
package guard

import (
	"fmt"
	"strings"
)

// Path is the way a statement is sent.
type Path int

const (
	// Query is dqlite's query request: it returns rows and is not replicated.
	Query Path = iota
	// Exec is dqlite's exec request: replicated, and it must return no rows.
	Exec
)

func (p Path) String() string {
	if p == Exec {
		return "exec"
	}
	return "query"
}

// WritingFunctions are the sessionsearch SQL functions that write the
// database or change the connection's state (docs/cluster.md K2).
var WritingFunctions = []string{"sessionsearch_migrate", "sessions_reconcile", "sessions_defer_indexing", "sessionsearch_tool_index"}

// Wrapped returns the form of a call to a writing function that dqlite can
// replicate: a statement sent as an exec that calls it and returns no row,
// whatever the function returns (none of them returns NULL).
func Wrapped(call string) string { return "SELECT 1 WHERE " + call + " IS NULL" }

// writingStatements are the first keywords of statements that change the
// database or its schema.
var writingStatements = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true,
	"CREATE": true, "DROP": true, "ALTER": true, "VACUUM": true,
	"REINDEX": true, "ANALYZE": true, "ATTACH": true, "DETACH": true,
}

// transactionControl are the first keywords of the statements that begin or
// end a transaction or a savepoint.
var transactionControl = map[string]bool{"BEGIN": true, "COMMIT": true, "END": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true}

// outsideTransaction are the first keywords of the statements that SQLite
// runs only outside a transaction, or that do nothing inside one (most
// pragmas): the guard sends them alone instead of inside BEGIN IMMEDIATE.
var outsideTransaction = map[string]bool{"PRAGMA": true, "VACUUM": true, "ATTACH": true, "DETACH": true}

// refusedPragmas are refused on both paths: a manual checkpoint makes a
// dqlite node exit, and dqlite owns the journal (docs/cluster.md K4).
var refusedPragmas = map[string]bool{"wal_checkpoint": true, "journal_mode": true, "wal_autocheckpoint": true}

// readingPragmas take an argument in parentheses and only read.
var readingPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_info": true, "index_xinfo": true,
	"index_list": true, "foreign_key_list": true, "foreign_key_check": true, "integrity_check": true, "quick_check": true,
}

// Error is a refused statement.
type Error struct {
	Path    Path
	Rule    string // docs/cluster.md rule: K1, K2, K4 or K10
	Name    string // the function, keyword or pragma that was refused
	Message string
}

func (e *Error) Error() string { return "dqlite guard: " + e.Message }

// Check returns nil if statement can be sent on path, else an *Error that
// names what was refused and how to send it instead.
func Check(path Path, statement string) error {
	toks := tokens(statement)
	if len(toks) == 0 {
		return nil
	}
	// The connection runs transactions itself (K10): BeginTx takes the write
	// lock with BEGIN IMMEDIATE and waits for it, and only its COMMIT may
	// leave a write's outcome unknown (K11).
	if transactionControl[toks[0].word] {
		return &Error{path, "K10", toks[0].word, fmt.Sprintf("%s is refused: the guard runs the transactions itself, so that a write waits for the write lock and its outcome is known; use BeginTx, then Commit or Rollback", toks[0].word)}
	}
	// Pragmas first: their names are not function calls.
	if toks[0].word == "PRAGMA" {
		name, rest := "", toks[1:]
		for len(rest) > 0 && (rest[0].ident || rest[0].text == ".") {
			if rest[0].ident {
				name = strings.ToLower(rest[0].text)
			}
			rest = rest[1:]
		}
		if refusedPragmas[name] {
			return &Error{path, "K4", name, fmt.Sprintf("PRAGMA %s is refused on a dqlite cluster: dqlite owns the write-ahead log and its checkpoints", name)}
		}
		sets := len(rest) > 0 && (rest[0].text == "=" || rest[0].text == "(" && !readingPragmas[name])
		if path == Query && sets {
			return &Error{path, "K1", name, fmt.Sprintf("PRAGMA %s with a value changes the database or the connection; through a query it is not replicated: send it with Exec", name)}
		}
		return nil
	}
	for i, t := range toks {
		if !t.ident || i+1 >= len(toks) || toks[i+1].text != "(" {
			continue
		}
		fn := strings.ToLower(t.text)
		if !isWriting(fn) {
			continue
		}
		if path == Query {
			return &Error{path, "K1", fn, fmt.Sprintf("%s writes; sent as a query its write is not replicated and the leader's next write aborts the node: send it with Exec as %s", fn, Wrapped(fn+"(...)"))}
		}
		if first := statementKeyword(toks); (first == "SELECT" || first == "VALUES" || first == "WITH") && !wrappedForm(toks) {
			return &Error{path, "K2", fn, fmt.Sprintf("%s in a SELECT sent as an exec: unless the statement returns no row it fails with \"another row available\" after its write replicated: send it as %s", fn, Wrapped(fn+"(...)"))}
		}
	}
	first := statementKeyword(toks)
	returning := false
	for _, t := range toks {
		if t.depth == 0 && t.word == "RETURNING" {
			returning = true
		}
	}
	if path == Query && (writingStatements[first] || returning) {
		name := first
		if returning && !writingStatements[first] {
			name = "RETURNING"
		}
		return &Error{path, "K1", name, fmt.Sprintf("a %s statement writes; sent as a query its write is not replicated and the leader's next write aborts the node: send it with Exec", name)}
	}
	if path == Exec && returning {
		return &Error{path, "K2", "RETURNING", "a RETURNING clause returns rows, and an exec that returns a row fails with \"another row available\" after its write replicated: send the statement without RETURNING and read the row with a query"}
	}
	return nil
}

// alone reports whether the statement is one that the guard sends on its
// own, outside a transaction (outsideTransaction).
func alone(statement string) bool {
	toks := tokens(statement)
	return len(toks) == 0 || outsideTransaction[toks[0].word]
}

func isWriting(fn string) bool {
	for _, w := range WritingFunctions {
		if fn == w {
			return true
		}
	}
	return false
}

// statementKeyword is the keyword that decides what the statement does: the
// first one, or after a WITH clause the first at depth 0 after it.
func statementKeyword(toks []token) string {
	if toks[0].word != "WITH" {
		return toks[0].word
	}
	for _, t := range toks[1:] {
		if t.depth != 0 {
			continue
		}
		switch t.word {
		case "SELECT", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE":
			return t.word
		}
	}
	return "WITH"
}

// wrappedForm reports whether the statement is Wrapped's form: at depth 0
// exactly SELECT 1 WHERE f(...) IS NULL, or with (...) in place of f(...).
func wrappedForm(toks []token) bool {
	var top []string
	for _, t := range toks {
		if t.depth == 0 && t.text != ";" {
			top = append(top, strings.ToUpper(t.text))
		}
	}
	want := []string{"SELECT", "1", "WHERE", "(", ")", "IS", "NULL"}
	if len(top) == len(want)+1 && top[3] != "(" {
		top = append(top[:3:3], top[4:]...) // drop the function's name
	}
	if len(top) != len(want) {
		return false
	}
	for i := range want {
		if top[i] != want[i] {
			return false
		}
	}
	return true
}

// token is one SQL token: an identifier or keyword (word is its upper-case
// form for bare words), or a punctuation character. Literals and comments
// are dropped.
type token struct {
	text  string
	word  string
	ident bool
	depth int
}

// tokens splits SQL the way SQLite's tokenizer does, as far as the guard needs.
func tokens(s string) []token {
	var out []token
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
		case c == '\'':
			i = skipQuoted(s, i, '\'')
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := skipQuoted(s, i, closer)
			name := s[i+1 : max(i+1, j-1)]
			out = append(out, token{text: name, ident: true, depth: depth})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			w := s[i:j]
			if (c == 'x' || c == 'X') && j < len(s) && s[j] == '\'' && j == i+1 {
				i = skipQuoted(s, j, '\'') // a blob literal
				continue
			}
			out = append(out, token{text: w, word: strings.ToUpper(w), ident: true, depth: depth})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (isIdentPart(s[j]) || s[j] == '.') {
				j++
			}
			out = append(out, token{text: s[i:j], depth: depth})
			i = j
		default:
			if c == ')' {
				depth--
			}
			out = append(out, token{text: string(c), depth: depth})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	return out
}

func skipQuoted(s string, i int, closer byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == closer {
			if closer != ']' && j+1 < len(s) && s[j+1] == closer {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c == '$' || (c >= '0' && c <= '9') }
