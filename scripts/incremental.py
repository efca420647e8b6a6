#!/usr/bin/env python3
"""scripts/incremental.py: what `add` and `forget` cost on one indexed KB.

Each binary gets its own copy of KB (a learnings directory with documents/ and
an index/ both binaries can read, so no reindex per binary, unlike
scripts/scale.py); then, run by run with the binaries alternating, it measures
`add`, a `search` and a `forget` of the learning just added: p50 wall and CPU
(user+sys) and peak RSS, from wait4(2) of the child alone (scale.measured).

  reflect bench generate /tmp/kb --count 100000
  REFLECT_LEARNINGS_DIR=/tmp/kb reflect reindex
  scripts/incremental.py /tmp/kb --runs 15 new=bin/reflect base=/tmp/reflect-prev/bin/reflect

A binary given as name=path:kb gets a copy of its own kb instead (a build
whose catalog format differs from the other's; the first positional KB then
only names the work directory).

The first run of each binary starts from a copy whose documents/ is newer than
its index (the copy moved its mtime); later runs do not. Writes only under
KB + "-work".
"""
import argparse
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import measured  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kb", help="an indexed learnings directory")
    ap.add_argument("bins", nargs="+", help="name=path of each binary, or name=path:kb with a KB of its own")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    work = args.kb.rstrip("/") + "-work"
    shutil.rmtree(work, ignore_errors=True)
    sides = []
    for spec in args.bins:
        name, b = spec.split("=", 1)
        b, _, kb = b.partition(":")
        d = os.path.join(work, name)
        shutil.copytree(kb or args.kb, os.path.join(d, "kb"), symlinks=True)
        env = dict(os.environ, REFLECT_LEARNINGS_DIR=os.path.join(d, "kb"),
                   REFLECT_STATE_DIR=os.path.join(d, "state"), HOME=os.path.join(d, "home"),
                   GOMAXPROCS="1")
        os.makedirs(env["HOME"], exist_ok=True)
        sides.append((name, b, env))
    res = {n: {"add": [], "search": [], "forget": []} for n, _, _ in sides}
    for i in range(args.runs):
        for name, b, env in (sides if i % 2 == 0 else sides[::-1]):
            m = measured([b, "add", "--force", "--tags", "scale", "--title",
                          f"Scale probe {i} keeps the queue worker idempotent",
                          "--insight", f"Probe {i}: retries must not enqueue twice", "--json"], env)
            res[name]["add"].append(m)
            lid = json.loads(m["out"])["id"]
            res[name]["search"].append(measured([b, "search", "queue", "worker", "idempotent"], env))
            res[name]["forget"].append(measured([b, "forget", "--yes", lid], env))
    for name in res:
        for op, ms in res[name].items():
            w = statistics.median(x["wall"] for x in ms) * 1000
            c = statistics.median(x["cpu"] for x in ms) * 1000
            r = statistics.median(x["rss"] for x in ms)
            print(f"{name:8} {op:7} p50 wall {w:7.1f} ms  cpu {c:7.1f} ms  "
                  f"RSS p50 {r:6.1f} MB max {max(x['rss'] for x in ms):6.1f} MB")


if __name__ == "__main__":
    main()
