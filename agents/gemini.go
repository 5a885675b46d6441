package agents

// Gemini CLI's chat recordings (docs/agents/gemini.md). Each session is one
// file under ~/.gemini/tmp/<project id>/chats/: the legacy session-*.json (one
// ConversationRecord, rewritten whole) or the event-sourced session-*.jsonl
// (a metadata line, then message records upserted by id, "$set" metadata
// updates, "$rewindTo" rewinds). Sub-agent sessions are chats/<parent
// session id>/<session id>.jsonl.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{Agent: Gemini, Roots: geminiRoots, Claims: geminiClaims, List: geminiList})
}

// geminiRoots: Gemini CLI keeps its files in <home>/.gemini, where home is
// $GEMINI_CLI_HOME when set (docs/agents/gemini.md AG1).
func geminiRoots(env Env) []string {
	return []string{filepath.Join(env.Dir("GEMINI_CLI_HOME"), ".gemini", "tmp")}
}

const (
	geminiSessionPrefix = "session-"
	geminiChats         = "chats"
	geminiProjectRoot   = ".project_root"
	geminiRegistry      = "projects.json"
	geminiHeadBytes     = 4096
)

// geminiClaims: a .gemini directory with a tmp/ or projects.json, its
// projects.json, a tmp/ directory of one, a project temp directory, its
// chats/ and sub-agent directories, and the session files in them (AG2).
func geminiClaims(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		if filepath.Base(path) == geminiRegistry {
			return geminiClaims(filepath.Dir(path))
		}
		return geminiSessionFile(path)
	}
	base := filepath.Base(path)
	switch {
	case base == ".gemini":
		return geminiIsDir(filepath.Join(path, "tmp")) || geminiIsFile(filepath.Join(path, geminiRegistry))
	case base == "tmp" && filepath.Base(filepath.Dir(path)) == ".gemini":
		return true
	case filepath.Base(filepath.Dir(path)) == geminiChats:
		return geminiHoldsSession(path, true)
	case geminiIsFile(filepath.Join(path, geminiProjectRoot)) && geminiIsDir(filepath.Join(path, geminiChats)):
		return true
	}
	for _, chats := range geminiChatsDirs(path) {
		if geminiHoldsSession(chats, false) {
			return true
		}
	}
	return false
}

