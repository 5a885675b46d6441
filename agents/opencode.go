package agents

// OpenCode (docs/agents/opencode.md): sessions in the SQLite database
// <data>/opencode.db (tables session, message, part; message and part keep
// their fields in a JSON "data" column) and, from older versions, the JSON
// tree <data>/storage/{session/<project>/<id>.json, message/<session>/<id>.json,
// part/<message>/<id>.json}. <data> is $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode. One transcript per session; a session with a
// parent is a subagent (task tool) session spawned by its parent.
//
// Kilo Code's CLI (docs/agents/kilo-code.md) is a fork of OpenCode that
// keeps the same store under another name: <data> is
// $XDG_DATA_HOME/kilo, its database kilo.db, its variable KILO_DB. Both
// are read by this file, each as an opencodeFlavor.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionsearch/sessionsearch/internal/foreigndb"
	"github.com/sessionsearch/sessionsearch/store"
)

// opencodeFlavor is what differs between OpenCode and a fork of it that
// keeps the same store under its own name (Kilo Code): the agent, the name
// of its data directory and of its databases (<name>.db,
// <name>-<channel>.db), and the variable that names another database.
type opencodeFlavor struct {
	agent   string // the agent's name: OpenCode, KiloCode
	name    string // "opencode", "kilo"
	dbEnv   string // "OPENCODE_DB", "KILO_DB"
	product string // the program's name, for problems
	// table is a table only the fork's schema creates ("kilo_board"),
	// "" for OpenCode: a database under another name is the fork's when
	// its schema has it.
	table string
}

var opencodeFlavors = []*opencodeFlavor{
	{agent: OpenCode, name: "opencode", dbEnv: "OPENCODE_DB", product: "OpenCode"},
	{agent: KiloCode, name: "kilo", dbEnv: "KILO_DB", product: "Kilo Code", table: "kilo_board"},
}

func init() {
	for _, f := range opencodeFlavors {
		register(&Format{Agent: f.agent, Roots: f.roots, Claims: f.claims, List: f.list})
	}
}

const opencodeStorageDir = "storage"

// dataDir is the data directory: xdg-basedir's data dir ($XDG_DATA_HOME,
// else ~/.local/share) joined with "opencode" (docs/agents/opencode.md
// AO1), or "kilo" for Kilo Code (docs/agents/kilo-code.md AK1).
func (f *opencodeFlavor) dataDir(env Env) string {
	return filepath.Join(env.Dir("XDG_DATA_HOME", ".local", "share"), f.name)
}

// roots is the data directory (its databases and storage/ tree) and
// $OPENCODE_DB ($KILO_DB) when it names a database the data directory does
// not already hold (AO1).
func (f *opencodeFlavor) roots(env Env) []string {
	data := f.dataDir(env)
	roots := []string{data}
	db := strings.TrimSpace(env.getenv(f.dbEnv))
	if db == "" || db == ":memory:" {
		return roots
	}
	if !filepath.IsAbs(db) {
		db = filepath.Join(data, db)
	}
	if filepath.Dir(db) != filepath.Clean(data) || !f.dbFile(filepath.Base(db)) {
		roots = append(roots, db)
	}
	return roots
}

// dbFile reports whether name is one of the flavour's database files:
// opencode.db, or opencode-<channel>.db for other release channels
// (kilo.db, kilo-<channel>.db).
func (f *opencodeFlavor) dbFile(name string) bool {
	return name == f.name+".db" || (strings.HasPrefix(name, f.name+"-") && strings.HasSuffix(name, ".db") && len(name) > len(f.name+"-.db"))
}

// otherDBFile reports whether name is a database file of another flavour.
func (f *opencodeFlavor) otherDBFile(name string) bool {
	for _, o := range opencodeFlavors {
		if o != f && o.dbFile(name) {
			return true
		}
	}
	return false
}

// claims: a database named opencode.db (or opencode-<channel>.db), a
// SQLite file whose schema has OpenCode's session, message and part tables
// (unless its name or its schema is a fork's), a data directory named
// "opencode", and the storage/ tree inside one, with everything under it
// (AO2); the same with "kilo" for Kilo Code, whose schema also has
// kilo_board (AK1).
func (f *opencodeFlavor) claims(path string) bool {
	p := filepath.Clean(path)
	if f.dbFile(filepath.Base(p)) {
		return true
	}
	if filepath.Base(p) == f.name && f.looksLikeDataDir(p) {
		return true
	}
	if _, ok := f.storageRoot(p); ok {
		return true
	}
	if f.otherDBFile(filepath.Base(p)) {
		return false
	}
	tables := opencodeSchemaSniff(p)
	if !tables["session"] || !tables["message"] || !tables["part"] {
		return false
	}
	for _, o := range opencodeFlavors {
		if o.table != "" && tables[o.table] {
			return o == f
		}
	}
	return f.table == ""
}

