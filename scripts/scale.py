#!/usr/bin/env python3
"""scripts/scale.py: how reflect scales with the size of the knowledge base.

For each size N it generates a synthetic KB (`reflect bench generate`, plus one
real-shaped learning that the recalling prompt finds), then measures, for each
binary given, interleaved run by run on its own copy of the same documents:

  reindex --full   CPU (user+sys), wall and peak RSS, index size vs markdown
  search, hook session-start, hook prompt (recalling), add, forget
                   p50 wall and p50/max peak RSS over --runs runs
  recall           whether the recalling prompt still injects its learning

`reflect version` is run in the same rotation as the floor of a process's
start-up. Each child's CPU and peak RSS come from wait4(2), so nothing but the
child is counted. 1M is extrapolated from the two largest sizes measured
(power law through them) and printed as such, never measured.

  scripts/scale.py --sizes 1000,10000 --base /tmp/reflect-main
  scripts/scale.py --sizes 100000 --runs 10 --json out.json

Writes nothing outside a temp dir (unless --json names a file).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = ("the postgres connection pool times out under load in the worker, "
          "max_connections is reached")
RECALL_ID = "lrn-postgres-connection-pool"


def measured(argv, env, stdin=None, check=True):
    """Runs argv; wait4 gives this child's own CPU time and peak RSS."""
    fin = os.open(stdin, os.O_RDONLY) if stdin else os.open(os.devnull, os.O_RDONLY)
    outf = tempfile.TemporaryFile()
    errf = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.dup2(fin, 0)
            os.dup2(outf.fileno(), 1)
            os.dup2(errf.fileno(), 2)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    os.close(fin)
    outf.seek(0)
    errf.seek(0)
    out = outf.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if check and code != 0:
        sys.exit(f"{' '.join(argv)}: exit {code}\n{errf.read().decode()[-2000:]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime,
            "rss": ru.ru_maxrss / 1024, "out": out, "code": code}


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_size
            except FileNotFoundError:
                pass
    return total


def p50(xs):
    return statistics.median(xs)


class Side:
    """One binary with its own HOME, state and copy of the KB."""

    def __init__(self, name, binary, work, docs):
        self.name, self.bin = name, binary
        self.dir = os.path.join(work, name)
        self.kb = os.path.join(self.dir, "kb")
        os.makedirs(os.path.join(self.dir, "home"))
        shutil.copytree(docs, os.path.join(self.kb, "documents"))
        self.env = dict(os.environ, HOME=os.path.join(self.dir, "home"),
                        REFLECT_STATE_DIR=os.path.join(self.dir, "state"),
                        REFLECT_LEARNINGS_DIR=self.kb, GOMAXPROCS="1")
        # reindex is not a hook: it runs with every core, as users run it.
        self.env_all = dict(self.env)
        del self.env_all["GOMAXPROCS"]

    def r(self, *args, stdin=None, env=None, check=True):
        return measured([self.bin, *args], env or self.env, stdin, check)


