# One tag set everywhere: go-sqlite3 needs sqlite_fts5 for full-text search,
# and building it with other tags would recompile its C code (over a minute).
TAGS    := sqlite_fts5
GO      ?= go
BIN     ?= bin/reflect
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Static linking: hooks start about half a millisecond sooner without the
# dynamic loader. glibc warns that getaddrinfo and dlopen need its shared
# libraries at run time; reflect resolves names with Go's resolver
# (cmd/reflect/main.go) and loads no SQLite extensions, so neither is used,
# and scripts/quiet-static-link.sh drops exactly those two warnings.
LDFLAGS := -s -w -X main.version=$(VERSION) -linkmode external -extldflags -static
QUIET   := ./scripts/quiet-static-link.sh
# make install puts reflect (and reflect-mcp, the MCP server 'reflect mcp'
# starts, and reflect-ui, the web view 'reflect ui' starts) in BINDIR: Go's own install directory unless you name another
# (make install BINDIR=~/.local/bin).
GOBIN_  := $(shell $(GO) env GOBIN)
BINDIR  ?= $(if $(GOBIN_),$(GOBIN_),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)

# Client versions for the end-to-end suite; one line each in e2e/versions.env,
# overridable as E2E_CLAUDE_VERSION=… E2E_CODEX_VERSION=… make e2e.
include e2e/versions.env
export E2E_CLAUDE_VERSION E2E_CODEX_VERSION E2E_GEMINI_VERSION

.PHONY: build install test e2e bench demo fmt clean dist dist-smoke lint-workflows fuzz

# make dist: release archives reflect_<version>_<os>_<arch>.tar.gz (.zip for
# Windows) with checksums.txt, the npm packages (dist/npm) and the Homebrew
# formula (dist/homebrew), for DIST_PLATFORMS, cross-compiled with cgo
# (Debian: gcc-aarch64-linux-gnu, gcc-mingw-w64-x86-64). macOS archives come
# from the release workflow's macOS runners. See docs/release.md.
DIST           ?= dist
DIST_PLATFORMS ?= linux/amd64 linux/arm64 windows/amd64
# dist-smoke's scratch directory, and the cross compilers it checks with.
SMOKE          ?= .cache/dist-smoke
CC_ARM64       ?= aarch64-linux-gnu-gcc
CC_WINDOWS     ?= x86_64-w64-mingw32-gcc
# actionlint checks .github/workflows (it cannot run here); go run fetches
# it through the module proxy, so it is not one of go.mod's requirements.
ACTIONLINT     ?= github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

build:
	@mkdir -p $(dir $(BIN))
	$(QUIET) $(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/reflect
	$(QUIET) $(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN)-mcp ./cmd/reflect-mcp
	$(QUIET) $(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN)-ui ./cmd/reflect-ui

install:
	@mkdir -p '$(abspath $(BINDIR))'
	GOBIN='$(abspath $(BINDIR))' $(QUIET) $(GO) install -tags $(TAGS) -ldflags '$(LDFLAGS)' ./cmd/reflect ./cmd/reflect-mcp ./cmd/reflect-ui
	@bin='$(abspath $(BINDIR))/reflect'; \
	case ":$$PATH:" in \
	*':$(abspath $(BINDIR)):'*) \
		found=$$(command -v reflect); \
		if [ "$$found" = "$$bin" ]; then echo "installed $$bin"; \
		else echo "installed $$bin, but 'reflect' runs $$found, which comes first on your PATH" >&2; fi ;; \
	*) echo "installed $$bin, but $(abspath $(BINDIR)) is not on your PATH. Add it (e.g. in ~/.profile):" >&2; \
	   echo "  export PATH=\"$(abspath $(BINDIR)):\$$PATH\"" >&2; \
	   echo "or install into a directory on your PATH: make install BINDIR=~/.local/bin" >&2 ;; \
	esac

# -timeout is a watchdog for a hung test, not a speed budget: on a loaded
# 2-core machine recall's 10,000-learning scale test alone can pass go
# test's default 10 minutes.
test:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -count=1 -timeout 30m ./...

