module github.com/sessionsearch/sessionsearch/tests/quality

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/kljensen/snowball v0.10.0
	github.com/sessionsearch/sessionsearch v0.0.0
)

require (
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
)

replace github.com/sessionsearch/sessionsearch => ../..
