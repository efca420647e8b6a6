#!/usr/bin/env python3
"""scripts/ab.py: interleaved A/B timing of whole processes.

    scripts/ab.py [--runs N] [--stdin FILE] [--no-shell] CMD CMD...

Runs each command N times (default 400), alternating them every round and
reversing their order every other round, so that a drift in the VM's speed
(which moves reflect's start-up by a millisecond or more within the hour)
falls on all of them alike. Prints p50, p95 and mean wall time in ms.

Each CMD is run as `sh -c CMD`, as agents run hooks; with --no-shell it is
split on spaces and started directly, after leading NAME=value words are
applied to its environment. --stdin feeds FILE to every run.
"""
import argparse
import os
import statistics
import time


def parse(cmd, shell):
    env = dict(os.environ)
    if shell:
        return ["/bin/sh", "-c", cmd], env
    words = cmd.split()
    while words and "=" in words[0] and not words[0].startswith("/"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return words, env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--stdin", default=os.devnull)
    ap.add_argument("--no-shell", action="store_true")
    ap.add_argument("cmds", nargs="+")
    args = ap.parse_args()
    cmds = [parse(c, not args.no_shell) for c in args.cmds]
    times = [[] for _ in cmds]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for i in range(args.runs):
        order = list(range(len(cmds)))
        if i % 2:
            order.reverse()
        for k in order:
            argv, env = cmds[k]
            fd = os.open(args.stdin, os.O_RDONLY)
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, env, file_actions=[
                (os.POSIX_SPAWN_DUP2, fd, 0),
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2)])
            os.waitpid(pid, 0)
            times[k].append((time.perf_counter() - start) * 1000)
            os.close(fd)
    for cmd, t in zip(args.cmds, times):
        t.sort()
        q = lambda p: t[int(p * (len(t) - 1))]
        print(f"p50 {q(0.5):7.3f}  p95 {q(0.95):7.3f}  mean {statistics.mean(t):7.3f}  {cmd}")


if __name__ == "__main__":
    main()