def payloads(work, repo):
    t = os.path.join(work, "t.jsonl")
    shutil.copy(os.path.join(ROOT, "transcript/testdata/claude-session.jsonl"), t)
    start = os.path.join(work, "session-start.json")
    with open(start, "w") as f:
        json.dump({"session_id": "scale", "transcript_path": t, "cwd": repo,
                   "hook_event_name": "SessionStart", "source": "startup"}, f)
    prompt = os.path.join(work, "prompt.json")
    with open(prompt, "w") as f:
        json.dump({"session_id": "scale", "transcript_path": t, "cwd": repo,
                   "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}, f)
    quiet = os.path.join(work, "quiet.json")
    with open(quiet, "w") as f:
        json.dump({"session_id": "scale", "transcript_path": t, "cwd": repo,
                   "hook_event_name": "UserPromptSubmit",
                   "prompt": "rename the quarterly invoice spreadsheet columns to match the new ledger"}, f)
    return start, prompt, quiet


def add_recall_target(side):
    side.r("add", "--force", "--confidence", "high", "--category", "debugging",
           "--tags", "postgres,pool,max_connections",
           "--title", "Postgres connection pool times out when workers exceed max_connections",
           "--insight", "Size the pool per worker so that pool_size x workers stays below "
           "max_connections; the pool timeout is the symptom",
           "--body", "## Problem\nUnder load the worker logged `pool timeout` and postgres "
           "refused new connections.\n\n## Solution\nCap pool_size per worker at "
           "max_connections / workers.\n")


def measure_size(n, sides, args, work):
    gen = os.path.join(work, f"gen-{n}")
    first = sides[0][1]
    measured([first, "bench", "generate", gen, "--count", str(n)], dict(os.environ))
    docs = os.path.join(gen, "documents")
    repo = os.path.join(work, "repo")
    if not os.path.isdir(repo):
        subprocess.run(["git", "init", "-q", "-b", "feature/postgres-pool", repo], check=True)
        for m in ("pool: cap max_connections per worker", "docker: fix ENOSPC in the build cache"):
            subprocess.run(["git", "-C", repo, "-c", "user.name=b", "-c", "user.email=b@e",
                            "commit", "-q", "--allow-empty", "-m", m], check=True)
    start, prompt, quiet = payloads(work, repo)
    ss = [Side(f"{name}-{n}", b, work, docs) for name, b in sides]
    res = {s.name.rsplit("-", 1)[0]: {"n": n} for s in ss}
    md = du(docs)
    # reindex --full, alternating binaries; the index is deleted between runs.
    rruns = args.reindex_runs if args.reindex_runs else (1 if n >= 50000 else 2)
    for i in range(rruns):
        for s in (ss if i % 2 == 0 else ss[::-1]):
            shutil.rmtree(os.path.join(s.kb, "index"), ignore_errors=True)
            m = s.r("reindex", "--full", env=s.env_all)
            r = res[s.name.rsplit("-", 1)[0]]
            r.setdefault("reindex", []).append({k: m[k] for k in ("wall", "cpu", "rss")})
            print(f"  {s.name}: reindex --full {m['wall']:.1f} s wall, {m['cpu']:.1f} s CPU, "
                  f"{m['rss']:.0f} MB", file=sys.stderr, flush=True)
    for s in ss:
        r = res[s.name.rsplit("-", 1)[0]]
        r["markdown_bytes"] = md
        r["index_bytes"] = du(os.path.join(s.kb, "index"))
        add_recall_target(s)
    ops = {
        "version": lambda s, i: s.r("version"),
        "search": lambda s, i: s.r("search", "postgres", "connection", "pool", "timeout"),
        "hook session-start": lambda s, i: s.r("hook", "session-start", "--agent", "claude", stdin=start),
        "hook prompt (recalls)": lambda s, i: s.r("hook", "prompt", "--agent", "claude", stdin=prompt),
        "hook prompt (unrelated)": lambda s, i: s.r("hook", "prompt", "--agent", "claude", stdin=quiet),
        "add": lambda s, i: s.r("add", "--force", "--tags", "scale",
                                "--title", f"Scale probe {i} keeps the queue worker idempotent",
                                "--insight", f"Probe {i}: retries must not enqueue twice", "--json"),
    }
    added = {s.name: [] for s in ss}
    for i in range(args.runs):
        for s in (ss if i % 2 == 0 else ss[::-1]):
            r = res[s.name.rsplit("-", 1)[0]]
            for op, fn in ops.items():
                shutil.rmtree(os.path.join(s.env["REFLECT_STATE_DIR"], "session-injected"),
                              ignore_errors=True)
                m = fn(s, i)
                r.setdefault(op, []).append({k: m[k] for k in ("wall", "cpu", "rss")})
                if op == "add":
                    added[s.name].append(json.loads(m["out"])["id"])
                if op == "hook prompt (recalls)":
                    r.setdefault("recalled", []).append(RECALL_ID in m["out"])
                if op == "hook prompt (unrelated)":
                    r.setdefault("unrelated_silent", []).append(m["out"].strip() == "")
            lid = added[s.name][-1]
            m = s.r("forget", "--yes", lid)
            r.setdefault("forget", []).append({k: m[k] for k in ("wall", "cpu", "rss")})
    return res


OPS = ["version", "search", "hook session-start", "hook prompt (recalls)",
       "hook prompt (unrelated)", "add", "forget"]


def summarize(all_res):
    lines = []
    for n, res in all_res:
        for name, r in res.items():
            rx = r["reindex"]
            lines.append(f"## N={n} {name}")
            lines.append(f"reindex --full: CPU {p50([x['cpu'] for x in rx]):.1f} s, wall "
                         f"{p50([x['wall'] for x in rx]):.1f} s, peak RSS "
                         f"{max(x['rss'] for x in rx):.0f} MB (p50 of {len(rx)})")
            lines.append(f"index {r['index_bytes']/1e6:.1f} MB for {r['markdown_bytes']/1e6:.1f} MB "
                         f"of markdown = {r['index_bytes']/r['markdown_bytes']:.2f}x")
            lines.append(f"recalling prompt injected its learning in {sum(r['recalled'])}/"
                         f"{len(r['recalled'])} runs; unrelated prompt silent in "
                         f"{sum(r['unrelated_silent'])}/{len(r['unrelated_silent'])}")
            for op in OPS:
                xs = r[op]
                lines.append(f"  {op:26} p50 {p50([x['wall'] for x in xs])*1000:8.1f} ms  "
                             f"RSS p50 {p50([x['rss'] for x in xs]):6.1f} MB max "
                             f"{max(x['rss'] for x in xs):6.1f} MB")
    # Ratios against the baseline binary (second --base side), per size.
    for n, res in all_res:
        names = list(res)
        if len(names) < 2:
            continue
        a, b = res[names[0]], res[names[1]]
        lines.append(f"## N={n} ratio {names[0]}/{names[1]} (p50; < 1 is faster/smaller)")
        lines.append(f"  reindex CPU {p50([x['cpu'] for x in a['reindex']])/p50([x['cpu'] for x in b['reindex']]):.2f}, "
                     f"peak RSS {max(x['rss'] for x in a['reindex'])/max(x['rss'] for x in b['reindex']):.2f}, "
                     f"index size {a['index_bytes']/b['index_bytes']:.2f}")
        for op in OPS:
            lines.append(f"  {op:26} time {p50([x['wall'] for x in a[op]])/p50([x['wall'] for x in b[op]]):.2f}  "
                         f"RSS {p50([x['rss'] for x in a[op]])/p50([x['rss'] for x in b[op]]):.2f}")
    # 1M by extrapolation (power law through the two largest sizes), per binary.
    if len(all_res) >= 2:
        (n1, r1), (n2, r2) = all_res[-2], all_res[-1]
        for name in r2:
            def fit(f):
                v1, v2 = f(r1[name]), f(r2[name])
                k = math.log(v2 / v1) / math.log(n2 / n1)
                return v2 * (1_000_000 / n2) ** k, k
            cpu, kc = fit(lambda r: p50([x["cpu"] for x in r["reindex"]]))
            rss, kr = fit(lambda r: max(x["rss"] for x in r["reindex"]))
            size, ks = fit(lambda r: r["index_bytes"])
            lines.append(f"## 1M {name}: EXTRAPOLATED from N={n1} and N={n2}, not measured")
            lines.append(f"  reindex CPU ~{cpu:.0f} s (n^{kc:.2f}), peak RSS ~{rss:.0f} MB (n^{kr:.2f}), "
                         f"index ~{size/1e9:.1f} GB (n^{ks:.2f})")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated KB sizes")
    ap.add_argument("--runs", type=int, default=15, help="runs per operation and binary")
    ap.add_argument("--reindex-runs", type=int, default=0,
                    help="full reindexes per binary (default 2, 1 from 50,000)")
    ap.add_argument("--reflect", default=os.path.join(ROOT, "bin/reflect"))
    ap.add_argument("--base", help="previous build to compare against, interleaved")
    ap.add_argument("--json", help="write the raw measurements here")
    args = ap.parse_args()
    sides = [("new", os.path.abspath(args.reflect))]
    if args.base:
        sides.append(("base", os.path.abspath(args.base)))
    for _, b in sides:
        if not os.access(b, os.X_OK):
            sys.exit(f"{b}: not an executable (make build first)")
    work = tempfile.mkdtemp(prefix="reflect-scale.")
    all_res = []
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            print(f"== {n} learnings", file=sys.stderr, flush=True)
            all_res.append((n, measure_size(n, sides, args, work)))
            for name, _ in sides:  # free the disk before the next size
                shutil.rmtree(os.path.join(work, f"{name}-{n}"), ignore_errors=True)
            shutil.rmtree(os.path.join(work, f"gen-{n}"), ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(all_res, f, indent=1)
    print(summarize(all_res))


if __name__ == "__main__":
    main()
