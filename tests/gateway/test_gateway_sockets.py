#!/usr/bin/env python3
"""gql gateway over real sockets on 127.0.0.1, against fake benchmark
subgraphs (fake_subgraphs.py): the benchmark answer, each subgraph failure
(down, timeout, reset mid-body, invalid JSON, HTTP error, a root that never
closes) gives nulls and an error while the gateway keeps serving, and a
chunked subgraph answer completes at the JSON root end with the connection
reused.

Usage: test_gateway_sockets.py GQL_BINARY REPO_ROOT [CASE...]
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_subgraphs  # noqa: E402

GQL = sys.argv[1]
ROOT = sys.argv[2]
ONLY = set(sys.argv[3:])
BENCH = os.path.join(ROOT, "..", "shared", "gateway-bench")
if not os.path.isdir(BENCH):
    BENCH = "/work/shared/gateway-bench"
SUBGRAPH_TIMEOUT_MS = 1000


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Gateway:
    def __init__(self, subgraphs, threads=1):
        with open(os.path.join(BENCH, "supergraph.graphql")) as f:
            sdl = f.read()
        for name, sg in subgraphs.items():
            sdl = sdl.replace("http://127.0.0.1:4200/" + name,
                              "http://127.0.0.1:%d/%s" % (sg.port, name))
        self.dir = tempfile.TemporaryDirectory()
        path = os.path.join(self.dir.name, "supergraph.graphql")
        with open(path, "w") as f:
            f.write(sdl)
        self.port = free_port()
        self.proc = subprocess.Popen(
            [GQL, "gateway", "--supergraph", path, "--port", str(self.port),
             "--threads", str(threads), "--subgraph-timeout", str(SUBGRAPH_TIMEOUT_MS),
             "--connect-timeout", "1000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if "on http://" not in line:
            raise AssertionError("gateway did not start: " + line +
                                 self.proc.stderr.read().decode())

    def post(self, query, timeout=10, variables=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        req = {"query": query}
        if variables is not None:
            req["variables"] = variables
        conn.request("POST", "/graphql", json.dumps(req),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body

    def stop(self):
        """SIGTERM: must exit 0 (under ASan: no leak)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("gateway did not stop on SIGTERM")
        err = self.proc.stderr.read().decode()
        self.dir.cleanup()
        assert rc == 0, "gateway exited with %d: %s" % (rc, err[-3000:])


def read(name):
    with open(os.path.join(BENCH, name), "rb") as f:
        return f.read()


BENCH_QUERY = read("query.graphql").decode()
EXPECTED = read("expected_response.json")
SMALL = "{ topProducts(first: 2) { name inStock } }"
SMALL_OK = {"data": {"topProducts": [{"name": "Table", "inStock": True},
                                     {"name": "Couch", "inStock": False}]}}


def check_benchmark(gw):
    status, body = gw.post(BENCH_QUERY)
    assert status == 200, (status, body[:300])
    assert b'"errors"' not in body, body[:500]
    assert json.loads(body) == json.loads(EXPECTED), "benchmark answer differs"
    return body


def case_benchmark_query_returns_expected_response(subs):
    gw = Gateway(subs)
    try:
        before = sum(s.stats()[1] for s in subs.values())
        body = check_benchmark(gw)
        assert body == EXPECTED.rstrip(b"\n"), "not byte-identical"
        after = sum(s.stats()[1] for s in subs.values())
        assert after - before == 6, "subgraph requests: %d" % (after - before)
        # plans are cached and connections kept alive: same answer again
        check_benchmark(gw)
    finally:
        gw.stop()


def expect_inventory_failure(gw, what):
    status, body = gw.post(SMALL)
    assert status == 200, (what, status, body)
    resp = json.loads(body)
    assert resp["data"] == {"topProducts": [{"name": "Table", "inStock": None},
                                            {"name": "Couch", "inStock": None}]}, \
        (what, resp)
    errors = resp.get("errors", [])
    msgs = [e["message"] for e in errors]
    # worded as Apollo Router words its subrequest errors
    assert msgs and all(m.startswith("HTTP fetch failed from 'inventory': ") or
                        m.startswith("service 'inventory' response was malformed: ")
                        for m in msgs), (what, msgs)
    assert all(e["extensions"]["service"] == "inventory" and
               e["extensions"]["code"] in ("SUBREQUEST_HTTP_ERROR",
                                           "SUBREQUEST_MALFORMED_RESPONSE")
               for e in errors), (what, errors)
    return msgs[0]


def case_failures_give_null_and_error_and_gateway_keeps_serving(subs):
    inv = subs["inventory"]
    gw = Gateway(subs)
    try:
        status, body = gw.post(SMALL)
        assert json.loads(body) == SMALL_OK, body
        for mode, needle in (("http_500", "500"), ("bad_json", "JSON"),
                             ("never_closes", "JSON"), ("reset", "closed"),
                             ("hang", "timed out"), ("open_root", "timed out")):
            inv.mode = mode
            t0 = time.monotonic()
            msg = expect_inventory_failure(gw, mode)
            took = time.monotonic() - t0
            assert needle in msg, (mode, msg)
            if mode in ("hang", "open_root"):
                assert took < SUBGRAPH_TIMEOUT_MS / 1000 + 1.5, took
            inv.mode = "normal"
            status, body = gw.post(SMALL)
            assert status == 200 and json.loads(body) == SMALL_OK, (mode, body)
        # subgraph down: connection refused, then back up on the same port
        port = inv.port
        inv.stop()
        msg = expect_inventory_failure(gw, "down")
        assert "connect" in msg or "closed" in msg, msg
        msg = expect_inventory_failure(gw, "down again")
        assert "connect" in msg, msg
        inv.port = port
        inv.start()
        status, body = gw.post(SMALL)
        assert json.loads(body) == SMALL_OK, body
        check_benchmark(gw)
    finally:
        gw.stop()