// geminiSessionFile reports whether path is named and placed as a session
// file and starts like one: its first bytes name both "sessionId" and
// "projectHash", which the metadata line (or the legacy record) starts with.
func geminiSessionFile(path string) bool {
	name, dir := filepath.Base(path), filepath.Dir(path)
	main := filepath.Base(dir) == geminiChats && strings.HasPrefix(name, geminiSessionPrefix) &&
		(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl"))
	sub := filepath.Base(filepath.Dir(dir)) == geminiChats && strings.HasSuffix(name, ".jsonl")
	if !main && !sub {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, geminiHeadBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"projectHash"`))
}

// geminiHoldsSession reports whether a chats directory (or, with sub, a
// sub-agent directory) holds a session file.
func geminiHoldsSession(dir string, sub bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if !sub && geminiHoldsSession(p, true) {
				return true
			}
			continue
		}
		if geminiSessionFile(p) {
			return true
		}
	}
	return false
}

// geminiChatsDirs returns the chats directories dir covers: itself, its
// chats/, those of the projects of its tmp/ (a .gemini dir), or those of
// the projects in it (a tmp dir).
func geminiChatsDirs(dir string) []string {
	if filepath.Base(dir) == geminiChats {
		return []string{dir}
	}
	if geminiIsDir(filepath.Join(dir, geminiChats)) {
		return []string{filepath.Join(dir, geminiChats)}
	}
	pattern := filepath.Join(dir, "*", geminiChats)
	if geminiIsDir(filepath.Join(dir, "tmp")) {
		pattern = filepath.Join(dir, "tmp", "*", geminiChats)
	}
	matches, _ := filepath.Glob(pattern)
	var out []string
	for _, m := range matches {
		if geminiIsDir(m) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

func geminiIsDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func geminiIsFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// geminiFile is a session file found by List: parent is the main session
// id of a sub-agent session (the name of its directory), "" otherwise.
type geminiFile struct {
	path, parent string
}

func geminiList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	var files []geminiFile
	var problems []Problem
	if !st.IsDir() && filepath.Base(path) == geminiRegistry {
		path = filepath.Dir(path) // the registry stands for its .gemini
		st, err = os.Stat(path)
		if err != nil {
			return nil, []Problem{{Path: path, Err: err}}
		}
	}
	switch {
	case !st.IsDir():
		f := geminiFile{path: path}
		if dir := filepath.Dir(path); filepath.Base(filepath.Dir(dir)) == geminiChats {
			f.parent = filepath.Base(dir)
		}
		files = append(files, f)
	case filepath.Base(filepath.Dir(path)) == geminiChats:
		found, err := geminiSubagentFiles(path)
		if err != nil {
			problems = append(problems, Problem{Path: path, Err: err})
		}
		files = append(files, found...)
	default:
		for _, chats := range geminiChatsDirs(path) {
			found, probs := geminiChatsFiles(chats)
			files = append(files, found...)
			problems = append(problems, probs...)
		}
	}
	projects := geminiProjects{}
	var out []Transcript
	seen := map[string]int{} // session key -> its transcript in out
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return out, append(problems, Problem{Path: path, Err: err})
		}
		tr, err := geminiTranscript(ctx, f, &projects)
		if err != nil {
			problems = append(problems, Problem{Path: f.path, Err: err})
			continue
		}
		at, ok := seen[tr.Session.Key]
		if !ok {
			seen[tr.Session.Key] = len(out)
			out = append(out, tr)
			continue
		}
		first := out[at].Path
		switch {
		case first == f.path+"l":
			// Resuming a legacy session-x.json writes session-x.jsonl, which
			// starts with a copy of it: the .json is superseded (AG3).
		case !geminiHasConversation(ctx, f.path):
			// The file a resume in a later minute leaves behind (AG12).
		case !geminiHasConversation(ctx, first):
			out[at] = tr
		default:
			problems = append(problems, Problem{Path: f.path,
				Err: fmt.Errorf("session %s is also in %s, which is read instead", tr.Session.Key, first)})
		}
	}
	return out, problems
}

// geminiHasConversation reports whether a session file holds a message of
// the conversation: a user message that is not injected context, or a
// gemini message with text, thoughts or tool calls (Gemini CLI's
// isResumableMessageRecord). The file Gemini CLI starts before it resumes
// another holds only its metadata and injected context (AG12).
func geminiHasConversation(ctx context.Context, path string) bool {
	if strings.HasSuffix(path, ".json") {
		return true // a legacy session: never such a file
	}
	found := false
	_ = Lines(ctx, path, -1, func(b []byte, _ int64, _ string, bad error) error {
		var rec struct {
			ID       *string           `json:"id"`
			Messages []json.RawMessage `json:"messages"`
			Set      *struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"$set"`
		}
		if bad != nil || json.Unmarshal(b, &rec) != nil {
			return nil
		}
		messages := rec.Messages
		if rec.ID != nil {
			messages = []json.RawMessage{b}
		} else if rec.Set != nil {
			messages = rec.Set.Messages
		}
		for _, raw := range messages {
			if geminiSaid(raw) {
				found = true
				return errGeminiStop
			}
		}
		return nil
	})
	return found
}

// geminiSaid reports whether a message record is part of the conversation
// (isResumableMessageRecord): a user message but injected context, or a
// gemini message with text, tool calls or thoughts.
func geminiSaid(raw json.RawMessage) bool {
	var m geminiMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	text := geminiJoined(geminiText(geminiParts(m.Content)))
	switch m.Type {
	case "user":
		return !geminiInternalContext(text)
	case "gemini":
		return text != "" || len(m.ToolCalls) > 0 || len(m.Thoughts) > 0
	}
	return false
}

// geminiChatsFiles lists the session files of a chats directory: the main
// sessions' .jsonl, then their .json (so that a migrated .json comes after
// its .jsonl), then the sub-agent sessions in its directories.
func geminiChatsFiles(chats string) ([]geminiFile, []Problem) {
	entries, err := os.ReadDir(chats)
	if err != nil {
		return nil, []Problem{{Path: chats, Err: err}}
	}
	var jsonl, legacy, subs []geminiFile
	var problems []Problem
	for _, e := range entries {
		name, p := e.Name(), filepath.Join(chats, e.Name())
		switch {
		case e.IsDir():
			found, err := geminiSubagentFiles(p)
			if err != nil {
				problems = append(problems, Problem{Path: p, Err: err})
			}
			subs = append(subs, found...)
		case !strings.HasPrefix(name, geminiSessionPrefix):
		case strings.HasSuffix(name, ".jsonl"):
			jsonl = append(jsonl, geminiFile{path: p})
		case strings.HasSuffix(name, ".json"):
			legacy = append(legacy, geminiFile{path: p})
		}
	}
	return append(append(jsonl, legacy...), subs...), problems
}

