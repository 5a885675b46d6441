// Package syncer keeps a sessionsearch database up to date with OpenClaw's
// stores: per-agent SQLite databases, their cold and reset/deletion
// archives, and legacy JSONL session files. It reads every source with the
// importer's decoders (so a synced transcript is stored as import would
// store it), writes the store with its plain SQL, and keeps a watermark per
// source and per transcript generation in the sessionsearch database
// (tables sessionsearch_sync_sources and sessionsearch_sync_units), so an
// unchanged source costs one stat and an append is copied without
// rereading what came before. The rules are in docs/sync.md (Y1..).
package syncer
