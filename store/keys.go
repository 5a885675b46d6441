package store

import (
	"fmt"
	"unicode/utf8"
)

// Session is a row of the sessions table: the one session type of the
// driver, the importer and the CLI.
type Session struct {
	Key              string
	SpawnedBy        string // "" for NULL
	ParentSessionKey string // "" for NULL
	CreatedAt        int64  // epoch ms, 0 for NULL
}

// Values are the values of the row, in column order, NULL for "" and 0.
func (s Session) Values() []any {
	created := any(nil)
	if s.CreatedAt != 0 {
		created = s.CreatedAt
	}
	return []any{s.Key, nullString(s.SpawnedBy), nullString(s.ParentSessionKey), created}
}

// KeyValue is one value of a column that holds a session key, as SQLite
// stores it.
type KeyValue struct {
	Column string // session_key, spawned_by or parent_session_key
	Type   string // SQLite's typeof(): "text", "blob", "integer", "real" or "null"
	Text   string // the value's bytes
}

// KeyProblem says what is wrong with the session keys of a sessions row,
// or "" when nothing is (docs/store.md S2). A key is text, valid UTF-8 and
// not empty; spawned_by and parent_session_key may be NULL. SQLite compares
// a BLOB with no TEXT, so a key bound as bytes (Python bytes, Go []byte)
// would make a second session that search reports under the same key, and
// invalid UTF-8 comes back replaced and can never be named again.
func KeyProblem(values ...KeyValue) string {
	for _, v := range values {
		switch {
		case v.Type == "null" && v.Column != "session_key":
		case v.Type != "text":
			return fmt.Sprintf("%s must be text, got %s (bind the key as a string, not as bytes or a number)", v.Column, article(v.Type))
		case v.Text == "":
			return fmt.Sprintf("%s must not be empty", v.Column)
		case !utf8.ValidString(v.Text):
			return fmt.Sprintf("%s must be valid UTF-8, got %q", v.Column, v.Text)
		}
	}
	return ""
}

func article(typ string) string {
	switch typ {
	case "integer":
		return "an integer"
	case "null":
		return "NULL"
	}
	return "a " + typ
}
