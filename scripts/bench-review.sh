#!/bin/bash
# `reflect review approve --all --yes --json` on 100 pending drafts (and ACTIVE active
# learnings beside them), each run on a fresh copy of the same knowledge base,
# interleaved with `reflect version` on the same loaded machine (docs/benchmarks.md).
set -e
BIN=${BIN:?set BIN to a reflect binary built with -tags sqlite_fts5}
ACTIVE=${ACTIVE:-0}
export HOME=$(mktemp -d)
base=$(mktemp -d)
trap 'rm -rf "$HOME" "$base"' EXIT
export REFLECT_STATE_DIR=$base/state REFLECT_LEARNINGS_DIR=$base/kb
mkdir -p $base/kb/documents
for i in $(seq 1 $ACTIVE); do
  printf -- "---\nid: lrn-active-%04d\ntitle: Active learning %04d about service alpha%04d\nconfidence: medium\nkey_insight: Service alpha%04d needs flag beta%04d at boot.\ncreated: 2026-01-01T00:00:00Z\n---\n## Problem\nalpha%04d fails.\n" $i $i $i $i $i $i > $base/kb/documents/lrn-active-$(printf %04d $i).md
done
for i in $(seq 1 100); do
  printf -- "---\nid: lrn-draft-%03d\ntitle: Draft %03d for widget%03d needs gamma%03d\nconfidence: medium\nstatus: pending\nkey_insight: Start widget%03d with --gamma%03d or it exits at boot.\ncreated: 2026-11-01T00:00:00Z\n---\n## Problem\nwidget%03d exits.\n" $i $i $i $i $i $i $i > $base/kb/documents/lrn-draft-$(printf %03d $i).md
done
$BIN reindex >/dev/null
test "$($BIN review --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')" = 100
ms() { echo $(( ($2 - $1) / 1000000 )); }
for run in 1 2 3 4 5; do
  rm -rf $base/trial && cp -a $base/kb $base/trial && cp -a $base/state $base/trial-state 2>/dev/null || true
  export REFLECT_LEARNINGS_DIR=$base/trial REFLECT_STATE_DIR=$base/trial-state
  t0=$(date +%s%N); $BIN version >/dev/null; t1=$(date +%s%N)
  out=$($BIN review approve --all --yes --json); t2=$(date +%s%N)
  n=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["ids"]), d["pending"])')
  echo "run $run: version $(ms $t0 $t1) ms, approve --all (100 drafts, $ACTIVE active): $(ms $t1 $t2) ms, result: $n"
  rm -rf $base/trial-state
  export REFLECT_LEARNINGS_DIR=$base/kb REFLECT_STATE_DIR=$base/state
done
