package agents

// Goose (block/goose) keeps its sessions in <data dir>/sessions: since
// version 1.10 in one SQLite database, sessions.db (a sessions table and a
// messages table whose content_json is the message's list of content
// items), before that as one JSONL file per session (a metadata line, then
// one message per line), which a goose that creates sessions.db imports and
// leaves where they are. The mapping is docs/agents/goose.md (rules
// AO1..AO8).

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{Agent: Goose, Roots: gooseRoots, Claims: gooseClaims, List: gooseList})
}

// gooseDBName is the database of a goose sessions directory.
const gooseDBName = "sessions.db"

// gooseRoots is <data dir>/sessions: $GOOSE_PATH_ROOT/data when that is an
// absolute path, else $XDG_DATA_HOME/goose (~/.local/share/goose).
// docs/agents/goose.md AO1.
func gooseRoots(env Env) []string {
	if root := strings.TrimSpace(env.getenv("GOOSE_PATH_ROOT")); filepath.IsAbs(root) {
		return []string{filepath.Join(root, "data", "sessions")}
	}
	return []string{filepath.Join(env.Dir("XDG_DATA_HOME", ".local", "share"), "goose", "sessions")}
}

// gooseClaims: a path inside a goose/sessions directory, a goose directory
// with a sessions directory, or a SQLite file (or a directory holding
// sessions.db) whose schema is goose's. docs/agents/goose.md AO2.
func gooseClaims(path string) bool {
	clean := filepath.Clean(path)
	for p := clean; ; p = filepath.Dir(p) {
		if filepath.Base(p) == "sessions" && filepath.Base(filepath.Dir(p)) == "goose" {
			return true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	if filepath.Base(clean) == "goose" && isDir(filepath.Join(clean, "sessions")) {
		return true
	}
	return gooseSchema(clean) || gooseSchema(filepath.Join(clean, gooseDBName))
}

// gooseSchema reports whether the first MiB of path is a SQLite database
// with goose's messages table (content_json, created_timestamp).
func gooseSchema(path string) bool { return foreignSchema(path, "content_json", "created_timestamp") }

// gooseList lists the sessions of a sessions directory (its database,
// then the JSONL files the database does not hold), of a goose directory,
// or of one database or JSONL file. docs/agents/goose.md AO1, AO3.
func gooseList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a root need not exist
		}
		return nil, []Problem{{Path: path, Err: err}}
	}
	if !st.IsDir() {
		if strings.HasSuffix(path, ".jsonl") {
			tr, err := gooseFile(path)
			if err != nil {
				return nil, []Problem{{Path: path, Err: err}}
			}
			return []Transcript{tr}, nil
		}
		ts, err := gooseListDB(ctx, path, env)
		if err != nil {
			return nil, []Problem{{Path: path, Err: err}}
		}
		return ts, nil
	}
	if filepath.Base(path) != "sessions" && isDir(filepath.Join(path, "sessions")) {
		path = filepath.Join(path, "sessions")
	}
	var out []Transcript
	var problems []Problem
	inDB := map[string]bool{}
	if db := filepath.Join(path, gooseDBName); fileExists(db) {
		ts, err := gooseListDB(ctx, db, env)
		if err != nil {
			problems = append(problems, Problem{Path: db, Err: err})
		}
		for _, tr := range ts {
			inDB[tr.Unit] = true
		}
		out = append(out, ts...)
	}
	files, _ := filepath.Glob(filepath.Join(path, "*.jsonl"))
	var legacy []string
	for _, file := range files {
		if !inDB[strings.TrimSuffix(filepath.Base(file), ".jsonl")] {
			legacy = append(legacy, file) // AO3: else imported into the database, which is read instead
		}
	}
	fromFiles, problems := readEach(legacy, gooseFile, problems)
	return append(out, fromFiles...), problems
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// gooseSession is what List reads of a sessions row (or a JSONL file's
// metadata line).
type gooseSession struct {
	id, cwd, kind string
	created       int64
}