// geminiSubagentFiles lists the sub-agent sessions of chats/<parent id>/.
func geminiSubagentFiles(dir string) ([]geminiFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []geminiFile
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, geminiFile{path: filepath.Join(dir, e.Name()), parent: filepath.Base(dir)})
		}
	}
	return out, nil
}

// geminiMeta is a session's metadata record: the first line of a .jsonl,
// the top level of a legacy .json.
type geminiMeta struct {
	SessionID   string            `json:"sessionId"`
	ProjectHash string            `json:"projectHash"`
	StartTime   json.RawMessage   `json:"startTime"`
	LastUpdated json.RawMessage   `json:"lastUpdated"`
	Kind        string            `json:"kind"`
	Messages    []json.RawMessage `json:"messages"`
}

var errGeminiStop = errors.New("stop")

// geminiTranscript reads a session file's metadata and returns its
// transcript.
func geminiTranscript(ctx context.Context, f geminiFile, projects *geminiProjects) (Transcript, error) {
	st, err := os.Stat(f.path)
	if err != nil {
		return Transcript{}, err
	}
	var meta geminiMeta
	var legacy []byte
	metaLine := -1
	if strings.HasSuffix(f.path, ".json") {
		legacy, err = os.ReadFile(f.path)
		if err != nil {
			return Transcript{}, err
		}
		if err := json.Unmarshal(legacy, &meta); err != nil {
			return Transcript{}, fmt.Errorf("legacy session file is not a JSON ConversationRecord: %w", err)
		}
		if meta.SessionID == "" {
			return Transcript{}, errors.New(`legacy session file has no "sessionId"`)
		}
	} else {
		line := 0
		err := Lines(ctx, f.path, -1, func(b []byte, _ int64, _ string, bad error) error {
			line++
			if bad != nil {
				return nil
			}
			var rec map[string]json.RawMessage
			if json.Unmarshal(b, &rec) != nil || !geminiIsMeta(rec) {
				return nil
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				return nil
			}
			metaLine = line
			return errGeminiStop
		})
		if err != nil && !errors.Is(err, errGeminiStop) {
			return Transcript{}, err
		}
		if metaLine < 0 {
			return Transcript{}, errors.New(`no metadata line (with "sessionId" and "projectHash")`)
		}
	}
	tr := Transcript{
		Agent:   Gemini,
		Path:    f.path,
		Project: projects.project(f.path, f.parent != "", meta.ProjectHash),
		Session: store.Session{Key: Key(Gemini, meta.SessionID), CreatedAt: Millis(meta.StartTime)},
	}
	if f.parent != "" {
		tr.Session.SpawnedBy = Key(Gemini, f.parent)
	}
	session := geminiSession{id: meta.SessionID, created: tr.Session.CreatedAt, project: tr.Project}
	if legacy != nil {
		tr.Events = int64(2 + 2*len(meta.Messages))
		size := st.Size()
		tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
			return session.readLegacy(legacy, size, emit)
		}
		return tr, nil
	}
	tr.Events = st.Size()/256 + 2
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		return session.readLog(ctx, f.path, metaLine, emit)
	}
	return tr, nil
}

// geminiIsMeta: a record with string "sessionId" and "projectHash" that is
// none of the others (the order in which Gemini CLI's loader tells records
// apart: rewind, message, $set, metadata).
func geminiIsMeta(rec map[string]json.RawMessage) bool {
	return geminiString(rec["sessionId"]) && geminiString(rec["projectHash"]) &&
		!geminiString(rec["$rewindTo"]) && !geminiString(rec["id"]) && !geminiObject(rec["$set"])
}

func geminiString(v json.RawMessage) bool {
	var s string
	return len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil
}

func geminiObject(v json.RawMessage) bool { return len(v) > 0 && v[0] == '{' }

// geminiProjects finds the project directory (cwd) of a project temp dir:
// its .project_root file, else the registry (~/.gemini/projects.json) entry
// that names it, else the registered directory whose SHA-256 is the
// session's projectHash (AG4).
type geminiProjects struct {
	roots    map[string]string            // project temp dir -> .project_root
	registry map[string]map[string]string // .gemini dir -> project dir -> short id
}

