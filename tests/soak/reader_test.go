//go:build sqlite_fts5

package soak

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/driver"
)

// What every reader does, in Go here and in reader.py and reader.js, the
// same way:
//
// In one read transaction (so all of it is one snapshot): read the newest
// commit from soak_commits, then run one query and read what the writer
// published for that commit in the same snapshot.
//
//   - search of one word in one session, or in every session: the
//     expected hits are soak_expected's ids (sessionKey/messageId). With at
//     most searchLimit of them, the hits must be exactly those and
//     truncated false; with more, searchLimit distinct hits, each expected,
//     and truncated true. indexing must be false (no session is ever
//     deferred in the soak). A search in one session that the writer
//     deleted must give an error that names sessions_search.
//   - history of one session: soak_history's ids, in order, with
//     truncated and hasMore false; a session with no soak_history row (the
//     writer deleted it) must give an error that names sessions_history.
//
// A reader also checks that the commits it sees never go back. Each
// mismatch is printed with the commit, the query, the expected and the got.

// searchLimit is the limit of every soak search (the largest allowed).
const searchLimit = 25

// A readerConfig is what the test passes to each reader.
type readerConfig struct {
	Name      string   `json:"name"`
	DB        string   `json:"db"`
	Extension string   `json:"extension"` // the loadable extension, for Python and Node
	Seconds   float64  `json:"seconds"`
	Seed      uint64   `json:"seed"`
	Caller    string   `json:"caller"`
	Sessions  []string `json:"sessions"`
	Words     []string `json:"words"` // the query form of each vocabulary word
}

// A finding is a mismatch or an error, as readers print them.
type finding struct {
	Commit   int64  `json:"commit"`
	Query    string `json:"query"`
	Expected any    `json:"expected,omitempty"`
	Got      any    `json:"got,omitempty"`
	Message  string `json:"message,omitempty"` // errors only
}

// A readerSummary is the last line a reader prints.
type readerSummary struct {
	Name        string  `json:"name"`
	Queries     int     `json:"queries"`
	Hits        int     `json:"hits"` // results and history messages checked
	FirstCommit int64   `json:"firstCommit"`
	LastCommit  int64   `json:"lastCommit"`
	SearchUS    []int64 `json:"searchUs"` // latency of each sessions_search, µs
	HistoryUS   []int64 `json:"historyUs"`
}

// A readerLine is one line of a reader's output: exactly one field is set.
type readerLine struct {
	Mismatch *finding       `json:"mismatch,omitempty"`
	Error    *finding       `json:"error,omitempty"`
	Summary  *readerSummary `json:"summary,omitempty"`
}

// goReader is the Go reader: a read-only connection of the driver.
func goReader(ctx context.Context, cfg readerConfig, emit func(readerLine)) error {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "10000")
	db, err := sql.Open(driver.DriverName, "file:"+cfg.DB+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	sum := readerSummary{Name: cfg.Name, FirstCommit: -1}
	deadline := time.Now().Add(time.Duration(cfg.Seconds * float64(time.Second)))
	for time.Now().Before(deadline) {
		commit, err := goReadOnce(ctx, conn, cfg, rng, &sum, emit)
		if err != nil {
			emit(readerLine{Error: &finding{Commit: commit, Query: "transaction", Message: err.Error()}})
		}
	}
	emit(readerLine{Summary: &sum})
	return nil
}

