#!/bin/sh
# importbench.sh REFLECT: time `reflect import` of a generated 2,000-line
# AGENTS.md (200 sections of 8 rules) into an empty knowledge base, then a
# second import (nothing to add) and a dry run. Prints one line per run
# (wall time, and CPU when GNU time is installed).
# Everything lives in a temporary directory; HOME included.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" REFLECT_STATE_DIR="$work/state" REFLECT_LEARNINGS_DIR="$work/kb"
mkdir -p "$HOME" "$work/repo"
git init -q "$work/repo"
awk 'BEGIN {
  print "# AGENTS.md"; print ""
  for (s = 1; s <= 200; s++) {
    printf "## Area %d: service %d conventions\n", s, s
    for (r = 1; r <= 8; r++)
      printf "- Rule %d.%d: call handler%d_%d through the client of module%d, never directly; retry %d times.\n", s, r, s, r, s, r
    print ""
  }
}' > "$work/repo/AGENTS.md"
cd "$work/repo"
printf 'lines %s\n' "$(wc -l < AGENTS.md)"
# With GNU time, each line also gives the run's CPU (user and system).
timer=
if /usr/bin/time -f '' -o /dev/null true 2>/dev/null; then
  timer="/usr/bin/time -f cpu_%U_user_%S_sys -o $work/cpu"
fi
run() {
  label=$1; shift
  : > "$work/cpu"
  start=$(date +%s.%N)
  $timer "$bin" import "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  end=$(date +%s.%N)
  printf '%-16s %6.3f s  %s  %s\n' "$label" "$(echo "$end - $start" | bc)" "$(tr _ ' ' < "$work/cpu")" "$(tail -1 "$work/out")"
}
run "dry run (empty)" --dry-run
run "first import"
run "second import"
