package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sessionsearch/sessionsearch/sqlfuncs"
)

// The audit trail of reads (docs/serve.md H17): one row of
// sessionsearch_audit per search or history answered, with who asked,
// where, a keyed hash of the query, the sessions the answer showed and
// how many of its texts had a secret masked. Never the query, a token, or
// any text of a message.

// MinAuditKeyBytes is the shortest audit key: the query hashes must not be
// open to a search over guessed keys.
const MinAuditKeyBytes = 32

// auditTableSQL creates the table; the server does, at its first audited
// read, as an exec (H9).
const auditTableSQL = `CREATE TABLE IF NOT EXISTS sessionsearch_audit(
	id           INTEGER PRIMARY KEY,
	time         INTEGER NOT NULL,  -- epoch ms
	caller       TEXT NOT NULL,     -- the token's caller
	endpoint     TEXT NOT NULL,     -- /v1/search or /v1/history
	query_hmac   TEXT,              -- hex HMAC-SHA256 of the search query under the audit key; NULL for a history
	session_keys TEXT NOT NULL,     -- JSON array of the session keys the answer showed
	redacted     INTEGER NOT NULL)  -- how many of its snippets or texts hold a redaction mask`

// Audit writes the audit trail. Build it with NewAudit.
type Audit struct {
	key     []byte
	maxRows int64
	ready   atomic.Bool // the table exists
}

// NewAudit keeps at most maxRows rows (the oldest go first) and hashes
// queries with key, which must have at least MinAuditKeyBytes bytes and be
// kept out of the database: whoever reads the database and has the key
// can test guesses of a query against its hash.
func NewAudit(key []byte, maxRows int64) (*Audit, error) {
	if len(key) < MinAuditKeyBytes {
		return nil, fmt.Errorf("the audit key must have at least %d bytes, got %d", MinAuditKeyBytes, len(key))
	}
	if maxRows < 1 {
		return nil, fmt.Errorf("the audit trail must keep at least 1 row, got %d", maxRows)
	}
	return &Audit{key: key, maxRows: maxRows}, nil
}

// LoadAuditKey reads an audit key file: private to its owner, as a tokens
// file, and at least MinAuditKeyBytes long.
func LoadAuditKey(path string) ([]byte, error) {
	key, err := readPrivate(path, "audit key file")
	if err != nil {
		return nil, err
	}
	if len(key) < MinAuditKeyBytes {
		return nil, fmt.Errorf("audit key file %s: %d bytes, need at least %d (for example: head -c 32 /dev/urandom > %s)", path, len(key), MinAuditKeyBytes, path)
	}
	return key, nil
}

// queryHash is the hex HMAC-SHA256 of a query.
func (a *Audit) queryHash(query string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(query))
	return hex.EncodeToString(m.Sum(nil))
}

// record writes one read: its answer's sessions and masks, and the hash of
// query (nil for a history). Then it drops the rows past maxRows.
func (a *Audit) record(ctx context.Context, db *sql.DB, caller, endpoint string, query *string, answer []byte) error {
	shown, err := sqlfuncs.AnswerShown(answer)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if !a.ready.Load() {
		if _, err := db.ExecContext(ctx, auditTableSQL); err != nil {
			return err
		}
		a.ready.Store(true)
	}
	var hash any
	if query != nil {
		hash = a.queryHash(*query)
	}
	keys, _ := json.Marshal(shown.SessionKeys)
	res, err := db.ExecContext(ctx, `INSERT INTO sessionsearch_audit(time, caller, endpoint, query_hmac, session_keys, redacted) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
		time.Now().UnixMilli(), caller, endpoint, hash, string(keys), shown.Redacted)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return errors.Join(errors.New("audit: no row id"), err)
	}
	if id > a.maxRows {
		if _, err := db.ExecContext(ctx, `DELETE FROM sessionsearch_audit WHERE id <= ?1`, id-a.maxRows); err != nil {
			return err
		}
	}
	return nil
}
