# sessionsearch: `make` builds dist/ and bin/, `make demo` runs the demo,
# `make test` runs every test (the web page's in Debian's Chromium),
# `make test-agents` the real agent programs, `make bench` the benchmarks,
# `make bench-quality` the LoCoMo retrieval benchmark (docs/quality.md),
# `make soak` the soak (SOAK_SECONDS, default 600), `make redact-coverage`
# the larger redaction measure and `make fuzz` every fuzz target in turn
# (FUZZ_SECONDS each, default 300).

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

.PHONY: all demo test test-agents bench bench-quality bench-quality-locomo bench-quality-latency soak fuzz deps build-deps check generate clean cluster redact-coverage cluster-load release release-check release-deps release-ci

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
	cd server/internal/metricscheck && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd ui/internal/browsercheck && $(GO) vet ./... && $(GO) test -count=1 -timeout 20m ./...
	cd tests/quality && $(GO) vet -tags $(TAGS) ./... && $(GO) test -tags $(TAGS) -count=1 ./...
	@if pkg-config --exists dqlite; then \
		cd dqlite && $(GO) vet -tags "$(DQLITE_TAGS)" ./... && $(GO) test -tags "$(DQLITE_TAGS)" -count=1 -timeout 10m ./...; \
	elif [ -n "$${CI:-}" ]; then echo "make test: libdqlite-dev is missing in CI: scripts/install-deps should have installed it"; exit 1; \
	else echo "make test: libdqlite-dev is not installed: skipping the dqlite cluster tests (scripts/install-deps installs it)"; fi

# The real agent programs (tests/agents, a module of its own): each installed
# from npm at a pinned version by scripts/install-deps, driven offline through
# a turn and a resume against a scripted model on 127.0.0.1, and the sessions
# it wrote read by bin/sessionsearch (docs/contributing.md).
test-agents: deps bin/sessionsearch
	cd tests/agents && $(GO) vet ./... && $(GO) test -count=1 -v -parallel 3 -timeout 50m ./...

# The dqlite cluster node (docs/cluster.md): a nested module, built against
# Debian's libdqlite and libsqlite3 (scripts/install-deps installs them).
DQLITE_TAGS := libsqlite3 sqlite_fts5
cluster: bin/sessionsearch-dqlite

bin/sessionsearch-dqlite: $(SOURCES) dqlite/go.mod dqlite/go.sum
	cd dqlite && $(GO) build -tags "$(DQLITE_TAGS)" -ldflags "$(LDFLAGS)" -o ../$@ ./cmd/sessionsearch-dqlite

# The cluster under concurrent appends (docs/cluster.md K10): CLUSTER_LOAD_CLIENTS
# clients (default 4) for CLUSTER_LOAD_SECONDS (default 60) through random
# nodes, then all through the leader; it reports the requests refused (500s
# and 503s apart) and the latencies.
CLUSTER_LOAD_SECONDS ?= 60
CLUSTER_LOAD_CLIENTS ?= 4
cluster-load:
	cd dqlite && SESSIONSEARCH_LOAD_SECONDS=$(CLUSTER_LOAD_SECONDS) SESSIONSEARCH_LOAD_CLIENTS=$(CLUSTER_LOAD_CLIENTS) $(GO) test -tags "$(DQLITE_TAGS)" -run '^$$' \
		-bench ConcurrentAppends -benchtime 1x -count=1 -v -timeout 30m .

# The release (docs/install.md): static CLIs, extensions and dqlite nodes
# for linux amd64 and arm64 (RELEASE_ARCHS), .debs, wheels, an npm package,
# OCI images, an SBOM and SHA256SUMS in dist/release. Times in the archives
# are the commit's, so a commit builds the same bytes.
RELEASE_ARCHS ?= amd64 arm64
export RELEASE_ARCHS
RELEASE_DATE := $(shell date -u -d "$$(git log -1 --format=%cI 2>/dev/null || date -u -Iseconds)" +%Y-%m-%dT%H:%M:%SZ)
release: release-deps
	GO=$(GO) VERSION=$(VERSION) COMMIT=$(COMMIT) BUILD_DATE=$(RELEASE_DATE) ./scripts/release