// gooseTime reads goose's created_at: SQLite's CURRENT_TIMESTAMP
// ("2025-10-20 12:34:56", UTC) or RFC 3339 text.
func gooseTime(v any) int64 {
	if t, ok := v.(time.Time); ok { // the driver's reading of a TIMESTAMP column
		return t.UnixMilli()
	}
	s := hermesText(v)
	if t, err := time.Parse("2006-01-02 15:04:05", s); err == nil {
		return t.UnixMilli()
	}
	return Millis(s)
}

// gooseOpen opens a database through env and checks that it has goose's
// tables, returning the columns of sessions and messages.
func gooseOpen(ctx context.Context, path string, env Env) (*sql.DB, map[string]bool, map[string]bool, error) {
	db, cols, err := openForeign(ctx, path, env, Goose, "a goose sessions.db",
		map[string][]string{"sessions": {"id"}, "messages": {"session_id", "role", "content_json"}})
	if err != nil {
		return nil, nil, nil, err
	}
	return db, cols["sessions"], cols["messages"], nil
}

// gooseListDB lists the sessions of one sessions.db, oldest first.
func gooseListDB(ctx context.Context, path string, env Env) ([]Transcript, error) {
	db, scols, mcols, err := gooseOpen(ctx, path, env)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT `+hermesPick(scols, "id", "working_dir", "created_at", "session_type")+
		` FROM sessions ORDER BY `+hermesPick(scols, "created_at=0")+`, id`)
	if err != nil {
		return nil, fmt.Errorf("goose: reading sessions: %w", err)
	}
	var sessions []*gooseSession
	meta := map[string]string{}
	for rows.Next() {
		var v [4]any
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3]); err != nil {
			rows.Close()
			return nil, fmt.Errorf("goose: reading sessions: %w", err)
		}
		s := &gooseSession{id: hermesText(v[0]), cwd: hermesText(v[1]), created: gooseTime(v[2]), kind: hermesText(v[3])}
		if s.id == "" {
			continue
		}
		meta[s.id] = fmt.Sprint(v[1], "\x00", v[2], "\x00", v[3])
		sessions = append(sessions, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("goose: reading sessions: %w", err)
	}
	type stats struct{ count, maxID, length int64 }
	counts := map[string]stats{}
	rows, err = db.QueryContext(ctx, `SELECT session_id, count(*), max(rowid), total(length(content_json)) + total(length(`+
		hermesPick(mcols, "metadata_json=''")+`)) FROM messages GROUP BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("goose: reading messages: %w", err)
	}
	for rows.Next() {
		var id any
		var n, maxID int64
		var length float64
		if err := rows.Scan(&id, &n, &maxID, &length); err != nil {
			rows.Close()
			return nil, fmt.Errorf("goose: reading messages: %w", err)
		}
		counts[hermesText(id)] = stats{n, maxID, int64(length)}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("goose: reading messages: %w", err)
	}
	out := make([]Transcript, 0, len(sessions))
	for _, s := range sessions {
		c := counts[s.id]
		if c.count == 0 {
			continue // AO3: a session goose created and never wrote to
		}
		sum := sha256.Sum256([]byte(meta[s.id]))
		out = append(out, Transcript{
			Agent:   Goose,
			Path:    path,
			Unit:    s.id,
			Session: store.Session{Key: Key(Goose, s.id), CreatedAt: s.created},
			Project: s.cwd,
			Gen:     fmt.Sprintf("%d.%d.%d.%s", c.count, c.maxID, c.length, hex.EncodeToString(sum[:6])),
			Events:  c.count + 1,
			Read: func(ctx context.Context, after int64, emit func(Event) error) error {
				msgs, err := gooseRows(ctx, path, env, s.id)
				if err != nil {
					return err
				}
				return gooseRead(ctx, s, msgs, after, emit)
			},
		})
	}
	return out, nil
}

// gooseMessage is one message: a messages row, or a line of a JSONL file
// (a serialized Message {role, created, content, metadata}).
type gooseMessage struct {
	Role     string          `json:"role"`
	Created  json.RawMessage `json:"created"`
	Content  json.RawMessage `json:"content"`
	Metadata json.RawMessage `json:"metadata"`
	rec      string
	bad      error
}

