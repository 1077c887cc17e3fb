#!/usr/bin/env python3
"""gql gateway against a hostile subgraph (hostile_subgraph.py) over real
sockets on 127.0.0.1: each way a subgraph can misbehave on a query
(oversized, endless or trickling bodies, heads that never end, JSON too deep
or of the wrong shape, other content types, HTTP/1.0, resets, redirects,
interim answers, garbage) and on a subscription over graphql-sse or
graphql-transport-ws (oversized events and lines, bad JSON, unknown events
or ids, no connection_ack, floods) gives the client a clear error within the
subgraph timeout, keeps the gateway's memory bounded, and leaves the gateway
answering the next request correctly.

Usage: test_hostile_subgraph.py GQL_BINARY REPO_ROOT [CASE...]
"""
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

GQL = sys.argv[1]
ROOT = sys.argv[2]
ONLY = set(sys.argv[3:])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from peerkit import (child_env, free_port, read_responses, read_to_end,  # noqa: E402
                     rss_kib, run_cases, tcp_state, terminate)
SUBGRAPH_TIMEOUT_MS = 1500
QUERY = "{ topProducts { name inStock } }"
OK = {"data": {"topProducts": [{"name": "Table", "inStock": True},
                               {"name": "Couch", "inStock": False}]}}
MiB = 1 << 20


