package agents

// Hermes Agent (NousResearch/hermes-agent) keeps every session of a Hermes
// home in one SQLite database, state.db: a sessions table and a messages
// table whose rows are OpenAI-format chat messages. Rewinds (/undo, /retry)
// and in-place compaction never delete rows by default: they clear the
// row's active flag. The mapping is docs/agents/hermes.md (rules AH1..AH9).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{Agent: Hermes, Roots: hermesRoots, Claims: hermesClaims, List: hermesList})
}

// hermesDBName is the database of a Hermes home (docs/agents/hermes.md AH1).
const hermesDBName = "state.db"

// hermesRoots is the Hermes home: $HERMES_HOME, else ~/.hermes (with
// $HERMES_DATA_DIR_SUFFIX appended, as Hermes does). docs/agents/hermes.md AH1.
func hermesRoots(env Env) []string {
	if v := strings.TrimSpace(env.getenv("HERMES_HOME")); v != "" {
		return []string{v}
	}
	return []string{filepath.Join(env.home(), ".hermes"+env.getenv("HERMES_DATA_DIR_SUFFIX"))}
}

// hermesClaims: a .hermes directory or anything inside one, a SQLite file
// whose schema is Hermes' (sessions and messages(session_id, role,
// tool_call_id), no sessionsearch_meta), or a file named state.db that is
// not visibly another program's SQLite database. docs/agents/hermes.md AH2.
func hermesClaims(path string) bool {
	clean := filepath.Clean(path)
	for p := clean; ; p = filepath.Dir(p) {
		if filepath.Base(p) == ".hermes" {
			return true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	switch hermesSchemaOf(clean) {
	case hermesSchemaHermes:
		return true
	case hermesSchemaOther:
		return false
	}
	return filepath.Base(clean) == hermesDBName
}

type hermesSchema int

const (
	hermesSchemaUnknown hermesSchema = iota // not a readable SQLite file
	hermesSchemaHermes
	hermesSchemaOther
)

var (
	hermesMessagesDDL = regexp.MustCompile(`(?i)CREATE TABLE\s+(?:IF NOT EXISTS\s+)?["'\x60\[]?messages["'\x60\]]?\s*\(`)
	hermesSessionsDDL = regexp.MustCompile(`(?i)CREATE TABLE\s+(?:IF NOT EXISTS\s+)?["'\x60\[]?sessions["'\x60\]]?\s*\(`)
)

// hermesSchemaOf reads the first bytes of path and tells whether the
// SQLite schema text in them is Hermes'.
func hermesSchemaOf(path string) hermesSchema {
	b := sqliteHead(path)
	if b == nil {
		return hermesSchemaUnknown
	}
	if bytes.Contains(b, []byte("sessionsearch_meta")) {
		return hermesSchemaOther // a sessionsearch store: its own sessions table is not Hermes'
	}
	if !hermesSessionsDDL.Match(b) {
		return hermesSchemaOther
	}
	for _, loc := range hermesMessagesDDL.FindAllIndex(b, -1) {
		def := b[loc[1]:min(len(b), loc[1]+4096)] // the statement, up to the next one
		if next := bytes.Index(def, []byte("CREATE ")); next >= 0 {
			def = def[:next]
		}
		if bytes.Contains(def, []byte("session_id")) && bytes.Contains(def, []byte("role")) &&
			bytes.Contains(def, []byte("tool_call_id")) {
			return hermesSchemaHermes
		}
	}
	return hermesSchemaOther
}

// hermesList lists the sessions of a Hermes home (its state.db and each
// profile's, profiles/<name>/state.db) or of one database file.
func hermesList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a root need not exist
		}
		return nil, []Problem{{Path: path, Err: err}}
	}
	var dbs []string
	if st.IsDir() {
		if fi, err := os.Stat(filepath.Join(path, hermesDBName)); err == nil && fi.Mode().IsRegular() {
			dbs = append(dbs, filepath.Join(path, hermesDBName))
		}
		profiles, _ := filepath.Glob(filepath.Join(path, "profiles", "*", hermesDBName))
		sort.Strings(profiles)
		dbs = append(dbs, profiles...)
	} else {
		dbs = []string{path}
	}
	var out []Transcript
	var problems []Problem
	for _, db := range dbs {
		ts, err := hermesListDB(ctx, db, env)
		if err != nil {
			problems = append(problems, Problem{Path: db, Err: err})
			continue
		}
		out = append(out, ts...)
	}
	return out, problems
}

