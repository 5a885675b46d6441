//go:build sqlite_fts5

package driver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// Options are the options every call takes: the caller and its
// visibility. They and the option types below are sqlfuncs' own, encoded as
// the options JSON by their struct tags; zero fields take the SQL defaults,
// and Validate checks a value as the SQL functions will.
type Options = sqlfuncs.Options

// AgentToAgent lets the "all" visibility reach other agents' sessions.
type AgentToAgent = sqlfuncs.AgentToAgent

// SearchOptions are the options of Search (sqlfuncs.SearchOptionSpecs
// describes each).
type SearchOptions = sqlfuncs.SearchOptions

// SearchResult is the answer of Search: the JSON of sessions_search, as
// sqlfuncs writes it.
type SearchResult = sqlfuncs.SearchResult

// SearchHit is one result of Search.
type SearchHit = sqlfuncs.SearchHit

// TimeRange is the period a time phrase of the query bounded a search to
// (docs/search.md Q41).
type TimeRange = sqlfuncs.TimeRange

// Search runs sessions_search(query, options).
func (db *DB) Search(ctx context.Context, query string, opts SearchOptions) (*SearchResult, error) {
	var out SearchResult
	return &out, callJSON(ctx, db, `SELECT sessions_search(?1, ?2)`, query, opts, &out)
}

// HistoryOptions are the options of History (sqlfuncs.HistoryOptionSpecs
// describes each).
type HistoryOptions = sqlfuncs.HistoryOptions

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