// looksLikeDataDir: the directory holds a database or a storage/ tree, or
// does not exist yet (a default root before first use).
func (f *opencodeFlavor) looksLikeDataDir(dir string) bool {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || !fi.IsDir() {
		return false
	}
	if dbs, _ := f.databases(dir); len(dbs) > 0 {
		return true
	}
	st, err := os.Stat(filepath.Join(dir, opencodeStorageDir))
	return err == nil && st.IsDir()
}

// storageRoot returns the storage/ directory path is or is inside, when
// that directory's parent is named "opencode" ("kilo").
func (f *opencodeFlavor) storageRoot(p string) (string, bool) {
	for q := p; ; {
		if filepath.Base(q) == opencodeStorageDir && filepath.Base(filepath.Dir(q)) == f.name {
			return q, true
		}
		parent := filepath.Dir(q)
		if parent == q {
			return "", false
		}
		q = parent
	}
}

// opencodeSchemaSniffBytes is how much of a file Claims reads to find the
// schema: sqlite_schema's pages are written first, when the migrations run
// on an empty database.
const opencodeSchemaSniffBytes = 1 << 20

var opencodeCreateTable = regexp.MustCompile("(?i)CREATE TABLE\\s+(?:IF NOT EXISTS\\s+)?[`\"\\[]?(\\w+)[`\"\\]]?\\s*\\(")

// opencodeSchemaSniff returns the tables (lower case) that the first bytes
// of the SQLite database at p create; nil when p is not a SQLite file.
func opencodeSchemaSniff(p string) map[string]bool {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	magic := []byte("SQLite format 3\x00")
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, magic) {
		return nil
	}
	head, err = io.ReadAll(io.LimitReader(f, opencodeSchemaSniffBytes))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, m := range opencodeCreateTable.FindAllSubmatch(head, -1) {
		seen[strings.ToLower(string(m[1]))] = true
	}
	return seen
}

// databases lists the flavour's databases in a data directory.
func (f *opencodeFlavor) databases(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && f.dbFile(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// list lists the sessions of a data directory (its databases, then the
// storage/ sessions no database holds: OpenCode copies storage/ into the
// database once, AO3), of one database, or of a storage/ tree.
func (f *opencodeFlavor) list(ctx context.Context, path string, env Env) ([]Transcript, []Problem) {
	p := filepath.Clean(path)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, []Problem{{Path: p, Err: err}}
	}
	if root, ok := f.storageRoot(p); ok {
		only := ""
		if rel, err := filepath.Rel(root, p); err == nil && !fi.IsDir() {
			if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) == 3 && parts[0] == "session" {
				only = strings.TrimSuffix(parts[2], ".json")
			}
		}
		return f.listStorage(ctx, root, only, nil)
	}
	if !fi.IsDir() {
		trs, _, probs := f.listDB(ctx, p, env)
		return trs, probs
	}
	if st, err := os.Stat(filepath.Join(p, "session")); err == nil && st.IsDir() && filepath.Base(p) == opencodeStorageDir {
		return f.listStorage(ctx, p, "", nil)
	}
	dbs, err := f.databases(p)
	if err != nil {
		return nil, []Problem{{Path: p, Err: err}}
	}
	var trs []Transcript
	var probs []Problem
	inDB := map[string]bool{}
	for _, db := range dbs {
		t, ids, pr := f.listDB(ctx, db, env)
		trs, probs = append(trs, t...), append(probs, pr...)
		for _, id := range ids {
			inDB[id] = true
		}
	}
	// storage/ holds sessions in its session/ directory; beside a
	// database it may hold only other things (Kilo Code's session_diff/).
	storage := filepath.Join(p, opencodeStorageDir)
	if ccIsDir(filepath.Join(storage, "session")) || len(dbs) == 0 && ccIsDir(storage) {
		t, pr := f.listStorage(ctx, storage, "", inDB)
		trs, probs = append(trs, t...), append(probs, pr...)
	} else if len(dbs) == 0 {
		probs = append(probs, Problem{Path: p, Err: fmt.Errorf("no %s store here: no %s.db, %[2]s-<channel>.db or storage/", f.product, f.name)})
	}
	return trs, probs
}