class Env:
    """The hostile subgraph and a gateway over it: graph `hostile` for
    queries and graphql-ws subscriptions, graph `hostile_sse` (the same
    server) for graphql-sse ones; x-mode is propagated to both."""

    def __init__(self, extra=()):
        self.dir = tempfile.TemporaryDirectory()
        self.sub_port = free_port()
        self.sub = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "hostile_subgraph.py"), str(self.sub_port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert b"listening" in self.sub.stdout.readline()
        url = "http://127.0.0.1:%d/graphql" % self.sub_port
        sdl = """enum join__Graph {
  H @join__graph(name: "hostile", url: "%s")
  S @join__graph(name: "hostile_sse", url: "%s")
}
type Query @join__type(graph: H) @join__type(graph: S) {
  topProducts: [Product] @join__field(graph: H)
  slowCount: Int @join__field(graph: S)
}
type Product @join__type(graph: H) { name: String inStock: Boolean rank: Int }
type Subscription @join__type(graph: H) @join__type(graph: S) {
  ticks: Tick @join__field(graph: H)
  sseTicks: Tick @join__field(graph: S)
}
type Tick @join__type(graph: H) @join__type(graph: S) { n: Int pad: String }
""" % (url, url)
        sg = os.path.join(self.dir.name, "sg.graphql")
        with open(sg, "w") as f:
            f.write(sdl)
        cfg = os.path.join(self.dir.name, "gw.yaml")
        with open(cfg, "w") as f:
            f.write("""subscription:
  mode:
    passthrough:
      subgraphs:
        hostile_sse:
          protocol: sse
headers:
  all:
    request:
      - propagate:
          named: x-mode
""")
        self.port = free_port()
        self.err = open(os.path.join(self.dir.name, "gw.err"), "w+")
        self.gw = subprocess.Popen(
            [GQL, "gateway", "--config", cfg, "--supergraph", sg, "--port", str(self.port),
             "--threads", "1", "--subgraph-timeout", str(SUBGRAPH_TIMEOUT_MS),
             "--connect-timeout", "1000"] + list(extra),
            env=child_env(), stdout=subprocess.PIPE, stderr=self.err)
        line = self.gw.stdout.readline().decode()
        if "on http://" not in line:
            self.stop()
            raise AssertionError("gateway did not start: " + line + self.log())

    def log(self):
        self.err.seek(0)
        return self.err.read()[-3000:]

    def post(self, query, mode=None, timeout=20):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Content-Type": "application/json"}
        if mode:
            headers["x-mode"] = mode
        conn.request("POST", "/graphql", json.dumps({"query": query}), headers)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body

    def subscribe_sse(self, query, mode, timeout=20):
        """Subscribes over graphql-sse (distinct connections); returns the
        `next` events' data (parsed) until the stream's end."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request("POST", "/graphql", json.dumps({"query": query}),
                     {"Content-Type": "application/json", "Accept": "text/event-stream",
                      "x-mode": mode})
        r = conn.getresponse()
        assert r.status == 200, (r.status, r.read()[:300])
        assert r.getheader("Content-Type").startswith("text/event-stream")
        events, kind, data = [], None, []
        while True:
            line = r.fp.readline()
            if not line:
                break
            line = line.rstrip(b"\r\n")
            if line.startswith(b"event:"):
                kind = line[6:].strip()
            elif line.startswith(b"data:"):
                data.append(line[5:].strip())
            elif not line:
                if kind == b"next":
                    events.append(json.loads(b"\n".join(data)))
                if kind == b"complete":
                    break
                kind, data = None, []
        conn.close()
        return events

    def still_serves(self, what):
        status, body = self.post(QUERY)
        assert status == 200 and json.loads(body) == OK, (what, status, body[:300])
        assert self.gw.poll() is None, (what, "the gateway died", self.log())

    def stop(self):
        """SIGTERM: the gateway must exit 0 (under ASan: no leak)."""
        rc = terminate(self.gw)
        self.sub.kill()
        self.sub.wait()
        log = self.log()
        self.err.close()
        self.dir.cleanup()
        assert rc == 0, "gateway exited with %s: %s" % (rc, log)


def expect_failure(env, mode, needle, max_s=None):
    """The query through `mode`: 200, topProducts null, one error naming
    the subgraph with `needle` in its message, in time."""
    t0 = time.monotonic()
    status, body = env.post(QUERY, mode)
    took = time.monotonic() - t0
    assert status == 200, (mode, status, body[:300])
    resp = json.loads(body)
    assert resp.get("data") == {"topProducts": None}, (mode, resp)
    errs = resp.get("errors") or []
    assert len(errs) == 1, (mode, errs)
    msg = errs[0]["message"]
    assert needle in msg, (mode, msg)
    assert errs[0]["extensions"]["service"] == "hostile", (mode, errs[0])
    limit = max_s if max_s is not None else SUBGRAPH_TIMEOUT_MS / 1000 + 1.5
    assert took < limit, (mode, "took %.2f s" % took)
    env.still_serves(mode)
    return msg


# ------------------------------------------------------------ queries

def case_oversized_bodies_are_cut_at_the_response_cap(env):
    # a declared 1 GiB answer is refused from its head, before any byte is
    # buffered; an endless chunked one is cut at the cap (64 MiB)
    before = rss_kib(env.gw.pid)
    expect_failure(env, "huge_declared", "too large", max_s=1.0)
    grown = rss_kib(env.gw.pid, "VmHWM") - before
    assert grown < 16 * 1024, "a declared 1 GiB body grew the gateway by %d KiB" % grown
    # (a slow machine may reach the timeout first: either bounds it)
    msg = expect_failure(env, "huge_chunked", "")
    assert "too large" in msg or "timed out" in msg, msg
    peak = rss_kib(env.gw.pid, "VmHWM")
    assert peak - before < 160 * 1024, "peak %d KiB over %d KiB" % (peak, before)


def case_slow_or_endless_heads_time_out(env):
    expect_failure(env, "trickle", "timed out")
    before = rss_kib(env.gw.pid)
    expect_failure(env, "endless_head", "")
    assert rss_kib(env.gw.pid) - before < 16 * 1024, "an endless header was buffered"


def case_bad_json_is_a_malformed_response(env):
    for mode in ("deep", "trailing", "html"):
        msg = expect_failure(env, mode, "")
        assert msg.startswith("service 'hostile' response was malformed: ") or \
            msg.startswith("HTTP fetch failed from 'hostile': "), (mode, msg)


def case_wrong_shapes_are_nulls_with_errors(env):
    """What the field's type cannot hold is null with graphql-js's error (a
    value graphql-js's serialiser coerces is coerced); a `data` or `errors`
    of the wrong kind is a malformed answer. Before: passed through as it
    came (an object for a String) or nulled without an error."""
    def err(message, path):
        return {"message": message, "path": path}
    cases = {
        "wrong_list": ({"topProducts": None}, [
            err('Expected Iterable, but did not find one for field "Query.topProducts".',
                ["topProducts"])]),
        "wrong_leaf": ({"topProducts": [{"name": None, "inStock": None}]}, [
            err('String cannot represent value: {"first":"Ta"}', ["topProducts", 0, "name"]),
            err('Boolean cannot represent a non boolean value: "yes"',
                ["topProducts", 0, "inStock"])]),
        "wrong_items": ({"topProducts": [None, None, {"name": "5.5", "inStock": False},
                                         {"name": "true", "inStock": None}]}, [
            err('Expected value of type "Product" but got: 1.', ["topProducts", 0]),
            err('Expected value of type "Product" but got: "x".', ["topProducts", 1]),
            err('Boolean cannot represent a non boolean value: []',
                ["topProducts", 3, "inStock"])]),
    }
    ranks = ["Int cannot represent non 32-bit signed integer value: 1.5e+94", None, None, None,
             "Int cannot represent non 32-bit signed integer value: 2147483648",
             'Int cannot represent non-integer value: "x"',
             "Int cannot represent non-integer value: 2.5"]
    cases["wrong_ints"] = (
        {"topProducts": [{"rank": r} for r in (None, 12, 3, 1, None, None, None)]},
        [err(m, ["topProducts", i, "rank"]) for i, m in enumerate(ranks) if m])
    for mode, (data, errors) in cases.items():
        status, body = env.post("{ topProducts { rank } }" if mode == "wrong_ints" else QUERY,
                                mode)
        assert status == 200, (mode, status, body[:300])
        assert json.loads(body) == {"errors": errors, "data": data}, (mode, body[:600])
        env.still_serves(mode)
    for mode, why in (("wrong_data", '"data" is not an object or null'),
                      ("wrong_errors", '"errors" is not a list')):
        msg = expect_failure(env, mode, why)
        assert msg == "service 'hostile' response was malformed: " + why, (mode, msg)


def case_http_variants(env):
    # HTTP/1.0 with the body ending with the connection: a valid answer
    status, body = env.post(QUERY, "http10")
    assert status == 200 and json.loads(body) == OK, body[:300]
    # an interim 100 Continue before the answer: the answer counts
    status, body = env.post(QUERY, "continue")
    assert status == 200 and json.loads(body) == OK, body[:300]
    env.still_serves("continue")
    # a redirect is not followed: an error naming the status
    expect_failure(env, "redirect", "302")
    expect_failure(env, "reset", "closed")
    expect_failure(env, "garbage", "invalid HTTP")


# ------------------------------------------------------------ subscriptions

def sub_error(events):
    assert events, "no event"
    last = events[-1]
    assert "errors" in last, events[-3:]
    msg = last["errors"][0]["message"]
    assert msg.startswith("Subscription from subgraph hostile"), msg
    return msg


def case_sse_subscription_faults_end_it_with_an_error(env):
    q = "subscription { sseTicks { n } }"
    events = env.subscribe_sse(q, "sse_normal")
    assert [e["data"]["sseTicks"]["n"] for e in events] == [1, 2, 3], events
    for mode, needle in (("sse_huge", "ended: the subgraph sent an event line over the size limit"),
                         ("sse_longline", "ended: the subgraph sent an event line over the size limit"),
                         ("sse_badjson", "ended: the subgraph sent a next event whose data is not a JSON object"),
                         ("sse_unknown", "not graphql-sse's next or complete"),
                         ("sse_badchunk", "ended: the subgraph's response is not valid HTTP"),
                         ("sse_silent", "ended: no event stream in time")):
        t0 = time.monotonic()
        msg = sub_error(env.subscribe_sse(q, mode))
        took = time.monotonic() - t0
        assert needle in msg, (mode, msg)
        # (connect timeout 1 s + subgraph timeout 1.5 s for the head)
        assert took < (4 if mode == "sse_silent" else 2), (mode, "took %.2f s" % took)
        env.still_serves(mode)


def case_ws_subscription_faults_end_it_with_an_error(env):
    q = "subscription { ticks { n } }"
    events = env.subscribe_sse(q, "ws_normal")
    assert [e["data"]["ticks"]["n"] for e in events] == [1, 2, 3], events
    for mode, needle, max_s in (("ws_noack", "no connection_ack in time", 1 + SUBGRAPH_TIMEOUT_MS / 1000 + 1.5),
                                ("ws_unknown_id", "the subgraph sent an unexpected graphql-ws message", 5),
                                ("ws_huge", "Message too big", 5)):
        t0 = time.monotonic()
        msg = sub_error(env.subscribe_sse(q, mode))
        took = time.monotonic() - t0
        assert needle in msg, (mode, msg)
        assert took < max_s, (mode, "took %.2f s" % took)
        env.still_serves(mode)


def flood_with_a_client_that_does_not_read(env, query, mode):
    """A subgraph floods events for 5 s, the client reading nothing for 4 s: the
    gateway's memory stays bounded (events past 1 MiB of unsent output are
    dropped; before, all were buffered: 350 MB in 10 s), it keeps serving,
    and the client then reads a stream of events that is still whole."""
    s = socket.create_connection(("127.0.0.1", env.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    body = json.dumps({"query": query}).encode()
    s.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Accept: text/event-stream\r\nx-mode: " + mode.encode() +
              b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    before = rss_kib(env.gw.pid)
    peak = before
    for _ in range(16):
        time.sleep(0.25)
        peak = max(peak, rss_kib(env.gw.pid))
    env.still_serves(mode)
    assert peak - before < 48 * 1024, "%s: RSS grew by %d KiB" % (mode, peak - before)
    # now reading: the events that were kept come, framed whole
    s.settimeout(10)
    got = b""
    deadline = time.monotonic() + 5
    while got.count(b"event: next") < 500 and time.monotonic() < deadline:
        d = s.recv(1 << 16)
        if not d:
            break
        got += d
    s.close()
    assert got.startswith(b"HTTP/1.1 200 OK"), got[:200]
    assert got.count(b"event: next\ndata: {") >= 500, got[:300]
    time.sleep(0.5)
    env.still_serves(mode + " (after the client left)")


def case_sse_flood_to_a_client_that_does_not_read(env):
    flood_with_a_client_that_does_not_read(env, "subscription { sseTicks { n } }", "sse_flood")


def case_ws_flood_to_a_client_that_does_not_read(env):
    flood_with_a_client_that_does_not_read(env, "subscription { ticks { n } }", "ws_flood")


def case_sigterm_completes_open_sse_subscriptions(env):
    """SIGTERM with a client subscribed over SSE to an endless subscription:
    the stream gets `complete` and the gateway exits 0 at once (before, the
    stop waited for the subscription's end, for ever)."""
    s = socket.create_connection(("127.0.0.1", env.port))
    body = json.dumps({"query": "subscription { sseTicks { n } }"}).encode()
    s.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Accept: text/event-stream\r\nx-mode: sse_endless\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    s.settimeout(5)
    got = b""
    while got.count(b"event: next") < 2:
        got += s.recv(65536)
    t0 = time.monotonic()
    env.gw.send_signal(signal.SIGTERM)
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
    s.close()
    assert got.endswith(b"event: complete\ndata:\n\n\r\n0\r\n\r\n"), got[-200:]
    rc = env.gw.wait(timeout=10)
    assert rc == 0 and time.monotonic() - t0 < 5, (rc, time.monotonic() - t0)


def ws_client_frame(text):
    b = text.encode()
    mask = os.urandom(4)
    n = len(b)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126
                            else bytes([0x80 | 126]) + struct.pack("!H", n))
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(b))