// gooseRows reads a session's messages rows in goose's order (by
// timestamp, then as inserted).
func gooseRows(ctx context.Context, path string, env Env, id string) ([]gooseMessage, error) {
	db, _, mcols, err := gooseOpen(ctx, path, env)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT rowid, role, content_json, `+hermesPick(mcols, "created_timestamp", "metadata_json")+
		` FROM messages WHERE session_id = ? ORDER BY `+hermesPick(mcols, "timestamp=0")+`, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("goose: reading the messages of session %s: %w", id, err)
	}
	defer rows.Close()
	var out []gooseMessage
	for rows.Next() {
		var v [5]any
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
			return nil, fmt.Errorf("goose: reading the messages of session %s: %w", id, err)
		}
		m := gooseMessage{Role: hermesText(v[1]), Content: json.RawMessage(hermesText(v[2])),
			Created: encode(hermesNumber(v[3])), Metadata: json.RawMessage(hermesText(v[4])),
			rec: "message " + hermesText(v[0])}
		if !json.Valid(m.Content) {
			m.bad = errors.New("content_json is not JSON")
		}
		if !json.Valid(m.Metadata) {
			m.Metadata = nil
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("goose: reading the messages of session %s: %w", id, err)
	}
	return out, nil
}

// gooseMeta is the first line of a JSONL session file (SessionMetadata).
type gooseMeta struct {
	WorkingDir *string `json:"working_dir"`
}

// gooseFile is the transcript of a JSONL session file, whose session id is
// its name. docs/agents/goose.md AO3.
func gooseFile(path string) (Transcript, error) {
	s, msgs, err := gooseLoadFile(context.Background(), path)
	if err != nil {
		return Transcript{}, err
	}
	return Transcript{
		Agent:   Goose,
		Path:    path,
		Session: store.Session{Key: Key(Goose, s.id), CreatedAt: s.created},
		Project: s.cwd,
		Events:  int64(len(msgs)) + 1,
		Read: func(ctx context.Context, after int64, emit func(Event) error) error {
			s, msgs, err := gooseLoadFile(ctx, path)
			if err != nil {
				return err
			}
			return gooseRead(ctx, s, msgs, after, emit)
		},
	}, nil
}