func goReadOnce(ctx context.Context, conn *sql.Conn, cfg readerConfig, rng *rand.Rand, sum *readerSummary, emit func(readerLine)) (commit int64, err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return -1, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT max(seq) FROM soak_commits`).Scan(&commit); err != nil {
		return -1, err
	}
	if commit < sum.LastCommit {
		emit(readerLine{Mismatch: &finding{Commit: commit, Query: "newest commit",
			Expected: fmt.Sprintf(">= %d (seen before)", sum.LastCommit), Got: commit}})
	}
	if sum.FirstCommit < 0 {
		sum.FirstCommit = commit
	}
	sum.LastCommit = commit
	sess := cfg.Sessions[rng.IntN(len(cfg.Sessions))]
	sum.Queries++
	if rng.IntN(4) == 0 {
		err = goCheckHistory(ctx, tx, cfg, sess, commit, sum, emit)
	} else {
		if rng.IntN(3) == 0 {
			sess = ""
		}
		err = goCheckSearch(ctx, tx, cfg, cfg.Words[rng.IntN(len(cfg.Words))], sess, commit, sum, emit)
	}
	if err != nil {
		return commit, err
	}
	return commit, tx.Commit()
}

func goCheckSearch(ctx context.Context, tx *sql.Tx, cfg readerConfig, query, sess string, commit int64,
	sum *readerSummary, emit func(readerLine)) error {
	opts := map[string]any{"caller": cfg.Caller, "limit": searchLimit}
	if sess != "" {
		opts["sessionKey"] = sess
	}
	optsJSON, _ := json.Marshal(opts)
	desc := fmt.Sprintf("sessions_search(%q, %s)", query, optsJSON)
	var got string
	start := time.Now()
	err := tx.QueryRowContext(ctx, `SELECT sessions_search(?1, ?2)`, query, string(optsJSON)).Scan(&got)
	sum.SearchUS = append(sum.SearchUS, time.Since(start).Microseconds())
	if sess != "" {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM soak_history WHERE session_key = ?1)`, sess).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if err == nil || !strings.Contains(err.Error(), "sessions_search") {
				emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc, Expected: "an error naming sessions_search (the session is deleted)", Got: fmt.Sprint(got, err)}})
			}
			return nil
		}
	}
	if err != nil {
		emit(readerLine{Error: &finding{Commit: commit, Query: desc, Message: err.Error()}})
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT session_key, ids FROM soak_expected WHERE word = ?1 AND (?2 = '' OR session_key = ?2)`, query, sess)
	if err != nil {
		return err
	}
	expected := []string{}
	for rows.Next() {
		var key, ids string
		var list []string
		if err := rows.Scan(&key, &ids); err != nil {
			rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(ids), &list); err != nil {
			rows.Close()
			return err
		}
		for _, id := range list {
			expected = append(expected, key+"/"+id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var res driver.SearchResult
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc, Expected: "JSON", Got: got}})
		return nil
	}
	hits := []string{}
	for _, h := range res.Results {
		hits = append(hits, h.SessionKey+"/"+h.MessageID)
	}
	sum.Hits += len(hits)
	if problem := checkSearch(expected, hits, res.Truncated, res.Indexing); problem != "" {
		emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc + ": " + problem, Expected: expected, Got: got}})
	}
	return nil
}

// checkSearch returns what is wrong with a search's hits, or "".
func checkSearch(expected, hits []string, truncated, indexing bool) string {
	slices.Sort(expected)
	sorted := slices.Sorted(slices.Values(hits))
	switch {
	case indexing:
		return "indexing is true"
	case len(slices.Compact(slices.Clone(sorted))) != len(sorted):
		return "a hit is repeated"
	case len(expected) <= searchLimit && !slices.Equal(expected, sorted):
		return "the hits are not the expected set"
	case len(expected) <= searchLimit && truncated:
		return "truncated with every hit returned"
	case len(expected) > searchLimit && len(hits) != searchLimit:
		return fmt.Sprintf("%d hits, expected the limit %d", len(hits), searchLimit)
	case len(expected) > searchLimit && !truncated:
		return "more hits than the limit, but not truncated"
	}
	for _, h := range hits {
		if _, found := slices.BinarySearch(expected, h); !found {
			return "hit " + h + " is not expected"
		}
	}
	return ""
}

func goCheckHistory(ctx context.Context, tx *sql.Tx, cfg readerConfig, sess string, commit int64,
	sum *readerSummary, emit func(readerLine)) error {
	optsJSON, _ := json.Marshal(map[string]any{"caller": cfg.Caller, "limit": 1000, "maxBytes": 4194304})
	desc := fmt.Sprintf("sessions_history(%q, %s)", sess, optsJSON)
	var got string
	start := time.Now()
	qerr := tx.QueryRowContext(ctx, `SELECT sessions_history(?1, ?2)`, sess, string(optsJSON)).Scan(&got)
	sum.HistoryUS = append(sum.HistoryUS, time.Since(start).Microseconds())
	var ids string
	switch err := tx.QueryRowContext(ctx, `SELECT ids FROM soak_history WHERE session_key = ?1`, sess).Scan(&ids); {
	case err == sql.ErrNoRows:
		if qerr == nil || !strings.Contains(qerr.Error(), "sessions_history") {
			emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc, Expected: "an error naming sessions_history (the session is deleted)", Got: fmt.Sprint(got, qerr)}})
		}
		return nil
	case err != nil:
		return err
	}
	if qerr != nil {
		emit(readerLine{Error: &finding{Commit: commit, Query: desc, Message: qerr.Error()}})
		return nil
	}
	var expected []string
	if err := json.Unmarshal([]byte(ids), &expected); err != nil {
		return err
	}
	var res driver.History
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc, Expected: "JSON", Got: got}})
		return nil
	}
	gotIDs := []string{}
	for _, m := range res.Messages {
		gotIDs = append(gotIDs, m.ID)
	}
	sum.Hits += len(gotIDs)
	if !slices.Equal(expected, gotIDs) || res.Truncated || res.HasMore {
		emit(readerLine{Mismatch: &finding{Commit: commit, Query: desc, Expected: expected, Got: got}})
	}
	return nil
}

// The readers' rule for a search, in Go (reader.py and reader.js follow
// it line for line).
func TestCheckSearch(t *testing.T) {
	many := make([]string, searchLimit+5)
	for i := range many {
		many[i] = fmt.Sprintf("s/m%02d", i)
	}
	for _, c := range []struct {
		name                string
		expected, hits      []string
		truncated, indexing bool
		problem             string
	}{
		{"exact", []string{"s/a", "s/b"}, []string{"s/b", "s/a"}, false, false, ""},
		{"none", []string{}, []string{}, false, false, ""},
		{"missing", []string{"s/a", "s/b"}, []string{"s/a"}, false, false, "the hits are not the expected set"},
		{"extra", []string{"s/a"}, []string{"s/a", "s/c"}, false, false, "the hits are not the expected set"},
		{"truncated but complete", []string{"s/a"}, []string{"s/a"}, true, false, "truncated with every hit returned"},
		{"indexing", []string{"s/a"}, []string{"s/a"}, false, true, "indexing is true"},
		{"repeated", []string{"s/a", "s/b"}, []string{"s/a", "s/a"}, false, false, "a hit is repeated"},
		{"over the limit", many, many[3 : 3+searchLimit], true, false, ""},
		{"over the limit, not truncated", many, many[:searchLimit], false, false, "more hits than the limit, but not truncated"},
		{"over the limit, too few", many, many[:searchLimit-1], true, false, "24 hits, expected the limit 25"},
		{"over the limit, a stranger", many, append(slices.Clone(many[:searchLimit-1]), "s/zz"), true, false, "hit s/zz is not expected"},
	} {
		if got := checkSearch(slices.Clone(c.expected), c.hits, c.truncated, c.indexing); got != c.problem {
			t.Errorf("%s: checkSearch = %q, want %q", c.name, got, c.problem)
		}
	}
}
