#!/usr/bin/env python3
"""scripts/mcpbench.py: what a resident `reflect mcp` saves over a process per search.

    scripts/mcpbench.py [--reflect BIN] [--runs N] [--starts N]

Run it with REFLECT_LEARNINGS_DIR (and REFLECT_STATE_DIR, HOME) pointing at a
knowledge base, e.g. 10,000 synthetic learnings:

    export HOME=$(mktemp -d) REFLECT_STATE_DIR=$(mktemp -d) REFLECT_LEARNINGS_DIR=$(mktemp -d)
    bin/reflect bench generate "$REFLECT_LEARNINGS_DIR" --count 10000 && bin/reflect reindex --full
    scripts/mcpbench.py --runs 200

Prints:
  start   spawn of `reflect mcp` to the answer of its first tools/list
          (initialize, initialized, tools/list), --starts times, beside a
          whole `reflect version` process;
  search  the search tool's latency on one resident server (request
          written to the answer read) beside a whole `reflect search --json`
          process for the same query, interleaved query by query and
          alternating which goes first, so drift in the machine's speed
          falls on both alike.
p50, p95 and mean in ms, and the ratio of the p50s.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

QUERIES = [
    "postgres connection pool timeout",
    "sync.Mutex deadlock in the worker",
    "why does the docker build fail with ENOSPC",
    "ansible buffer drops when the signature is retried",
    "kubectl rollout stuck on readiness probe",
    "webpack alias resolution fails in tests",
    "redis connection refused inside compose",
    "oauth state mismatch after the callback",
]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def row(name, xs):
    return "%-28s p50 %8.2f  p95 %8.2f  mean %8.2f  (n=%d)" % (
        name, pct(xs, 50), pct(xs, 95), statistics.mean(xs), len(xs))


class Server:
    def __init__(self, reflect):
        self.p = subprocess.Popen([reflect, "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.next = 0

    def send(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next += 1
            msg["id"] = self.next
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        if notify:
            return None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("reflect mcp closed its output")
            resp = json.loads(line)
            if resp.get("id") == self.next:
                if "error" in resp:
                    raise SystemExit("error from %s: %s" % (method, resp["error"]))
                return resp["result"]

    def handshake(self):
        self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "mcpbench", "version": "0"}})
        self.send("notifications/initialized", notify=True)
        return self.send("tools/list")

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reflect", default="bin/reflect")
    ap.add_argument("--runs", type=int, default=200, help="searches of each kind")
    ap.add_argument("--starts", type=int, default=50, help="server starts")
    args = ap.parse_args()
    reflect = os.path.abspath(args.reflect)

    # `reflect version`, interleaved, is the floor: a process that starts,
    # prints a line and exits.
    starts, versions = [], []
    for i in range(args.starts):
        def start():
            t0 = time.perf_counter()
            s = Server(reflect)
            tools = s.handshake()
            starts.append((time.perf_counter() - t0) * 1000)
            assert len(tools["tools"]) == 6, tools
            s.close()

        def version():
            t0 = time.perf_counter()
            subprocess.run([reflect, "version"], check=True, stdout=subprocess.DEVNULL)
            versions.append((time.perf_counter() - t0) * 1000)

        for f in ((start, version) if i % 2 == 0 else (version, start)):
            f()

    s = Server(reflect)
    s.handshake()
    # One search first: the resident server opens the index once.
    s.send("tools/call", {"name": "search", "arguments": {"query": QUERIES[0]}})
    tool, proc = [], []
    for i in range(args.runs):
        q = QUERIES[i % len(QUERIES)]

        def via_tool():
            t0 = time.perf_counter()
            r = s.send("tools/call", {"name": "search", "arguments": {"query": q}})
            tool.append((time.perf_counter() - t0) * 1000)
            assert not r.get("isError"), r

        def via_process():
            t0 = time.perf_counter()
            subprocess.run([reflect, "search", "--json", q], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            proc.append((time.perf_counter() - t0) * 1000)

        for f in ((via_tool, via_process) if i % 2 == 0 else (via_process, via_tool)):
            f()
    s.close()

    print(row("start → first tools/list", starts))
    print(row("reflect version (process)", versions))
    print(row("search tool (resident)", tool))
    print(row("reflect search (process)", proc))
    print("search tool p50 / process p50 = %.2f" % (pct(tool, 50) / pct(proc, 50)))


if __name__ == "__main__":
    main()