// hermesSession is what List reads of a sessions row.
type hermesSession struct {
	id, parent, cwd, source, model, sessionKey string
	endReason                                  string
	modelConfig                                map[string]any
	started, ended                             float64
	hasEnded                                   bool
	meta                                       string // the row's fields that decide the transcript, for Gen
}

// hermesResetEndReasons end a conversation at a reset boundary
// (hermes_state_common.py _RESET_END_REASONS).
var hermesResetEndReasons = map[string]bool{
	"session_reset": true, "session_switch": true, "idle": true, "daily": true,
	"suspended": true, "resume_pending_expired": true,
}

// marker reports whether model_config has key with a non-null value.
func (s *hermesSession) marker(key string) bool {
	v, ok := s.modelConfig[key]
	return ok && v != nil
}

// hermesSpawned reports whether a child session (parent_session_id set)
// is a spawned run rather than a continuation of its parent's
// conversation: Hermes' own "ephemeral child" rule, a child that is not a
// /branch fork, not a compression continuation and not a reset
// (hermes_state_common.py _ephemeral_child_sql). docs/agents/hermes.md AH7.
func hermesSpawned(child, parent *hermesSession) bool {
	branch := child.marker("_branched_from")
	reset := child.marker("_reset_from")
	compression := false
	if parent != nil {
		branch = branch || (parent.endReason == "branched" && parent.hasEnded && child.started >= parent.ended)
		compression = parent.endReason == "compression"
		reset = reset || (hermesResetEndReasons[parent.endReason] && child.sessionKey != "" && child.sessionKey == parent.sessionKey)
	}
	return !branch && !compression && !reset
}

// hermesPick lists columns, each as itself or, when the table lacks it,
// as the fallback given after a '='.
func hermesPick(cols map[string]bool, want ...string) string {
	out := make([]string, len(want))
	for i, w := range want {
		name, def, ok := strings.Cut(w, "=")
		if !ok {
			def = "NULL"
		}
		out[i] = def
		if cols[name] {
			out[i] = `"` + name + `"`
		}
	}
	return strings.Join(out, ", ")
}

// hermesOpen opens a database through env and checks that it has Hermes'
// tables, returning the columns of messages.
func hermesOpen(ctx context.Context, path string, env Env) (*sql.DB, map[string]bool, map[string]bool, error) {
	db, cols, err := openForeign(ctx, path, env, Hermes, "a Hermes state.db",
		map[string][]string{"sessions": {"id"}, "messages": {"id", "session_id", "role"}})
	if err != nil {
		return nil, nil, nil, err
	}
	return db, cols["sessions"], cols["messages"], nil
}

