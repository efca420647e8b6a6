#!/usr/bin/env bash
# scripts/bench-sync.sh: how long `reflect sync` takes over a bare remote on
# local disk (no network), interleaved with `git pull` of the same commits.
#   scripts/bench-sync.sh [ROUNDS]     (default 3)
# Each round builds a fresh remote and three machines: A syncs 1 changed
# learning, then 1,000; B (reflect, index built) and C (a plain git clone)
# then pull those 1,000 learnings, B with `reflect sync` (fetch, merge,
# push check and the incremental index update), C with `git pull`; which of
# the two goes first alternates by round. Writes nothing outside a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
REFLECT=${REFLECT:-$PWD/bin/reflect}
[ -x "$REFLECT" ] || { echo "build first: make build" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reflect-bench-sync.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home GIT_CONFIG_NOSYSTEM=1 REFLECT_STATE_DIR=$WORK/state
mkdir -p "$HOME"
git config --global user.email bench@example.com
git config --global user.name bench

# timed VAR CMD...: runs CMD and stores "WALL/CPU" in ms in VAR, CPU being
# user+system time of CMD and its children (git): on a shared, loaded
# machine the wall time mostly measures the other processes.
timed() {
  local var=$1 t; shift
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 )
  printf -v "$var" %s "$(awk '{printf "%d/%d", $1 * 1000, ($2 + $3) * 1000}' <<<"$t")"
}
# learnings DIR FROM TO: writes learnings FROM..TO as reflect stores them.
learnings() {
  local d=$1/documents i
  mkdir -p "$d"
  for ((i = $2; i <= $3; i++)); do
    printf -- '---\nid: lrn-bench-%06d\ntitle: Bench lesson %d\nconfidence: medium\ntags: [bench, t%d]\nkey_insight: Insight number %d about component c%d.\ncreated: 2026-11-01T10:00:00Z\nupdated: 2026-11-01T10:00:00Z\n---\n## Problem\n\nProblem %d with service s%d failed.\n\n## Solution\n\nRestart worker w%d with flag --f%d.\n' \
      "$i" "$i" $((i % 50)) "$i" $((i % 97)) "$i" $((i % 31)) $((i % 13)) $((i % 7)) > "$d/lrn-bench-$(printf %06d "$i").md"
  done
}

echo "# wall/cpu ms; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round,sync_1,sync_1000,reflect_pull_index_1000,git_pull_1000"
for ((r = 1; r <= ROUNDS; r++)); do
  R=$WORK/r$r; mkdir -p "$R"
  git init -q --bare -b main "$R/remote.git"
  REFLECT_LEARNINGS_DIR=$R/a "$REFLECT" sync init "$R/remote.git" >/dev/null
  learnings "$R/a" 1 1
  timed one env REFLECT_LEARNINGS_DIR="$R/a" "$REFLECT" sync
  REFLECT_LEARNINGS_DIR=$R/b "$REFLECT" sync init "$R/remote.git" >/dev/null 2>&1
  REFLECT_LEARNINGS_DIR=$R/b "$REFLECT" reindex >/dev/null
  git clone -q -b main "$R/remote.git" "$R/c"
  learnings "$R/a" 2 1001
  timed thousand env REFLECT_LEARNINGS_DIR="$R/a" "$REFLECT" sync
  if ((r % 2)); then
    timed rs env REFLECT_LEARNINGS_DIR="$R/b" "$REFLECT" sync
    timed gp git -C "$R/c" pull -q --no-rebase
  else
    timed gp git -C "$R/c" pull -q --no-rebase
    timed rs env REFLECT_LEARNINGS_DIR="$R/b" "$REFLECT" sync
  fi
  n=$(ls "$R/b/documents" | grep -c '\.md$')
  [ "$n" -eq 1001 ] || { echo "round $r: b has $n learnings, want 1001" >&2; exit 1; }
  echo "$r,$one,$thousand,$rs,$gp"
  echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$R"
done
