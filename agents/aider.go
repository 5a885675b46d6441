package agents

// Aider (Aider-AI/aider) keeps no store of its own: each repository it works
// in gets a Markdown log, .aider.chat.history.md, to which every run of
// aider appends. A run starts with "# aider chat started at <local time>";
// what the user typed is written as "#### " lines, the model's answers as
// plain text, and aider's own output as "> " lines (aider/io.py
// append_chat_history). The mapping is docs/agents/aider.md (rules
// AA1..AA8).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{Agent: Aider, Roots: aiderRoots, Claims: aiderClaims, List: aiderList})
}

// aiderHistoryName is the file aider writes in the root of the repository
// it works in (its --chat-history-file default). docs/agents/aider.md AA1.
const aiderHistoryName = ".aider.chat.history.md"

// aiderRunPrefix starts each run (io.py InputOutput.__init__).
const aiderRunPrefix = "# aider chat started at "

// aiderRoots: aider has no central store; $AIDER_CHAT_HISTORY_FILE, when
// it is an absolute path, names the one file every run writes to.
// docs/agents/aider.md AA1.
func aiderRoots(env Env) []string {
	if v := strings.TrimSpace(env.getenv("AIDER_CHAT_HISTORY_FILE")); filepath.IsAbs(v) {
		return []string{v}
	}
	return nil
}

// aiderClaims: a file named .aider.chat.history.md, a directory that holds
// one, or a file of another name that starts with a run header (one
// --chat-history-file names). docs/agents/aider.md AA1.
func aiderClaims(path string) bool {
	if filepath.Base(filepath.Clean(path)) == aiderHistoryName {
		return true
	}
	st, err := os.Stat(filepath.Join(path, aiderHistoryName))
	if err == nil && st.Mode().IsRegular() {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	return bytes.HasPrefix(bytes.TrimLeft(head[:n], "\r\n"), []byte(aiderRunPrefix))
}

// aiderList lists the runs of one history file (or of the one in a
// directory) that hold a conversation, one transcript each.
func aiderList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a root need not exist
		}
		return nil, []Problem{{Path: path, Err: err}}
	}
	if st.IsDir() {
		path = filepath.Join(path, aiderHistoryName)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	defer f.Close()
	runs, err := aiderRuns(ctx, f)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	if len(runs) == 0 {
		if st, err := f.Stat(); err == nil && st.Size() > 0 {
			return nil, []Problem{{Path: path, Err: errors.New("aider: no \"" + strings.TrimSpace(aiderRunPrefix) + "\" line: not an aider chat history")}}
		}
		return nil, nil
	}
	pathSum := sha256.Sum256([]byte(abs))
	project := filepath.Dir(abs)
	seen := map[string]int{}
	var out []Transcript
	for _, r := range runs {
		if !r.talk {
			continue // AA2: a run without a word of the user or the model is no session
		}
		id := r.id(hex.EncodeToString(pathSum[:4]))
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id = fmt.Sprintf("%s-%d", id, n+1)
		} else {
			seen[id] = 1
		}
		r := r
		out = append(out, Transcript{
			Agent:   Aider,
			Path:    path,
			Unit:    id,
			Session: store.Session{Key: Key(Aider, id), CreatedAt: r.start},
			Project: project,
			Gen:     fmt.Sprintf("%d.%d.%s", r.offset, r.size, hex.EncodeToString(r.sum[:6])),
			Events:  int64(r.blocks) + 1,
			Read: func(ctx context.Context, after int64, emit func(Event) error) error {
				return aiderRead(ctx, path, id, project, r, after, emit)
			},
		})
	}
	return out, nil
}

// aiderRun is one run of a history file: where it starts, how long it is
// as List read it, and what it holds.
type aiderRun struct {
	offset, size int64 // the header line's offset; the run's length in bytes
	header       string
	start        int64 // the header's time, epoch ms; 0 when it cannot be read
	sum          [sha256.Size]byte
	blocks       int
	talk         bool // a user or assistant block
}

// id is the run's session id: its start time and a digest of the file's
// path, so that runs of two repositories started in the same second
// differ (docs/agents/aider.md AA3).
func (r *aiderRun) id(pathDigest string) string {
	if r.start != 0 {
		ts := strings.TrimSpace(strings.TrimPrefix(r.header, aiderRunPrefix)) // "2024-08-05 19:33:02"
		return strings.NewReplacer("-", "", ":", "", " ", "T").Replace(ts) + "-" + pathDigest
	}
	return fmt.Sprintf("run%d-%s", r.offset, pathDigest)
}

