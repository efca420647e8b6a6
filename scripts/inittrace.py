#!/usr/bin/env python3
"""scripts/inittrace.py: package initialisation of two or more builds, interleaved.

    scripts/inittrace.py RUNS BIN BIN...

Runs `BIN version` RUNS times per binary with GODEBUG=inittrace=1,
alternating the binaries and reversing their order every other round, and
prints each binary's median total initialisation clock (the sum of every
package's init) and the medians of blackfriday's, md2man's and gonum's
own inits where they are linked."""
import os, statistics, subprocess, sys
bins = sys.argv[2:]
runs = int(sys.argv[1])
tot = {b: [] for b in bins}
pkg = {}
env = dict(os.environ, GODEBUG="inittrace=1")
for i in range(runs):
    order = bins if i % 2 == 0 else bins[::-1]
    for b in order:
        err = subprocess.run([b, "version"], env=env, capture_output=True, text=True).stderr
        t = 0.0
        for line in err.splitlines():
            f = line.split()
            if len(f) > 5 and f[0] == "init":
                ms = float(f[4]); t += ms
                if "blackfriday" in f[1] or "md2man" in f[1] or "gonum" in f[1]:
                    pkg.setdefault((b, f[1]), []).append(ms)
        tot[b].append(t)
for b in bins:
    print(f"{b}: median total init {statistics.median(tot[b]):.3f} ms over {runs} runs")
for (b, p), v in sorted(pkg.items()):
    print(f"  {os.path.basename(b)} {p}: median {statistics.median(v):.3f} ms")
