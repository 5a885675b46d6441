package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TurnID names a dialog turn of a conversation as LoCoMo's evidence does:
// D<Session>:<Turn>.
type TurnID struct{ Session, Turn int }

func (t TurnID) String() string { return fmt.Sprintf("D%d:%d", t.Session, t.Turn) }

// Conversation is one LoCoMo conversation: two speakers, their sessions in
// order and the questions asked of them.
type Conversation struct {
	ID                 string // the file's name without .json ("26")
	SpeakerA, SpeakerB string
	Sessions           []Session
	Questions          []Question
}

// Session is one dated session of a conversation.
type Session struct {
	N     int
	Start time.Time
	Turns []Turn
}

// Turn is one thing a speaker said.
type Turn struct {
	ID      TurnID
	Speaker string
	Text    string
}

// Question is one question of a conversation with the turns that answer it.
// Index is its place among the conversation's questions, from 0, so that a
// run's per-question records can be told apart.
type Question struct {
	Conversation string
	Index        int
	Text         string
	Category     int
	Evidence     []TurnID
	// At is when the question is asked: the time of its conversation's
	// last turn as WriteClaudeCode writes it, for a system that reads
	// the question's time phrases ("last week") relative to it.
	At time.Time
}

// Categories are LoCoMo's question categories by number, named as the
// dataset's users name them (deja-vu's scripts/locomo among them): the
// dataset itself carries only the numbers.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// dateLayout is how LoCoMo writes a session's date: "1:56 pm on 8 May, 2023".
const dateLayout = "3:04 pm on 2 January, 2006"

var (
	sessionKey = regexp.MustCompile(`^session_(\d+)$`)
	turnRef    = regexp.MustCompile(`D(\d+):(\d+)`)
)

// ReadLoCoMo reads every conversation of the zip file at zipPath, one JSON
// file each (LoCoMo's data/multimodal_dialog/locomo10_v2/), in the order of
// their names. Evidence is read as every D<session>:<turn> its strings hold
// ("D8:6; D9:17" is two turns, "D30:05" is D30:5); a reference to a turn the
// conversation does not have is dropped, and a question left without
// evidence is kept with none (Evaluable leaves it out).
func ReadLoCoMo(zipPath string) ([]Conversation, error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, fmt.Errorf("LoCoMo: %w", err)
	}
	defer zr.Close()
	var convs []Conversation
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || path.Ext(f.Name) != ".json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("LoCoMo %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("LoCoMo %s: %w", f.Name, err)
		}
		c, err := parseConversation(strings.TrimSuffix(path.Base(f.Name), ".json"), data)
		if err != nil {
			return nil, fmt.Errorf("LoCoMo %s: %w", f.Name, err)
		}
		convs = append(convs, c)
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("LoCoMo: %s holds no conversation (.json file)", zipPath)
	}
	slices.SortFunc(convs, func(a, b Conversation) int { return strings.Compare(a.ID, b.ID) })
	return convs, nil
}

// parseConversation reads one conversation file of LoCoMo.
func parseConversation(id string, data []byte) (Conversation, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Conversation{}, err
	}
	c := Conversation{ID: id}
	if err := json.Unmarshal(raw["speaker_a"], &c.SpeakerA); err != nil {
		return c, fmt.Errorf("speaker_a: %w", err)
	}
	if err := json.Unmarshal(raw["speaker_b"], &c.SpeakerB); err != nil {
		return c, fmt.Errorf("speaker_b: %w", err)
	}
	turns := map[TurnID]bool{}
	for key, value := range raw {
		m := sessionKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var lines []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal(value, &lines); err != nil {
			return c, fmt.Errorf("%s: %w", key, err)
		}
		if len(lines) == 0 {
			continue
		}
		var date string
		if err := json.Unmarshal(raw[key+"_date_time"], &date); err != nil {
			return c, fmt.Errorf("%s_date_time: %w", key, err)
		}
		start, err := time.Parse(dateLayout, date)
		if err != nil {
			return c, fmt.Errorf("%s_date_time: %w", key, err)
		}
		s := Session{N: n, Start: start}
		for _, l := range lines {
			ids := parseTurnIDs(l.DiaID)
			if len(ids) != 1 || ids[0].Session != n {
				return c, fmt.Errorf("%s: dia_id %q is not a turn of session %d", key, l.DiaID, n)
			}
			if l.Speaker != c.SpeakerA && l.Speaker != c.SpeakerB {
				return c, fmt.Errorf("%s: turn %s: speaker %q is neither %q nor %q", key, l.DiaID, l.Speaker, c.SpeakerA, c.SpeakerB)
			}
			s.Turns = append(s.Turns, Turn{ID: ids[0], Speaker: l.Speaker, Text: l.Text})
			turns[ids[0]] = true
		}
		c.Sessions = append(c.Sessions, s)
	}
	slices.SortFunc(c.Sessions, func(a, b Session) int { return a.N - b.N })
	var qa []struct {
		Question string   `json:"question"`
		Category int      `json:"category"`
		Evidence []string `json:"evidence"`
	}
	if err := json.Unmarshal(raw["qa"], &qa); err != nil {
		return c, fmt.Errorf("qa: %w", err)
	}
	var at time.Time
	if n := len(c.Sessions); n > 0 {
		last := c.Sessions[n-1]
		at = last.Start.Add(time.Duration(len(last.Turns)-1) * turnGap)
	}
	for i, q := range qa {
		if Categories[q.Category] == "" {
			return c, fmt.Errorf("qa %d: category %d is not one of 1..5", i, q.Category)
		}
		question := Question{Conversation: id, Index: i, Text: q.Question, Category: q.Category, At: at}
		for _, e := range q.Evidence {
			for _, t := range parseTurnIDs(e) {
				if turns[t] && !slices.Contains(question.Evidence, t) {
					question.Evidence = append(question.Evidence, t)
				}
			}
		}
		c.Questions = append(c.Questions, question)
	}
	return c, nil
}

// parseTurnIDs returns every D<session>:<turn> of s.
func parseTurnIDs(s string) []TurnID {
	var out []TurnID
	for _, m := range turnRef.FindAllStringSubmatch(s, -1) {
		session, _ := strconv.Atoi(m[1])
		turn, _ := strconv.Atoi(m[2])
		out = append(out, TurnID{session, turn})
	}
	return out
}

// Evaluable returns the questions of convs that have evidence, in order.
func Evaluable(convs []Conversation) []Question {
	var out []Question
	for _, c := range convs {
		for _, q := range c.Questions {
			if len(q.Evidence) > 0 {
				out = append(out, q)
			}
		}
	}
	return out
}
