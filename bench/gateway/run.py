#!/usr/bin/env python3
"""The federation gateway benchmark's driver (started by run.sh, which
builds and installs the npm peers first).

Per scenario, one bench_subgraphs process (the four benchmark subgraphs in
C; --delay-ms for constant-latency) serves every gateway in turn. Per
gateway: start it on a free port, time its startup (process start to the
first HTTP answer of any kind, and to the first correct benchmark answer),
check the benchmark answer against expected_response.json, count the
subgraph requests one client request costs (bench_subgraphs' GET /stats),
warm up with wrk, then measure with wrk (a Lua script POSTing
request.json, printing percentiles), reading utime + stime from
/proc/PID/stat before and after and VmHWM at the end (summed over the
gateway's process tree); then, with --single S, S seconds of one client
(latency without queueing). Prints Markdown tables."""
import argparse
import http.client
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time

WAVES = 4  # the benchmark plan's dependent waves (reference section 6)

APOLLO_JS = r"""
const fs = require('fs');
const { ApolloServer } = require('@apollo/server');
const { startStandaloneServer } = require('@apollo/server/standalone');
const { ApolloGateway } = require('@apollo/gateway');
(async () => {
  const gateway = new ApolloGateway({ supergraphSdl: fs.readFileSync(process.argv[2], 'utf8') });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: +process.argv[3], host: '127.0.0.1' } });
  console.log('apollo gateway at', url);
})().catch(e => { console.error(e); process.exit(1); });
"""

WRK_LUA = r"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = %s
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%%d,"duration_us":%%d,"errors":%%d,"non2xx":%%d,' ..
    '"p50":%%d,"p95":%%d,"p99":%%d,"max":%%d}\n',
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(95), latency:percentile(99),
    latency.max))
end
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, method, path, body=None, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body else {}
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def tree(pid):
    """pid and its descendants."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_ticks(pids):
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError):
            pass
    return total


def peak_rss_kb(pids):
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/status" % p) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def wait_up(proc, port, path, timeout=60.0):
    """Seconds until GET path answers with any HTTP status, or None."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            return None
        try:
            request(port, "GET", path, timeout=2)
            return time.perf_counter() - t0
        except OSError:
            time.sleep(0.001)
    return None


