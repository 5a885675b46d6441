module github.com/sessionsearch/sessionsearch/dqlite

go 1.26.8

require (
	github.com/canonical/go-dqlite v1.11.5
	github.com/sessionsearch/sessionsearch v0.0.0
)

require (
	github.com/Rican7/retry v0.3.0 // indirect
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	github.com/ghodss/yaml v1.0.0 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/time v0.15.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)

replace github.com/sessionsearch/sessionsearch => ..
