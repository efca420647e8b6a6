#!/usr/bin/env bash
# scripts/startup.sh: what each dependency adds to the start-up of every
# reflect process, hooks included, before main runs.
#   scripts/startup.sh [RUNS]      (default 300; needs bin/reflect: make build)
#
# Go runs the init of every package a binary links, whichever command runs,
# and touches their pages. This builds tiny programs that link nothing but
# one dependency each (a blank import), linked like the release binary
# (cgo, static), and times them interleaved with scripts/ab.py beside a cgo
# "hello" that links none, a program that links all of reflect's external
# dependencies, and `reflect version`. Each row's p50 minus hello's is what
# that dependency costs every hook. Writes nothing outside a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-300}
REFLECT=${REFLECT:-$PWD/bin/reflect}
[ -x "$REFLECT" ] || { echo "build first: make build" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reflect-startup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# A copy of go.mod and go.sum makes the temp dir a module that requires
# exactly the versions reflect builds with.
cp go.mod go.sum "$WORK/"
external=$(go list -tags sqlite_fts5 -deps ./cmd/reflect | grep -E '^[a-z0-9-]+\.[a-z]+/' | grep -v -e '^github.com/reflectkb/' -e '/internal')

built=()
program() { # NAME IMPORT...: a main package that links only the imports
  local name=$1; shift
  built+=("$name")
  mkdir -p "$WORK/$name"
  {
    printf 'package main\n\n// int one(void) { return 1; }\nimport "C"\n\nimport (\n\t"os"\n'
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n\nfunc main() {\n\tif C.one() == 1 {\n\t\tos.Stdout.WriteString("hi\\n")\n\t}\n}\n'
  } > "$WORK/$name/main.go"
  # The Makefile's LDFLAGS, but for the version stamp.
  (cd "$WORK" && go build -tags sqlite_fts5 -ldflags '-s -w -linkmode external -extldflags -static' \
    -o "bin/$name" "./$name" 2>"$name.log") || { cat "$WORK/$name.log" >&2; exit 1; }
}

echo "building the programs (cgo, static)..." >&2
program hello
program goldmark github.com/yuin/goldmark
program goldmark+frontmatter github.com/yuin/goldmark go.abhg.dev/goldmark/frontmatter
program yaml go.yaml.in/yaml/v3
program toml github.com/BurntSushi/toml
program cobra github.com/spf13/cobra
program progressbar github.com/schollz/progressbar/v3
program net-http net/http
program go-sqlite3 github.com/mattn/go-sqlite3
program gonum-community gonum.org/v1/gonum/graph/community
program vek github.com/viterin/vek/vek32
program snowball github.com/kljensen/snowball/english
# shellcheck disable=SC2086 # one word per import path
program all-external $external net/http
# What a binary that only ran hooks would still need: SQLite, the config
# and frontmatter formats, and the index's own dependencies. Not goldmark
# (it would leave parsing changed documents to a detached `reflect
# reindex`), net/http (hooks call no embedder), cobra or progressbar.
program hooks-need github.com/mattn/go-sqlite3 github.com/BurntSushi/toml go.yaml.in/yaml/v3 \
  gonum.org/v1/gonum/graph/community github.com/viterin/vek/vek32 \
  github.com/kljensen/snowball/english github.com/gofrs/flock encoding/json

cmds=()
for b in "${built[@]}"; do
  cmds+=("GOMAXPROCS=1 $WORK/bin/$b")
done
cmds+=("GOMAXPROCS=1 $REFLECT version")
echo "timing, $RUNS interleaved runs each (GOMAXPROCS=1, as hooks are installed)..." >&2
python3 scripts/ab.py --runs "$RUNS" --no-shell "${cmds[@]}" | sed "s#$WORK/bin/##"
