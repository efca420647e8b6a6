#!/usr/bin/env python3
"""scripts/abprompt.py: interleaved A/B of a prompt hook that injects.

    scripts/abprompt.py [--runs N] OLD_BINARY NEW_BINARY

Gives each binary its own temporary state and learnings directories with the
same two learnings, then runs, round after round (order alternating), a
`GOMAXPROCS=1 reflect hook prompt --agent claude` whose prompt recalls one of
them under a new session id every round (so every run injects, and writes
what an injecting recall writes), and `reflect version` as the floor. Prints
p50 and mean wall time per binary and the new/old ratio of the p50s, and the
same for CPU time (user + system of the hook process, from getrusage), which a
loaded machine disturbs less than wall time.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

LEARNINGS = [
    ("Vite dev server ignores .env.local until restart",
     "Restart the vite dev server after editing .env.local: env files are read at start-up", "vite,env"),
    ("Postgres pool exhausted under load",
     "Put pgbouncer in front of postgres; the app pool of 100 connections ran out", "postgres"),
]
PROMPT = "why does the vite dev server ignore my .env.local edits until restart?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=150)
    ap.add_argument("old")
    ap.add_argument("new")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="abprompt-")
    bins = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    envs = {}
    for name, binary in bins.items():
        d = os.path.join(root, name)
        os.makedirs(os.path.join(d, "home"))
        envs[name] = dict(os.environ, HOME=os.path.join(d, "home"), REFLECT_STATE_DIR=os.path.join(d, "state"),
                          REFLECT_LEARNINGS_DIR=os.path.join(d, "kb"), GOMAXPROCS="1")
        for title, insight, tags in LEARNINGS:
            subprocess.run([binary, "add", "--title", title, "--insight", insight, "--tags", tags,
                            "--confidence", "high"], env=envs[name], check=True, capture_output=True)
    hook = {n: [] for n in bins}
    cpu = {n: [] for n in bins}
    version = {n: [] for n in bins}
    injected = {n: 0 for n in bins}
    for i in range(args.runs):
        for name in (["old", "new"] if i % 2 == 0 else ["new", "old"]):
            payload = json.dumps({"session_id": f"ab-{i}", "cwd": root, "hook_event_name": "UserPromptSubmit",
                                  "prompt": PROMPT}).encode()
            t = time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([bins[name], "hook", "prompt", "--agent", "claude"], input=payload,
                                 env=envs[name], capture_output=True)
            hook[name].append((time.perf_counter() - t) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
            injected[name] += b"reflect-learnings" in out.stdout
            t = time.perf_counter()
            subprocess.run([bins[name], "version"], env=envs[name], capture_output=True)
            version[name].append((time.perf_counter() - t) * 1000)
    for name in bins:
        print(f"{name}: hook prompt p50 {statistics.median(hook[name]):.2f} ms, mean {statistics.mean(hook[name]):.2f} ms; "
              f"version p50 {statistics.median(version[name]):.2f} ms; injected {injected[name]}/{args.runs}")
    print(f"new/old hook prompt p50: {statistics.median(hook['new']) / statistics.median(hook['old']):.3f}")
    for name in bins:
        print(f"{name}: hook prompt CPU p50 {statistics.median(cpu[name]):.2f} ms, mean {statistics.mean(cpu[name]):.2f} ms")
    print(f"new/old hook prompt CPU p50: {statistics.median(cpu['new']) / statistics.median(cpu['old']):.3f}, "
          f"mean: {statistics.mean(cpu['new']) / statistics.mean(cpu['old']):.3f}")


if __name__ == "__main__":
    main()