func (g *geminiProjects) project(file string, sub bool, hash string) string {
	chats := filepath.Dir(file)
	if sub {
		chats = filepath.Dir(chats)
	}
	if filepath.Base(chats) != geminiChats {
		return ""
	}
	projDir := filepath.Dir(chats)
	if g.roots == nil {
		g.roots = map[string]string{}
	}
	root, ok := g.roots[projDir]
	if !ok {
		b, _ := os.ReadFile(filepath.Join(projDir, geminiProjectRoot))
		root = strings.TrimSpace(string(b))
		g.roots[projDir] = root
	}
	if root != "" {
		return root
	}
	tmp := filepath.Dir(projDir)
	if filepath.Base(tmp) != "tmp" {
		return ""
	}
	home := filepath.Dir(tmp)
	id := filepath.Base(projDir)
	reg := g.load(home)
	for _, dir := range geminiSortedKeys(reg) {
		if reg[dir] == id {
			return dir
		}
	}
	return g.byHash(home, hash)
}

func (g *geminiProjects) byHash(home, hash string) string {
	if hash == "" {
		return ""
	}
	reg := g.load(home)
	for _, dir := range geminiSortedKeys(reg) {
		sum := sha256.Sum256([]byte(dir))
		if hex.EncodeToString(sum[:]) == hash {
			return dir
		}
	}
	return ""
}

func (g *geminiProjects) load(home string) map[string]string {
	if g.registry == nil {
		g.registry = map[string]map[string]string{}
	}
	if reg, ok := g.registry[home]; ok {
		return reg
	}
	var data struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := os.ReadFile(filepath.Join(home, geminiRegistry)); err == nil {
		_ = json.Unmarshal(b, &data) // an unreadable registry names no project
	}
	g.registry[home] = data.Projects
	return data.Projects
}

func geminiSortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// geminiSession converts one session's records to events.
type geminiSession struct {
	id      string
	created int64
	project string
}

