# One tag set everywhere: go-sqlite3 needs sqlite_fts5 for full-text search,
# and building it with other tags would recompile its C code (over a minute).
TAGS    := sqlite_fts5
GO      ?= go
BIN     ?= bin/reflect
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Static linking: hooks start about half a millisecond sooner without the
# dynamic loader. glibc warns that getaddrinfo and dlopen need its shared
# libraries at run time; reflect resolves names with Go's resolver
# (cmd/reflect/main.go) and loads no SQLite extensions, so neither is used.
LDFLAGS := -s -w -X main.version=$(VERSION) -linkmode external -extldflags -static

# Client versions for the end-to-end suite; one line each in e2e/versions.env,
# overridable as E2E_CLAUDE_VERSION=… E2E_CODEX_VERSION=… make e2e.
include e2e/versions.env
export E2E_CLAUDE_VERSION E2E_CODEX_VERSION

.PHONY: build install test e2e bench demo fmt clean

build:
	@mkdir -p $(dir $(BIN))
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/reflect 2>$(BIN).log || { cat $(BIN).log >&2; exit 1; }
	@rm -f $(BIN).log

install:
	$(GO) install -tags $(TAGS) -ldflags '$(LDFLAGS)' ./cmd/reflect

test:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -count=1 ./...

# e2e installs the pinned Claude Code and Codex CLIs from npm into
# .cache/e2e (reused when the versions match) and drives them offline
# against the project's fake model server. See docs/e2e.md.
e2e:
	@mkdir -p .cache
	@echo "e2e: Claude Code $(E2E_CLAUDE_VERSION), Codex $(E2E_CODEX_VERSION); full log in .cache/e2e.log"
	@REFLECT_E2E=1 $(GO) test -tags $(TAGS) -count=1 -timeout 30m -v ./e2e/ >.cache/e2e.log 2>&1; rc=$$?; \
	grep -E '^(--- |ok|FAIL)|E2E (PASS|FAIL)|skipped|cannot run|npm cache' .cache/e2e.log; \
	if [ $$rc -ne 0 ]; then tail -n 60 .cache/e2e.log; exit $$rc; fi

bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin

demo: build
	./scripts/demo.sh
