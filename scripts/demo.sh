#!/usr/bin/env bash
# make demo: reflect end to end in about a minute, offline, in temp dirs.
# A "Claude" session fails a command and is corrected; the drain turns its
# transcript into learnings with the builtin writer; a "Codex" session then
# gets them back at its first prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
REFLECT=${REFLECT:-$PWD/bin/reflect}
# The hook payloads and transcripts are the real ones the tests replay,
# kept in the repository.
PAYLOADS=$PWD/hooks/testdata/payloads
TRANSCRIPTS=$PWD/transcript/testdata
[ -x "$REFLECT" ] || { echo "build first: make build" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reflect-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home REFLECT_STATE_DIR=$WORK/state REFLECT_LEARNINGS_DIR=$WORK/kb
mkdir -p "$HOME" "$WORK/auth-service"
git -C "$WORK/auth-service" init -q -b fix/oauth-redirect
git -C "$WORK/auth-service" -c user.name=demo -c user.email=demo@example.com \
  commit -q --allow-empty -m "callback: keep the OAuth state cookie across the redirect"
cp "$TRANSCRIPTS/claude-session.jsonl" "$WORK/claude-session.jsonl"
cp "$TRANSCRIPTS/codex-rollout.jsonl" "$WORK/codex-rollout.jsonl"

# Bold step titles only on a terminal, and never when NO_COLOR is set
# (https://no-color.org): piped or logged output stays plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  bold=$'\033[1m' plain=$'\033[0m'
else
  bold='' plain=''
fi
step() { printf '\n%s▶ %s%s\n' "$bold" "$*" "$plain"; }
# payload AGENT FIXTURE: the fixture with its paths moved into $WORK
payload() {
  sed -e "s#/home/dev/auth-service#$WORK/auth-service#g" \
      -e "s#/home/dev/.claude/projects/[^\"]*\.jsonl#$WORK/claude-session.jsonl#g" \
      -e "s#/home/dev/.codex/sessions/[^\"]*\.jsonl#$WORK/codex-rollout.jsonl#g" "$PAYLOADS/$1/$2.json"
}
# hook AGENT EVENT FIXTURE: run one hook the way the agent would
hook() {
  local out
  out=$(payload "$1" "$3" | "$REFLECT" hook "$2" --agent "$1")
  if [ -n "$out" ]; then
    printf '%s\n' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])' 2>/dev/null || printf '%s\n' "$out"
  else
    echo "(nothing injected)"
  fi
  echo "  status line: $("$REFLECT" statusline --color=never </dev/null)"
}

step "Claude session starts in auth-service (empty knowledge base)"
hook claude session-start session-start
step "Claude: user asks to fix the OAuth redirect bug"
hook claude prompt user-prompt-submit
step "Claude runs curl against the dev server; it fails (exit 60)"
hook claude post-tool post-tool-use-failure
step "User corrects: \"no, use --insecure for local dev instead\" → a mini-learning"
hook claude prompt user-prompt-correction
step "Claude's turn ends: the transcript is queued"
hook claude stop stop
"$REFLECT" queue list

step "Drain with the builtin writer (no LLM): transcript → learnings"
"$REFLECT" drain --writer builtin
"$REFLECT" list

step "Afternoon: a Codex session starts in the same project"
hook codex session-start session-start
step "Codex: user asks about the OAuth state cookie"
printf '{"session_id":"019aad50-a7e6-7422-b7a8-0b384290624f","turn_id":"t1","transcript_path":"%s","cwd":"%s","hook_event_name":"UserPromptSubmit","model":"gpt-5.5-codex","prompt":"login fails again with a state mismatch after the OAuth callback, what do we know?"}\n' \
  "$WORK/codex-rollout.jsonl" "$WORK/auth-service" | "$REFLECT" hook prompt --agent codex |
  python3 -c 'import json,sys; d=sys.stdin.read().strip(); print(json.loads(d)["hookSpecificOutput"]["additionalContext"] if d else "(nothing injected)")'

step "reflect status"
"$REFLECT" status