# e2e installs the pinned Claude Code, Codex, Gemini, OpenCode and Copilot CLIs from npm into
# .cache/e2e (reused when the versions match) and drives them offline
# against the project's fake model server. See docs/e2e.md.
e2e:
	@mkdir -p .cache
	@echo "e2e: Claude Code $(E2E_CLAUDE_VERSION), Codex $(E2E_CODEX_VERSION), Gemini CLI $(E2E_GEMINI_VERSION), OpenCode $(E2E_OPENCODE_VERSION), Copilot CLI $(E2E_COPILOT_VERSION); full log in .cache/e2e.log"
	@REFLECT_E2E=1 $(GO) test -tags $(TAGS) -count=1 -timeout 30m -v ./e2e/ >.cache/e2e.log 2>&1; rc=$$?; \
	grep -E '^(--- |ok|FAIL)|E2E (PASS|FAIL)|skipped|cannot run|npm cache' .cache/e2e.log; \
	if [ $$rc -ne 0 ]; then tail -n 60 .cache/e2e.log; exit $$rc; fi

bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem ./...

# fuzz runs the MCP transport's fuzz test past its seed corpus (which
# make test runs): every malformed frame must get a JSON-RPC error and the
# server must keep serving. CI gives it FUZZTIME of its budget.
FUZZTIME ?= 90s
fuzz:
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzMCPFrame$$' -fuzztime $(FUZZTIME) -parallel 1 ./mcpserver/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin dist

demo: build
	./scripts/demo.sh

dist:
	rm -rf '$(DIST)'
	@for p in $(DIST_PLATFORMS); do \
		DIST='$(DIST)' VERSION='$(VERSION)' GO='$(GO)' ./scripts/dist.sh build $${p%/*} $${p#*/} || exit 1; \
	done
	DIST='$(DIST)' VERSION='$(VERSION)' ./scripts/dist.sh finish

# dist-smoke is what CI checks of the release build within its budget: the
# scripts are shellcheck-clean; the linux/amd64 archive is built, its
# checksum verified, installed by install.sh from a server on 127.0.0.1 and
# through the npm packages, and reflect version run from each; reflect
# cross-compiles for linux/arm64 (an aarch64 ELF, static); and
# GOOS=windows go vet and go build pass with mingw-w64.
dist-smoke:
	@if command -v shellcheck >/dev/null; then shellcheck install.sh scripts/dist.sh; \
	elif [ "$$CI" = true ]; then echo "dist-smoke: CI needs shellcheck (apt-get install shellcheck)" >&2; exit 1; \
	else echo "dist-smoke: shellcheck not found, not checking the shell scripts" >&2; fi
	rm -rf '$(SMOKE)'
	DIST='$(SMOKE)' VERSION='$(VERSION)' GO='$(GO)' ./scripts/dist.sh build linux amd64
	DIST='$(SMOKE)' VERSION='$(VERSION)' ./scripts/dist.sh finish
	cd '$(SMOKE)' && sha256sum -c checksums.txt
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC='$(CC_ARM64)' $(QUIET) $(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o '$(SMOKE)/arm64/reflect' ./cmd/reflect
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC='$(CC_WINDOWS)' $(GO) build -tags $(TAGS) ./...
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC='$(CC_WINDOWS)' $(GO) vet -tags $(TAGS) ./...
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC='$(CC_WINDOWS)' $(GO) build -tags $(TAGS) -o '$(SMOKE)/windows/' ./cmd/reflect ./cmd/reflect-mcp ./cmd/reflect-ui
	REFLECT_DIST_DIR='$(abspath $(SMOKE))' REFLECT_DIST_ARM64='$(abspath $(SMOKE))/arm64/reflect' \
		REFLECT_DIST_WINDOWS='$(abspath $(SMOKE))/windows/reflect.exe' \
		$(GO) test -tags $(TAGS) -count=1 -run 'TestRealDist' ./packaging/

lint-workflows:
	$(GO) run $(ACTIONLINT) .github/workflows/*.yml
