#!/usr/bin/env bash
# scripts/bench.sh: whole-process latency of reflect on a synthetic KB,
# measured with hyperfine (apt-get install hyperfine), beside /bin/true.
#   scripts/bench.sh [COUNT]      (default 10000 learnings)
# Writes nothing outside a temp dir; prints hyperfine's tables.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-10000}
RUNS=${RUNS:-100}
REFLECT=${REFLECT:-$PWD/bin/reflect}
# Hook payloads and the transcript are the ones the tests replay.
PAYLOADS=$PWD/hooks/testdata/payloads
TRANSCRIPTS=$PWD/transcript/testdata
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install hyperfine" >&2; exit 1; }
[ -x "$REFLECT" ] || { echo "build first: make build" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reflect-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RES=$WORK/results; mkdir -p "$RES"
n=0
hf() { n=$((n+1)); hyperfine --export-json "$RES/$(printf %02d $n).json" "$@"; }
export HOME=$WORK/home REFLECT_STATE_DIR=$WORK/state REFLECT_LEARNINGS_DIR=$WORK/kb
mkdir -p "$HOME" "$WORK/repo"
git -C "$WORK/repo" init -q -b feature/postgres-pool
for m in "pool: cap max_connections per worker" "docker: fix ENOSPC in the build cache" "ci: run the kafka consumer tests"; do
  git -C "$WORK/repo" -c user.name=b -c user.email=b@e commit -q --allow-empty -m "$m"
done

"$REFLECT" bench generate "$WORK/kb" --count "$COUNT" >/dev/null
echo "== reindex --full of $COUNT learnings"
hf -N --runs 3 --prepare "rm -f $WORK/kb/index/catalog.db $WORK/kb/index/catalog.db-wal $WORK/kb/index/catalog.db-shm" \
  "$REFLECT reindex --full"
"$REFLECT" reindex --full >/dev/null
# The synthetic learnings share their words too evenly for any prompt to
# clear recall's relevance floor; one real-shaped learning among them is
# what "hook prompt (recalls)" finds and injects.
"$REFLECT" add --force --confidence high --category debugging --tags postgres,pool,max_connections \
  --title "Postgres connection pool times out when workers exceed max_connections" \
  --insight "Size the pool per worker so that pool_size x workers stays below max_connections; the pool timeout is the symptom" \
  --body $'## Problem\nUnder load the worker logged `pool timeout` and postgres refused new connections.\n\n## Solution\nCap pool_size per worker at max_connections / workers.\n' >/dev/null
docs=("$WORK"/kb/documents/*.md)
victim=$(basename "${docs[0]}")
echo "== reindex after one changed file"
hf -N --runs 20 --prepare "sh -c 'printf \"\nedited %s\n\" \$(date +%N) >> $WORK/kb/documents/$victim'" "$REFLECT reindex"

echo "== search"
hf -N --warmup 5 --runs "$RUNS" \
  "$REFLECT version" \
  "$REFLECT search postgres connection pool timeout" \
  "$REFLECT search sync.Mutex deadlock in the worker" \
  "$REFLECT search why does the docker build fail with ENOSPC" \
  /bin/true

# Hook payloads: the fixtures, pointed at this run's repo and transcript.
cp "$TRANSCRIPTS/claude-session.jsonl" "$WORK/t.jsonl"
mk() { sed -e "s#/home/dev/auth-service#$WORK/repo#g" -e "s#/home/dev/.claude/projects/[^\"]*\.jsonl#$WORK/t.jsonl#g" "$PAYLOADS/claude/$1.json" > "$WORK/$1.json"; }
for f in session-start user-prompt-submit post-tool-use-failure post-tool-use stop pre-compact; do mk "$f"; done
printf '{"session_id":"bench","transcript_path":"%s","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"the postgres connection pool times out under load in the worker, max_connections is reached"}\n' "$WORK/t.jsonl" "$WORK/repo" > "$WORK/prompt-hit.json"
case $("$REFLECT" hook prompt --agent claude < "$WORK/prompt-hit.json") in
  *lrn-postgres-connection-pool*) ;;
  *) echo "the recalling prompt recalled nothing: the benchmark would time the silent path" >&2; exit 1 ;;
esac
rm -rf "$WORK/state/session-injected"
# The hooks are timed as `reflect install claude` writes them into this
# run's $HOME (GOMAXPROCS=1 and the binary's absolute path included), and
# as agents run them: through a shell with the payload on stdin.
# `sh -c '/bin/true < payload'` is the baseline.
"$REFLECT" install claude >/dev/null
installed() { # EVENT: the command reflect install wrote for it
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hooks"][sys.argv[2]][0]["hooks"][0]["command"])' \
    "$HOME/.claude/settings.json" "$1"
}
hook() { # NAME EVENT PAYLOAD [PREPARE]
  local prep=${4:-true}
  hf --warmup 5 --runs "$RUNS" --prepare "$prep" -n "$1" "$(installed "$2") < $3"
}
echo "== hooks (as installed, through sh)"
# A session whose dedupe set starts empty every run, so each prompt recalls.
hook "hook prompt (recalls)" UserPromptSubmit "$WORK/prompt-hit.json" "rm -rf $WORK/state/session-injected"
hook "hook prompt (fixture)" UserPromptSubmit "$WORK/user-prompt-submit.json"
hook "hook session-start (git repo)" SessionStart "$WORK/session-start.json" "rm -rf $WORK/state/session-injected"
hook "hook stop" Stop "$WORK/stop.json"
hook "hook pre-compact" PreCompact "$WORK/pre-compact.json"
hook "hook post-tool (failure)" PostToolUseFailure "$WORK/post-tool-use-failure.json"
hook "hook post-tool (success)" PostToolUse "$WORK/post-tool-use.json"
hf --warmup 5 --runs "$RUNS" -n "/bin/true (same shell, same stdin)" "/bin/true < $WORK/stop.json"

# Median and 95th percentile of every benchmark above, in milliseconds.
echo "== summary (ms)"
python3 - "$RES" "$REFLECT" <<'PY'
import json, glob, os, sys
print(f"{'command':60} {'p50':>8} {'p95':>8} {'runs':>5}")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    for r in json.load(open(f))["results"]:
        t = sorted(x * 1000 for x in r["times"])
        p = lambda q: t[min(len(t) - 1, int(q * (len(t) - 1) + 0.5))]
        name = r["command"].replace(sys.argv[2], "reflect")
        print(f"{name[:60]:60} {p(0.5):8.1f} {p(0.95):8.1f} {len(t):5}")
PY