// opencodeSession is what a transcript needs of a session row (or file).
type opencodeSession struct {
	agent           string // OpenCode or KiloCode: whose session it is
	id, parent, dir string
	created         int64
	updated         int64
	revert          []byte // the revert JSON, nil when none
}

// opencodeRecord is a message or a part: its id, the time it was created
// (from its row, 0 when unknown) and its JSON data.
type opencodeRecord struct {
	id      string
	created int64
	data    []byte
	rec     string // where it is, for problems
}

type opencodeMessage struct {
	opencodeRecord
	parts []opencodeRecord
}

func (s opencodeSession) transcript(path, gen string, events int64, read func(ctx context.Context) (opencodeSession, []opencodeMessage, []Event, error)) Transcript {
	tr := Transcript{
		Agent:   s.agent,
		Path:    path,
		Unit:    s.id,
		Session: opencodeStoreSession(s),
		Project: s.dir,
		Gen:     gen,
		Events:  events,
	}
	tr.Read = func(ctx context.Context, after int64, emit func(Event) error) error {
		sess, msgs, bad, err := read(ctx)
		if err != nil {
			return err
		}
		sess.agent = s.agent
		for _, e := range opencodeEvents(sess, msgs, bad) {
			if e.Pos <= after {
				continue
			}
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	}
	return tr
}

// opencodeStoreSession keys a session with its agent's name and its id
// (AO4).
func opencodeStoreSession(s opencodeSession) store.Session {
	out := store.Session{Key: Key(s.agent, s.id), CreatedAt: s.created}
	if s.parent != "" {
		out.SpawnedBy = Key(s.agent, s.parent)
	}
	return out
}

// ---- the database ----

// opencodeQuerier is a read transaction (or a database).
type opencodeQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// opencodeOpen opens a database read-only through env and starts a read
// transaction, so that a session, its messages and its parts are read from
// one snapshot while OpenCode writes; done ends both.
func opencodeOpen(ctx context.Context, path string, env Env) (tx *sql.Tx, done func(), err error) {
	if env.OpenDB == nil {
		return nil, nil, errors.New("cannot read SQLite databases here")
	}
	db, err := env.OpenDB(path)
	if err != nil {
		return nil, nil, err
	}
	tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return tx, func() { tx.Rollback(); db.Close() }, nil
}

// opencodePick is the column expression of name on table alias t, NULL
// when the table lacks it.
func opencodePick(cols map[string]bool, t, name string) string {
	if cols[name] {
		return t + "." + name
	}
	return "NULL"
}

// opencodeSchema is the SQL to read one OpenCode database, built from the
// columns it has: only session.id, message(id, session_id, data) and
// part(id, message_id, data) are required (AO3).
type opencodeSchema struct {
	sessions, session   string // every session; one session by id
	messages, parts     string // one session's rows
	messageGen, partGen string // per-session fingerprints
}

func opencodeInspect(ctx context.Context, db opencodeQuerier) (opencodeSchema, error) {
	var q opencodeSchema
	s, err := foreigndb.Columns(ctx, db, "session")
	if err != nil {
		return q, fmt.Errorf("not a readable SQLite database: %w", err)
	}
	m, err := foreigndb.Columns(ctx, db, "message")
	if err != nil {
		return q, err
	}
	p, err := foreigndb.Columns(ctx, db, "part")
	if err != nil {
		return q, err
	}
	if !s["id"] || !m["id"] || !m["session_id"] || !m["data"] || !p["id"] || !p["message_id"] || !p["data"] {
		return q, errors.New("not an OpenCode database: it needs tables session(id), message(id, session_id, data) and part(id, message_id, data)")
	}
	pr, err := foreigndb.Columns(ctx, db, "project")
	if err != nil {
		return q, err
	}
	worktree, join := "NULL", ""
	if s["project_id"] && pr["id"] && pr["worktree"] {
		worktree, join = "p.worktree", " LEFT JOIN project p ON p.id = s.project_id"
	}
	created := opencodePick(s, "s", "time_created")
	cols := "s.id, " + opencodePick(s, "s", "parent_id") + ", " + opencodePick(s, "s", "directory") + ", " + worktree + ", " +
		created + ", " + opencodePick(s, "s", "time_updated") + ", " + opencodePick(s, "s", "revert")
	q.sessions = "SELECT " + cols + " FROM session s" + join + " ORDER BY " + created + ", s.id"
	q.session = "SELECT " + cols + " FROM session s" + join + " WHERE s.id = ?"

	order := "m.id"
	if m["time_created"] {
		order = "m.time_created, m.id"
	}
	q.messages = "SELECT m.id, " + opencodePick(m, "m", "time_created") + ", m.data FROM message m WHERE m.session_id = ? ORDER BY " + order
	size := opencodeSizeFunc(ctx, db)
	q.messageGen = "SELECT m.session_id, count(*), max(m.id), " + opencodeUpdated(m, "m") + ", total(" + size + "(m.data)) FROM message m GROUP BY m.session_id"
	partSession, partJoin := "pt.session_id", ""
	if !p["session_id"] {
		partSession, partJoin = "pm.session_id", " JOIN message pm ON pm.id = pt.message_id"
	}
	q.parts = "SELECT pt.id, pt.message_id, " + opencodePick(p, "pt", "time_created") + ", pt.data FROM part pt" + partJoin +
		" WHERE " + partSession + " = ? ORDER BY pt.message_id, pt.id"
	q.partGen = "SELECT " + partSession + ", count(*), max(pt.id), " + opencodeUpdated(p, "pt") + ", total(" + size + "(pt.data)) FROM part pt" + partJoin + " GROUP BY " + partSession
	return q, nil
}

// opencodeSizeFunc is the SQL function that gives the size of a data
// value: octet_length, which SQLite answers from the record header without
// reading the value (3.43 and later), else length.
func opencodeSizeFunc(ctx context.Context, db opencodeQuerier) string {
	var n int64
	if db.QueryRowContext(ctx, `SELECT octet_length('')`).Scan(&n) == nil {
		return "octet_length"
	}
	return "length"
}

// opencodeUpdated is the max and the sum of a table's time_updated, which
// change when any row is updated; NULLs when it has none.
func opencodeUpdated(cols map[string]bool, t string) string {
	if !cols["time_updated"] {
		return "NULL, NULL"
	}
	return "max(" + t + ".time_updated), total(" + t + ".time_updated)"
}

// listDB lists the sessions of one database and returns their ids.
func (f *opencodeFlavor) listDB(ctx context.Context, path string, env Env) ([]Transcript, []string, []Problem) {
	db, done, err := opencodeOpen(ctx, path, env)
	if err != nil {
		return nil, nil, []Problem{{Path: path, Err: err}}
	}
	defer done()
	q, err := opencodeInspect(ctx, db)
	if err != nil {
		return nil, nil, []Problem{{Path: path, Err: err}}
	}
	gens := map[string][]string{}
	counts := map[string]int64{}
	for _, g := range [...]struct{ tag, query string }{{"message", q.messageGen}, {"part", q.partGen}} {
		if err := opencodeGenRows(ctx, db, g.tag, g.query, gens, counts); err != nil {
			return nil, nil, []Problem{{Path: path, Err: err}}
		}
	}
	rows, err := db.QueryContext(ctx, q.sessions)
	if err != nil {
		return nil, nil, []Problem{{Path: path, Err: err}}
	}
	defer rows.Close()
	var trs []Transcript
	var ids []string
	for rows.Next() {
		s, err := opencodeScanSession(rows)
		if err != nil {
			return trs, ids, []Problem{{Path: path, Err: err}}
		}
		s.agent = f.agent
		ids = append(ids, s.id)
		fp := append([]string{strconv.FormatInt(s.updated, 10), string(s.revert)}, gens[s.id]...)
		id := s.id
		trs = append(trs, s.transcript(path, opencodeFingerprint(fp), 1+counts[s.id],
			func(ctx context.Context) (opencodeSession, []opencodeMessage, []Event, error) {
				return opencodeReadDB(ctx, path, env, id)
			}))
	}
	if err := rows.Err(); err != nil {
		return trs, ids, []Problem{{Path: path, Err: err}}
	}
	return trs, ids, nil
}

// opencodeGenRows adds the fingerprint values of each session's rows
// (count, max id, max and sum of time_updated, total data length) to gens,
// and the row counts to counts. The data length is there because OpenCode
// updates parts with an upsert of data alone (AO5).
func opencodeGenRows(ctx context.Context, db opencodeQuerier, tag, query string, gens map[string][]string, counts map[string]int64) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var session sql.NullString
		var n int64
		vals := make([]any, 4)
		ptrs := []any{&session, &n, &vals[0], &vals[1], &vals[2], &vals[3]}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fp := []string{tag, strconv.FormatInt(n, 10)}
		for _, v := range vals {
			fp = append(fp, fmt.Sprint(opencodeScalar(v)))
		}
		gens[session.String] = append(gens[session.String], fp...)
		counts[session.String] += n
	}
	return rows.Err()
}

