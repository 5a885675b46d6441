package agents

import (
	"os/exec"
	"reflect"
	"testing"
)

// TestResumeCommand: each agent's command, in its project's directory; a
// Claude Code sub-agent resumes its parent; OpenClaw's keys resume by key;
// hostile ids and directories are quoted for the shell or refused.
func TestResumeCommand(t *testing.T) {
	for _, c := range []struct {
		key, cwd string
		argv     []string
		shell    string
	}{
		{"agent:claude-code:5b1e0c2a-1111-4222-8333-944445555666", "/home/ana/src/app",
			[]string{"claude", "--resume", "5b1e0c2a-1111-4222-8333-944445555666"}, "cd /home/ana/src/app && claude --resume 5b1e0c2a-1111-4222-8333-944445555666"},
		{"agent:claude-code:5b1e:subagent:a77", "/src",
			[]string{"claude", "--resume", "5b1e"}, "cd /src && claude --resume 5b1e"},
		{"agent:codex:0199a1b2-c3d4", "", []string{"codex", "resume", "0199a1b2-c3d4"}, "codex resume 0199a1b2-c3d4"},
		{"agent:gemini:9f8e", "/home/ana/my project", []string{"gemini", "--resume", "9f8e"}, "cd '/home/ana/my project' && gemini --resume 9f8e"},
		{"agent:opencode:ses_4a3b", "", []string{"opencode", "--session", "ses_4a3b"}, "opencode --session ses_4a3b"},
		{"agent:hermes:20260301_120000_ab12", "", []string{"hermes", "--resume", "20260301_120000_ab12"}, "hermes --resume 20260301_120000_ab12"},
		{"Agent:Codex:X1", "", []string{"codex", "resume", "X1"}, "codex resume X1"},
		{"agent:main:telegram:alice", "/ignored", []string{"openclaw", "resume", "agent:main:telegram:alice"}, "openclaw resume agent:main:telegram:alice"},
		{"agent:ops:main", "", []string{"openclaw", "resume", "agent:ops:main"}, "openclaw resume agent:ops:main"},
		{"agent:claude-code:x", "/tmp/$(touch pwned)'; rm -rf ~", []string{"claude", "--resume", "x"},
			`cd '/tmp/$(touch pwned)'\''; rm -rf ~' && claude --resume x`},
	} {
		r, ok := ResumeCommand(c.key, c.cwd)
		if !ok || !reflect.DeepEqual(r.Argv, c.argv) || r.Shell() != c.shell {
			t.Errorf("ResumeCommand(%q, %q) = %q %q %v, want %q %q", c.key, c.cwd, r.Argv, r.Shell(), ok, c.argv, c.shell)
		}
	}
	for _, c := range []struct{ key, cwd string }{
		{"agent:codex:", ""},                       // no id
		{"agent:codex:abc\u202Edef", ""},           // a bidi override
		{"agent:claude-code:x", "/src\n rm -rf ~"}, // a line break
		{"agent:main:x\x1b[31m", ""},               // an escape sequence
	} {
		if r, ok := ResumeCommand(c.key, c.cwd); ok {
			t.Errorf("ResumeCommand(%q, %q) = %q, want none", c.key, c.cwd, r.Shell())
		}
	}
}

// TestResumeShellWords: the quoted line, read by a real shell, gives back
// the words, whatever characters they hold.
func TestResumeShellWords(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/it's a \"dir\" with $HOME and `x` ; & | < > * ? [a] {b} ~ # é 東京"
	r := Resume{Argv: []string{"printf", "%s\\n", "a b", "'", `"`, "$(id)", "", "ok"}, Dir: dir}
	// mkdir first, so that the cd succeeds, then run the line.
	out, err := exec.Command(sh, "-c", "mkdir -p "+shellWord(dir)+" && "+r.Shell()+" && pwd").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.Shell(), err, out)
	}
	want := "a b\n'\n\"\n$(id)\n\nok\n" + dir + "\n"
	if string(out) != want {
		t.Errorf("%s printed %q, want %q", r.Shell(), out, want)
	}
}
