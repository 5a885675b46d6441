// Package sqlfuncs holds the pure-Go rules behind the SQL functions:
// visibility, redaction, query building and history windows. No cgo.
package sqlfuncs