func opencodeScalar(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

func opencodeFingerprint(parts []string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

type opencodeScanner interface{ Scan(dest ...any) error }

func opencodeScanSession(r opencodeScanner) (opencodeSession, error) {
	var id, parent, dir, worktree sql.NullString
	var created, updated any
	var revert []byte
	if err := r.Scan(&id, &parent, &dir, &worktree, &created, &updated, &revert); err != nil {
		return opencodeSession{}, err
	}
	s := opencodeSession{id: id.String, parent: parent.String, dir: dir.String,
		created: opencodeInt(created), updated: opencodeInt(updated)}
	if s.dir == "" && worktree.String != "/" { // "/" is the worktree of OpenCode's global project
		s.dir = worktree.String
	}
	if len(bytes.TrimSpace(revert)) > 0 && string(bytes.TrimSpace(revert)) != "null" {
		s.revert = revert
	}
	return s, nil
}

// opencodeInt reads an epoch-ms column whatever SQLite type it holds.
func opencodeInt(v any) int64 {
	switch t := v.(type) {
	case int64:
		return t
	case float64:
		return int64(t)
	case []byte:
		return Millis(string(t))
	case string:
		return Millis(t)
	}
	return 0
}

// opencodeReadDB reads one session of a database: its row, its messages in
// order (time_created, then id) and each message's parts by id.
func opencodeReadDB(ctx context.Context, path string, env Env, id string) (opencodeSession, []opencodeMessage, []Event, error) {
	var s opencodeSession
	db, done, err := opencodeOpen(ctx, path, env)
	if err != nil {
		return s, nil, nil, err
	}
	defer done()
	q, err := opencodeInspect(ctx, db)
	if err != nil {
		return s, nil, nil, err
	}
	if s, err = opencodeScanSession(db.QueryRowContext(ctx, q.session, id)); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = fmt.Errorf("session %s is no longer in the database", id)
		}
		return s, nil, nil, err
	}
	rows, err := db.QueryContext(ctx, q.messages, id)
	if err != nil {
		return s, nil, nil, err
	}
	var msgs []opencodeMessage
	index := map[string]int{}
	for rows.Next() {
		var mid sql.NullString
		var created any
		var data []byte
		if err := rows.Scan(&mid, &created, &data); err != nil {
			rows.Close()
			return s, nil, nil, err
		}
		index[mid.String] = len(msgs)
		msgs = append(msgs, opencodeMessage{opencodeRecord: opencodeRecord{
			id: mid.String, created: opencodeInt(created), data: data, rec: "message " + mid.String}})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s, nil, nil, err
	}
	rows, err = db.QueryContext(ctx, q.parts, id)
	if err != nil {
		return s, nil, nil, err
	}
	defer rows.Close()
	var bad []Event
	for rows.Next() {
		var pid, mid sql.NullString
		var created any
		var data []byte
		if err := rows.Scan(&pid, &mid, &created, &data); err != nil {
			return s, nil, nil, err
		}
		part := opencodeRecord{id: pid.String, created: opencodeInt(created), data: data, rec: "part " + pid.String}
		i, ok := index[mid.String]
		if !ok {
			bad = append(bad, Event{Rec: part.rec, Bad: fmt.Errorf("its message %s is not in session %s", mid.String, id)})
			continue
		}
		msgs[i].parts = append(msgs[i].parts, part)
	}
	return s, msgs, bad, rows.Err()
}

