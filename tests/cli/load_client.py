#!/usr/bin/env python3
"""Keep-alive load for tests/cli/test_serve_trace_load.sh: THREADS client
threads per server, each on one keep-alive connection (reconnecting only if
the server closes it), POST the same query for SECONDS and compare every
answer with the expected status and body. Meanwhile samples each server's
VmRSS (/proc/PID/status) and its tracer counters (GET /metrics) every 2 s.

Prints one JSON object: per server, the requests answered, the wrong
answers (first few kept), the errors, the RSS samples in KiB and the
/metrics samples ({name: value}, names without gql_trace_spans_ and
_total).

Usage: load_client.py SECONDS THREADS QUERY EXPECTED_BODY PORT:PID...
"""
import http.client
import json
import sys
import threading
import time


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def metrics(port):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/metrics")
        r = c.getresponse()
        text = r.read().decode()
        c.close()
    except (OSError, http.client.HTTPException) as e:
        return {"error": repr(e)}
    out = {}
    for line in text.splitlines():
        if line.startswith("gql_trace_spans_"):
            k, v = line.split()
            out[k[len("gql_trace_spans_"):].removesuffix("_total")] = int(v)
    return out


def main():
    seconds = float(sys.argv[1])
    nthreads = int(sys.argv[2])
    query, expected = sys.argv[3], sys.argv[4]
    servers = [tuple(map(int, a.split(":"))) for a in sys.argv[5:]]
    body = json.dumps({"query": query}).encode()
    headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
    end = time.time() + seconds
    res = {port: {"requests": 0, "wrong": 0, "wrong_samples": [], "errors": 0,
                  "error_samples": [], "rss_kib": [],
                  "metrics": []} for port, _ in servers}
    lock = threading.Lock()

    def client(port):
        conn = None
        n = wrong = errors = 0
        samples, esamples = [], []
        while time.time() < end:
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/graphql", body, headers)
                r = conn.getresponse()
                got = r.read().decode("utf-8", "replace")
                n += 1
                if r.status != 200 or got != expected:
                    wrong += 1
                    if len(samples) < 3:
                        samples.append(f"{r.status} {got[:200]}")
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                errors += 1
                if len(esamples) < 3:
                    esamples.append(repr(e))
                if conn:
                    conn.close()
                conn = None
                time.sleep(0.05)
        if conn:
            conn.close()
        with lock:
            r = res[port]
            r["requests"] += n
            r["wrong"] += wrong
            r["errors"] += errors
            r["wrong_samples"] += samples
            r["error_samples"] += esamples

    threads = [threading.Thread(target=client, args=(port,))
               for port, _ in servers for _ in range(nthreads)]
    for t in threads:
        t.start()
    while time.time() < end:
        for port, pid in servers:
            res[port]["rss_kib"].append(rss_kib(pid))
            res[port]["metrics"].append(metrics(port))
        time.sleep(min(2.0, max(0.0, end - time.time())))
    for t in threads:
        t.join()
    for port, pid in servers:
        res[port]["rss_kib"].append(rss_kib(pid))
    print(json.dumps({str(k): v for k, v in res.items()}))


if __name__ == "__main__":
    main()
