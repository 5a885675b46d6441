package agents

// Cursor keeps its agent conversations ("composers") in the global state
// database of its user data directory, <User>/globalStorage/state.vscdb: a
// key-value table, cursorDiskKV, where composerData:<composer id> holds a
// conversation's metadata and the headers of its messages ("bubbles"), and
// bubbleId:<composer id>:<bubble id> each message. Each workspace's own
// state.vscdb lists the composers of that workspace, which gives a
// conversation its project. Cursor is not open source: the format is what
// its files show. The mapping is docs/agents/cursor.md (rules AU1..AU7).

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/store"
)

func init() {
	register(&Format{Agent: Cursor, Roots: cursorRoots, Claims: cursorClaims, List: cursorList})
}

// cursorDBName is the state database of VS Code and its forks.
const cursorDBName = "state.vscdb"

// cursorRoots is the global state database in Cursor's user data
// directory: $XDG_CONFIG_HOME/Cursor (~/.config/Cursor) and, on macOS,
// ~/Library/Application Support/Cursor. docs/agents/cursor.md AU1.
func cursorRoots(env Env) []string {
	var out []string
	for _, base := range []string{env.Dir("XDG_CONFIG_HOME", ".config"), filepath.Join(env.home(), "Library", "Application Support")} {
		out = append(out, filepath.Join(base, "Cursor", "User", "globalStorage", cursorDBName))
	}
	return out
}

// cursorClaims: a path inside a Cursor/User directory, a Cursor directory
// (or a directory holding one) with a global state database, or a SQLite
// file (or a directory holding state.vscdb) with a cursorDiskKV table.
// docs/agents/cursor.md AU2.
func cursorClaims(path string) bool {
	clean := filepath.Clean(path)
	for p := clean; ; p = filepath.Dir(p) {
		if filepath.Base(p) == "User" && filepath.Base(filepath.Dir(p)) == "Cursor" {
			return true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	global := filepath.Join("User", "globalStorage", cursorDBName)
	return cursorSchema(clean) || cursorSchema(filepath.Join(clean, cursorDBName)) ||
		(filepath.Base(clean) == "Cursor" && fileExists(filepath.Join(clean, global))) ||
		fileExists(filepath.Join(clean, "Cursor", global))
}

// cursorSchema reports whether the first MiB of path is a SQLite database
// with a cursorDiskKV table.
func cursorSchema(path string) bool { return foreignSchema(path, "cursorDiskKV") }

// cursorList lists the conversations of a global state database, found
// from path: the file itself, or under a Cursor, User or globalStorage
// directory. docs/agents/cursor.md AU1.
func cursorList(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a root need not exist
		}
		return nil, []Problem{{Path: path, Err: err}}
	}
	if st.IsDir() {
		found := ""
		for _, rel := range []string{
			cursorDBName,
			filepath.Join("globalStorage", cursorDBName),
			filepath.Join("User", "globalStorage", cursorDBName),
			filepath.Join("Cursor", "User", "globalStorage", cursorDBName),
		} {
			if fileExists(filepath.Join(path, rel)) {
				found = filepath.Join(path, rel)
				break
			}
		}
		if found == "" {
			return nil, nil
		}
		path = found
	}
	ts, err := cursorListDB(ctx, path, env)
	if err != nil {
		return nil, []Problem{{Path: path, Err: err}}
	}
	return ts, nil
}

// cursorComposer is what List reads of a composerData value.
type cursorComposer struct {
	ID        string          `json:"composerId"`
	CreatedAt json.RawMessage `json:"createdAt"`
	Headers   []struct {
		BubbleID string `json:"bubbleId"`
		Type     int    `json:"type"`
	} `json:"fullConversationHeadersOnly"`
	Conversation []json.RawMessage `json:"conversation"`
}

// cursorOpen opens a database through env and checks it has cursorDiskKV.
func cursorOpen(ctx context.Context, path string, env Env) (*sql.DB, error) {
	db, _, err := openForeign(ctx, path, env, Cursor, "a Cursor state database",
		map[string][]string{"cursorDiskKV": {"key", "value"}})
	return db, err
}