// gooseLoadFile reads a JSONL session file: an optional metadata line,
// then one message per line.
func gooseLoadFile(ctx context.Context, path string) (*gooseSession, []gooseMessage, error) {
	s := &gooseSession{id: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	var msgs []gooseMessage
	first := true
	err := Lines(ctx, path, -1, func(line []byte, _ int64, rec string, bad error) error {
		if bad != nil {
			msgs = append(msgs, gooseMessage{rec: rec, bad: bad})
			first = false
			return nil
		}
		if first {
			first = false
			var meta gooseMeta
			if json.Unmarshal(line, &meta) == nil && meta.WorkingDir != nil {
				s.cwd = *meta.WorkingDir
				return nil
			}
		}
		var m gooseMessage
		if err := json.Unmarshal(line, &m); err != nil {
			msgs = append(msgs, gooseMessage{rec: rec, bad: fmt.Errorf("not a message: %w", err)})
			return nil
		}
		m.rec = rec
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, m := range msgs {
		if m.bad == nil {
			s.created = Millis(m.Created)
			break
		}
	}
	return s, msgs, nil
}

// gooseItem is one item of a message's content (MessageContent, tagged by
// "type").
type gooseItem struct {
	Type       string       `json:"type"`
	Text       string       `json:"text"`
	Thinking   string       `json:"thinking"`
	MimeType   string       `json:"mimeType"`
	ID         string       `json:"id"`
	ToolCall   *gooseResult `json:"toolCall"`
	ToolResult *gooseResult `json:"toolResult"`
}

// gooseResult is goose's serialized ToolResult: {"status":"success",
// "value": ...} or {"status":"error","error": "..."}.
type gooseResult struct {
	Status string          `json:"status"`
	Value  json.RawMessage `json:"value"`
	Error  string          `json:"error"`
}

// gooseRead emits a session's events: the header, then for message i the
// events of its content (docs/agents/goose.md AO4-AO6), all at position
// i+1.
func gooseRead(ctx context.Context, s *gooseSession, msgs []gooseMessage, after int64, emit func(Event) error) error {
	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	if err := send(Event{Pos: 0, Rec: "session " + s.id, JSON: Header(Goose, s.id, s.created, s.cwd)}); err != nil {
		return err
	}
	names := map[string]string{} // tool call id → tool name
	hidden := s.kind == "hidden"
	for i, m := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos := int64(i) + 1
		if m.bad != nil {
			if err := send(Event{Pos: pos, Rec: m.rec, Bad: m.bad}); err != nil {
				return err
			}
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(m.Content, &items); err != nil {
			if err := send(Event{Pos: pos, Rec: m.rec, Bad: errors.New("content is not a list of content items")}); err != nil {
				return err
			}
			continue
		}
		var meta struct {
			UserVisible *bool `json:"userVisible"`
		}
		_ = json.Unmarshal(m.Metadata, &meta) // no metadata: visible, as goose's default
		role := m.Role
		if role != "user" && role != "assistant" {
			role = "system"
		}
		if hidden || (meta.UserVisible != nil && !*meta.UserVisible) {
			role = "system" // AO5: words the user never saw, goose's or injected
		}
		id := "m" + strconv.Itoa(i)
		t := Millis(m.Created)
		var blocks []Block
		var extra [][]byte
		for j, raw := range items {
			var it gooseItem
			if json.Unmarshal(raw, &it) != nil {
				it.Type = "unknown"
			}
			sub := id + "." + strconv.Itoa(j)
			switch it.Type {
			case "text":
				blocks = append(blocks, Text(it.Text))
			case "thinking":
				blocks = append(blocks, Thinking(it.Thinking))
			case "image":
				blocks = append(blocks, Block{Type: "image", MimeType: it.MimeType})
			case "toolRequest", "frontendToolRequest":
				name, args := "", []byte(nil)
				if it.ToolCall != nil {
					var call struct {
						Name      string          `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					}
					if json.Unmarshal(it.ToolCall.Value, &call) == nil {
						name, args = call.Name, call.Arguments
					}
					if it.ToolCall.Status == "error" {
						args = encode(it.ToolCall.Error)
					}
				}
				names[it.ID] = name
				blocks = append(blocks, ToolCall(it.ID, name, args))
			case "toolResponse":
				text, isErr := gooseResultText(it.ToolResult)
				extra = append(extra, Message(Msg{ID: sub, Parent: FromLeaf, Time: t, Role: "toolResult",
					Content: []Block{Text(text)}, ToolCallID: it.ID, ToolName: names[it.ID], IsError: isErr}))
			default:
				extra = append(extra, Kept(Goose, it.Type, sub, FromLeaf, t, raw))
			}
		}
		var evs [][]byte
		if len(blocks) > 0 {
			evs = append(evs, Message(Msg{ID: id, Parent: FromLeaf, Time: t, Role: role, Content: blocks}))
		}
		evs = append(evs, extra...)
		for _, ev := range evs {
			if err := send(Event{Pos: pos, Rec: m.rec, JSON: ev}); err != nil {
				return err
			}
		}
	}
	return nil
}

// gooseResultText is the text of a tool's result: its text content items
// (value {content: [...]}, or the list itself in older versions), or its
// error.
func gooseResultText(r *gooseResult) (string, bool) {
	if r == nil {
		return "", false
	}
	if r.Status == "error" {
		return r.Error, true
	}
	var wrapped struct {
		Content []json.RawMessage `json:"content"`
		IsError bool              `json:"isError"`
	}
	var list []json.RawMessage
	if json.Unmarshal(r.Value, &list) != nil {
		if json.Unmarshal(r.Value, &wrapped) != nil {
			return string(r.Value), false
		}
		list = wrapped.Content
	}
	var texts []string
	for _, c := range list {
		var item struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &item) == nil && item.Type == "text" {
			texts = append(texts, item.Text)
		}
	}
	return strings.Join(texts, "\n"), wrapped.IsError
}
