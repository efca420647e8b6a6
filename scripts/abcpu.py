#!/usr/bin/env python3
"""scripts/abcpu.py: interleaved A/B of whole processes, wall and CPU.

    scripts/abcpu.py [--runs N] [--stdin FILE] CMD CMD...

Like scripts/ab.py, but each child's CPU time (user + sys) and peak RSS come
from wait4(2) of that child alone (scale.measured), which a loaded VM
distorts less than wall time. Each CMD is split on spaces after leading
NAME=value words, which go to its environment; a word may be quoted with
single quotes to hold spaces. The commands alternate every round and their
order is reversed every other round. Prints p50 wall, p50 CPU and p50 RSS,
and the p50s over the first command's (put `reflect version` first).
"""
import argparse
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import measured  # noqa: E402


def parse(cmd):
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    stdin = [w[1:] for w in words if w.startswith("<")]
    words = [w for w in words if not w.startswith("<")]
    return words, env, (stdin[-1] if stdin else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=41)
    ap.add_argument("--stdin")
    ap.add_argument("cmds", nargs="+")
    a = ap.parse_args()
    cmds = [parse(c) for c in a.cmds]
    res = [[] for _ in cmds]
    for r in range(a.runs):
        order = list(range(len(cmds)))
        if r % 2:
            order.reverse()
        for i in order:
            argv, env, stdin = cmds[i]
            stdin = (stdin or a.stdin or "").replace("{i}", str(r)) or None
            res[i].append(measured(argv, env, stdin, check=False))
    base_w = statistics.median(x["wall"] for x in res[0])
    base_c = statistics.median(x["cpu"] for x in res[0])
    for c, xs in zip(a.cmds, res):
        w = statistics.median(x["wall"] for x in xs)
        cpu = statistics.median(x["cpu"] for x in xs)
        rss = statistics.median(x["rss"] for x in xs)
        bad = sum(1 for x in xs if x["code"] != 0)
        print(f"wall {w*1000:7.1f} ms {w/base_w:5.2f}x  cpu {cpu*1000:6.1f} ms "
              f"{cpu/base_c:5.2f}x  rss {rss:6.1f} MB  {'exit!=0 x%d ' % bad if bad else ''}{c}")


if __name__ == "__main__":
    main()
