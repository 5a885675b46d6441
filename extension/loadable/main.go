// Command loadable is the loadable SQLite extension dist/sessionsearch.so:
// build it with -buildmode=c-shared (see the Makefile). entry.c holds the
// two entry points; everything else is in package extension.
package main

import "C"

import _ "github.com/sessionsearch/sessionsearch/extension"

func main() {}