// ---- the storage/ JSON tree ----

// opencodeSessionFile is the part of a storage/session/<project>/<id>.json
// file a transcript needs (AO3).
type opencodeSessionFile struct {
	ParentID  string          `json:"parentID"`
	Directory string          `json:"directory"`
	Revert    json.RawMessage `json:"revert"`
	Time      struct {
		Created json.RawMessage `json:"created"`
		Updated json.RawMessage `json:"updated"`
	} `json:"time"`
}

// listStorage lists the sessions of a storage/ tree (only the one
// with id only, when set; none of those in skip).
func (f *opencodeFlavor) listStorage(ctx context.Context, root, only string, skip map[string]bool) ([]Transcript, []Problem) {
	projects, err := os.ReadDir(filepath.Join(root, "session"))
	if err != nil {
		return nil, []Problem{{Path: root, Err: err}}
	}
	var trs []Transcript
	var probs []Problem
	for _, proj := range projects {
		if !proj.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, "session", proj.Name()))
		if err != nil {
			probs = append(probs, Problem{Path: root, Rec: "session/" + proj.Name(), Err: err})
			continue
		}
		for _, e := range files {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || e.IsDir() || (only != "" && id != only) || skip[id] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return trs, append(probs, Problem{Path: root, Err: err})
			}
			file := filepath.Join(root, "session", proj.Name(), e.Name())
			s, _ := opencodeReadSessionFile(file, id)
			s.agent = f.agent
			gen, n := opencodeStorageGen(root, file, id)
			trs = append(trs, s.transcript(root, gen, n, func(ctx context.Context) (opencodeSession, []opencodeMessage, []Event, error) {
				return opencodeReadStorage(ctx, root, file, id)
			}))
		}
	}
	return trs, probs
}

