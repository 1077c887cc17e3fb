#!/usr/bin/env python3
"""What @defer costs the server per request (bench/defer-http/server_cost.sh).

For each operation, bench_defer_http_server --op NAME serves its schema and
this client asks, over one keep-alive connection, the plain text (Accept:
application/json) and the deferred one (Accept: multipart/mixed), the texts
of `bench_defer texts`. Every response is checked (status 200; the plain one
JSON, the deferred one multipart/mixed with at least two parts).

  cpu: the server process's CPU time (user + system, every thread:
       /proc/PID/task/*/schedstat, in ns) over blocks of N requests, plain
       and deferred blocks taking turns, the median of T trials;
  ir:  with --callgrind, the server under valgrind (everything in user
       space: llhttp, the handler, the executor, the framing, libuv, libc's
       side of the writes), once with N requests and once with 2N: the
       difference over N is a request's instructions, start-up cancelled.

Usage: server_cost.py SERVER TEXTS_DIR [--ops a,b] [--requests N]
                      [--trials T] [--callgrind N]
"""
import argparse
import glob
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

OPS = ["minimal", "flat_list", "nested_lists", "star_wars", "fragments",
       "introspection", "introspection_without_one_of"]


def start(cmd, out):
    out.seek(0)
    out.truncate()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    for _ in range(1200):
        out.flush()
        with open(out.name) as f:
            m = re.search(r" on http://127\.0\.0\.1:(\d+)/graphql", f.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    with open(out.name) as f:
        sys.exit(f"server_cost: the server did not start: {f.read()}")


def stop(p):
    p.terminate()
    try:
        p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


class Client:
    def __init__(self, port, texts):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.bodies = {k: ('{"query":%s}' % json_str(t)).encode()
                       for k, t in texts.items()}

    def ask(self, kind):
        accept = ("multipart/mixed" if kind == "defer"
                  else "application/graphql-response+json, application/json")
        self.c.request("POST", "/graphql", self.bodies[kind],
                       {"Content-Type": "application/json", "Accept": accept})
        r = self.c.getresponse()
        body = r.read()
        ct = r.getheader("Content-Type", "")
        if r.status != 200:
            sys.exit(f"server_cost: {kind}: status {r.status}: {body[:300]!r}")
        if kind == "defer":
            parts = body.count(b"\r\n---")
            if not ct.startswith("multipart/mixed") or parts < 2 or \
                    b'"hasNext":false' not in body:
                sys.exit(f"server_cost: defer: not incremental ({ct}): "
                         f"{body[:300]!r}")
        elif not ct.startswith("application/") or b'"errors"' in body:
            sys.exit(f"server_cost: plain: {ct}: {body[:300]!r}")
        return len(body)


def json_str(s):
    import json
    return json.dumps(s)


def cpu_ns(pid):
    total = 0
    for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(f) as h:
                total += int(h.read().split()[0])
        except OSError:
            pass  # a thread gone
    return total


def texts_of(d, op):
    t = {}
    for kind, ext in (("plain", "plain"), ("defer", "defer")):
        with open(os.path.join(d, f"{op}.{ext}.graphql")) as f:
            t[kind] = f.read()
    return t


def measure_cpu(server, op, texts, n, trials):
    with tempfile.NamedTemporaryFile("w+", suffix=".out") as out:
        p, port = start([server, "--op", op], out)
        try:
            c = Client(port, texts)
            size = {k: c.ask(k) for k in ("plain", "defer")}
            for _ in range(min(n, 200)):  # warm up both
                c.ask("plain")
                c.ask("defer")
            per = {"plain": [], "defer": []}
            for t in range(trials):
                for kind in (("plain", "defer") if t % 2 == 0
                             else ("defer", "plain")):
                    a = cpu_ns(p.pid)
                    for _ in range(n):
                        c.ask(kind)
                    per[kind].append((cpu_ns(p.pid) - a) / n)
            return ({k: statistics.median(v) for k, v in per.items()}, size)
        finally:
            stop(p)


def callgrind_ir(server, op, texts, kind, n):
    with tempfile.TemporaryDirectory() as d, \
            tempfile.NamedTemporaryFile("w+", suffix=".out") as out:
        totals = []
        for count in (n, 2 * n):
            cg = os.path.join(d, f"cg.{count}")
            p, port = start(["valgrind", "--tool=callgrind",
                             f"--callgrind-out-file={cg}", server, "--op",
                             op], out)
            try:
                c = Client(port, texts)
                for _ in range(count):
                    c.ask(kind)
            finally:
                stop(p)
            s = subprocess.run(["callgrind_annotate", cg], capture_output=True,
                               text=True).stdout
            m = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", s) or \
                re.search(r"([\d,]+)\s+PROGRAM TOTALS", s)
            if not m:
                sys.exit("server_cost: no callgrind totals")
            totals.append(int(m.group(1).replace(",", "")))
        return (totals[1] - totals[0]) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("texts")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--trials", type=int, default=9)
    ap.add_argument("--callgrind", type=int, default=0)
    a = ap.parse_args()
    rows = []
    for op in a.ops.split(","):
        texts = texts_of(a.texts, op)
        cpu, size = measure_cpu(a.server, op, texts, a.requests, a.trials)
        row = [op, size["plain"], size["defer"], cpu["plain"] / 1000,
               cpu["defer"] / 1000, cpu["defer"] / cpu["plain"]]
        if a.callgrind:
            ir = {k: callgrind_ir(a.server, op, texts, k, a.callgrind)
                  for k in ("plain", "defer")}
            row += [ir["plain"], ir["defer"], ir["defer"] / ir["plain"]]
        rows.append(row)
        print(f"  {op}: done", file=sys.stderr, flush=True)
    head = ["op", "bytes plain", "bytes defer", "cpu µs plain",
            "cpu µs defer", "defer/plain"]
    if a.callgrind:
        head += ["Ir plain", "Ir defer", "Ir defer/plain"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r[0], str(r[1]), str(r[2]), f"{r[3]:.2f}", f"{r[4]:.2f}",
                 f"{r[5]:.2f}"]
        if a.callgrind:
            cells += [f"{r[6]:,.0f}", f"{r[7]:,.0f}", f"{r[8]:.2f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
