// Package agents drives real agent programs, installed from npm at pinned
// versions (package.json), offline against a scripted model on 127.0.0.1
// (internal/scriptmodel), and checks what sessionsearch finds in the session
// files they wrote (make test-agents; docs/contributing.md says how to add
// an agent).
package agents

import (
	"slices"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/scriptmodel"
)

// The conversation every agent has: a first turn whose model thinks, reads
// a file with the agent's own tool, thinks again and answers, then a resume
// whose model thinks and answers. Each message has its own words in Thai,
// Japanese and Hindi and a Latin marker; each word is in one message only.
var (
	// What the user says and the model answers: search finds each word
	// once.
	turn1   = words{"alphaprompt", "มะละกอ", "紫陽花", "पुस्तकालय"}
	answer1 = words{"bravoanswer", "มังคุด", "向日葵", "बगीचा"}
	turn2   = words{"charlieprompt", "ลำไย", "朝顔", "पहाड़"}
	answer2 = words{"deltaanswer", "เงาะ", "桜餅", "नदी"}

	// What the model thinks and what the tool reads: kept in the store,
	// never found.
	thinking1 = words{"thinkquartz", "ทุเรียน"}
	thinking2 = words{"thinkjade", "蜻蛉"}
	thinking3 = words{"thinkonyx", "तितली"}
	toolOut   = words{"quokkasecret", "ความลับ", "秘密の鍵", "गुप्त"}
)

// ledgerName is the file the model reads: the tool call's arguments name
// it, so its word "zephyr" is kept and never found either.
const (
	ledgerName = "zephyr-ledger.txt"
	argWord    = "zephyr"
)

type words []string

func (w words) text() string { return strings.Join(w, " ") }

// ledger is the content of the file the model reads.
func ledger() string { return "ledger " + toolOut.text() + "\n" }

// said are the words search must find once; hidden the words it must not
// find although the store keeps them.
func said() []string {
	var out []string
	for _, w := range []words{turn1, answer1, turn2, answer2} {
		out = append(out, w...)
	}
	return out
}

// thought reports whether w is a word of the model's thinking.
func thought(w string) bool {
	return slices.Contains(thinking1, w) || slices.Contains(thinking2, w) || slices.Contains(thinking3, w)
}

func hidden() []string {
	var out []string
	for _, w := range []words{thinking1, thinking2, thinking3, toolOut} {
		out = append(out, w...)
	}
	return append(out, argWord)
}

// script is the model's side of the conversation; read is the agent's tool
// call that reads the ledger.
func script(read scriptmodel.Call) scriptmodel.Script {
	return scriptmodel.Script{Turns: []scriptmodel.Turn{
		{Prompt: turn1[0], Steps: []scriptmodel.Step{
			{Thinking: thinking1.text(), Call: &read},
			{Thinking: thinking2.text(), Text: answer1.text()},
		}},
		{Prompt: turn2[0], Steps: []scriptmodel.Step{
			{Thinking: thinking3.text(), Text: answer2.text()},
		}},
	}}
}