def case_chunked_answer_completes_at_root_end_and_connection_is_reused(subs):
    for s in subs.values():
        s.mode = "chunked_slow_end"  # terminator 0.6 s after the JSON
    base = {n: s.stats()[0] for n, s in subs.items()}
    gw = Gateway(subs)
    try:
        t0 = time.monotonic()
        check_benchmark(gw)
        took = time.monotonic() - t0
        # 4 waves; waiting for each terminator would take 4 x 0.6 s
        assert took < 1.8, "took %.2f s: not completed at the root end" % took
        time.sleep(1.0)  # the drains end, the connections go back to the pool
        conns = {n: s.stats()[0] - base[n] for n, s in subs.items()}
        for _ in range(3):
            check_benchmark(gw)
            time.sleep(1.0)
        again = {n: s.stats()[0] - base[n] for n, s in subs.items()}
        assert again == conns, "connections not reused: %s -> %s" % (conns, again)
        # accounts and products are asked in waves 1 and 3; in wave 3 their
        # first connection is still draining (the terminator comes 0.6 s
        # late), so each opened a second one; nothing more after that
        assert conns == {"accounts": 2, "inventory": 1, "products": 2,
                         "reviews": 1}, conns
    finally:
        gw.stop()
        for s in subs.values():
            s.mode = "normal"


def case_graphql_over_http_behaviour_as_gql_serve(subs):
    gw = Gateway(subs)
    try:
        status, body = gw.post("query($n: Int) { topProducts(first: $n) { name inStock } }",
                               variables={"n": 2})
        assert status == 200 and json.loads(body) == SMALL_OK, body
        # variables are coerced as gql serve does: defaults, invalid values
        status, body = gw.post("query($n: Int = 1) { topProducts(first: $n) { name } }")
        assert json.loads(body) == {"data": {"topProducts": [{"name": "Table"}]}}, body
        status, body = gw.post("query($n: Int) { topProducts(first: $n) { name } }",
                               variables={"n": "x"})
        # (with Apollo Router's extensions.code)
        assert status == 200 and json.loads(body) == {"errors": [{
            "message": 'Variable "$n" got invalid value "x"; Int cannot represent '
                       'non-integer value: "x"',
            "locations": [{"line": 1, "column": 7}],
            "extensions": {"code": "VALIDATION_INVALID_TYPE_VARIABLE"}}]}, body
        status, body = gw.post("{ nope }")
        assert status == 200, status
        assert json.loads(body) == {"errors": [{
            "message": 'Cannot query field "nope" on type "Query".',
            "locations": [{"line": 1, "column": 3}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}]}, body
        status, body = gw.post("{ me {")
        assert json.loads(body)["errors"][0]["extensions"] == {
            "code": "GRAPHQL_PARSE_FAILED"}, body
        conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=10)
        conn.request("GET", "/graphql?query=%7Bme%7Bname%7D%7D")
        r = conn.getresponse()
        assert r.status == 200
        assert json.loads(r.read()) == {"data": {"me": {"name": "Uri Goldshtein"}}}
        conn.request("POST", "/graphql", json.dumps({"query": "{ me { name } }"}),
                     {"Content-Type": "application/json",
                      "Accept": "application/graphql-response+json"})
        r = conn.getresponse()
        assert r.status == 200
        assert r.getheader("Content-Type").startswith("application/graphql-response+json")
        r.read()
        conn.close()
        # a subgraph closing after each answer (no Connection: close): the
        # pooled connection is found closed and the request sent again
        subs["inventory"].mode = "close_after"
        for _ in range(4):
            status, body = gw.post(SMALL)
            assert json.loads(body) == SMALL_OK, body
    finally:
        gw.stop()


def case_concurrent_requests_all_answered(subs):
    for s in subs.values():
        s.mode = "chunked"
    gw = Gateway(subs, threads=2)
    try:
        import threading
        errors = []

        def client():
            try:
                for _ in range(3):
                    check_benchmark(gw)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors[:3]
    finally:
        gw.stop()
        for s in subs.values():
            s.mode = "normal"


CASES = [case_benchmark_query_returns_expected_response,
         case_failures_give_null_and_error_and_gateway_keeps_serving,
         case_chunked_answer_completes_at_root_end_and_connection_is_reused,
         case_graphql_over_http_behaviour_as_gql_serve,
         case_concurrent_requests_all_answered]


def main():
    subs = fake_subgraphs.start_all(BENCH)
    failed = 0
    for case in CASES:
        name = case.__name__[5:]
        if ONLY and name not in ONLY:
            continue
        t0 = time.monotonic()
        try:
            case(subs)
            print("ok   %s (%.2f s)" % (name, time.monotonic() - t0))
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAIL %s: %s" % (name, e))
        for s in subs.values():
            s.mode = "normal"
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
