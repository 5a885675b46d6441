# sessionsearch: `make` builds dist/ and bin/, `make demo` runs the demo,
# `make test` runs every test, `make bench` the benchmarks.

GO      ?= go
TAGS    := sqlite_fts5
MODULE  := github.com/sessionsearch/sessionsearch
VERSION := v0.1.0
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X $(MODULE)/extension.Version=$(VERSION) \
           -X $(MODULE)/extension.Commit=$(COMMIT) \
           -X $(MODULE)/extension.BuildDate=$(DATE)
SOURCES := $(shell find . -name '*.go' -not -path './tests/node/*' -o -name '*.c' -o -name '*.h' | grep -v node_modules) go.mod go.sum

.PHONY: all demo test bench deps build-deps check generate clean cluster

all: dist/sessionsearch.so bin/sessionsearch

dist/sessionsearch.so: $(SOURCES)
	$(GO) build -buildmode=c-shared -ldflags "$(LDFLAGS)" -o $@ ./extension/loadable
	rm -f dist/sessionsearch.h

bin/sessionsearch: $(SOURCES)
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $@ ./cmd/sessionsearch

demo: build-deps
	$(MAKE) all
	./bin/sessionsearch demo

build-deps:
	./scripts/install-deps --build

deps:
	./scripts/install-deps

test: deps all check
	$(GO) test -tags $(TAGS) -count=1 -timeout 30m ./...
	cd redact/internal/gitleakscheck && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd server/internal/openapicheck && $(GO) vet ./... && $(GO) test -count=1 ./...
	@if pkg-config --exists dqlite; then \
		cd dqlite && $(GO) vet -tags "$(DQLITE_TAGS)" ./... && $(GO) test -tags "$(DQLITE_TAGS)" -count=1 -timeout 10m ./...; \
	else echo "make test: libdqlite-dev is not installed: skipping the dqlite cluster tests (scripts/install-deps installs it)"; fi

# The dqlite cluster node (docs/cluster.md): a nested module, built against
# Debian's libdqlite and libsqlite3 (scripts/install-deps installs them).
DQLITE_TAGS := libsqlite3 sqlite_fts5
cluster: bin/sessionsearch-dqlite

bin/sessionsearch-dqlite: $(SOURCES) dqlite/go.mod dqlite/go.sum
	cd dqlite && $(GO) build -tags "$(DQLITE_TAGS)" -ldflags "$(LDFLAGS)" -o ../$@ ./cmd/sessionsearch-dqlite

# What a change must keep: gofmt'd sources, a clean vet, and generated
# tables equal to what the generator makes from the pinned Unicode data.
check:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -tags $(TAGS) ./...
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./tokenizer/internal/gen -ucd /usr/share/unicode -o "$$tmp/tables.go" && \
	if ! cmp -s tokenizer/tables.go "$$tmp/tables.go"; then \
		echo "tokenizer/tables.go is not what 'make generate' makes: run make generate"; \
		diff -u tokenizer/tables.go "$$tmp/tables.go" | head -40; exit 1; fi

bench: deps
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem -count=1 -timeout 60m ./...

# Regenerates tokenizer/tables.go from Debian's unicode-data (Unicode 15.0.0).
generate:
	$(GO) generate ./tokenizer

clean:
	rm -rf dist bin
