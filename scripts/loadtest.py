#!/usr/bin/env python3
"""Bounded hook load test: how many captures are lost under load, and the
latency of the hooks that make them.

Runs, against a throwaway HOME / state / learnings directory (never the real
~/.reflect or ~/.learnings, no network):

  * STOP stop hooks, one session and transcript each, PAR at a time;
  * PROMPTS prompt hooks of a few shared sessions, interleaved with them;
  * DRAINS background loops of `reflect drain --writer builtin` and one of
    `reflect reindex` while the hooks run.

A capture is lost when a stop hook's session ends up nowhere: not pending,
not spilled, not in the processed ledger or the poison file. Prompt hooks
that went ahead without the dedupe lock (main) or skipped for it (this
branch) are counted from hooks.log.

Usage: scripts/loadtest.py BINARY [BINARY...] [--stop 3000] [--prompts 1500]
       [--par 8] [--drains 2] [--ledger 0]
Binaries are run one after the other, each on fresh directories; run them in
one invocation so they see the same machine load.
"""

import argparse
import concurrent.futures as cf
import glob
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRANSCRIPT = os.path.join(REPO, "transcript", "testdata", "claude-session.jsonl")


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))
    return xs[k]


def run_one(binary, args):
    root = tempfile.mkdtemp(prefix="reflect-load-")
    env = dict(os.environ, HOME=os.path.join(root, "home"),
               REFLECT_STATE_DIR=os.path.join(root, "state"),
               REFLECT_LEARNINGS_DIR=os.path.join(root, "kb"),
               REFLECT_WRITER="builtin", GOMAXPROCS="1")
    env.pop("REFLECT_DISABLE", None)
    os.makedirs(env["HOME"])
    trdir = os.path.join(root, "transcripts")
    os.makedirs(trdir)
    with open(TRANSCRIPT, "rb") as f:
        content = f.read()
    for title, insight in [
        ("SQLite database is locked under WAL", "Set busy_timeout and keep write transactions short."),
        ("OAuth state cookie dropped on the IdP redirect", "Use SameSite=Lax for the state cookie."),
        ("Redis evicts session keys under allkeys-lru", "Use volatile-lru when caches share an instance with sessions."),
    ]:
        subprocess.run([binary, "add", "--title", title, "--insight", insight], env=env,
                       check=True, capture_output=True)

    # A long-lived install: transcripts reflected long ago are still on
    # disk, and the ledger holds an entry for each (compaction keeps them).
    if args.ledger:
        olddir = os.path.join(trdir, "old")
        os.makedirs(olddir)
        os.makedirs(env["REFLECT_STATE_DIR"], mode=0o700, exist_ok=True)
        with open(os.path.join(env["REFLECT_STATE_DIR"], "processed.jsonl"), "w") as led:
            for i in range(args.ledger):
                path = os.path.join(olddir, "old-%06d.jsonl" % i)
                with open(path, "wb") as f:
                    f.write(b"{}\n")
                led.write(json.dumps({"path": path, "size": 3, "sha256": "%064x" % i,
                                      "outcome": "reflected", "at": "2026-01-01T00:00:00Z"}) + "\n")

    sessions = []
    for i in range(args.stop):
        sid = "load-%05d" % i
        path = os.path.join(trdir, sid + ".jsonl")
        with open(path, "wb") as f:
            f.write(content)
        sessions.append((sid, path))

    stop_lat, prompt_lat = [], []
    lock = threading.Lock()

    def hook(event, payload, into):
        t0 = time.perf_counter()
        p = subprocess.run([binary, "hook", event, "--agent", "claude"], input=payload.encode(),
                           env=env, capture_output=True)
        dt = time.perf_counter() - t0
        with lock:
            into.append(dt)
        return p.returncode

    stop_bg = threading.Event()

    def loop(argv):
        n = 0
        while not stop_bg.is_set():
            subprocess.run([binary] + argv, env=env, capture_output=True)
            n += 1
        return n

    jobs = []
    for i, (sid, path) in enumerate(sessions):
        jobs.append(("stop", json.dumps({"session_id": sid, "transcript_path": path, "cwd": trdir,
                                          "hook_event_name": "Stop", "stop_hook_active": False}), stop_lat))
        if i < args.prompts:
            jobs.append(("prompt", json.dumps({"session_id": "chat-%d" % (i % 5), "cwd": trdir,
                                                "hook_event_name": "UserPromptSubmit",
                                                "prompt": "why is the sqlite database locked under WAL mode again"}),
                         prompt_lat))
    for i in range(args.stop, args.prompts):
        jobs.append(("prompt", json.dumps({"session_id": "chat-%d" % (i % 5), "cwd": trdir,
                                            "hook_event_name": "UserPromptSubmit",
                                            "prompt": "why is the sqlite database locked under WAL mode again"}),
                     prompt_lat))

    bg = cf.ThreadPoolExecutor(args.drains + 1)
    bgf = [bg.submit(loop, ["drain", "--writer", "builtin"]) for _ in range(args.drains)]
    bgf.append(bg.submit(loop, ["reindex"]))
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(args.par) as ex:
        rcs = list(ex.map(lambda j: hook(*j), jobs))
    wall = time.perf_counter() - t0
    stop_bg.set()
    loops = [f.result() for f in bgf]
    bg.shutdown()

    state = env["REFLECT_STATE_DIR"]
    found = set()

    def scan(path, key):
        if not os.path.exists(path):
            return
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    v = json.loads(line)
                except ValueError:
                    continue
                if isinstance(v, dict) and v.get(key):
                    found.add(v[key])

    scan(os.path.join(state, "pending_reflections.jsonl"), "transcript_path")
    scan(os.path.join(state, "processed.jsonl"), "path")
    scan(os.path.join(state, "poison.jsonl"), "transcript_path")
    for sp in glob.glob(os.path.join(state, "spill", "*.json")):
        scan(sp, "transcript_path")
    lost = [s for s, p in sessions if p not in found]

    # A capture is duplicated when its transcript is pending twice, or
    # reflected twice at the same size (transcripts here never grow).
    def counts(path, key):
        seen = {}
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        v = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(v, dict) and v.get(key):
                        k = (v[key], v.get("size"))
                        seen[k] = seen.get(k, 0) + 1
        return sum(n - 1 for n in seen.values() if n > 1)

    duplicated = counts(os.path.join(state, "pending_reflections.jsonl"), "transcript_path") + \
        counts(os.path.join(state, "processed.jsonl"), "path")
    log = ""
    for lp in glob.glob(os.path.join(state, "logs", "hooks.log*")):
        with open(lp, encoding="utf-8", errors="replace") as f:
            log += f.read()
    res = {
        "binary": binary,
        "stop_hooks": len(sessions),
        "prompt_hooks": len(prompt_lat),
        "nonzero_exits": sum(1 for rc in rcs if rc != 0),
        "enqueues_lost": len(lost),
        "captures_duplicated": duplicated,
        "lock_timeouts_logged": log.count("still held after"),
        "spilled_logged": log.count("queue busy"),
        "deadline_spills_logged": log.count("kept the capture in spill/"),
        "deadline_giveups_logged": log.count("gave up after"),
        "dedupe_went_ahead_unlocked": log.count("went ahead without it"),
        "dedupe_skipped_busy": log.count("dedupe lock busy"),
        "stop_p50_ms": round(pct(stop_lat, 50) * 1000, 1),
        "stop_p99_ms": round(pct(stop_lat, 99) * 1000, 1),
        "prompt_p50_ms": round(pct(prompt_lat, 50) * 1000, 1),
        "prompt_p99_ms": round(pct(prompt_lat, 99) * 1000, 1),
        "wall_s": round(wall, 1),
        "background_runs": loops,
    }
    shutil.rmtree(root, ignore_errors=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--stop", type=int, default=3000)
    ap.add_argument("--prompts", type=int, default=1500)
    ap.add_argument("--par", type=int, default=8)
    ap.add_argument("--drains", type=int, default=2)
    ap.add_argument("--ledger", type=int, default=0,
                    help="seed the ledger with this many entries of old transcripts still on disk")
    args = ap.parse_args()
    for b in args.binaries:
        print(json.dumps(run_one(os.path.abspath(b), args)), flush=True)


if __name__ == "__main__":
    main()
