#!/usr/bin/env python3
"""The status line's cost, two reflect builds interleaved (issue 30).

Usage: scripts/statusline_ab.py OLD_REFLECT NEW_REFLECT [RUNS]

Runs `reflect statusline` with Claude Code's JSON on stdin, RUNS times per
binary (default 300), alternating which goes first, in a temporary state
directory holding a last-drain.json of today (2 writer runs, $0.0442) and
REFLECT_WRITER=claude, so the new build renders its writer segment. Prints
each p50 and the ratio NEW/OLD. Touches nothing outside the temporary
directory.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    old, new = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    home = tempfile.mkdtemp()
    state = os.path.join(home, "state")
    os.makedirs(state, mode=0o700)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(os.path.join(state, "last-drain.json"), "w") as f:
        json.dump({"ran": True, "writer": "claude", "started": now, "finished": now, "entries": [],
                   "today": {"entries": 2, "usd": 0.0442}, "waiting": 0}, f)
    env = dict(os.environ, HOME=home, REFLECT_STATE_DIR=state, REFLECT_LEARNINGS_DIR=os.path.join(home, "kb"),
               REFLECT_WRITER="claude", PATH="/usr/bin:/bin")
    bins = [("old", old), ("new", new)]
    times = {"old": [], "new": []}
    payload = b'{"session_id":"s1"}'
    for i in range(runs):
        for name, path in (bins if i % 2 == 0 else bins[::-1]):
            start = time.perf_counter()
            subprocess.run([path, "statusline"], input=payload, env=env, capture_output=True, check=True)
            times[name].append(time.perf_counter() - start)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    for k in ("old", "new"):
        print(f"{k} p50 {1000 * p50[k]:.2f} ms")
    print(f"ratio new/old {p50['new'] / p50['old']:.2f}")
    line = subprocess.run([new, "statusline"], input=payload, env=env, capture_output=True).stdout.decode().strip()
    print(f"new renders: {line}")


if __name__ == "__main__":
    main()
