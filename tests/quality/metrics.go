package main

import (
	"slices"
)

// Ranked is an answer mapped onto LoCoMo: the turns of the returned
// messages and the returned sessions, each in the order the system gave.
type Ranked struct {
	Turns    []TurnRef
	Sessions []SessionRef
	Bytes    int
}

// Score is how one answer did on one question (docs/quality.md QB3).
type Score struct {
	Hit1     bool    // the first message returned is an evidence turn
	Recall5  float64 // the share of the evidence turns among the first 5 messages
	Recall10 float64 // the same among the first 10
	Session1 bool    // the first session returned holds evidence
	Session5 bool    // one of the first 5 distinct sessions holds evidence
	Empty    bool    // nothing was returned
	First    int     // the rank of the first evidence message, from 1; 0 when none
	Bytes    int
}

// ScoreAnswer scores r against q's evidence.
func ScoreAnswer(q Question, r Ranked) Score {
	evidence := map[TurnRef]bool{}
	sessions := map[SessionRef]bool{}
	for _, t := range q.Evidence {
		evidence[TurnRef{q.Conversation, t}] = true
		sessions[SessionRef{q.Conversation, t.Session}] = true
	}
	s := Score{Empty: len(r.Turns) == 0 && len(r.Sessions) == 0, Bytes: r.Bytes}
	found := func(k int) float64 {
		seen := map[TurnRef]bool{}
		for _, t := range r.Turns[:min(k, len(r.Turns))] {
			if evidence[t] {
				seen[t] = true
			}
		}
		return float64(len(seen)) / float64(len(evidence))
	}
	s.Recall5, s.Recall10 = found(5), found(10)
	for i, t := range r.Turns {
		if evidence[t] {
			s.First = i + 1
			break
		}
	}
	s.Hit1 = s.First == 1
	for i, sr := range r.Sessions[:min(5, len(r.Sessions))] {
		if sessions[sr] {
			s.Session1 = s.Session1 || i == 0
			s.Session5 = true
		}
	}
	return s
}

// Summary is a set of scores in percent, as the tables show them.
type Summary struct {
	N           int     `json:"n"`
	Hit1        float64 `json:"hit@1"`
	Recall5     float64 `json:"recall@5"`
	Recall10    float64 `json:"recall@10"`
	Session1    float64 `json:"session@1"`
	Session5    float64 `json:"session@5"`
	Empty       float64 `json:"empty%"`
	MeanBytes   float64 `json:"meanBytes"`
	MedianBytes int     `json:"medianBytes"`
}

// Summarize averages scores; an empty set gives the zero Summary.
func Summarize(scores []Score) Summary {
	s := Summary{N: len(scores)}
	if len(scores) == 0 {
		return s
	}
	pct := func(b bool) float64 {
		if b {
			return 100
		}
		return 0
	}
	var bytes []int
	for _, sc := range scores {
		s.Hit1 += pct(sc.Hit1)
		s.Recall5 += 100 * sc.Recall5
		s.Recall10 += 100 * sc.Recall10
		s.Session1 += pct(sc.Session1)
		s.Session5 += pct(sc.Session5)
		s.Empty += pct(sc.Empty)
		s.MeanBytes += float64(sc.Bytes)
		bytes = append(bytes, sc.Bytes)
	}
	n := float64(len(scores))
	s.Hit1, s.Recall5, s.Recall10 = s.Hit1/n, s.Recall5/n, s.Recall10/n
	s.Session1, s.Session5, s.Empty, s.MeanBytes = s.Session1/n, s.Session5/n, s.Empty/n, s.MeanBytes/n
	slices.Sort(bytes)
	s.MedianBytes = bytes[len(bytes)/2]
	return s
}