// aiderTime reads a run header's time, which aider writes in local time
// without a zone ("%Y-%m-%d %H:%M:%S").
func aiderTime(header string) int64 {
	ts := strings.TrimSpace(strings.TrimPrefix(header, aiderRunPrefix))
	t, err := time.ParseInLocation("2006-01-02 15:04:05", ts, time.Local)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// aiderRuns splits a history file into runs; text before the first run
// header belongs to none.
func aiderRuns(ctx context.Context, r io.Reader) ([]*aiderRun, error) {
	var runs []*aiderRun
	var cur *aiderRun
	var h = sha256.New()
	var parser aiderParser
	finish := func() {
		if cur == nil {
			return
		}
		parser.flush()
		cur.blocks, cur.talk = parser.count, parser.talk
		copy(cur.sum[:], h.Sum(nil))
	}
	err := aiderLines(ctx, r, 0, func(line []byte, off int64) error {
		if bytes.HasPrefix(line, []byte(aiderRunPrefix)) {
			finish()
			cur = &aiderRun{offset: off, header: strings.TrimRight(string(line), "\r\n")}
			cur.start = aiderTime(cur.header)
			runs = append(runs, cur)
			h.Reset()
			parser = aiderParser{}
			parser.emit = func(b aiderBlock) error { return nil }
		}
		if cur == nil {
			return nil
		}
		cur.size += int64(len(line))
		h.Write(line)
		return parser.line(line, off+int64(len(line)))
	})
	if err != nil {
		return nil, err
	}
	finish()
	return runs, nil
}

// aiderLines calls fn with each line of r (its newline kept), and the
// offset of its first byte, r's first byte being at offset.
func aiderLines(ctx context.Context, r io.Reader, offset int64, fn func(line []byte, off int64) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if err := fn(line, offset); err != nil {
				return err
			}
			offset += int64(len(line))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// aiderBlock is one thing aider wrote with one call: what the user typed,
// an answer of the model, or aider's own output.
type aiderBlock struct {
	kind string // "user", "assistant", "output"
	text string
	end  int64 // the offset after its last line
}

// aiderParser groups the lines of a run into blocks (docs/agents/aider.md
// AA4). Every line aider writes for the user or for itself ends in two
// spaces (append_chat_history's linebreak); an answer is stripped of them.
type aiderParser struct {
	kind  string   // the open block's kind; "" when none is open
	lines []string // its lines
	end   int64
	blank bool // the line before was blank
	count int
	talk  bool
	emit  func(aiderBlock) error
	err   error
}

// aiderBreak reports whether a line ends in aider's line break: the end of
// what one call wrote, stripped of its trailing space and then given two
// (a line of spaces inside a message, as pytest's output has, is not).
func aiderBreak(s string) bool {
	return len(s) >= 3 && strings.HasSuffix(s, "  ") && s[len(s)-3] != ' ' && s[len(s)-3] != '\t'
}

func aiderUserLine(s string) bool {
	return s == "####" || strings.HasPrefix(s, "#### ")
}

func (p *aiderParser) open(kind string, s string, end int64) {
	p.kind, p.lines, p.end = kind, []string{s}, end
}

func (p *aiderParser) flush() {
	if p.kind == "" || p.err != nil {
		p.kind = ""
		return
	}
	b := aiderBlock{kind: p.kind, end: p.end}
	switch p.kind {
	case "user":
		out := make([]string, len(p.lines))
		for i, l := range p.lines {
			out[i] = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(l, "####"), " "), "  ")
		}
		b.text = strings.Join(out, "\n")
		if b.text == "<blank>" {
			b.text = ""
		}
	case "output":
		b.text = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(strings.Join(p.lines, "\n"), ">"), " "), "  ")
	default:
		for len(p.lines) > 0 && strings.TrimSpace(p.lines[len(p.lines)-1]) == "" {
			p.lines = p.lines[:len(p.lines)-1]
		}
		b.text = strings.Join(p.lines, "\n")
	}
	p.kind, p.lines = "", nil
	p.count++
	if b.kind == "user" || b.kind == "assistant" {
		p.talk = true
	}
	p.err = p.emit(b)
}