// hermesListDB lists the sessions of one state.db, oldest first.
func hermesListDB(ctx context.Context, path string, env Env) ([]Transcript, error) {
	db, scols, mcols, err := hermesOpen(ctx, path, env)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	order := "id"
	if scols["started_at"] {
		order = "started_at, id"
	}
	rows, err := db.QueryContext(ctx, `SELECT `+hermesPick(scols, "id", "parent_session_id", "started_at", "ended_at",
		"end_reason", "cwd", "source", "model", "model_config", "session_key")+` FROM sessions ORDER BY `+order)
	if err != nil {
		return nil, fmt.Errorf("hermes: reading sessions: %w", err)
	}
	var sessions []*hermesSession
	byID := map[string]*hermesSession{}
	for rows.Next() {
		var v [10]any
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]); err != nil {
			rows.Close()
			return nil, fmt.Errorf("hermes: reading sessions: %w", err)
		}
		s := &hermesSession{id: hermesText(v[0]), parent: hermesText(v[1]), started: hermesNumber(v[2]),
			ended: hermesNumber(v[3]), hasEnded: v[3] != nil, endReason: hermesText(v[4]), cwd: hermesText(v[5]),
			source: hermesText(v[6]), model: hermesText(v[7]), sessionKey: hermesText(v[9])}
		if cfg := hermesText(v[8]); cfg != "" {
			_ = json.Unmarshal([]byte(cfg), &s.modelConfig) // not an object: no markers, as in Hermes
		}
		s.meta = fmt.Sprint(v[1], "\x00", v[2], "\x00", v[3], "\x00", v[4], "\x00", v[5], "\x00", v[7], "\x00", v[8], "\x00", v[9])
		if s.id == "" {
			continue
		}
		sessions = append(sessions, s)
		byID[s.id] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("hermes: reading sessions: %w", err)
	}

	type stats struct{ count, maxID, active, compacted, length int64 }
	counts := map[string]stats{}
	rows, err = db.QueryContext(ctx, `SELECT session_id, count(*), max(id), total(`+hermesPick(mcols, "active=1")+
		`), total(`+hermesPick(mcols, "compacted=0")+`), total(length(`+hermesPick(mcols, "content=''")+
		`)) + total(length(`+hermesPick(mcols, "tool_calls=''")+`)) FROM messages GROUP BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("hermes: reading messages: %w", err)
	}
	for rows.Next() {
		var id any
		var n, maxID int64
		var active, compacted, length float64
		if err := rows.Scan(&id, &n, &maxID, &active, &compacted, &length); err != nil {
			rows.Close()
			return nil, fmt.Errorf("hermes: reading messages: %w", err)
		}
		counts[hermesText(id)] = stats{n, maxID, int64(active), int64(compacted), int64(length)}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("hermes: reading messages: %w", err)
	}

	out := make([]Transcript, 0, len(sessions))
	for _, s := range sessions {
		sess := store.Session{Key: Key(Hermes, s.id), CreatedAt: Millis(s.started)}
		parentEnd := ""
		if s.parent != "" && s.parent != s.id {
			p := byID[s.parent]
			if p != nil {
				parentEnd = p.endReason
			}
			if hermesSpawned(s, p) {
				sess.SpawnedBy = Key(Hermes, s.parent)
			} else {
				sess.ParentSessionKey = Key(Hermes, s.parent)
			}
		}
		c := counts[s.id]
		sum := sha256.Sum256([]byte(s.meta + "\x00" + parentEnd))
		out = append(out, Transcript{
			Agent:   Hermes,
			Path:    path,
			Unit:    s.id,
			Session: sess,
			Project: s.cwd,
			Gen: fmt.Sprintf("%d.%d.%d.%d.%d.%s", c.count, c.maxID, c.active, c.compacted, c.length,
				hex.EncodeToString(sum[:6])),
			Events: c.count + 2,
			Read: func(ctx context.Context, after int64, emit func(Event) error) error {
				return hermesRead(ctx, path, env, s, after, emit)
			},
		})
	}
	return out, nil
}

// hermesRow is one messages row.
type hermesRow struct {
	id                                  int64
	role, content, toolCallID, toolName string
	toolCalls, reasoning, reasoningAlt  string
	displayKind                         string
	time                                int64
	active, compacted, summary          bool
}

// visible: Hermes shows a session as its rows with active = 1 OR
// compacted = 1; rewound rows (active = 0, compacted = 0) are not shown
// (docs/agents/hermes.md AH4).
func (r *hermesRow) visible() bool { return r.active || r.compacted }

// hermesRead emits a session's events: the header, then one entry per
// messages row in id order (docs/agents/hermes.md AH3-AH6).
func hermesRead(ctx context.Context, path string, env Env, s *hermesSession, after int64, emit func(Event) error) error {
	db, _, mcols, err := hermesOpen(ctx, path, env)
	if err != nil {
		return err
	}
	defer db.Close()
	q := `SELECT ` + hermesPick(mcols, "id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
		"reasoning", "reasoning_content", "active=1", "compacted=0", "_compressed_summary=0", "display_kind") +
		` FROM messages WHERE session_id = ? ORDER BY id`
	rows, err := db.QueryContext(ctx, q, s.id)
	if err != nil {
		return fmt.Errorf("hermes: reading the messages of session %s: %w", s.id, err)
	}
	var msgs []*hermesRow
	for rows.Next() {
		var v [13]any
		ptrs := make([]any, len(v))
		for i := range v {
			ptrs[i] = &v[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return fmt.Errorf("hermes: reading the messages of session %s: %w", s.id, err)
		}
		r := &hermesRow{id: int64(hermesNumber(v[0])), role: hermesText(v[1]), content: hermesText(v[2]),
			toolCallID: hermesText(v[3]), toolCalls: hermesText(v[4]), toolName: hermesText(v[5]),
			time: Millis(hermesNumber(v[6])), reasoning: hermesText(v[7]),
			reasoningAlt: hermesText(v[8]), active: hermesNumber(v[9]) != 0, compacted: hermesNumber(v[10]) != 0,
			summary: hermesNumber(v[11]) != 0, displayKind: hermesText(v[12])}
		msgs = append(msgs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("hermes: reading the messages of session %s: %w", s.id, err)
	}

	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	if err := send(Event{Pos: 0, Rec: "session " + s.id, JSON: Header(Hermes, s.id, Millis(s.started), s.cwd)}); err != nil {
		return err
	}
	// AH5: a row on the path hangs from the row on the path before it; a
	// row off the path from the row just before it, so that a rewound turn
	// is a chain beside the path; after each run of rows off the path a
	// leaf entry moves the leaf back to the last row on the path. A row's
	// event never depends on the rows after it, so that a rewind and the
	// turns after it extend the events read before (docs/agents/hermes.md AH5).
	lastShown, lastEntry := s.id, s.id // the header's id is the session id
	var lastTime, lastPos int64
	offRun := false
	leafBack := func() error {
		offRun = false
		return send(Event{Pos: lastPos, Rec: "session " + s.id, JSON: Leaf("", lastShown, lastTime)})
	}
	for _, r := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		onPath := r.visible()
		if onPath && offRun {
			if err := leafBack(); err != nil {
				return err
			}
		}
		parent := lastEntry
		if onPath {
			parent = lastShown
		}
		id := "m" + strconv.FormatInt(r.id, 10)
		rec := "message " + strconv.FormatInt(r.id, 10)
		if scaffold, instruction, ok := hermesSkillMessage(r); ok {
			// AH10: the skill's text is not the user's; what they typed with it is.
			sysID := id
			if instruction != "" {
				sysID = id + "s"
			}
			if err := send(Event{Pos: r.id, Rec: rec, JSON: Message(Msg{ID: sysID, Parent: ParentID(parent), Time: r.time,
				Role: "system", Content: []Block{Text(scaffold)}})}); err != nil {
				return err
			}
			if instruction != "" {
				if err := send(Event{Pos: r.id, Rec: rec, JSON: Message(Msg{ID: id, Parent: ParentID(sysID), Time: r.time,
					Role: "user", Content: []Block{Text(instruction)}})}); err != nil {
					return err
				}
			}
		} else {
			ev, err := hermesEvent(r, id, ParentID(parent), s.model)
			if err != nil {
				if err := send(Event{Pos: r.id, Rec: rec, Bad: err}); err != nil {
					return err
				}
				continue
			}
			if err := send(Event{Pos: r.id, Rec: rec, JSON: ev}); err != nil {
				return err
			}
		}
		lastEntry, lastPos = id, r.id
		if onPath {
			lastShown = id
		} else {
			offRun = true
		}
		if r.time != 0 {
			lastTime = r.time
		}
	}
	if offRun {
		return leafBack()
	}
	return nil
}

// Hermes writes a /skill invocation as a user row: the skill's text behind
// a fixed preamble ("[SYSTEM: " before mid-2026, "[IMPORTANT: " since),
// with what the user typed after a fixed sentence (one skill) or line (a
// bundle) and before a runtime note or the bundle's skills
// (agent/skill_commands.py extract_user_instruction_from_skill_message).
var hermesSkillPrefixes = []string{"[SYSTEM: The user has invoked the ", "[IMPORTANT: The user has invoked the "}

const (
	hermesBundleMarker      = " skill bundle,"
	hermesSingleSkillMarker = "The full skill content is loaded below.]"
	hermesSkillInstruction  = "The user has provided the following instruction alongside the skill invocation: "
	hermesSkillRuntimeNote  = "\n\n[Runtime note:"
	hermesBundleInstruction = "\nUser instruction: "
	hermesBundleFirstSkill  = "\n\n[Loaded as part of the "
)

// hermesSkillMessage reports whether a user row is Hermes' skill
// scaffolding, with the row's text and the instruction the user typed
// with the skill ("" for none). docs/agents/hermes.md AH10.
func hermesSkillMessage(r *hermesRow) (scaffold, instruction string, ok bool) {
	if r.role != "user" || r.summary || r.displayKind == "hidden" {
		return "", "", false
	}
	c := r.content
	for _, p := range hermesSkillPrefixes {
		if strings.HasPrefix(c, p) {
			ok = true
		}
	}
	if !ok {
		return "", "", false
	}
	switch {
	case strings.Contains(c, hermesBundleMarker):
		if i := strings.Index(c, hermesBundleInstruction); i >= 0 {
			instruction = c[i+len(hermesBundleInstruction):]
			if j := strings.Index(instruction, hermesBundleFirstSkill); j >= 0 {
				instruction = instruction[:j]
			}
		}
	case strings.Contains(c, hermesSingleSkillMarker):
		if i := strings.LastIndex(c, hermesSkillInstruction); i >= 0 {
			instruction = c[i+len(hermesSkillInstruction):]
			if j := strings.Index(instruction, hermesSkillRuntimeNote); j >= 0 {
				instruction = instruction[:j]
			}
		}
	}
	return c, strings.TrimSpace(instruction), true
}

// hermesContentPrefixes mark content stored as JSON (multimodal parts):
// SQLite's "\x00json:" and the "\x01json:" of Hermes' Postgres stores
// (hermes_state_messages.py _encode_content).
var hermesContentPrefixes = []string{"\x00json:", "\x01json:"}

// hermesContentBlocks returns the text blocks of a content column: its
// text, or the text parts of JSON-encoded multimodal content (image parts
// are left out).
func hermesContentBlocks(content string) []Block {
	for _, p := range hermesContentPrefixes {
		if !strings.HasPrefix(content, p) {
			continue
		}
		rest := content[len(p):]
		var v any
		if json.Unmarshal([]byte(rest), &v) != nil {
			content = rest // Hermes falls back to the stored text
			break
		}
		switch t := v.(type) {
		case string:
			content = t
		case []any:
			var out []Block
			for _, part := range t {
				switch pt := part.(type) {
				case string:
					if strings.TrimSpace(pt) != "" {
						out = append(out, Text(pt))
					}
				case map[string]any:
					typ, _ := pt["type"].(string)
					text, _ := pt["text"].(string)
					if (typ == "text" || typ == "input_text" || typ == "output_text") && strings.TrimSpace(text) != "" {
						out = append(out, Text(text))
					}
				}
			}
			return out
		default:
			return nil
		}
		break
	}
	if strings.TrimSpace(content) == "" {
		return nil
	}
	return []Block{Text(content)}
}

// hermesToolCalls reads an assistant row's tool_calls column: a JSON list
// of OpenAI-format calls {id, type, function: {name, arguments}}.
func hermesToolCalls(raw string) ([]Block, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, fmt.Errorf("tool_calls is not JSON: %v", err)
	}
	var calls []any
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []any:
		calls = t
	case map[string]any:
		calls = []any{t}
	default:
		return nil, fmt.Errorf("tool_calls is not a list of calls: %.60s", raw)
	}
	var out []Block
	for i, c := range calls {
		call, ok := c.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("tool_calls[%d] is not an object", i)
		}
		id, _ := call["id"].(string)
		fn, _ := call["function"].(map[string]any)
		if fn == nil {
			fn = call
		}
		name, _ := fn["name"].(string)
		var args []byte
		switch a := fn["arguments"].(type) {
		case string:
			args = []byte(a)
		case nil:
		default:
			args, _ = json.Marshal(a)
		}
		out = append(out, ToolCall(id, name, args))
	}
	return out, nil
}

// hermesEvent is the event of one messages row (docs/agents/hermes.md AH3).
func hermesEvent(r *hermesRow, id string, parent Parent, model string) ([]byte, error) {
	role := r.role
	if r.summary || r.displayKind == "hidden" {
		role = "system" // AH6: compaction summaries and hidden scaffolding are not the user's words
	}
	switch role {
	case "user", "system":
		return Message(Msg{ID: id, Parent: parent, Time: r.time, Role: role, Content: hermesContentBlocks(r.content)}), nil
	case "assistant":
		var blocks []Block
		if strings.TrimSpace(r.reasoning) != "" {
			blocks = append(blocks, Thinking(r.reasoning))
		}
		if strings.TrimSpace(r.reasoningAlt) != "" && r.reasoningAlt != r.reasoning {
			blocks = append(blocks, Thinking(r.reasoningAlt))
		}
		blocks = append(blocks, hermesContentBlocks(r.content)...)
		calls, err := hermesToolCalls(r.toolCalls)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, calls...)
		return Message(Msg{ID: id, Parent: parent, Time: r.time, Role: "assistant", Content: blocks, Model: model}), nil
	case "tool":
		return Message(Msg{ID: id, Parent: parent, Time: r.time, Role: "toolResult", Content: hermesContentBlocks(r.content),
			ToolCallID: r.toolCallID, ToolName: r.toolName}), nil
	}
	// session_meta and any role this reader does not know: kept, not searchable
	data, _ := json.Marshal(map[string]any{"id": r.id, "role": r.role, "content": r.content,
		"tool_call_id": r.toolCallID, "tool_name": r.toolName, "tool_calls": r.toolCalls})
	return Kept(Hermes, "message", id, parent, r.time, data), nil
}

// hermesText is a column value as text ("" for NULL).
func hermesText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []byte:
		return string(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// hermesNumber is a column value as a number (0 for NULL or text that is
// not one).
func hermesNumber(v any) float64 {
	switch t := v.(type) {
	case int64:
		return float64(t)
	case float64:
		return t
	case string:
		f, _ := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f
	case []byte:
		f, _ := strconv.ParseFloat(strings.TrimSpace(string(t)), 64)
		return f
	case bool:
		if t {
			return 1
		}
	}
	return 0
}
