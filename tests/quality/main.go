// Command quality measures how well sessionsearch, and the peers given to it,
// find the answers to LoCoMo's questions (docs/quality.md): it writes
// LoCoMo's sessions as Claude Code session files under a temporary home,
// imports them with `sessionsearch import`, asks every question with
// evidence as it is and as its content words, and prints the table of
// hit@1, recall@5/10, session@1/5, empty answers and the answer's size,
// overall and by LoCoMo category, for each system. `make bench-quality`
// runs it; run from tests/quality, relative paths are from the repository's
// root.
//
//	go run -tags sqlite_fts5 . -locomo ../shared/data/locomo/locomo10.zip \
//	    -variants '{"default":{},"grouped":{"group":"session"}}' \
//	    -deja /path/to/deja -agentsview /path/to/agentsview
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// limit is how many results every system is asked for.
const limit = 25

// repoRoot is the repository's root, seen from this command's directory.
const repoRoot = "../.."

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quality:", err)
		os.Exit(1)
	}
}

// config is what a run measures and where its output goes.
type config struct {
	locomo, sessionsearch, deja, agentsview string
	variants                                []benchenv.Variant
	jsonOut, work                           string
	parallel                                int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("quality", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	var c config
	fs.StringVar(&c.locomo, "locomo", env("LOCOMO_ZIP", "../shared/data/locomo/locomo10.zip"), "LoCoMo's locomo10.zip (env LOCOMO_ZIP)")
	fs.StringVar(&c.sessionsearch, "sessionsearch", env("SESSIONSEARCH_BIN", "bin/sessionsearch"), "the sessionsearch binary that imports (env SESSIONSEARCH_BIN)")
	fs.StringVar(&c.deja, "deja", os.Getenv("DEJAVU_BIN"), "deja-vu's deja binary, measured when given (env DEJAVU_BIN)")
	fs.StringVar(&c.agentsview, "agentsview", os.Getenv("AGENTSVIEW_BIN"), "agentsview's binary, measured when given (env AGENTSVIEW_BIN)")
	variants := fs.String("variants", os.Getenv("SESSIONSEARCH_BENCH_VARIANTS"),
		`named option sets of sessions_search, each measured: {"name":{options},...} (env SESSIONSEARCH_BENCH_VARIANTS; default `+benchenv.DefaultVariants+`)`)
	fs.StringVar(&c.jsonOut, "json", env("QUALITY_JSON", "bin/bench-quality.json"), "where the JSON of the run is written (env QUALITY_JSON)")
	fs.StringVar(&c.work, "work", os.Getenv("QUALITY_WORK"), "a directory to keep the home, the database and the peers' indexes in (env QUALITY_WORK; default a temporary one, removed)")
	fs.IntVar(&c.parallel, "parallel", 4, "how many queries are asked at a time")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.parallel < 1 {
		return c, fmt.Errorf("-parallel must be at least 1, got %d", c.parallel)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if c.variants, err = benchenv.ParseVariants(*variants); err != nil {
		return c, fmt.Errorf("-variants: %w", err)
	}
	for _, p := range []*string{&c.locomo, &c.sessionsearch, &c.deja, &c.agentsview, &c.jsonOut, &c.work} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(repoRoot, *p)
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	convs, err := ReadLoCoMo(c.locomo)
	if err != nil {
		return err
	}
	work := c.work
	if work == "" {
		if work, err = os.MkdirTemp("", "sessionsearch-quality-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	corpus, err := WriteClaudeCode(filepath.Join(work, "home"), convs)
	if err != nil {
		return err
	}
	progress := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	start := time.Now()
	dbPath := filepath.Join(work, "sessionsearch.db")
	if err := os.Remove(dbPath); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := ImportSessionsearch(ctx, c.sessionsearch, dbPath, corpus); err != nil {
		return err
	}
	progress("sessionsearch: imported %d sessions in %v", len(corpus.Sessions), time.Since(start).Round(time.Millisecond))
	systems, closeDB, err := NewSessionsearch(dbPath, corpus, c.variants)
	if err != nil {
		return err
	}
	defer closeDB()
	peers, err := StartPeers(ctx, c, work, corpus, progress)
	if err != nil {
		return err
	}
	defer peers.Close()
	systems = append(systems, peers.Systems...)
	questions := Evaluable(convs)
	res := Results{Questions: len(questions), Sessions: len(corpus.Sessions), Limit: limit, Variants: c.variants}
	for _, s := range systems {
		t0 := time.Now()
		rows, records, err := Measure(ctx, s, questions, c.parallel)
		if err != nil {
			return err
		}
		res.Rows = append(res.Rows, rows...)
		res.PerQuestion = append(res.PerQuestion, records...)
		progress("%s: %d questions in two forms in %v", s.Name(), len(questions), time.Since(t0).Round(time.Millisecond))
	}
	WriteMarkdown(stdout, res)
	js, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.jsonOut), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(c.jsonOut, js, 0o644); err != nil {
		return err
	}
	progress("wrote %s", c.jsonOut)
	return nil
}
