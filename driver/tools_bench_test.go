package driver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionsearch/sessionsearch/driver"
	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// BenchmarkToolIndex measures what the tool index (docs/store.md S30)
// costs, on the real OpenClaw transcripts of internal/fixtures, each
// stored SESSIONSEARCH_TOOL_COPIES times under its own keys
// (docs/performance.md#tool-text):
//
//   - build/tools=off, build/tools=on: storing every transcript through
//     the append trigger, which indexes the messages, and the tool text
//     in a store that keeps the tool index (docs/store.md S33);
//   - rebuild/fts, rebuild/tools: rebuilding each index alone from the
//     stored events, the work each index adds to a build, and what
//     switching the tool index on costs (S34);
//   - search/default/tools=off, search/default/tools=on: the default
//     search in a store without and with the tool index (two stores of
//     the same transcripts), which does not read the tool index
//     (docs/search.md Q35);
//   - search/tools: the same queries with scope toolCalls and toolResults.
//
// Each sub-benchmark reports the bytes of the indexes (their _data and
// _docsize tables) as fts_KiB and tools_KiB.
func BenchmarkToolIndex(b *testing.B) {
	copies := benchenv.Int(b, "SESSIONSEARCH_TOOL_COPIES", 8)
	files, err := filepath.Glob("../internal/fixtures/transcripts/*.jsonl")
	if err != nil || len(files) == 0 {
		b.Fatalf("fixtures: %v", err)
	}
	var transcripts [][]string
	for _, f := range files {
		transcripts = append(transcripts, readLines(b, f))
	}
	build := func(b *testing.B, tools bool) (*driver.DB, context.Context) {
		db, ctx := openStore(b)
		if err := db.SetToolIndex(ctx, tools); err != nil {
			b.Fatal(err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for c := range copies {
			for i, lines := range transcripts {
				key := fmt.Sprintf("agent:main:t%d-%d", i, c)
				if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(session_key) VALUES (?1)`, key); err != nil {
					b.Fatal(err)
				}
				events, _ := json.Marshal(lines)
				if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_events(session_key, seq, event) SELECT ?1, key, value FROM json_each(?2)`, key, string(events)); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Reconcile(ctx, 1e9); err != nil {
			b.Fatal(err)
		}
		// What a search reads is in the database file, not the log.
		if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		return db, ctx
	}
	sizes := func(b *testing.B, db *driver.DB) {
		indexes := []string{"sessionsearch_fts"}
		if on, err := db.ToolIndex(context.Background()); err != nil {
			b.Fatal(err)
		} else if on {
			indexes = append(indexes, "sessionsearch_tools")
		}
		for _, fts := range indexes {
			var n float64
			if err := db.QueryRow(`SELECT (SELECT sum(length(block)) FROM ` + fts + `_data) + (SELECT coalesce(sum(length(sz)), 0) FROM ` + fts + `_docsize)`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(n/1024, fts[len("sessionsearch_"):]+"_KiB")
		}
	}
	for _, tools := range []bool{false, true} {
		b.Run(fmt.Sprintf("build/tools=%s", onOff(tools)), func(b *testing.B) {
			var db *driver.DB
			for b.Loop() {
				db, _ = build(b, tools)
			}
			sizes(b, db)
		})
	}
	db, ctx := build(b, true)
	for _, fts := range []string{"sessionsearch_fts", "sessionsearch_tools"} {
		b.Run("rebuild/"+fts[len("sessionsearch_"):], func(b *testing.B) {
			for b.Loop() {
				if _, err := db.ExecContext(ctx, `INSERT INTO `+fts+`(`+fts+`) VALUES ('rebuild')`); err != nil {
					b.Fatal(err)
				}
			}
			sizes(b, db)
		})
	}
	queries := []string{"gateway", "error", "config", "telegram", "session", "file", "exec", "memory"}
	search := func(db *driver.DB, scope []string) func(b *testing.B) {
		return func(b *testing.B) {
			hits := 0
			for b.Loop() {
				for _, q := range queries {
					res, err := db.Search(ctx, q, driver.SearchOptions{Options: driver.Options{Caller: "agent:main:main", Visibility: "all"}, Scope: scope})
					if err != nil {
						b.Fatal(err)
					}
					hits += len(res.Results)
				}
			}
			if hits == 0 {
				b.Fatal("no hits")
			}
			sizes(b, db)
		}
	}
	// Two stores of the same transcripts, without and with the tool index.
	off, _ := build(b, false)
	on, _ := build(b, true)
	b.Run("search/default/tools=off", search(off, nil))
	b.Run("search/default/tools=on", search(on, nil))
	b.Run("search/tools", search(on, []string{"toolCalls", "toolResults"}))
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func readLines(b *testing.B, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			out = append(out, sc.Text())
		}
	}
	return out
}
