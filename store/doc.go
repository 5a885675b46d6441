// Package store is sessionsearch's transcript store, in pure Go: the schema
// (tables, views and triggers, built from the named parts in schema.go), the
// stored state of each entry (Record), the rules that keep the search index
// equal to each session's active path (rules.go), and the work behind the
// store's SQL functions: migrate, append, repath, reconcile.
//
// It knows nothing of cgo. It runs its SQL through Conn, which the extension
// implements on the connection that called a function, inside that
// connection's transaction. The rules are in docs/store.md; the active path
// itself is package transcript's.
//
// How an append is indexed (docs/store.md S7-S8):
//
//   - An appended event that extends the active path (the common case) is
//     indexed by the trigger's own SQL, compiled once with the INSERT. Ids
//     are resolved at append time (package transcript), so deciding this
//     needs only the session's Tip, which the session's newest entry
//     carries: no lookup by id, and no other row to write.
//   - Any other change of the path (a leaf entry, a branch) calls
//     sessionsearch_repath, which replays the session with the rules of
//     package transcript and applies the Diff. Sessions over
//     MaxInlineMessages messages are deferred instead.
//   - Bulk loading (sessions_defer_indexing), events that predate the schema
//     or arrive out of order mark the session pending: it is left out of
//     search until Reconcile has rebuilt it.
//
// Internal tables are prefixed sessionsearch_. The FTS5 rowid of a message,
// like the id of every entry, is EntryID(sid, seq) = sid<<32 | seq, so a
// session's rows form one rowid range and its visibility can be read off
// the rowid.
//
// The index is an external-content FTS5 table over the view
// sessionsearch_content, which reads each active message's text from its
// event: the text is stored once, in transcript_events. Index rows are
// therefore removed while their entry is still active, since FTS5 reads the
// view to know which tokens to remove.
package store
