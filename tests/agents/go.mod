module github.com/sessionsearch/sessionsearch/tests/agents

go 1.26.8

require github.com/sessionsearch/sessionsearch v0.0.0

replace github.com/sessionsearch/sessionsearch => ../..