// cursorListDB lists the conversations of one global state database that
// hold a message, oldest first.
func cursorListDB(ctx context.Context, path string, env Env) ([]Transcript, error) {
	db, err := cursorOpen(ctx, path, env)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// the length of each conversation's bubbles, for its generation
	sizes := map[string][2]int64{}
	rows, err := db.QueryContext(ctx, `SELECT key, length(value) FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;'`)
	if err != nil {
		return nil, fmt.Errorf("cursor: reading bubbles: %w", err)
	}
	for rows.Next() {
		var key string
		var n sql.NullInt64
		if err := rows.Scan(&key, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cursor: reading bubbles: %w", err)
		}
		cid, _, _ := strings.Cut(strings.TrimPrefix(key, "bubbleId:"), ":")
		s := sizes[cid]
		sizes[cid] = [2]int64{s[0] + 1, s[1] + n.Int64}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cursor: reading bubbles: %w", err)
	}
	rows, err = db.QueryContext(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("cursor: reading conversations: %w", err)
	}
	type found struct {
		c       cursorComposer
		created int64
		gen     string
		n       int
	}
	var all []found
	for rows.Next() {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cursor: reading conversations: %w", err)
		}
		var c cursorComposer
		if json.Unmarshal(value, &c) != nil {
			continue // AU7: read again with its messages, where it is reported
		}
		if c.ID == "" {
			c.ID = strings.TrimPrefix(key, "composerData:")
		}
		n := len(c.Headers)
		if n == 0 {
			n = len(c.Conversation)
		}
		if n == 0 {
			continue // AU3: a conversation opened and left empty
		}
		sum := sha256.Sum256(value)
		s := sizes[c.ID]
		all = append(all, found{c, Millis(c.CreatedAt), fmt.Sprintf("%d.%d.%s", s[0], s[1], hex.EncodeToString(sum[:6])), n})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cursor: reading conversations: %w", err)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].created < all[j].created })
	projects := cursorProjects(ctx, path, env)
	out := make([]Transcript, 0, len(all))
	for _, f := range all {
		id, created := f.c.ID, f.created
		project := projects[id]
		out = append(out, Transcript{
			Agent:   Cursor,
			Path:    path,
			Unit:    id,
			Session: store.Session{Key: Key(Cursor, id), CreatedAt: created},
			Project: project,
			Gen:     f.gen,
			Events:  int64(f.n) + 1,
			Read: func(ctx context.Context, after int64, emit func(Event) error) error {
				return cursorRead(ctx, path, env, id, created, project, after, emit)
			},
		})
	}
	return out, nil
}

// cursorProjects maps composer ids to the folder of the workspace that
// lists them: each <User>/workspaceStorage/<hash>/ has a workspace.json
// ({"folder": "file:///..."}) and a state.vscdb whose ItemTable key
// composer.composerData lists its composers. A workspace that cannot be
// read gives no project. docs/agents/cursor.md AU5.
func cursorProjects(ctx context.Context, global string, env Env) map[string]string {
	out := map[string]string{}
	if filepath.Base(filepath.Dir(global)) != "globalStorage" {
		return out
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(global)), "workspaceStorage", "*"))
	sort.Strings(dirs)
	for _, dir := range dirs {
		var ws struct {
			Folder string `json:"folder"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "workspace.json"))
		if err != nil || json.Unmarshal(b, &ws) != nil {
			continue
		}
		u, err := url.Parse(ws.Folder)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			continue
		}
		if !fileExists(filepath.Join(dir, cursorDBName)) {
			continue
		}
		db, err := env.OpenDB(filepath.Join(dir, cursorDBName))
		if err != nil {
			continue
		}
		var value []byte
		err = db.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = 'composer.composerData'`).Scan(&value)
		db.Close()
		if err != nil {
			continue
		}
		var list struct {
			All []struct {
				ID string `json:"composerId"`
			} `json:"allComposers"`
		}
		if json.Unmarshal(value, &list) != nil {
			continue
		}
		for _, c := range list.All {
			if _, seen := out[c.ID]; !seen && c.ID != "" {
				out[c.ID] = u.Path
			}
		}
	}
	return out
}

// cursorBubble is one message.
type cursorBubble struct {
	BubbleID  string          `json:"bubbleId"`
	Type      int             `json:"type"`
	Text      string          `json:"text"`
	CreatedAt json.RawMessage `json:"createdAt"`
	Thinking  *struct {
		Text string `json:"text"`
	} `json:"thinking"`
	Tool *struct {
		ID      string `json:"toolCallId"`
		Name    string `json:"name"`
		RawArgs string `json:"rawArgs"`
		Params  string `json:"params"`
		Result  string `json:"result"`
		Status  string `json:"status"`
	} `json:"toolFormerData"`
}

