//go:build libsqlite3 && sqlite_fts5

package main

import (
	"log"
	"net/http"

	"github.com/sessionsearch/sessionsearch/dqlite/node"
)

// apiHandler is the HTTP API over the node's guarded database.
func apiHandler(n *node.Node, tokens string, devLoopback bool, logger *log.Logger) (http.Handler, error) {
	return http.NotFoundHandler(), nil
}
