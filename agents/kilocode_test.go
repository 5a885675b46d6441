package agents

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The database Kilo Code 7.7.9 wrote in make test-agents' conversation,
// after the first turn and after the resume (testdata/REAL.md).
const (
	kiloStore   = "testdata/kilo-code-7.7.9"
	kiloSession = "ses_daf345988ffepvQxSPllrwKRPC"
)

// docs/agents/kilo-code.md AK2-AK3: each database is one transcript keyed
// agent:kilo-code:<id> in its project; what the user and the model said is
// searchable, thinking, the read call and its result are kept and not; the
// resume's database holds the first turn's events, byte for byte, first.
func TestKiloCodeRealSessions(t *testing.T) {
	turn := map[string][][]byte{}
	for _, name := range []string{"turn1", "turn2"} {
		db := filepath.Join(kiloStore, name, "kilo.db")
		if g := Claimed(db); g == nil || g.Agent != KiloCode {
			t.Errorf("%s is claimed by %v, want kilo-code", db, g)
		}
		trs, problems := Lookup(KiloCode).List(context.Background(), db, ocEnv(nil))
		if len(problems) != 0 || len(trs) != 1 {
			t.Fatalf("%s: List = %d transcripts, problems %v; want 1, none", name, len(trs), problems)
		}
		tr := trs[0]
		if tr.Agent != KiloCode || tr.Session.Key != "agent:kilo-code:"+kiloSession || tr.Project != "/tmp/i26d/out-kilo/proj" ||
			tr.Session.CreatedAt == 0 || tr.Gen == "" {
			t.Errorf("%s: transcript %+v, want agent kilo-code, key agent:kilo-code:%s, its project, a start and a fingerprint", name, tr, kiloSession)
		}
		events, bad := read(t, tr, -1)
		if len(bad) != 0 {
			t.Errorf("%s: bad records %v", name, bad)
		}
		if !strings.Contains(string(events[0]), `"agent":"kilo-code"`) {
			t.Errorf("%s: header %s, want agent kilo-code", name, events[0])
		}
		turn[name] = events
	}
	first := []string{
		`S user: "alphaprompt มะละกอ 紫陽花 पुस्तकालय"`,
		"  assistant: ", // thinking and the read call
		"  toolResult: <path>/tmp/i26d/out-kilo/proj/zephyr-ledger.txt</path>\n<type>file</type>\n<content>\n1: ledger quokkasecret ความลับ 秘密の鍵 गुप्त\n\n(End of file - total 1 lines)\n</content>",
		"S assistant: bravoanswer มังคุด 向日葵 बगीचा",
	}
	ccCheckPath(t, "turn1", turn["turn1"], first)
	ccCheckPath(t, "turn2", turn["turn2"], append(first,
		`S user: "charlieprompt ลำไย 朝顔 पहाड़"`,
		"S assistant: deltaanswer เงาะ 桜餅 नदी"))
	if n := len(turn["turn1"]); n >= len(turn["turn2"]) {
		t.Fatalf("the resume's database has %d events, the first turn's %d", len(turn["turn2"]), n)
	}
	for i, e := range turn["turn1"] {
		if !bytes.Equal(e, turn["turn2"][i]) {
			t.Errorf("event %d changed on the resume:\n%s\n%s", i, e, turn["turn2"][i])
		}
	}
}

// docs/agents/kilo-code.md AK1: Kilo Code's data directory and databases
// are its own, never OpenCode's, and OpenCode's never Kilo Code's.
func TestKiloCodeRootsAndClaims(t *testing.T) {
	roots := func(vars map[string]string) []string { return Lookup(KiloCode).Roots(ocEnv(vars)) }
	for _, tt := range []struct {
		vars map[string]string
		want []string
	}{
		{nil, []string{"/home/ana/.local/share/kilo"}},
		{map[string]string{"XDG_DATA_HOME": "/data"}, []string{"/data/kilo"}},
		{map[string]string{"KILO_DB": "kilo.db"}, []string{"/home/ana/.local/share/kilo"}},
		{map[string]string{"KILO_DB": "/srv/k.db"}, []string{"/home/ana/.local/share/kilo", "/srv/k.db"}},
		{map[string]string{"OPENCODE_DB": "/srv/oc.db"}, []string{"/home/ana/.local/share/kilo"}},
	} {
		if got := roots(tt.vars); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Roots(%v) = %q, want %q", tt.vars, got, tt.want)
		}
	}
	dir := t.TempDir()
	kiloDB := filepath.Join(dir, "share", "kilo", "kilo.db")
	copyFile(t, filepath.Join(kiloStore, "turn1", "kilo.db"), kiloDB)
	channel := filepath.Join(dir, "kilo-beta.db")
	copyFile(t, filepath.Join(kiloStore, "turn1", "kilo.db"), channel)
	renamed := filepath.Join(dir, "backup.sqlite")
	copyFile(t, filepath.Join(kiloStore, "turn1", "kilo.db"), renamed)
	ocDB := filepath.Join(dir, "oc", "opencode.db")
	copyFile(t, filepath.Join(kiloStore, "turn1", "kilo.db"), ocDB)
	for path, want := range map[string]string{
		kiloDB: KiloCode, filepath.Dir(kiloDB): KiloCode, channel: KiloCode,
		filepath.Join(dir, "share", "kilo", "storage", "session_diff", "x.json"): KiloCode,
		renamed: KiloCode, // by its schema's kilo_board
		ocDB:    OpenCode, // by its name
	} {
		if g := Claimed(path); g == nil || g.Agent != want {
			t.Errorf("%s is claimed by %v, want %s", path, g, want)
		}
	}
	// Beside its database, Kilo Code's storage/ holds session_diff/ and no
	// session/: no sessions there, and no problem.
	writeTestFile(t, filepath.Join(dir, "share", "kilo", "storage", "session_diff", kiloSession+".json"), "[]")
	trs, problems := Lookup(KiloCode).List(context.Background(), filepath.Dir(kiloDB), ocEnv(nil))
	if len(problems) != 0 || len(trs) != 1 || trs[0].Session.Key != "agent:kilo-code:"+kiloSession {
		t.Errorf("the data directory: %d transcripts, problems %v", len(trs), problems)
	}
	if _, problems := Lookup(KiloCode).List(context.Background(), t.TempDir(), ocEnv(nil)); len(problems) != 1 ||
		!strings.Contains(problems[0].Error(), "no Kilo Code store here: no kilo.db, kilo-<channel>.db or storage/") {
		t.Errorf("a directory without a store: problems %v", problems)
	}
}
