# One tag set everywhere: go-sqlite3 needs sqlite_fts5 for full-text search,
# and building it with other tags would recompile its C code (over a minute).
TAGS    := sqlite_fts5
GO      ?= go
BIN     ?= bin/reflect
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build install test bench demo fmt clean

build:
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/reflect

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
