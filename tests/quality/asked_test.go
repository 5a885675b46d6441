package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessionsearch/sessionsearch/internal/benchenv"
)

// docs/quality.md QB9: a variant whose now is "asked" reads the question's
// time phrases as of its conversation's end; without it, as of the clock.
func TestAskedAt(t *testing.T) {
	ctx := context.Background()
	convs, err := ReadLoCoMo(testZip(t, map[string]string{"77.json": testConversation}))
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := WriteClaudeCode(filepath.Join(t.TempDir(), "home"), convs)
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "s.db")
	if err := ImportSessionsearch(ctx, binary, dbPath, corpus); err != nil {
		t.Fatal(err)
	}
	variants, err := benchenv.ParseVariants(`{"asked":{"syntax":"query","match":"relaxed","timePhrases":true,"now":"asked"},` +
		`"clock":{"syntax":"query","match":"relaxed","timePhrases":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	systems, closeDB, err := NewSessionsearch(dbPath, corpus, variants)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	// Asked on 2 June 2023, "last month" is May 2023, when Ana spoke of Pixel.
	at := convs[0].Questions[0].At
	const q = "greyhound Pixel last month"
	asked, err := systems[0].Ask(ctx, q, at)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(asked.Turns, TurnRef{"77", TurnID{1, 1}}) {
		t.Errorf("%s asked at %s: %v, want D1:1 among them", systems[0].Name(), at, asked.Turns)
	}
	clock, err := systems[1].Ask(ctx, q, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(clock.Turns) != 0 {
		t.Errorf("%s: %v, want nothing from last month of the clock's", systems[1].Name(), clock.Turns)
	}
}