// line takes the next line of the run, end being the offset after it.
func (p *aiderParser) line(raw []byte, end int64) error {
	s := strings.TrimRight(string(raw), "\r\n")
	blank := strings.TrimSpace(s) == ""
	defer func() { p.blank = blank }()
	if strings.HasPrefix(s, aiderRunPrefix) {
		p.flush()
		return p.err
	}
	switch p.kind {
	case "output":
		if !aiderBreak(p.lines[len(p.lines)-1]) {
			// a multi-line message, whose later lines have no "> "
			p.lines = append(p.lines, s)
			p.end = end
			return p.err
		}
	case "user":
		if aiderUserLine(s) {
			p.lines = append(p.lines, s)
			p.end = end
			return p.err
		}
	case "assistant":
		// An answer runs to the next thing aider writes after it, which
		// follows the blank line the answer ends with and ends in a line
		// break; a heading or a quote inside the answer does not.
		starts := p.blank && aiderBreak(s) && (aiderUserLine(s) || strings.HasPrefix(s, ">"))
		if !starts {
			p.lines = append(p.lines, s)
			if !blank {
				p.end = end
			}
			return p.err
		}
	}
	p.flush()
	switch {
	case blank:
	case aiderUserLine(s):
		p.open("user", s, end)
	case strings.HasPrefix(s, ">"):
		p.open("output", s, end)
	default:
		p.open("assistant", s, end)
	}
	return p.err
}

// aiderInjected reports whether a user block is a request aider wrote
// itself in the user's place: the lint errors it asks the model to fix
// (commands.py cmd_lint). docs/agents/aider.md AA5.
func aiderInjected(text string) bool {
	return strings.HasPrefix(text, "# Fix any errors below")
}

// aiderRead emits the events of one run: the header, then one event per
// block, each at the offset after its last line (docs/agents/aider.md
// AA4-AA6).
func aiderRead(ctx context.Context, path, id, project string, r *aiderRun, after int64, emit func(Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(r.offset, io.SeekStart); err != nil {
		return err
	}
	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	rec := "run " + strings.TrimSpace(strings.TrimPrefix(r.header, aiderRunPrefix))
	if err := send(Event{Pos: r.offset, Rec: rec, JSON: Header(Aider, id, r.start, project)}); err != nil {
		return err
	}
	p := aiderParser{emit: func(b aiderBlock) error {
		var ev []byte
		id := "b" + strconv.FormatInt(b.end, 10) // AA6: the offset after the block
		switch {
		case b.kind == "user" && aiderInjected(b.text):
			ev = Message(Msg{ID: id, Parent: FromLeaf, Time: r.start, Role: "system", Content: aiderText(b.text)})
		case b.kind == "user":
			ev = Message(Msg{ID: id, Parent: FromLeaf, Time: r.start, Role: "user", Content: aiderText(b.text)})
		case b.kind == "assistant":
			ev = Message(Msg{ID: id, Parent: FromLeaf, Time: r.start, Role: "assistant", Content: aiderAnswer(b.text)})
		default:
			ev = Kept(Aider, "output", id, FromLeaf, r.start, encode(b.text))
		}
		return send(Event{Pos: b.end, Rec: rec, JSON: ev})
	}}
	first := true
	errStop := errors.New("next run")
	err = aiderLines(ctx, f, r.offset, func(line []byte, off int64) error {
		if first {
			first = false
			return nil // the header
		}
		if bytes.HasPrefix(line, []byte(aiderRunPrefix)) {
			return errStop
		}
		return p.line(line, off+int64(len(line)))
	})
	if err != nil && err != errStop {
		return err
	}
	p.flush()
	return p.err
}

// aiderThinkingTag is the tag around the reasoning aider writes at the head
// of an answer: its own (reasoning_tags.py REASONING_TAG,
// "thinking-content-" and a digest) or a model's reasoning_tag.
var aiderThinkingTag = regexp.MustCompile(`^<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>`)

// aiderAnswer is an answer as blocks: the reasoning at its head, between
// its tags (all of it when the closing tag never came), as a thinking
// block; the rest as text. docs/agents/aider.md AA5.
func aiderAnswer(s string) []Block {
	m := aiderThinkingTag.FindStringSubmatch(s)
	if m == nil {
		return aiderText(s)
	}
	rest := s[len(m[0]):]
	thinking, answer, closed := strings.Cut(rest, "</"+m[1]+">")
	if !closed {
		thinking, answer = rest, ""
	}
	var out []Block
	if t := strings.TrimSpace(thinking); t != "" {
		out = append(out, Thinking(t))
	}
	return append(out, aiderText(strings.TrimSpace(answer))...)
}

func aiderText(s string) []Block {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []Block{Text(s)}
}
