// Package server is the HTTP/JSON service over a sessionsearch store: search
// and history bound to an authenticated caller, appending sessions and
// events, deleting a session, status, health and readiness (docs/serve.md).
//
// It is pure Go and knows nothing of SQLite drivers: New takes any
// *sql.DB whose connections have the sessionsearch extension, the local
// driver's or a dqlite client's. Every statement that writes is sent with
// ExecContext and returns no rows, and every QueryContext only reads, so the
// same handler is safe on dqlite, which replicates only execs
// (docs/serve.md H9).
package server
