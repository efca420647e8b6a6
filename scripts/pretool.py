#!/usr/bin/env python3
"""scripts/pretool.py: what `reflect hook pre-tool` costs next to `reflect version`.

Generates a synthetic KB of each --sizes (`reflect bench generate`), adds one
learning that records `gizmo-check --all` as failing, indexes it, then runs,
interleaved run by run (GOMAXPROCS=1, as the hooks are installed):

  version                     the floor of a process's start-up
  hook pre-tool (warns)       `gizmo-check --verbose` (a new session id each
                              run, so the once-per-session rule never hides it)
  hook pre-tool (unrelated)   `ls -la`, which no learning records

and prints p50 wall and CPU (wait4 of the child alone, scale.measured) and
each hook's ratio to version's p50 wall. It checks that the warning names
the learning and that the unrelated command gets nothing.

  scripts/pretool.py --bin bin/reflect --sizes 1000,10000 --runs 21

Writes nothing outside a temp dir.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import measured  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pretool-")
    home = os.path.join(work, "home")
    repo = os.path.join(work, "repo")
    os.makedirs(home)
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", repo], check=True)
    sizes = [s for s in args.sizes.split(",") if s]
    envs, ids = {}, {}
    for n in sizes:
        kb = os.path.join(work, f"kb-{n}")
        env = dict(os.environ, HOME=home, REFLECT_STATE_DIR=os.path.join(work, f"state-{n}"),
                   REFLECT_LEARNINGS_DIR=kb, GOMAXPROCS="1")
        subprocess.run([args.bin, "bench", "generate", kb, "--count", n], env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.bin, "reindex", "--full"], env=env, check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([args.bin, "add", "--json", "--scope", "global", "--confidence", "high",
                              "--title", "gizmo-check needs --offline",
                              "--insight", "`gizmo-check --all` fails with exit code 3 without --offline; run gizmo-check --offline."],
                             env=env, check=True, capture_output=True, text=True).stdout
        ids[n] = json.loads(out)["id"]
        envs[n] = env

    def payload(name, cmd, sid):
        p = os.path.join(work, name)
        with open(p, "w") as f:
            json.dump({"session_id": sid, "cwd": repo, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": cmd}}, f)
        return p

    quiet = payload("quiet.json", "ls -la", "bench")
    res = {}
    for i in range(args.runs):
        for n in (sizes if i % 2 == 0 else sizes[::-1]):
            env = envs[n]
            warn = payload(f"warn-{i}.json", "gizmo-check --verbose", f"bench-{n}-{i}")
            ops = [("version", ["version"], None),
                   ("hook pre-tool (warns)", ["hook", "pre-tool", "--agent", "claude"], warn),
                   ("hook pre-tool (unrelated)", ["hook", "pre-tool", "--agent", "claude"], quiet)]
            if i % 2:
                ops = ops[::-1]
            for op, argv, stdin in ops:
                m = measured([args.bin] + argv, env, stdin, check=False)
                res.setdefault((n, op), []).append(m)
                if op == "hook pre-tool (warns)" and ids[n] not in m["out"]:
                    print(f"! {n}: the warning does not name {ids[n]}: {m['out']!r}", file=sys.stderr)
                if op == "hook pre-tool (unrelated)" and m["out"].strip():
                    print(f"! {n}: the unrelated command got {m['out']!r}", file=sys.stderr)
    print(os.popen("uptime").read().strip())
    print("| learnings | what | p50 wall | p50 CPU | wall / version |")
    print("|---|---|---|---|---|")
    for n in sizes:
        base = statistics.median(m["wall"] for m in res[(n, "version")])
        for op in ["version", "hook pre-tool (warns)", "hook pre-tool (unrelated)"]:
            ms = res[(n, op)]
            wall = statistics.median(m["wall"] for m in ms)
            cpu = statistics.median(m["cpu"] for m in ms)
            print(f"| {n} | {op} | {wall * 1000:.1f} ms | {cpu * 1000:.1f} ms | {wall / base:.2f}× |")


if __name__ == "__main__":
    main()
