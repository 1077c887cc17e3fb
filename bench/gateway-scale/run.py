#!/usr/bin/env python3
"""The planning benchmark at scale: gql beside Apollo's and Hive's planners
on one large generated supergraph and its queries (run.sh prepares both and
calls this). Prints Markdown tables; see README.md for the method.

1. gql ready to serve: `gql gateway` started on the supergraph until GET
   /health answers (median of 3 starts), its RSS then; and bench_plan's
   supergraph load alone.
2. Planning: every query planned REPS times by each planner (gql:
   bench_plan, no network; Apollo and Hive: peers.mjs in Node), p50 / p99
   over all plans, memory, subgraph fetches per query.
3. The plan cache over a stream of distinct operations: bench_plan --stream
   (the cache alone) and `gql gateway --plan-cache-bytes` over HTTP (the
   whole process), RSS along the way.
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def status_kb(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def gql_ready(gql, supergraph, extra=()):
    """Starts gql gateway; returns (process, port, ms until /health)."""
    port = free_port()
    t0 = time.monotonic()
    p = subprocess.Popen([gql, "gateway", "--supergraph", supergraph,
                          "--port", str(port), "--threads", "1"] + list(extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while True:
        if p.poll() is not None:
            sys.exit("gql gateway exited: %s" % p.stderr.read().decode()[-2000:])
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                ms = (time.monotonic() - t0) * 1000
                c.close()
                return p, port, ms
        except OSError:
            time.sleep(0.002)


def stop(p):
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def parse_gql(out):
    r = {"queries": {}}
    for line in out.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "load_ms":
            r["load_ms"] = float(w[1])
        elif w[0] == "load_cpu_ms":
            r["load_cpu_ms"] = float(w[1])
        elif w[0] == "rss_load_kb":
            r["rss_load_kb"] = int(w[1])
        elif w[0] == "rss_planned_kb":
            r["rss_kb"] = int(w[1])
        elif w[0] == "rss_hwm_kb":
            r["rss_hwm_kb"] = int(w[1])
        elif w[0] == "query":
            if w[2] == "error":
                r["queries"][w[1]] = {"error": " ".join(w[3:])}
            else:
                r["queries"][w[1]] = {"fetches": int(w[3]),
                                      "median_us": float(w[5])}
        elif w[0] in ("plan_us", "plan_wall_us"):
            r[w[0]] = {"p50": float(w[2]), "p99": float(w[4]),
                       "max": float(w[6])}
        elif w[0] == "stream":
            r.setdefault("stream", []).append(
                (int(w[1]), int(w[3]), int(w[5]), int(w[7]), int(w[9])))
    return r


def run_peer(a, kind, files, reps):
    """peers.mjs over `files`. A planner that dies on a query (Hive's Rust
    planner panics on some) or takes longer than --plan-timeout on one is
    restarted after it, the query recorded as a crash or a timeout; after
    --max-restarts the remaining queries are left unplanned. A load past
    --load-timeout is recorded as such."""
    import queue
    import threading
    r = {"queries": {}, "restarts": 0}
    todo = list(files)
    env = dict(os.environ, PEERS=a.peers)
    while todo:
        cmd = ["node", "--max-old-space-size=8000",
               os.path.join(a.here, "peers.mjs"), kind, a.supergraph,
               str(reps)] + todo
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()

        def pump(stream=p.stdout, q=lines):
            for line in stream:
                q.put(line)
            q.put(None)
        threading.Thread(target=pump, daemon=True).start()
        err_tail = []

        def drain_err(stream=p.stderr, tail=err_tail):
            for line in stream:
                tail[:] = (tail + [line.rstrip()])[-5:]
        threading.Thread(target=drain_err, daemon=True).start()
        loaded = "load_ms" in r
        done = 0
        why = None
        while True:
            timeout = a.plan_timeout if loaded else a.load_timeout
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                why = "timeout" if loaded else "load timeout"
                p.kill()
                break
            if line is None:
                break
            o = json.loads(line)
            if "load_ms" in o:
                loaded = True
                r.setdefault("load_ms", o["load_ms"])
                r.setdefault("rss_load_kb", o["rss_load_kb"])
            elif "query" in o:
                r["queries"][o["query"]] = o
                done += 1
            elif "plan_us" in o:
                r["rss_hwm_kb"] = max(r.get("rss_hwm_kb", -1), o["rss_hwm_kb"])
        p.wait()
        todo = todo[done:]
        if not todo:
            break
        if why == "load timeout":
            r["load_error"] = "no plan after %d s of loading" % a.load_timeout
            for f in todo:
                r["queries"][f] = {"error": r["load_error"], "skipped": True}
            break
        if why is None:
            why = "crash: " + (err_tail or ["exit %d" % p.returncode])[-1][:200]
        r["queries"][todo[0]] = {"error": why, "crash": why.startswith("crash"),
                                 "timeout": why == "timeout"}
        todo = todo[1:]
        r["restarts"] += 1
        if r["restarts"] > a.max_restarts:
            for f in todo:
                r["queries"][f] = {"error": "not planned: %d restarts" %
                                   a.max_restarts, "skipped": True}
            break
    return r


def compare(g, best):
    """gql's fetch count against the best peer's: below / equal / above
    (n/a when either is missing)."""
    if g is None or best is None:
        return "n/a"
    return "below" if g < best else "equal" if g == best else "above"


def pcts(values):
    v = sorted(values)
    if not v:
        return None
    pick = lambda p: v[min(len(v) - 1, round(p * (len(v) - 1)))]
    return {"p50": pick(0.5), "p99": pick(0.99), "max": v[-1]}


def http_stream(a, n):
    """Distinct operations to gql gateway over HTTP; RSS along the way."""
    p, port, _ = gql_ready(a.gql, a.http_supergraph,
                           ["--plan-cache-bytes", str(a.cache_bytes),
                            "--cache-bytes", str(a.doc_cache_bytes)])
    texts = [open(f).read() for f in a.files]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    samples = [(0, status_kb(p.pid, "VmRSS"))]
    every = max(1, n // 20)
    t0 = time.monotonic()
    for i in range(n):
        q = texts[i % len(texts)]
        brace = q.index("{")
        q = q[:brace + 1] + " a%d: " % i + q[brace + 1:]
        body = json.dumps({"query": q})
        conn.request("POST", "/graphql", body,
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        if (i + 1) % every == 0:
            samples.append((i + 1, status_kb(p.pid, "VmRSS")))
    secs = time.monotonic() - t0
    hwm = status_kb(p.pid, "VmHWM")
    conn.close()
    stop(p)
    return samples, hwm, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gql", required=True)
    ap.add_argument("--bench-plan", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--supergraph", required=True)
    ap.add_argument("--http-supergraph", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--apollo-reps", type=int, default=1)
    ap.add_argument("--hive-reps", type=int, default=3)
    ap.add_argument("--load-timeout", type=int, default=1800)
    ap.add_argument("--plan-timeout", type=int, default=120)
    ap.add_argument("--max-restarts", type=int, default=20)
    ap.add_argument("--planners", default="gql apollo hive")
    ap.add_argument("--stream", type=int, default=20000)
    ap.add_argument("--cache-bytes", type=int, default=32 << 20)
    ap.add_argument("--doc-cache-bytes", type=int, default=16 << 20)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    a.here = os.path.dirname(os.path.abspath(__file__))
    qdir = os.path.join(a.queries)
    a.files = sorted(os.path.join(qdir, f) for f in os.listdir(qdir)
                     if f.endswith(".graphql"))
    planners = a.planners.split()
    out = []
    say = lambda s="": (print(s), out.append(s), sys.stdout.flush())
    size = os.path.getsize(a.supergraph)

    # 1. ready to serve
    starts = []
    for _ in range(3):
        p, _, ms = gql_ready(a.gql, a.supergraph)
        starts.append((ms, status_kb(p.pid, "VmRSS"), status_kb(p.pid, "VmHWM")))
        stop(p)
    ready_ms = statistics.median(s[0] for s in starts)
    ready_rss = statistics.median(s[1] for s in starts) / 1024
    ready_hwm = max(s[2] for s in starts) / 1024

    res = {}
    if "gql" in planners:
        cp = subprocess.run([a.bench_plan, a.supergraph, "--reps",
                             str(a.reps)] + a.files, capture_output=True,
                            text=True)
        if cp.returncode:
            sys.exit("bench_plan: " + cp.stderr)
        res["gql"] = parse_gql(cp.stdout)
    for kind in ("apollo", "hive"):
        if kind in planners:
            reps = a.apollo_reps if kind == "apollo" else a.hive_reps
            # the peers do not change between runs of one graph: their
            # figures are kept beside it (delete the file to measure again)
            saved = os.path.join(os.path.dirname(a.supergraph),
                                 "peer-%s-reps%d.json" % (kind, reps))
            if os.path.exists(saved):
                print("== %s: figures from %s" % (kind, saved), file=sys.stderr)
                res[kind] = json.load(open(saved))
                continue
            print("== planning with %s (%d reps a query)" % (kind, reps),
                  file=sys.stderr)
            res[kind] = run_peer(a, kind, a.files, reps)
            json.dump(res[kind], open(saved, "w"))

    say("### Load and planning (%d queries; supergraph %.1f MB)" %
        (len(a.files), size / 1e6))
    say()
    say("| planner | load ms | RSS after load MB | plan p50 us | plan p99 us"
        " | plan max us | slowest query (median) us | peak RSS MB | planned"
        " | failed | fetches (sum) |")
    say("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in planners:
        r = res[kind]
        qs = r["queries"]
        ok = [q for q in qs.values() if "fetches" in q]
        hwm = r.get("rss_hwm_kb", -1)
        if kind == "gql":
            pu = r.get("plan_us", {})
        else:
            pu = pcts([x for q in ok for x in q.get("samples_us", [q["median_us"]])])
        worst = max((q["median_us"] for q in ok), default=0)
        failed = len(a.files) - len(ok)
        notes = []
        for tag, label in (("crash", "crashed the process"),
                           ("timeout", "over %d s" % a.plan_timeout),
                           ("skipped", "not planned")):
            n = sum(1 for q in qs.values() if q.get(tag))
            if n:
                notes.append("%d %s" % (n, label))
        if r.get("load_error"):
            notes.append(r["load_error"])
        say("| %s | %.0f | %.1f | %s | %s | %s | %.1f | %.1f | %d | %d%s | %d |" % (
            kind, r.get("load_ms", -1), r.get("rss_load_kb", -1) / 1024,
            "%.1f" % pu["p50"] if pu else "-",
            "%.1f" % pu["p99"] if pu else "-",
            "%.1f" % pu["max"] if pu else "-", worst, hwm / 1024, len(ok),
            failed,
            " (%s)" % ", ".join(notes) if notes else "",
            sum(q["fetches"] for q in ok)))
    say()
    if "gql" in planners and res["gql"].get("plan_wall_us"):
        w = res["gql"]["plan_wall_us"]
        say("gql's plan times are the planning thread's CPU time (parse + "
            "plan); by the wall clock on this shared machine: p50 %.1f, p99 "
            "%.1f, max %.1f us. Apollo's and Hive's are wall time in Node "
            "(process.hrtime)." % (w["p50"], w["p99"], w["max"]))
        say()
    say("gql gateway ready to serve (process start to GET /health, median "
        "of 3, 1 thread): %.0f ms, RSS %.1f MB (peak %.1f MB)" %
        (ready_ms, ready_rss, ready_hwm))
    say()

    # fetches side by side
    if len(planners) > 1:
        say("### Subgraph fetches per query")
        say()
        cols = planners
        say("| query | " + " | ".join(cols) + " | best peer | gql vs best |")
        say("|---|" + "---|" * (len(cols) + 2))
        above = 0
        counts = {k: 0 for k in ("below", "equal", "above", "n/a")}
        for f in a.files:
            cells = []
            vals = {}
            for k in cols:
                q = res[k]["queries"].get(f, {})
                if "fetches" in q:
                    vals[k] = q["fetches"]
                    cells.append(str(q["fetches"]))
                else:
                    cells.append("crash" if q.get("crash") else
                                 "timeout" if q.get("timeout") else
                                 "not run" if q.get("skipped") else "error")
            peers = [vals[k] for k in cols if k != "gql" and k in vals]
            best = min(peers) if peers else None
            verdict = compare(vals.get("gql"), best)
            counts[verdict] += 1
            say("| %s | %s | %s | %s |" % (
                os.path.basename(f), " | ".join(cells),
                best if best is not None else "-", verdict))
        say()
        say("gql vs the best peer: %d below, %d equal, %d above, %d n/a" % (
            counts["below"], counts["equal"], counts["above"], counts["n/a"]))
        say()

    # 3. the plan cache over a stream of distinct operations
    if a.stream and "gql" in planners:
        cp = subprocess.run([a.bench_plan, a.supergraph, "--reps", "1",
                             "--stream", str(a.stream), "--cache-bytes",
                             str(a.cache_bytes)] + a.files,
                            capture_output=True, text=True)
        st = parse_gql(cp.stdout).get("stream", [])
        say("### Plan cache over %d distinct operations (--plan-cache-bytes "
            "%d)" % (a.stream, a.cache_bytes))
        say()
        say("bench_plan (the supergraph and the cache alone):")
        say()
        say("| operations | RSS MB | plans kept | cache MB | evicted |")
        say("|---|---|---|---|---|")
        for n, rss, kept, cb, ev in st[::4] + st[-1:]:
            say("| %d | %.1f | %d | %.1f | %d |" % (n, rss / 1024, kept,
                                                   cb / 1048576, ev))
        samples, hwm, secs = http_stream(a, a.stream)
        say()
        say("gql gateway over HTTP (1 thread, subgraphs unreachable: every "
            "operation validated, planned, cached, answered with errors; "
            "%.0f operations/s): operations / RSS MB" % (a.stream / secs))
        say()
        say("| operations | " + " | ".join(str(s[0]) for s in samples[::2]) +
            " |")
        say("|---|" + "---|" * len(samples[::2]))
        say("| RSS MB | " + " | ".join("%.1f" % (s[1] / 1024)
                                       for s in samples[::2]) + " |")
        say()
        half = [s[1] for s in samples[len(samples) // 2:]]
        say("RSS over the second half of the stream: %.1f to %.1f MB (peak "
            "%.1f MB)" % (min(half) / 1024, max(half) / 1024, hwm / 1024))
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