// opencodeReadSessionFile reads a session file; its id is its file name,
// as OpenCode's own JSON-to-SQLite migration takes it.
func opencodeReadSessionFile(file, id string) (opencodeSession, error) {
	s := opencodeSession{id: id}
	b, err := os.ReadFile(file)
	if err != nil {
		return s, err
	}
	var sf opencodeSessionFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return s, fmt.Errorf("%s is not a JSON session: %w", filepath.Base(file), err)
	}
	s.parent, s.dir = sf.ParentID, sf.Directory
	s.created, s.updated = Millis(sf.Time.Created), Millis(sf.Time.Updated)
	if r := bytes.TrimSpace(sf.Revert); len(r) > 0 && string(r) != "null" {
		s.revert = r
	}
	return s, nil
}

// opencodeStorageGen fingerprints a storage session by the name, size and
// modification time of its session file and of every message and part
// file; n counts them.
func opencodeStorageGen(root, file, id string) (string, int64) {
	var fp []string
	add := func(path string) {
		if fi, err := os.Stat(path); err == nil {
			fp = append(fp, path, strconv.FormatInt(fi.Size(), 10), strconv.FormatInt(fi.ModTime().UnixNano(), 10))
		}
	}
	add(file)
	n := int64(1)
	msgDir := filepath.Join(root, "message", id)
	msgs, _ := os.ReadDir(msgDir)
	for _, m := range msgs {
		mid, ok := strings.CutSuffix(m.Name(), ".json")
		if !ok {
			continue
		}
		add(filepath.Join(msgDir, m.Name()))
		n++
		parts, _ := os.ReadDir(filepath.Join(root, "part", mid))
		for _, p := range parts {
			add(filepath.Join(root, "part", mid, p.Name()))
			n++
		}
	}
	return opencodeFingerprint(fp), n
}

// opencodeReadStorage reads one session of a storage/ tree: messages
// ordered by time.created then id, parts by id (file names).
func opencodeReadStorage(ctx context.Context, root, file, id string) (opencodeSession, []opencodeMessage, []Event, error) {
	var bad []Event
	s, err := opencodeReadSessionFile(file, id)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return s, nil, nil, err
		}
		bad = append(bad, Event{Rec: "session " + id, Bad: err})
	}
	msgDir := filepath.Join(root, "message", id)
	entries, err := os.ReadDir(msgDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return s, nil, nil, err
	}
	var msgs []opencodeMessage
	for _, e := range entries {
		mid, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return s, nil, nil, err
		}
		m := opencodeMessage{opencodeRecord: opencodeRecord{id: mid, rec: "message " + mid}}
		if m.data, err = os.ReadFile(filepath.Join(msgDir, e.Name())); err != nil {
			return s, nil, nil, err
		}
		var t struct {
			Time struct {
				Created json.RawMessage `json:"created"`
			} `json:"time"`
		}
		if json.Unmarshal(m.data, &t) == nil {
			m.created = Millis(t.Time.Created)
		}
		partDir := filepath.Join(root, "part", mid)
		parts, err := os.ReadDir(partDir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return s, nil, nil, err
		}
		for _, pe := range parts {
			pid, ok := strings.CutSuffix(pe.Name(), ".json")
			if !ok || pe.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(partDir, pe.Name()))
			if err != nil {
				return s, nil, nil, err
			}
			m.parts = append(m.parts, opencodeRecord{id: pid, data: data, rec: "part " + pid})
		}
		msgs = append(msgs, m)
	}
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].created != msgs[j].created {
			return msgs[i].created < msgs[j].created
		}
		return msgs[i].id < msgs[j].id
	})
	return s, msgs, bad, nil
}

