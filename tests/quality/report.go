package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// The two forms each question is asked in (docs/quality.md QB2).
const (
	FormQuestion = "question"      // the question as LoCoMo writes it
	FormContent  = "content words" // its content words (ContentWords)
)

// Results is one run: the summary rows and each question's record.
type Results struct {
	Questions   int                `json:"questions"`
	Sessions    int                `json:"sessions"`
	Limit       int                `json:"limit"`
	Variants    []benchenv.Variant `json:"variants"`
	Rows        []Row              `json:"rows"`
	PerQuestion []Record           `json:"perQuestion"`
}

// Row is one system's summary for one form: overall, and by category.
type Row struct {
	System     string             `json:"system"`
	Form       string             `json:"form"`
	All        Summary            `json:"all"`
	ByCategory map[string]Summary `json:"byCategory"`
}

// Record is how one system did on one question in one form.
type Record struct {
	System       string  `json:"system"`
	Form         string  `json:"form"`
	Conversation string  `json:"conversation"`
	Index        int     `json:"index"`
	Category     int     `json:"category"`
	Query        string  `json:"query"`
	First        int     `json:"first"`
	Recall5      float64 `json:"recall@5"`
	Session1     bool    `json:"session@1"`
	Session5     bool    `json:"session@5"`
	Empty        bool    `json:"empty"`
	Bytes        int     `json:"bytes"`
}

// Measure asks s every question in both forms, parallel queries at a
// time. A question without content words is not asked in that form and
// counts as an empty answer.
func Measure(ctx context.Context, s System, questions []Question, parallel int) ([]Row, []Record, error) {
	var rows []Row
	var records []Record
	for _, form := range []string{FormQuestion, FormContent} {
		queries := make([]string, len(questions))
		for i, q := range questions {
			queries[i] = q.Text
			if form == FormContent {
				queries[i] = ""
				if words := ContentWords(q.Text); len(words) > 0 {
					queries[i] = s.ContentQuery(words)
				}
			}
		}
		answers, err := askAll(ctx, s, queries, questions, parallel)
		if err != nil {
			return nil, nil, err
		}
		var all []Score
		byCat := map[int][]Score{}
		for i, q := range questions {
			sc := ScoreAnswer(q, answers[i])
			all = append(all, sc)
			byCat[q.Category] = append(byCat[q.Category], sc)
			records = append(records, Record{s.Name(), form, q.Conversation, q.Index, q.Category, queries[i],
				sc.First, sc.Recall5, sc.Session1, sc.Session5, sc.Empty, sc.Bytes})
		}
		row := Row{System: s.Name(), Form: form, All: Summarize(all), ByCategory: map[string]Summary{}}
		for cat, scores := range byCat {
			row.ByCategory[Categories[cat]] = Summarize(scores)
		}
		rows = append(rows, row)
	}
	return rows, records, nil
}

// askAll asks s each query, as of its question's time, parallel at a
// time; an empty query is not asked and gets the empty answer. It stops at the first error.
func askAll(ctx context.Context, s System, queries []string, questions []Question, parallel int) ([]Ranked, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make([]Ranked, len(queries))
	next := make(chan int)
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				if queries[i] == "" {
					continue
				}
				r, err := s.Ask(ctx, queries[i], questions[i].At)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				answers[i] = r
			}
		})
	}
feed:
	for i := range queries {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
		return answers, ctx.Err()
	}
}

// WriteMarkdown writes the run's tables: every system and form overall,
// then by category.
func WriteMarkdown(w io.Writer, res Results) {
	fmt.Fprintf(w, "LoCoMo: %d questions with evidence over %d sessions, %d results per query.\n\n", res.Questions, res.Sessions, res.Limit)
	fmt.Fprintln(w, "| system | query | hit@1 | recall@5 | recall@10 | session@1 | session@5 | empty | answer bytes, mean / median |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range res.Rows {
		s := r.All
		fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f%% | %.0f / %d |\n",
			r.System, r.Form, s.Hit1, s.Recall5, s.Recall10, s.Session1, s.Session5, s.Empty, s.MeanBytes, s.MedianBytes)
	}
	cats := slices.Sorted(maps.Keys(Categories))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| system | query | category | questions | hit@1 | recall@5 | recall@10 | session@1 | session@5 | empty |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range res.Rows {
		for _, c := range cats {
			s := r.ByCategory[Categories[c]]
			fmt.Fprintf(w, "| %s | %s | %d %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f%% |\n",
				r.System, r.Form, c, Categories[c], s.N, s.Hit1, s.Recall5, s.Recall10, s.Session1, s.Session5, s.Empty)
		}
	}
}