class Gateways:
    def __init__(self, a, work):
        self.a = a
        self.work = work
        with open(os.path.join(work, "apollo.js"), "w") as f:
            f.write(APOLLO_JS)

    def command(self, name, supergraph, port):
        a = self.a
        env = dict(os.environ)
        if name == "gql":
            cmd = [os.path.join(a.root, "build-rel", "gql"), "gateway",
                   "--supergraph", supergraph, "--host", "127.0.0.1",
                   "--port", str(port)]
            if a.gql_threads:
                cmd += ["--threads", str(a.gql_threads)]
            return cmd, env, "/health"
        if name == "apollo":
            env["NODE_PATH"] = os.path.join(a.peers, "gateway", "node_modules")
            env["NODE_ENV"] = "production"
            return (["node", os.path.join(self.work, "apollo.js"), supergraph,
                     str(port)], env, "/graphql")
        if name == "hive":
            env["NODE_ENV"] = "production"
            return ([os.path.join(a.peers, "hive", "node_modules", ".bin",
                                  "hive-gateway"), "supergraph", supergraph,
                     "--host", "127.0.0.1", "--port", str(port),
                     "--fork", "1"], env, "/healthcheck")
        raise SystemExit("unknown gateway " + name)

    def version(self, name):
        def npm(folder, pkg):
            try:
                with open(os.path.join(self.a.peers, folder, "node_modules",
                                       pkg, "package.json")) as f:
                    return json.load(f)["version"]
            except OSError:
                return "?"
        if name == "gql":
            rev = subprocess.run(["git", "-C", self.a.root, "rev-parse",
                                  "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
            return "gql gateway (%s, Release)" % rev
        if name == "apollo":
            return "Apollo Gateway %s, @apollo/server %s" % (
                npm("gateway", "@apollo/gateway"),
                npm("gateway", "@apollo/server"))
        return "Hive Gateway %s" % npm("hive", "@graphql-hive/gateway")


def run_wrk(a, lua, port, seconds, connections=None, threads=None):
    out = subprocess.run(
        ["wrk", "-t%d" % (threads or a.wrk_threads),
         "-c%d" % (connections or a.connections),
         "-d%ds" % seconds, "--timeout", "10s", "-s", lua,
         "http://127.0.0.1:%d/graphql" % port],
        capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("WRKJSON "):
            return json.loads(line[8:])
    raise SystemExit("wrk failed: " + out.stdout + out.stderr)


def stats(port):
    return json.loads(request(port, "GET", "/stats")[1])


def reset(port):
    request(port, "POST", "/reset")


def per_path(s):
    return {p.strip("/"): e["requests"] for p, e in s.items()}


def bench_one(a, gws, name, scenario, sub_port, supergraph, body, expected,
              lua):
    port = free_port()
    cmd, env, health = gws.command(name, supergraph, port)
    log = open(os.path.join(gws.work, "%s-%s.log" % (name, scenario)), "w")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    r = {"gateway": name}
    try:
        ready = wait_up(proc, port, health)
        if ready is None:
            r["error"] = "did not start (see %s)" % log.name
            return r
        r["ready_ms"] = ready * 1000
        # first correct answer, polled from process start
        first = None
        while time.perf_counter() - t0 < 60:
            try:
                status, got = request(port, "POST", "/graphql", body)
                if status == 200 and json.loads(got) == json.loads(expected):
                    first = time.perf_counter() - t0
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.001)
        r["first_answer_ms"] = first * 1000 if first else None
        reset(sub_port)
        status, got = request(port, "POST", "/graphql", body)
        s = stats(sub_port)
        r["per_query"] = per_path(s)
        if status != 200:
            r["answer"] = "status %d" % status
        elif got == expected:
            r["answer"] = "identical"
        elif got.rstrip(b"\n") == expected:
            r["answer"] = "identical + newline"
        elif json.loads(got) == json.loads(expected):
            r["answer"] = "equal JSON"
        else:
            r["answer"] = "WRONG"
        if r["answer"] not in ("identical", "identical + newline",
                               "equal JSON"):
            r["error"] = "wrong answer: %s" % got[:300]
            return r
        if a.warmup:
            run_wrk(a, lua, port, a.warmup)
        pids = tree(proc.pid)
        reset(sub_port)
        c0 = cpu_ticks(pids)
        w = run_wrk(a, lua, port, a.duration)
        c1 = cpu_ticks(tree(proc.pid))
        s = stats(sub_port)
        rss = peak_rss_kb(tree(proc.pid))
        if a.single:  # one client: latency without queueing
            w1 = run_wrk(a, lua, port, a.single, connections=1, threads=1)
            r.update(single_p50=w1["p50"] / 1000, single_p95=w1["p95"] / 1000)
        hz = os.sysconf("SC_CLK_TCK")
        n = max(w["requests"], 1)
        r.update(
            rps=w["requests"] / (w["duration_us"] / 1e6), requests=w["requests"],
            errors=w["errors"] + w["non2xx"], p50=w["p50"] / 1000,
            p95=w["p95"] / 1000, p99=w["p99"] / 1000,
            cpu_ms=(c1 - c0) / hz * 1000 / n,
            rss_mb=rss / 1024,
            sub_per_req=sum(per_path(s).values()) / n)
        return r
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        log.close()


def fmt(v, spec):
    return "–" if v is None else format(v, spec)


def table(scenario, results, a):
    lat = scenario == "constant-latency"
    floor = WAVES * a.delay_ms if lat else 0
    head = ["gateway", "answer", "req/s", "p50 ms", "p95 ms", "p99 ms"]
    if lat:
        head += ["p95 − %d ms floor" % floor]
    if a.single:
        head += ["1 client p50 / p95 ms"]
    head += ["CPU ms/req", "peak RSS MB", "ready ms", "1st answer ms",
             "subgraph req / query (run avg)", "per query"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for r in results:
        if "rps" not in r:
            lines.append("| %s | %s |" % (r["gateway"], r.get("error")))
            continue
        pq = r["per_query"]
        row = [r["gateway"], r["answer"], fmt(r["rps"], ",.0f"),
               fmt(r["p50"], ".2f"), fmt(r["p95"], ".2f"),
               fmt(r["p99"], ".2f")]
        if lat:
            row += [fmt(r["p95"] - floor, ".2f")]
        if a.single:
            row += ["%s / %s" % (fmt(r.get("single_p50"), ".2f"),
                                 fmt(r.get("single_p95"), ".2f"))]
        row += [fmt(r["cpu_ms"], ".3f"), fmt(r["rss_mb"], ".1f"),
                fmt(r["ready_ms"], ".1f"), fmt(r["first_answer_ms"], ".1f"),
                "%d (%.2f)" % (sum(pq.values()), r["sub_per_req"]),
                " ".join("%s %d" % (k, v) for k, v in sorted(pq.items()))]
        lines.append("| " + " | ".join(row) + " |")
    ok = [r for r in results if "rps" in r]
    notes = []
    gql = next((r for r in ok if r["gateway"] == "gql"), None)
    node = [r for r in ok if r["gateway"] != "gql"]
    best = max(node, key=lambda r: r["rps"]) if node else None
    if gql and best and best["rps"] > 0:
        notes.append("gql / best Node gateway (%s): %.1fx requests/s" %
                     (best["gateway"], gql["rps"] / best["rps"]))
    elif gql and best:
        notes.append("no Node gateway answered within the measured run")
    for r in results:
        if r.get("errors"):
            notes.append("%s: %d socket errors or non-2xx answers" %
                         (r["gateway"], r["errors"]))
    return "\n".join(lines) + "\n" + "".join("\n- " + n for n in notes) + "\n"


def main():
    p = argparse.ArgumentParser()
    for opt in ("root", "shared", "peers", "gateways", "scenarios", "out"):
        p.add_argument("--" + opt)
    for opt in ("warmup", "duration", "connections", "wrk-threads",
                "delay-ms", "gql-threads", "single"):
        p.add_argument("--" + opt, type=int)
    a = p.parse_args()
    bench = os.path.join(a.shared, "gateway-bench")
    body = open(os.path.join(bench, "request.json"), "rb").read()
    expected = open(os.path.join(bench, "expected_response.json"), "rb").read()
    work = tempfile.mkdtemp(prefix="gw-bench-")
    lua = os.path.join(work, "post.lua")
    with open(lua, "w") as f:
        f.write(WRK_LUA % json.dumps(body.decode()))
    gws = Gateways(a, work)
    names = a.gateways.split()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.machine())
    wrk_v = subprocess.run(["wrk", "-v"], capture_output=True,
                           text=True).stdout.split("\n")[0]
    node_v = subprocess.run(["node", "--version"], capture_output=True,
                            text=True).stdout.strip()
    report = ["%s, %d CPUs, %s; %s; node %s; %d connections, %d wrk threads, "
              "%d s warm-up + %d s measured per gateway and scenario" %
              (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               os.cpu_count(), cpu, wrk_v.strip(), node_v, a.connections,
               a.wrk_threads, a.warmup, a.duration) +
              ("; then %d s with 1 client" % a.single if a.single else ""),
              "; ".join(gws.version(n) for n in names), ""]
    print("\n".join(report), flush=True)
    for scenario in a.scenarios.split():
        delay = a.delay_ms if scenario == "constant-latency" else 0
        sub_port = free_port()
        sub = subprocess.Popen(
            [os.path.join(a.root, "build-rel", "bench", "bench_subgraphs"),
             "--port", str(sub_port), "--reviews",
             os.path.join(bench, "peers", "reviews-data.json"),
             "--delay-ms", str(delay)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if wait_up(sub, sub_port, "/health") is None:
                raise SystemExit("bench_subgraphs did not start")
            supergraph = os.path.join(work, "supergraph-%d.graphql" % sub_port)
            with open(os.path.join(bench, "supergraph.graphql")) as f:
                sdl = f.read()
            sdl = sdl.replace("http://127.0.0.1:4200/",
                              "http://127.0.0.1:%d/" % sub_port)
            sdl = sdl.replace("http://0.0.0.0:4200/",
                              "http://127.0.0.1:%d/" % sub_port)
            with open(supergraph, "w") as f:
                f.write(sdl)
            results = []
            for name in names:
                print("== %s: %s" % (scenario, name), file=sys.stderr,
                      flush=True)
                results.append(bench_one(a, gws, name, scenario, sub_port,
                                         supergraph, body, expected, lua))
        finally:
            sub.terminate()
            sub.wait()
        title = "### %s%s\n" % (scenario, " (every subgraph answer held %d ms)"
                                % delay if delay else "")
        text = title + "\n" + table(scenario, results, a)
        report.append(text)
        print(text, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(report) + "\n")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