# Each artifact of RELEASE_ARCHS installed and used as a user would
# (packaging/release_test.go): the .deb in a clean Debian root made by
# mmdebstrap (RELEASE_ROOT, made once), the wheel in a venv,
# the npm package in an empty project, the images under podman; the arm64
# programs under qemu-user, the arm64 dqlite image by reading its ELF
# files. Needs root. The root is kept outside the checkout: cyclonedx-gomod
# hashes every file under the module's directory and fails on the root's
# links to directories.
RELEASE_ROOT ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/sessionsearch/debian-root-bookworm
release-check: release-deps
	@[ -d dist/release ] || { echo "make release-check: no dist/release: run make release first"; exit 1; }
	@[ -x "$(RELEASE_ROOT)/usr/bin/sqlite3" ] || { rm -rf "$(RELEASE_ROOT)" && mkdir -p "$(dir $(RELEASE_ROOT))" && \
		mmdebstrap --quiet --variant=minbase --include=sqlite3,systemd bookworm "$(RELEASE_ROOT)" http://deb.debian.org/debian; }
	cd packaging && $(GO) vet ./... && VERSION=$(VERSION) RELEASE_ROOT=$(RELEASE_ROOT) $(GO) test -count=1 -v -timeout 30m ./...

# CI's part (.ci/run): the release and its checks for amd64 only, which
# fits CI's time; make release release-check does both architectures.
release-ci:
	$(MAKE) release release-check RELEASE_ARCHS=amd64

release-deps:
	./scripts/install-deps --release

# What a change must keep: gofmt'd sources, a clean vet, and generated
# tables equal to what their generators make from the pinned sources: the
# Unicode data, the stopword lists (bleve's module from the Go proxy,
# stopwords-iso in tests/node, which scripts/install-deps installs) and the
# time phrases (CLDR's date fields, cldr-dates-full in tests/node).
check:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -tags $(TAGS) ./...
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./tokenizer/internal/gen -ucd /usr/share/unicode -o "$$tmp/tables.go" || exit 1; \
	if ! cmp -s tokenizer/tables.go "$$tmp/tables.go"; then \
		echo "tokenizer/tables.go is not what 'make generate' makes: run make generate"; \
		diff -u tokenizer/tables.go "$$tmp/tables.go" | head -40; exit 1; fi; \
	$(GO) run ./query/internal/gen -iso tests/node/node_modules/stopwords-iso/stopwords-iso.json -o "$$tmp/stopwords_tables.go" || exit 1; \
	if ! cmp -s query/stopwords_tables.go "$$tmp/stopwords_tables.go"; then \
		echo "query/stopwords_tables.go is not what 'make generate' makes: run make generate"; \
		diff -u query/stopwords_tables.go "$$tmp/stopwords_tables.go" | head -40; exit 1; fi; \
	$(GO) run ./query/internal/timegen -cldr tests/node/node_modules/cldr-dates-full -o "$$tmp/timephrases_tables.go" || exit 1; \
	if ! cmp -s query/timephrases_tables.go "$$tmp/timephrases_tables.go"; then \
		echo "query/timephrases_tables.go is not what 'make generate' makes: run make generate"; \
		diff -u query/timephrases_tables.go "$$tmp/timephrases_tables.go" | head -40; exit 1; fi

bench: deps
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem -count=1 -timeout 60m ./...

# The rule-by-rule measure of redaction against gitleaks (docs/redaction.md
# R11) at a larger size than `make test` runs it (8 samples drawn per rule,
# seed 1): GITLEAKS_DRAWS samples drawn from each rule's regex, seed
# GITLEAKS_SEED; GITLEAKS_MISSES=file lists every miss.
GITLEAKS_DRAWS ?= 100
GITLEAKS_SEED ?= 2
redact-coverage: deps
	cd redact/internal/gitleakscheck && GITLEAKS_DRAWS=$(GITLEAKS_DRAWS) GITLEAKS_SEED=$(GITLEAKS_SEED) \
		$(GO) test -count=1 -v -timeout 60m -run '^TestGitleaksRuleCoverage$$' .

# LoCoMo's questions asked of sessionsearch and of the peers given
# (DEJAVU_BIN, AGENTSVIEW_BIN), then the latency of word queries at 1M
# messages; SESSIONSEARCH_BENCH_VARIANTS names option sets to compare
# (docs/quality.md). LOCOMO_ZIP is relative to the repository's root.
LOCOMO_ZIP ?= ../shared/data/locomo/locomo10.zip
bench-quality: bench-quality-locomo bench-quality-latency

bench-quality-locomo: bin/sessionsearch
	cd tests/quality && LOCOMO_ZIP=$(abspath $(LOCOMO_ZIP)) SESSIONSEARCH_BIN=$(abspath bin/sessionsearch) \
		$(GO) run -tags $(TAGS) .

bench-quality-latency:
	$(GO) test -tags $(TAGS) -run '^$$' -bench '^BenchmarkSearchWords$$' -benchtime 1x -count 1 -timeout 60m -v ./driver/

# tests/soak: a writer and readers in Python, Node and Go on one database;
# `make test` runs it for 3 seconds.
SOAK_SECONDS ?= 600
SOAK_READERS ?= 2
soak: deps
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_READERS=$(SOAK_READERS) $(GO) test -tags $(TAGS) -count=1 -v \
		-run '^TestSoak$$' -timeout $$(( $(SOAK_SECONDS) + 1200 ))s ./tests/soak/

# Every `func Fuzz...` of every _test.go, one after another, FUZZ_SECONDS
# each (scripts/fuzz); their seed corpora (testdata/fuzz) run in `make test`
# as ordinary tests. A failing target leaves its input in its package's
# testdata/fuzz and the run goes on to the next.
FUZZ_SECONDS ?= 300
fuzz: deps
	GO=$(GO) TAGS=$(TAGS) ./scripts/fuzz $(FUZZ_SECONDS)

# Regenerates tokenizer/tables.go from Debian's unicode-data (Unicode 15.0.0),
# query/stopwords_tables.go from the pinned stopword lists and
# query/timephrases_tables.go from the pinned CLDR date fields.
generate:
	$(GO) generate ./tokenizer ./query

clean:
	rm -rf dist bin