// cursorRead emits a conversation's events: the header, then each message
// of its headers (or of its inline conversation) in order, message i at
// position i+1 (docs/agents/cursor.md AU3, AU4).
func cursorRead(ctx context.Context, path string, env Env, id string, created int64, project string, after int64, emit func(Event) error) error {
	db, err := cursorOpen(ctx, path, env)
	if err != nil {
		return err
	}
	defer db.Close()
	var value []byte
	if err := db.QueryRowContext(ctx, `SELECT value FROM cursorDiskKV WHERE key = ?`, "composerData:"+id).Scan(&value); err != nil {
		return fmt.Errorf("cursor: reading conversation %s: %w", id, err)
	}
	var c cursorComposer
	if err := json.Unmarshal(value, &c); err != nil {
		return fmt.Errorf("cursor: conversation %s is not JSON: %w", id, err)
	}
	type item struct {
		raw []byte
		rec string
		bad error
	}
	var items []item
	if len(c.Headers) > 0 {
		bubbles := map[string][]byte{}
		prefix := "bubbleId:" + id + ":"
		rows, err := db.QueryContext(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?`, prefix, "bubbleId:"+id+";")
		if err != nil {
			return fmt.Errorf("cursor: reading the messages of %s: %w", id, err)
		}
		for rows.Next() {
			var key string
			var v []byte
			if err := rows.Scan(&key, &v); err != nil {
				rows.Close()
				return fmt.Errorf("cursor: reading the messages of %s: %w", id, err)
			}
			bubbles[strings.TrimPrefix(key, prefix)] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("cursor: reading the messages of %s: %w", id, err)
		}
		for _, h := range c.Headers {
			it := item{raw: bubbles[h.BubbleID], rec: "bubble " + h.BubbleID}
			if it.raw == nil {
				it.bad = errors.New("the conversation names this message, which is not in the database")
			}
			items = append(items, it)
		}
	} else {
		for i, raw := range c.Conversation {
			items = append(items, item{raw: raw, rec: "message " + strconv.Itoa(i)})
		}
	}

	send := func(e Event) error {
		if e.Pos <= after {
			return nil
		}
		return emit(e)
	}
	if err := send(Event{Pos: 0, Rec: "conversation " + id, JSON: Header(Cursor, id, created, project)}); err != nil {
		return err
	}
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos := int64(i) + 1
		var b cursorBubble
		if it.bad == nil {
			if err := json.Unmarshal(it.raw, &b); err != nil {
				it.bad = fmt.Errorf("not a message object: %w", err)
			}
		}
		if it.bad != nil {
			if err := send(Event{Pos: pos, Rec: it.rec, Bad: it.bad}); err != nil {
				return err
			}
			continue
		}
		entry := b.BubbleID
		if entry == "" {
			entry = "b" + strconv.Itoa(i)
		}
		t := Millis(b.CreatedAt)
		var evs [][]byte
		switch b.Type {
		case 1:
			evs = append(evs, Message(Msg{ID: entry, Parent: FromLeaf, Time: t, Role: "user", Content: []Block{Text(b.Text)}}))
		case 2:
			var blocks []Block
			if b.Thinking != nil && b.Thinking.Text != "" {
				blocks = append(blocks, Thinking(b.Thinking.Text))
			}
			if b.Text != "" {
				blocks = append(blocks, Text(b.Text))
			}
			if b.Tool != nil {
				args := b.Tool.RawArgs
				if args == "" {
					args = b.Tool.Params
				}
				callID := b.Tool.ID
				if callID == "" {
					callID = entry
				}
				blocks = append(blocks, ToolCall(callID, b.Tool.Name, []byte(args)))
				evs = append(evs, Message(Msg{ID: entry, Parent: FromLeaf, Time: t, Role: "assistant", Content: blocks}))
				if b.Tool.Result != "" {
					evs = append(evs, Message(Msg{ID: entry + ".result", Parent: FromLeaf, Time: t, Role: "toolResult",
						Content: []Block{Text(b.Tool.Result)}, ToolCallID: callID, ToolName: b.Tool.Name, IsError: b.Tool.Status == "error"}))
				}
				break
			}
			evs = append(evs, Message(Msg{ID: entry, Parent: FromLeaf, Time: t, Role: "assistant", Content: blocks}))
		default:
			evs = append(evs, Kept(Cursor, "bubble", entry, FromLeaf, t, it.raw))
		}
		for _, ev := range evs {
			if err := send(Event{Pos: pos, Rec: it.rec, JSON: ev}); err != nil {
				return err
			}
		}
	}
	return nil
}