// ---- events ----

// opencodeInfo is the part of a message's data a transcript needs.
type opencodeInfo struct {
	Role string `json:"role"`
	Time struct {
		Created json.RawMessage `json:"created"`
	} `json:"time"`
	ModelID string `json:"modelID"`
}

// opencodePart is the part of a part's data a transcript needs.
type opencodePart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	CallID    string `json:"callID"`
	Tool      string `json:"tool"`
	State     struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
		Time   struct {
			Start json.RawMessage `json:"start"`
			End   json.RawMessage `json:"end"`
		} `json:"time"`
	} `json:"state"`
	Time struct {
		Start json.RawMessage `json:"start"`
	} `json:"time"`
}

// opencodeRevert is session.revert: the messages from MessageID on (from
// its part PartID on, when set) are reverted until the user unreverts or
// sends the next prompt, which deletes them.
type opencodeRevert struct {
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
}

// opencodeEvents turns a session into events (AO6-AO9): the header; per
// message, one message event (user: its text parts that are neither
// synthetic nor ignored; assistant: text, reasoning as thinking, tool
// parts as tool calls), a toolResult event per finished tool part, and a
// kept event per other part; then, when the session has a revert, a leaf
// entry back to the last entry before the reverted ones (AO8).
func opencodeEvents(s opencodeSession, msgs []opencodeMessage, bad []Event) []Event {
	b := opencodeBuilder{agent: s.agent, pos: 1, lastID: s.id} // position 1: the session record
	b.add("session "+s.id, s.id, Header(s.agent, s.id, s.created, s.dir))
	for _, e := range bad {
		b.bad(e.Rec, e.Bad)
	}
	rv := opencodeRevert{}
	if s.revert != nil {
		err := json.Unmarshal(s.revert, &rv)
		if err == nil && rv.MessageID == "" {
			err = errors.New("it has no messageID")
		}
		if err != nil {
			b.bad("session "+s.id, fmt.Errorf("revert %.80s: %v", s.revert, err))
			rv = opencodeRevert{}
		}
	}
	mi, pi := rv.point(msgs)
	target := ""
	for i, m := range msgs {
		b.pos++
		var info opencodeInfo
		infoErr := opencodeDecode(m.data, &info)
		if infoErr != nil {
			b.bad(m.rec, infoErr)
		}
		t := Millis(info.Time.Created)
		if t == 0 {
			t = m.created
		}
		switch {
		case i != mi:
			b.message(m.id, info, infoErr == nil, m.data, t, m.parts)
		case pi == 0:
			target = b.lastID
			b.message(m.id, info, infoErr == nil, m.data, t, m.parts)
		default: // the revert splits the message
			b.message(m.id, info, infoErr == nil, m.data, t, m.parts[:pi])
			target = b.lastID
			b.message(m.id+"@"+m.parts[pi].id, info, infoErr == nil, m.data, t, m.parts[pi:])
		}
	}
	if target != "" {
		b.pos++
		b.add("session "+s.id+" revert", "", Leaf("", target, s.updated))
	}
	return b.out
}

// point is where the revert starts: message mi from its part pi on
// (len(msgs), 0 when nothing is reverted). OpenCode compares ids, which
// ascend with time: the messages with an id at or after messageID are
// reverted; with partID, that message's parts from partID on and every
// later message.
func (rv opencodeRevert) point(msgs []opencodeMessage) (mi, pi int) {
	if rv.MessageID == "" {
		return len(msgs), 0
	}
	for i, m := range msgs {
		if m.id < rv.MessageID {
			continue
		}
		if rv.PartID == "" || m.id != rv.MessageID {
			return i, 0
		}
		for j, p := range m.parts {
			if p.id >= rv.PartID {
				return i, j
			}
		}
		return i + 1, 0
	}
	return len(msgs), 0
}

// opencodeBuilder collects a transcript's events of agent: pos is the
// position of the record being converted, lastID the id of the last entry (what a
// revert's leaf entry goes back to).
type opencodeBuilder struct {
	agent  string
	out    []Event
	pos    int64
	lastID string
}

func (b *opencodeBuilder) add(rec, id string, event []byte) {
	b.out = append(b.out, Event{Pos: b.pos, JSON: event, Rec: rec})
	if id != "" {
		b.lastID = id
	}
}

