#!/usr/bin/env python3
"""scripts/hotpaths.py: what search and the hooks cost on indexed KBs.

Each side is a binary with its own indexed learnings directory (a copy per
binary when the index format differs between them). Run by run, with the
sides alternating, it measures `reflect version` (the floor of a process),
`search postgres connection pool timeout`, `hook session-start`, and `hook
prompt` with a recalling and an unrelated prompt (GOMAXPROCS=1, as the hooks
are installed; the session's injected list is cleared before each, so the
recalling prompt can inject again): p50 wall, CPU (user+sys) and peak RSS,
from wait4(2) of the child alone (scale.measured). It checks that the
recalling prompt injects lrn-postgres-connection-pool and that the unrelated
one stays silent. Sizes alternate within a run as the sides do, and with two
sizes or more it prints each side's ratio of the last size's p50 CPU to the
first's. The KBs need that learning (scripts/scale.py adds it).

  scripts/hotpaths.py --runs 9 --cwd /tmp/repo \\
      10k:base=/tmp/base/reflect:/tmp/kb10 10k:new=bin/reflect:/tmp/kb10-new \\
      100k:base=/tmp/base/reflect:/tmp/kb100 100k:new=bin/reflect:/tmp/kb100-new

Writes its state dirs and payloads under --work (a temp dir by default).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import RECALL_ID, measured, payloads  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sides", nargs="+", help="size:name=binary:kb")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--cwd", default=os.getcwd(), help="the hooks' working directory (a git repository)")
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="hotpaths-")
    os.makedirs(work, exist_ok=True)
    start, prompt, quiet = payloads(work, args.cwd)
    ops = {
        "version": (["version"], None),
        "search": (["search", "postgres", "connection", "pool", "timeout"], None),
        "hook session-start": (["hook", "session-start", "--agent", "claude"], start),
        "hook prompt (recalls)": (["hook", "prompt", "--agent", "claude"], prompt),
        "hook prompt (unrelated)": (["hook", "prompt", "--agent", "claude"], quiet),
    }
    sizes, names, sides = [], [], {}
    for spec in args.sides:
        size, rest = spec.split(":", 1)
        name, rest = rest.split("=", 1)
        binary, kb = rest.split(":", 1)
        if size not in sizes:
            sizes.append(size)
        if name not in names:
            names.append(name)
        sides.setdefault(size, []).append((name, binary, kb))
    res = {}
    # Sizes alternate within each run as the sides do, so that the ratio of
    # two sizes' times is measured interleaved too: this VM's speed drifts
    # within minutes, and one size measured after the other took the drift
    # into the ratio.
    for i in range(args.runs):
        for size in (sizes if i % 2 == 0 else sizes[::-1]):
            order = sides[size] if i % 2 == 0 else sides[size][::-1]
            for name, binary, kb in order:
                st = os.path.join(work, f"state-{size}-{name}")
                env = dict(os.environ, HOME=os.path.join(work, "home"), REFLECT_STATE_DIR=st,
                           REFLECT_LEARNINGS_DIR=kb, GOMAXPROCS="1")
                for op, (argv, stdin) in ops.items():
                    subprocess.run(["rm", "-rf", os.path.join(st, "session-injected")], check=True)
                    m = measured([binary] + argv, env, stdin, check=False)
                    res.setdefault((size, op, name), []).append(m)
                    if op == "hook prompt (recalls)" and RECALL_ID not in m["out"]:
                        print(f"! {size} {name}: the recalling prompt injected nothing", file=sys.stderr)
                    if op == "hook prompt (unrelated)" and m["out"].strip():
                        print(f"! {size} {name}: the unrelated prompt was not silent", file=sys.stderr)
    print(os.popen("uptime").read().strip())
    print("| size | what | " + " | ".join(f"{n} wall | {n} CPU | {n} RSS" for n in names) + " |")
    print("|---|---|" + "---|" * (3 * len(names)))
    for size in sizes:
        for op in ops:
            cells = []
            for n in names:
                ms = res.get((size, op, n))
                if not ms:
                    cells += ["", "", ""]
                    continue
                cells += [f"{statistics.median(m['wall'] for m in ms) * 1000:.1f} ms",
                          f"{statistics.median(m['cpu'] for m in ms) * 1000:.1f} ms",
                          f"{statistics.median(m['rss'] for m in ms):.1f} MB"]
            print(f"| {size} | {op} | " + " | ".join(cells) + " |")
    if len(sizes) >= 2:
        first, last = sizes[0], sizes[-1]
        print()
        print(f"| what | " + " | ".join(f"{n} CPU {last}/{first}" for n in names) + " |")
        print("|---|" + "---|" * len(names))
        for op in ops:
            cells = []
            for n in names:
                a, b = res.get((first, op, n)), res.get((last, op, n))
                if not a or not b:
                    cells.append("")
                    continue
                cells.append(f"{statistics.median(m['cpu'] for m in b) / statistics.median(m['cpu'] for m in a):.2f}")
            print(f"| {op} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
