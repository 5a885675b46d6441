// Package sqlfuncs holds the pure-Go rules behind the SQL functions:
// visibility, query building, snippets and history windows (redaction is
// package redact). No cgo.
package sqlfuncs