func (b *opencodeBuilder) bad(rec string, err error) {
	b.out = append(b.out, Event{Pos: b.pos, Rec: rec, Bad: err})
}

// message adds the events of a message (or of its parts from a revert
// point on, under id) at the current position; each of its parts is the
// next position. A message whose data cannot be read (ok false), or whose
// role is neither user nor assistant, keeps its parts unsearched.
func (b *opencodeBuilder) message(id string, info opencodeInfo, ok bool, data []byte, t int64, parts []opencodeRecord) {
	msgPos := b.pos
	type part struct {
		rec opencodeRecord
		p   opencodePart
		pos int64
		err error
	}
	ps := make([]part, len(parts))
	for i, r := range parts {
		ps[i] = part{rec: r, pos: msgPos + int64(i) + 1}
		ps[i].err = opencodeDecode(r.data, &ps[i].p)
	}
	defer func() { b.pos = msgPos + int64(len(parts)) }()
	at := func(pos int64) *opencodeBuilder { b.pos = pos; return b }
	kept := func(d part) {
		at(d.pos).add(d.rec.rec, d.rec.id, Kept(b.agent, opencodeKeptType(d.p.Type), d.rec.id, FromLeaf, opencodePartTime(d.p, d.rec), d.rec.data))
	}
	role := info.Role
	if !ok || (role != "user" && role != "assistant") {
		if ok {
			at(msgPos).add("message "+id, id, Kept(b.agent, "message", id, FromLeaf, t, data))
		}
		for _, d := range ps {
			if d.err != nil {
				at(d.pos).bad(d.rec.rec, d.err)
			} else {
				kept(d)
			}
		}
		return
	}
	// What a part becomes in this message: a block of the message event
	// ("text", "thinking", "tool": a call, and a result when finished),
	// or a kept event ("").
	kind := func(p opencodePart) string {
		switch {
		case p.Type == "text" && !p.Synthetic && !p.Ignored:
			return "text"
		case p.Type == "reasoning" && role == "assistant":
			return "thinking"
		case p.Type == "tool" && role == "assistant":
			return "tool"
		}
		return ""
	}
	var blocks []Block
	for _, d := range ps {
		if d.err != nil {
			continue
		}
		switch p := d.p; kind(p) {
		case "text":
			if strings.TrimSpace(p.Text) != "" {
				blocks = append(blocks, Text(p.Text))
			}
		case "thinking":
			blocks = append(blocks, Thinking(p.Text))
		case "tool":
			blocks = append(blocks, ToolCall(p.CallID, p.Tool, p.State.Input))
		}
	}
	msg := Msg{ID: id, Parent: FromLeaf, Time: t, Role: role, Content: blocks}
	if role == "assistant" {
		msg.Model = info.ModelID
	}
	at(msgPos).add("message "+id, id, Message(msg))
	for _, d := range ps {
		p := d.p
		switch {
		case d.err != nil:
			at(d.pos).bad(d.rec.rec, d.err)
		case kind(p) == "":
			kept(d)
		case kind(p) == "tool" && (p.State.Status == "completed" || p.State.Status == "error"):
			res := Msg{ID: d.rec.id, Parent: FromLeaf, Time: Millis(p.State.Time.End), Role: "toolResult",
				ToolCallID: p.CallID, ToolName: p.Tool, Content: []Block{Text(p.State.Output)}}
			if p.State.Status == "error" {
				res.IsError, res.Content = true, []Block{Text(p.State.Error)}
			}
			at(d.pos).add(d.rec.rec, d.rec.id, Message(res))
		}
	}
}

// opencodeKeptType is the kept event's type suffix of a part: its type, or
// "part" when it has none.
func opencodeKeptType(t string) string {
	if t == "" {
		return "part"
	}
	return t
}

func opencodePartTime(p opencodePart, r opencodeRecord) int64 {
	if t := Millis(p.Time.Start); t != 0 {
		return t
	}
	if t := Millis(p.State.Time.Start); t != 0 {
		return t
	}
	return r.created
}

// opencodeDecode decodes a row's data, which must be a JSON object.
func opencodeDecode(data []byte, v any) error {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return errors.New("data is empty")
	}
	if d[0] != '{' || !json.Valid(d) {
		return fmt.Errorf("data is not a JSON object: %.40q", d)
	}
	if err := json.Unmarshal(d, v); err != nil {
		return fmt.Errorf("data does not have OpenCode's shape: %v", err)
	}
	return nil
}
