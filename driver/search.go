//go:build sqlite_fts5

package driver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// Options are the options of sessions_search and sessions_history, encoded
// as the options JSON; zero fields take the SQL defaults.
type Options struct {
	Caller            string        `json:"caller"`
	Visibility        string        `json:"visibility,omitempty"` // self, tree (default), agent, all
	Sandboxed         bool          `json:"sandboxed,omitempty"`
	SandboxVisibility string        `json:"sandboxVisibility,omitempty"` // spawned (default), all
	AgentToAgent      *AgentToAgent `json:"agentToAgent,omitempty"`
}

// AgentToAgent lets the "all" visibility reach other agents' sessions.
type AgentToAgent struct {
	Enabled bool     `json:"enabled"`
	Allow   []string `json:"allow"`
}

// SearchOptions are the options of Search.
type SearchOptions struct {
	Options
	Limit        int    `json:"limit,omitempty"`        // 1..25, default 10
	SessionKey   string `json:"sessionKey,omitempty"`   // search one session
	SnippetChars int    `json:"snippetChars,omitempty"` // default 300
	MaxBytes     int    `json:"maxBytes,omitempty"`     // default 32768
	Prefix       bool   `json:"prefix,omitempty"`       // the last term is a prefix
	Order        string `json:"order,omitempty"`        // relevance (default) or recent
}

// SearchResult is the answer of Search: the JSON of sessions_search, as
// sqlfuncs writes it.
type SearchResult = sqlfuncs.SearchResult

// SearchHit is one result of Search.
type SearchHit = sqlfuncs.SearchHit

// Search runs sessions_search(query, options).
func (db *DB) Search(ctx context.Context, query string, opts SearchOptions) (*SearchResult, error) {
	var out SearchResult
	return &out, callJSON(ctx, db, `SELECT sessions_search(?1, ?2)`, query, opts, &out)
}

// HistoryOptions are the options of History.
type HistoryOptions struct {
	Options
	Limit        int    `json:"limit,omitempty"`     // 1..1000, default 200
	MessageID    string `json:"messageId,omitempty"` // a window around this message
	IncludeTools bool   `json:"includeTools,omitempty"`
	MaxChars     int    `json:"maxChars,omitempty"` // per text, default 4000
	MaxBytes     int    `json:"maxBytes,omitempty"` // default 81920
}

// History is the answer of History, the JSON of sessions_history as
// sqlfuncs writes it: the active path, oldest first.
type History = sqlfuncs.HistoryResult

// HistoryMessage is one message of History.
type HistoryMessage = sqlfuncs.HistoryMessage

// History runs sessions_history(sessionKey, options).
func (db *DB) History(ctx context.Context, sessionKey string, opts HistoryOptions) (*History, error) {
	var out History
	return &out, callJSON(ctx, db, `SELECT sessions_history(?1, ?2)`, sessionKey, opts, &out)
}

func callJSON(ctx context.Context, e execer, query, arg string, opts, out any) error {
	js, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	var s string
	if err := e.QueryRowContext(ctx, query, arg, string(js)).Scan(&s); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		return fmt.Errorf("sessionsearch: bad JSON %q: %w", s, err)
	}
	return nil
}