// readLegacy emits a legacy .json session: the header, the record without
// its messages (kept), then each message in order (AG5).
func (s geminiSession) readLegacy(data []byte, size int64, emit func(Event) error) error {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(data, &rec); err != nil {
		return fmt.Errorf("legacy session file is not a JSON object: %w", err)
	}
	var messages []json.RawMessage
	_ = json.Unmarshal(rec["messages"], &messages) // checked by geminiTranscript
	l := geminiLog{session: s}
	out := func(b []byte) error { return emit(Event{Pos: size, JSON: b}) }
	if err := out(Header(Gemini, s.id, s.created, s.project)); err != nil {
		return err
	}
	if err := out(Kept(Gemini, "session", "", FromLeaf, 0, geminiWithout(rec, "messages"))); err != nil {
		return err
	}
	for i, raw := range messages {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || !geminiString(m["id"]) {
			if err := emit(Event{Pos: size, Rec: "message " + strconv.Itoa(i),
				Bad: fmt.Errorf(`messages[%d] is not a message record with a string "id": %.80s`, i, raw)}); err != nil {
				return err
			}
			continue
		}
		for _, ev := range l.upsert(raw) {
			if err := out(ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLog emits a .jsonl session: the header, then each line's events
// (AG6). metaLine is the line of the metadata record the header is made of.
func (s geminiSession) readLog(ctx context.Context, path string, metaLine int, emit func(Event) error) error {
	l := geminiLog{session: s}
	line, headed := 0, false
	header := func(pos int64) error {
		headed = true
		return emit(Event{Pos: pos, JSON: Header(Gemini, s.id, s.created, s.project)})
	}
	err := Lines(ctx, path, -1, func(b []byte, end int64, rec string, bad error) error {
		line++
		if !headed {
			pos := int64(0)
			if line == metaLine {
				pos = end
			}
			if err := header(pos); err != nil {
				return err
			}
		}
		if bad != nil {
			return emit(Event{Pos: end, Rec: rec, Bad: bad})
		}
		events, err := l.record(b, line)
		if err != nil {
			return emit(Event{Pos: end, Rec: rec, Bad: err})
		}
		for _, ev := range events {
			if err := emit(Event{Pos: end, JSON: ev}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && !headed {
		err = header(0) // the file was emptied since it was listed
	}
	return err
}

// geminiLog is the state of a session's log: its messages in order, as
// Gemini CLI's loader keeps them (a map in insertion order: an upsert keeps
// the message's place, a rewind drops the message and all after it).
type geminiLog struct {
	session geminiSession
	items   []geminiItem
	index   map[string]int // the place of each message id in items
}

// geminiItem is one message of the log and the entries it became.
type geminiItem struct {
	id     string
	raw    []byte   // the message record
	tail   string   // the id of its last entry, which the next message hangs from
	events [][]byte // its entries, hanging from the item before it
	// answers are the ids of the tool calls whose results it holds.
	answers map[string]bool
}

// record converts one line of a .jsonl log.
func (l *geminiLog) record(line []byte, n int) ([][]byte, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, fmt.Errorf("record is not a JSON object: %w", err)
	}
	switch {
	case geminiString(rec["$rewindTo"]):
		var target string
		_ = json.Unmarshal(rec["$rewindTo"], &target)
		return [][]byte{l.rewind(target, "rewind-"+strconv.Itoa(n))}, nil
	case geminiString(rec["id"]):
		return l.upsert(bytes.Clone(line)), nil
	case geminiObject(rec["$set"]):
		var set map[string]json.RawMessage
		if err := json.Unmarshal(rec["$set"], &set); err != nil {
			return nil, fmt.Errorf(`"$set" is not a JSON object: %w`, err)
		}
		kept := Kept(Gemini, "set", "", FromLeaf, Millis(set["lastUpdated"]),
			encode(map[string]json.RawMessage{"$set": geminiWithout(set, "messages")}))
		events := [][]byte{kept}
		var messages []json.RawMessage
		if raw, ok := set["messages"]; ok && json.Unmarshal(raw, &messages) == nil {
			events = append(events, l.checkpoint(messages)...)
		}
		return events, nil
	case geminiIsMeta(rec):
		// The metadata line (the header is made of the first), or a whole
		// ConversationRecord on one line: its messages are upserted.
		events := [][]byte{Kept(Gemini, "session", "", FromLeaf, 0, geminiWithout(rec, "messages"))}
		var messages []json.RawMessage
		if json.Unmarshal(rec["messages"], &messages) == nil {
			events = append(events, l.merge(messages)...)
		}
		return events, nil
	}
	return [][]byte{Kept(Gemini, geminiUnknownType(rec), "", FromLeaf, 0, line)}, nil
}

// geminiUnknownType names a record of no known shape by its first "$"
// operation, "record" when it has none.
func geminiUnknownType(rec map[string]json.RawMessage) string {
	op := ""
	for k := range rec {
		if strings.HasPrefix(k, "$") && len(k) > 1 && (op == "" || k < op) {
			op = k
		}
	}
	if op == "" {
		return "record"
	}
	return op
}

// geminiWithout is rec without key, as JSON with sorted keys.
func geminiWithout(rec map[string]json.RawMessage, key string) []byte {
	m := make(map[string]json.RawMessage, len(rec))
	for k, v := range rec {
		if k != key {
			m[k] = v
		}
	}
	return encode(m)
}

// upsert sets the message of record raw (AG7).
func (l *geminiLog) upsert(raw []byte) [][]byte {
	return l.merge([]json.RawMessage{raw})
}

// checkpoint reads a "$set" messages list, which Gemini CLI writes when it
// rewrites the model's history (on resume, after compressing it, masking
// tool output or rolling back a cancelled turn): it restates what was said,
// with the time of the rewrite and the model's parts in content, so only
// the messages the log does not hold yet are added, at its end; those it
// holds stay as first recorded, and those it leaves out stay (AG7).
func (l *geminiLog) checkpoint(messages []json.RawMessage) [][]byte {
	var fresh []json.RawMessage
	for _, raw := range messages {
		var rec struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &rec) != nil {
			continue
		}
		if _, held := l.index[rec.ID]; !held {
			fresh = append(fresh, raw)
		}
	}
	return l.merge(fresh)
}

// merge upserts messages in order, as Gemini CLI's loader sets them in its
// map: a new message goes at the end, a message already in the log keeps
// its place and takes the new record. It returns the entries to append.
func (l *geminiLog) merge(messages []json.RawMessage) [][]byte {
	n := len(l.items)
	from := n
	added := map[string]int{}
	var fresh []geminiItem
	type change struct {
		at  int
		raw []byte
	}
	var changes []change
	for _, raw := range messages {
		var rec map[string]json.RawMessage
		var id string
		if json.Unmarshal(raw, &rec) != nil || !geminiString(rec["id"]) {
			continue
		}
		_ = json.Unmarshal(rec["id"], &id)
		if at, ok := added[id]; ok {
			fresh[at-n].raw = raw
		} else if at, ok := l.index[id]; ok {
			changes = append(changes, change{at, raw})
			from = min(from, at)
		} else {
			added[id] = n + len(fresh)
			fresh = append(fresh, geminiItem{id: id, raw: raw})
		}
	}
	// The items from the first changed one on, as they were: what their new
	// versions are compared with.
	old := append([]geminiItem(nil), l.items[from:]...)
	for _, c := range changes {
		l.items[c.at].raw = c.raw
	}
	return l.become(append(l.items, fresh...), from, old)
}

// become makes next the log's messages: the items before from are
// unchanged, old are the items from there on as they were. It returns the
// entries to append: for the first item that differs, its entries after
// those it shares with its old version (a tool result added to a message
// adds just that), then every entry of the items after it, so that they
// hang from the new version; and a leaf entry to the new last entry when
// those do not end with it.
func (l *geminiLog) become(next []geminiItem, from int, old []geminiItem) [][]byte {
	var out [][]byte
	changed, endsAtTail := false, false
	for i := from; i < len(next); i++ {
		parent := l.session.id
		if i > 0 {
			parent = next[i-1].tail
		}
		it := &next[i]
		it.events, it.tail, it.answers = geminiEntries(it.id, it.raw, parent, func() map[string]bool { return geminiAnswered(next[:i]) })
		if j := i - from; !changed && j < len(old) && old[j].id == it.id {
			shared := geminiShared(old[j].events, it.events)
			if shared == len(it.events) && shared == len(old[j].events) {
				continue
			}
			changed = true
			endsAtTail = shared < len(it.events)
			out = append(out, it.events[shared:]...)
			continue
		}
		if len(it.events) == 0 {
			continue // nothing to append: the leaf stays where it is
		}
		changed = true
		endsAtTail = true
		out = append(out, it.events...)
	}
	if changed && !endsAtTail {
		target := l.session.id
		if len(next) > 0 {
			target = next[len(next)-1].tail
		}
		out = append(out, Leaf("", target, 0))
	}
	l.setItems(next, from)
	return out
}

// geminiAnswered returns the ids of the tool calls whose results items
// hold. Gemini CLI records a tool's result in the call of the gemini
// message, then again as a user message carrying the function response
// (what it sends the model), and replays it as a user turn
// "<message id>_response" that a resume's checkpoint records
// (convertSessionToClientHistory): those copies add nothing (AG13).
func geminiAnswered(items []geminiItem) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		for id := range it.answers {
			out[id] = true
		}
	}
	return out
}

// setItems makes items the log's messages, those before from unchanged.
func (l *geminiLog) setItems(items []geminiItem, from int) {
	if l.index == nil {
		l.index = map[string]int{}
	}
	for i := from; i < len(l.items); i++ {
		delete(l.index, l.items[i].id)
	}
	for i := from; i < len(items); i++ {
		l.index[items[i].id] = i
	}
	l.items = items
}

// geminiShared is how many entries two versions of a message share.
func geminiShared(a, b [][]byte) int {
	n := 0
	for n < len(a) && n < len(b) && bytes.Equal(a[n], b[n]) {
		n++
	}
	return n
}

// rewind drops message target and every message after it, as Gemini CLI's
// loader does (all of them when target is not in the log): a leaf entry
// back to the message before it, or to the session header (AG8).
func (l *geminiLog) rewind(target, id string) []byte {
	at := l.index[target] // 0 when it is not there
	leafTo := l.session.id
	if at > 0 {
		leafTo = l.items[at-1].tail
	}
	l.setItems(l.items[:at], at)
	return Leaf(id, leafTo, 0)
}

// The shapes of Gemini CLI's message records (chatRecordingTypes.ts).
type geminiMessage struct {
	ID             string           `json:"id"`
	Timestamp      json.RawMessage  `json:"timestamp"`
	Type           string           `json:"type"`
	Content        json.RawMessage  `json:"content"`
	DisplayContent json.RawMessage  `json:"displayContent"`
	ToolCalls      []geminiToolCall `json:"toolCalls"`
	Thoughts       []geminiThought  `json:"thoughts"`
	Model          json.RawMessage  `json:"model"`
}

type geminiToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        string          `json:"status"`
	Timestamp     json.RawMessage `json:"timestamp"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

type geminiThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// geminiPart is a @google/genai Part, or a plain string in a part list.
type geminiPart struct {
	Text         *string         `json:"text"`
	Thought      json.RawMessage `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
	} `json:"inlineData"`
}

// geminiParts reads a PartListUnion: a string, a Part, or a list of both.
// A part of another shape is left out.
func geminiParts(raw json.RawMessage) []geminiPart {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var list []json.RawMessage
	switch raw[0] {
	case '[':
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
	default:
		list = []json.RawMessage{raw}
	}
	var out []geminiPart
	for _, p := range list {
		var s string
		if len(p) > 0 && p[0] == '"' && json.Unmarshal(p, &s) == nil {
			out = append(out, geminiPart{Text: &s})
			continue
		}
		var part geminiPart
		if len(p) > 0 && p[0] == '{' && json.Unmarshal(p, &part) == nil {
			out = append(out, part)
		}
	}
	return out
}

func (p geminiPart) thought() bool { return string(p.Thought) == "true" }

// geminiText is the text parts of parts (thoughts left out), as text blocks.
func geminiText(parts []geminiPart) []Block {
	var out []Block
	for _, p := range parts {
		if p.Text != nil && !p.thought() && strings.TrimSpace(*p.Text) != "" {
			out = append(out, Text(*p.Text))
		}
	}
	return out
}

func geminiJoined(blocks []Block) string {
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return strings.TrimSpace(b.String())
}

// geminiInternalContext: user content Gemini CLI injects and never shows
// (sessionUtils.ts isIgnoredUserContent, convertSessionToHistoryFormats).
func geminiInternalContext(text string) bool {
	return strings.HasPrefix(text, "<session_context>") || strings.HasPrefix(text, "<hook_context>")
}

// geminiEntries converts one message record into its entries, the first
// hanging from parent and each next one from the one before; it returns
// them, the id of the last (parent when there are none) and the ids of the
// tool calls whose results they hold. answered returns the ids of the tool
// calls whose results the messages before it hold (AG9-AG11, AG13).
func geminiEntries(id string, raw []byte, parent string, answered func() map[string]bool) ([][]byte, string, map[string]bool) {
	var m geminiMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		// A record with an id but fields of other types: kept in its place.
		return [][]byte{Kept(Gemini, "message", id, ParentID(parent), 0, raw)}, id, nil
	}
	t := Millis(m.Timestamp)
	content := geminiParts(m.Content)
	shown := geminiText(geminiParts(m.DisplayContent))
	chain := &geminiChain{parent: parent}
	var answers map[string]bool
	switch m.Type {
	case "user":
		if geminiHasResponse(content) {
			chain.toolResults(id, t, content, answered())
			break
		}
		text := geminiText(content)
		if len(shown) > 0 {
			text = shown
		}
		role := "user"
		if geminiInternalContext(geminiJoined(text)) {
			role = "system"
		}
		chain.add(Msg{ID: id, Time: t, Role: role, Content: append(text, geminiImages(content)...)})
	case "gemini":
		answers = chain.assistant(id, t, m, content, shown)
	case "info", "error", "warning":
		text := geminiText(content)
		if len(shown) > 0 {
			text = shown
		}
		chain.add(Msg{ID: id, Time: t, Role: "system", Content: text})
	default:
		return [][]byte{Kept(Gemini, "message", id, ParentID(parent), t, raw)}, id, nil
	}
	return chain.events, chain.parent, answers
}

// assistant adds a gemini message and the results of its tool calls. When
// its content holds thought or function call parts (Gemini CLI writes the
// model's parts there when it rewrites the history), those are its
// thoughts or calls, as convertSessionToClientHistory reads them; else
// they are its thoughts and toolCalls fields, so both give the same blocks.
func (c *geminiChain) assistant(id string, t int64, m geminiMessage, content []geminiPart, shown []Block) map[string]bool {
	hasThoughts := false
	inContent := map[string]bool{}
	for _, p := range content {
		hasThoughts = hasThoughts || (p.Text != nil && p.thought())
		if p.FunctionCall != nil {
			inContent[p.FunctionCall.ID] = true
		}
	}
	var blocks []Block
	if !hasThoughts {
		for _, th := range m.Thoughts {
			text := th.Description
			if th.Subject != "" {
				text = "**" + th.Subject + "** " + th.Description
			}
			if strings.TrimSpace(text) != "" {
				blocks = append(blocks, Thinking(text))
			}
		}
	}
	for _, p := range content {
		switch {
		case p.Text != nil && p.thought():
			if strings.TrimSpace(*p.Text) != "" {
				blocks = append(blocks, Thinking(*p.Text))
			}
		case p.FunctionCall != nil:
			blocks = append(blocks, ToolCall(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args))
		case len(shown) == 0:
			blocks = append(blocks, geminiText([]geminiPart{p})...)
			blocks = append(blocks, geminiImages([]geminiPart{p})...)
		}
	}
	blocks = append(blocks, shown...)
	for _, tc := range m.ToolCalls {
		if !inContent[tc.ID] {
			blocks = append(blocks, ToolCall(tc.ID, tc.Name, tc.Args))
		}
	}
	var model string
	_ = json.Unmarshal(m.Model, &model)
	c.add(Msg{ID: id, Time: t, Role: "assistant", Content: blocks, Model: model})
	var answers map[string]bool
	for i, tc := range m.ToolCalls {
		blocks, isErr, ok := geminiResult(tc)
		if !ok {
			continue
		}
		callID := tc.ID
		if callID == "" {
			callID = strconv.Itoa(i)
		} else {
			if answers == nil {
				answers = map[string]bool{}
			}
			answers[callID] = true
		}
		tt := Millis(tc.Timestamp)
		if tt == 0 {
			tt = t
		}
		c.add(Msg{ID: id + ":tool:" + callID, Time: tt, Role: "toolResult", Content: blocks,
			ToolCallID: tc.ID, ToolName: tc.Name, IsError: isErr || tc.Status == "error"})
	}
	return answers
}

// geminiChain appends entries one after the other.
type geminiChain struct {
	parent string
	events [][]byte
}

func (c *geminiChain) add(m Msg) {
	m.Parent = ParentID(c.parent)
	c.events = append(c.events, Message(m))
	c.parent = m.ID
}

func geminiHasResponse(parts []geminiPart) bool {
	for _, p := range parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// toolResults: a user message that carries function responses (as Gemini
// CLI records the tool turns of a rewritten history) is tool output, never
// user text: one tool result per response, with the parts around it. A
// response already recorded as the result of its call (answered) is left
// out, with the parts after it (AG13).
func (c *geminiChain) toolResults(id string, t int64, parts []geminiPart, answered map[string]bool) {
	var cur *Msg
	var pending []Block
	skipping := false
	n := 0
	flush := func() {
		if cur != nil {
			c.add(*cur)
			cur = nil
		}
	}
	for _, p := range parts {
		if r := p.FunctionResponse; r != nil {
			flush()
			mid := id
			if n > 0 {
				mid = id + ":part:" + strconv.Itoa(n)
			}
			n++
			if skipping = r.ID != "" && answered[r.ID]; skipping {
				continue
			}
			text, isErr := geminiResponse(r.Response)
			cur = &Msg{ID: mid, Time: t, Role: "toolResult", ToolCallID: r.ID,
				ToolName: r.Name, IsError: isErr, Content: append(pending, Text(text))}
			pending = nil
			continue
		}
		blocks := append(geminiText([]geminiPart{p}), geminiImages([]geminiPart{p})...)
		switch {
		case cur != nil:
			cur.Content = append(cur.Content, blocks...)
		case !skipping:
			pending = append(pending, blocks...)
		}
	}
	flush()
}

// geminiResult is the result of a tool call record: its result parts
// (a string, or parts with function responses), else its display text.
func geminiResult(tc geminiToolCall) (blocks []Block, isErr, ok bool) {
	res := bytes.TrimSpace(tc.Result)
	if len(res) > 0 && string(res) != "null" {
		for _, p := range geminiParts(res) {
			if p.FunctionResponse != nil {
				text, e := geminiResponse(p.FunctionResponse.Response)
				isErr = isErr || e
				blocks = append(blocks, Text(text))
				continue
			}
			blocks = append(blocks, geminiText([]geminiPart{p})...)
			blocks = append(blocks, geminiImages([]geminiPart{p})...)
		}
		return blocks, isErr, true
	}
	var display string
	if json.Unmarshal(tc.ResultDisplay, &display) == nil && display != "" {
		return []Block{Text(display)}, false, true
	}
	return nil, false, false
}

// geminiResponse is the text of a function response: its "output" or
// "error" string, else the response as JSON.
func geminiResponse(raw json.RawMessage) (string, bool) {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) == nil {
		var s string
		if json.Unmarshal(r["error"], &s) == nil && s != "" {
			return s, true
		}
		if json.Unmarshal(r["output"], &s) == nil {
			return s, false
		}
	}
	return string(JSONValue(raw)), false
}

func geminiImages(parts []geminiPart) []Block {
	var out []Block
	for _, p := range parts {
		if p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "image/") {
			out = append(out, Block{Type: "image", MimeType: p.InlineData.MimeType})
		}
	}
	return out
}