def case_ws_flood_to_a_graphql_ws_client_that_does_not_read(env):
    """The client subscribes over graphql-transport-ws and reads nothing
    while the subgraph floods: the gateway closes the client's connection
    once its output limit is queued (1 MiB), its memory stays bounded, and
    it keeps serving."""
    s = socket.create_connection(("127.0.0.1", env.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
              b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
              b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n"
              b"x-mode: ws_flood\r\n\r\n")
    s.settimeout(5)
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(1)
    assert got.startswith(b"HTTP/1.1 101"), got
    s.sendall(ws_client_frame('{"type":"connection_init"}'))
    got = b""
    while b"connection_ack" not in got:
        got += s.recv(1)
    s.sendall(ws_client_frame(json.dumps({"id": "a", "type": "subscribe", "payload": {
        "query": "subscription { ticks { n } }"}})))
    before = rss_kib(env.gw.pid)
    peak = before
    for _ in range(16):
        time.sleep(0.25)
        peak = max(peak, rss_kib(env.gw.pid))
    env.still_serves("ws client not reading")
    assert peak - before < 48 * 1024, "RSS grew by %d KiB" % (peak - before)
    # the gateway gave up on the connection (the kernel may still hold
    # bytes it sends on)
    state = tcp_state(env.port, s.getsockname()[1])
    s.close()
    assert state not in ("01", None), "the gateway's socket is still open (%s)" % state
    env.still_serves("after the ws client")


DEFER_Q = "{ topProducts { name } ... @defer { slowCount } }"


def raw_post(query, accept, extra=b""):
    body = json.dumps({"query": query}).encode()
    return (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Accept: %s\r\n%sContent-Length: %d\r\n\r\n%s"
            % (accept.encode(), extra, len(body), body))


def case_defer_client_leaves_while_the_deferred_fetch_runs(env):
    """Clients that go after the initial payload, while the deferred
    fragment's subgraph request (1 s) is out: the gateway serves on and,
    at the stop, exits 0 (under ASan: the requests were freed)."""
    for i in range(6):
        s = socket.create_connection(("127.0.0.1", env.port))
        s.sendall(raw_post(DEFER_Q, "multipart/mixed" if i % 2 else "text/event-stream"))
        s.settimeout(5)
        got = b""
        while b'"hasNext":true' not in got:
            got += s.recv(65536)
        assert b'"topProducts":[{"name":"Table"},{"name":"Couch"}]' in got, got
        if i % 3 == 0:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    env.still_serves("defer clients gone")
    time.sleep(1.2)  # the deferred fetches answer to nobody
    env.still_serves("deferred fetches done")


def case_requests_pipelined_behind_a_deferred_one(env):
    """A deferred request, a plain one and a legacy deferred one in one
    write: each answered whole and in order (the second after the first's
    last part, which waits 1 s for its subgraph)."""
    s = socket.create_connection(("127.0.0.1", env.port))
    s.sendall(raw_post(DEFER_Q, "multipart/mixed") + raw_post(QUERY, "application/json") +
              raw_post(DEFER_Q, "multipart/mixed;deferSpec=20220824",
                       b"Connection: close\r\n"))
    data = read_to_end(s)
    s.close()
    responses, rest = read_responses(data, 3)
    got = [(status, body) for status, _, body in responses]
    assert rest == b""
    first = b'{"data":{"topProducts":[{"name":"Table"},{"name":"Couch"}]}'
    assert got[0][0] == 200 and got[0][1].count(first) == 1 and \
        got[0][1].endswith(b'"incremental":[{"id":"0","data":{"slowCount":5}}],'
                           b'"completed":[{"id":"0"}]}\r\n-----\r\n'), got[0]
    assert got[1] == (200, json.dumps(OK, separators=(",", ":")).encode()), got[1]
    assert got[2][0] == 200 and got[2][1].endswith(
        b'{"hasNext":false,"incremental":[{"data":{"slowCount":5},"path":[]}]}'
        b'\r\n-----\r\n'), got[2]


# ------------------------------------------------- the stop's deadline

# a subgraph timeout far past the stop's deadline (--shutdown-timeout)
DEADLINE_S = 2.5
DEADLINE_ARGS = ["--subgraph-timeout", "20000", "--shutdown-timeout", "2500"]


def case_stop_deadline_ends_a_fetch_the_subgraph_holds(env):
    """SIGTERM while a query waits on a subgraph that trickles its answer
    (it would take far longer than the 20 s subgraph timeout): at the
    deadline (2.5 s) the client's connection is closed, the fetch is
    aborted, and the gateway exits 0 at once, not after the subgraph
    timeout."""
    s = socket.create_connection(("127.0.0.1", env.port))
    s.sendall(raw_post(QUERY, "application/json", b"x-mode: trickle\r\n"))
    time.sleep(0.5)
    t0 = time.monotonic()
    env.gw.send_signal(signal.SIGTERM)
    got = read_to_end(s, timeout=15)
    closed = time.monotonic() - t0
    s.close()
    rc = env.gw.wait(timeout=15)
    took = time.monotonic() - t0
    assert got == b"", got[:200]
    assert DEADLINE_S - 0.2 < closed < DEADLINE_S + 1, "closed after %.2f s" % closed
    assert rc == 0 and took < DEADLINE_S + 1.5, (rc, "exit after %.2f s" % took)
    assert "stop: closing 1 connection still open after 2500 ms" in env.log(), env.log()


def case_stop_waits_for_a_fetch_that_ends_in_time(env):
    """SIGTERM while a query waits on a subgraph that answers 1 s late:
    the client gets the whole answer, then the gateway exits 0, before
    the deadline and without its warning."""
    s = socket.create_connection(("127.0.0.1", env.port))
    s.sendall(raw_post("{ slowCount }", "application/json"))
    time.sleep(0.2)
    t0 = time.monotonic()
    env.gw.send_signal(signal.SIGTERM)
    got = read_to_end(s, timeout=10)
    s.close()
    [(status, _, body)], _ = read_responses(got, 1)
    assert status == 200 and json.loads(body) == {"data": {"slowCount": 5}}, (status, body)
    rc = env.gw.wait(timeout=10)
    took = time.monotonic() - t0
    assert rc == 0 and took < DEADLINE_S, (rc, "exit after %.2f s" % took)
    assert "server.shutdown_timeout" not in env.log(), env.log()


DEADLINE_CASES = [case_stop_deadline_ends_a_fetch_the_subgraph_holds,
                  case_stop_waits_for_a_fetch_that_ends_in_time]


CASES = [case_oversized_bodies_are_cut_at_the_response_cap,
         case_slow_or_endless_heads_time_out,
         case_bad_json_is_a_malformed_response,
         case_wrong_shapes_are_nulls_with_errors,
         case_http_variants,
         case_sse_subscription_faults_end_it_with_an_error,
         case_ws_subscription_faults_end_it_with_an_error,
         case_sse_flood_to_a_client_that_does_not_read,
         case_ws_flood_to_a_client_that_does_not_read,
         case_ws_flood_to_a_graphql_ws_client_that_does_not_read,
         case_sigterm_completes_open_sse_subscriptions,
         case_defer_client_leaves_while_the_deferred_fetch_runs,
         case_requests_pipelined_behind_a_deferred_one]


def main():
    failed = run_cases(CASES, Env, ONLY)
    return run_cases(DEADLINE_CASES, lambda: Env(DEADLINE_ARGS), ONLY) or failed


if __name__ == "__main__":
    sys.exit(main())
