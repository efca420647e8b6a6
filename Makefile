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

.PHONY: build install test bench demo fmt clean

build:
	@mkdir -p $(dir $(BIN))
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/reflect 2>$(BIN).log || { cat $(BIN).log >&2; exit 1; }
	@rm -f $(BIN).log

install:
	$(GO) install -tags $(TAGS) -ldflags '$(LDFLAGS)' ./cmd/reflect

test:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -count=1 ./...

bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin

demo: build
	./scripts/demo.sh
