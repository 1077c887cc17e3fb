#!/usr/bin/env python3
"""gql serve's incremental delivery over HTTP (src/http/stream.c,
incremental.c, incremental_legacy.c) against clients that misbehave, over
real sockets on 127.0.0.1: a client that asks for a large @stream and stops
reading (the server's memory stays within a bound of the response, other
clients are served, and the connection is dropped at the idle timeout), one
that disconnects mid-stream (the server serves on; under ASan, exits 0
without leaks), Accept headers with odd parameters (q=0, unknown
deferSpec / incrementalSpec values, a boundary of the client's, quoted
values, garbage), requests pipelined behind a streamed one (answered after
the stream's last part, in order), HTTP/1.0 streams (no chunking, the
body ends with the connection), and a stop (SIGTERM) with a stream nobody
reads (closed at server.shutdown_timeout) or a request still arriving
(answered first).

Usage: test_stream_hostile.py GQL_BINARY [CASE...]
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

GQL = sys.argv[1]
ONLY = set(sys.argv[2:])
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peerkit import (child_env, read_responses, read_to_end, rss_kib, run_cases,  # noqa: E402
                     tcp_state, terminate)
NITEMS = 20000
NAME = "n" * 200
IDLE_TIMEOUT = "4s"
SHUTDOWN_TIMEOUT_S = 1.5  # server.shutdown_timeout, below the idle timeout
DEFER = '{ item { id ... @defer(label: "L") { name } } }'
STREAM = "{ items @stream(initialCount: 1) { id name } }"
REFUSAL = ("The operation uses incremental delivery (@defer or @stream), but the client "
           "accepts neither multipart/mixed nor text/event-stream responses.")


class Serve:
    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        with open(os.path.join(d, "s.graphql"), "w") as f:
            f.write("type Query { item: Item items: [Item] }\n"
                    "type Item { id: Int name: String }\n")
        with open(os.path.join(d, "d.json"), "w") as f:
            json.dump({"item": {"id": 7, "name": "seven"},
                       "items": [{"id": i, "name": NAME} for i in range(NITEMS)]}, f)
        with open(os.path.join(d, "c.yaml"), "w") as f:
            f.write("server:\n  idle_timeout: %s\n  shutdown_timeout: %dms\n"
                    % (IDLE_TIMEOUT, SHUTDOWN_TIMEOUT_S * 1000))
        self.err = open(os.path.join(d, "err"), "w+")
        self.proc = subprocess.Popen(
            [GQL, "serve", "--config", os.path.join(d, "c.yaml"), "--port", "0",
             "--threads", "1", "--defer-stream",
             "--schema", os.path.join(d, "s.graphql"), "--data", os.path.join(d, "d.json")],
            env=child_env(), stdout=subprocess.PIPE, stderr=self.err)
        line = self.proc.stdout.readline().decode()
        if "on http://" not in line:
            self.err.seek(0)
            raise AssertionError("gql serve did not start: " + line + self.err.read())
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])

    def log(self):
        self.err.seek(0)
        return self.err.read()[-3000:]

    def request(self, query, accept, timeout=20):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request("POST", "/graphql", json.dumps({"query": query}),
                     {"Content-Type": "application/json", "Accept": accept})
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, r.getheader("Content-Type"), body

    def still_serves(self, what):
        status, _, body = self.request("{ item { id } }", "application/json")
        assert status == 200 and json.loads(body) == {"data": {"item": {"id": 7}}}, \
            (what, status, body[:300])
        assert self.proc.poll() is None, (what, "gql serve died", self.log())

    def stop(self):
        rc = terminate(self.proc)
        log = self.log()
        self.err.close()
        self.dir.cleanup()
        assert rc == 0, "gql serve exited with %s: %s" % (rc, log)


def parts(body):
    """The JSON parts of a multipart/mixed body with boundary "-"."""
    assert body.startswith(b"\r\n---\r\n"), body[:100]
    assert body.endswith(b"\r\n-----\r\n"), body[-100:]
    out = []
    for p in body[len(b"\r\n---\r\n"):-len(b"\r\n-----\r\n")].split(b"\r\n---\r\n"):
        head, _, js = p.partition(b"\r\n\r\n")
        assert head.lower() == b"content-type: application/json; charset=utf-8", head
        out.append(json.loads(js))
    return out


DEFER_PARTS = [
    {"data": {"item": {"id": 7}}, "pending": [{"id": "0", "path": ["item"], "label": "L"}],
     "hasNext": True},
    {"hasNext": False, "incremental": [{"id": "0", "data": {"name": "seven"}}],
     "completed": [{"id": "0"}]}]
LEGACY_PARTS = [
    {"data": {"item": {"id": 7}}, "hasNext": True},
    {"hasNext": False, "incremental": [{"data": {"name": "seven"}, "path": ["item"],
                                        "label": "L"}]}]


def raw_request(query, accept, version="1.1", extra=b""):
    body = json.dumps({"query": query}).encode()
    return (b"POST /graphql HTTP/%s\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Accept: %s\r\n%sContent-Length: %d\r\n\r\n%s"
            % (version.encode(), accept.encode(), extra, len(body), body))


# ------------------------------------------------------------ cases

def case_accept_parameters(srv):
    mp = "multipart/mixed; boundary=\"-\"; incrementalSpec=v0.2"
    legacy = "multipart/mixed; boundary=\"-\"; deferSpec=20220824"
    for accept, want in (
            ("multipart/mixed", mp),
            ("multipart/mixed; boundary=x", mp),  # the server's boundary counts
            ("multipart/mixed;deferSpec=20220824", legacy),
            ('multipart/mixed; deferSpec="20220824"', legacy),
            ("multipart/mixed;deferSpec=20220824;q=0, multipart/mixed;q=0.1", mp),
            ("text/event-stream;q=0.5, multipart/mixed;q=0.9", mp),
            ("text/event-stream;q=0.9, multipart/mixed;q=0.5", "text/event-stream; charset=utf-8"),
            ("*/*", mp),
            ("multipart/mixed;deferSpec=20220824;q=0", None),
            ("multipart/mixed;deferSpec=19700101", None),
            ("multipart/mixed;incrementalSpec=v9", None),
            ("multipart/mixed;incrementalSpec=v0.2;deferSpec=20220824", None),
            ("multipart/mixed;q=2", None),
            ("multipart/mixed;q=0.0001", None),
            ('multipart/mixed;deferSpec="20220824', None),
            (";;;,,,=,q=,/", None),
            ("application/json", None),
            ("a/b;" * 2000, None)):
        status, ctype, body = srv.request(DEFER, accept)
        if want is None:
            # graphql-http's 406 with the Accept that would do, or the
            # plain 406 of a request that accepts no JSON either
            assert status == 406, (accept[:80], status, body[:300])
            msg = json.loads(body)["errors"][0]["message"]
            assert msg.startswith(REFUSAL) or msg.startswith("Not acceptable"), (accept[:80], msg)
            continue
        assert status == 200 and ctype == want, (accept, status, ctype, body[:200])
        if want == mp:
            assert parts(body) == DEFER_PARTS, (accept, body[:500])
        elif want == legacy:
            assert parts(body) == LEGACY_PARTS, (accept, body[:500])
        else:
            assert body.startswith(b"event: next\ndata: ") and \
                body.endswith(b"event: complete\ndata:\n\n"), body
    srv.still_serves("accept")


def case_pipelined_requests_behind_a_stream(srv):
    """Three requests in one write, the first and last streamed: each is
    answered whole, in order, the second after the first's last part."""
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(raw_request(DEFER, "multipart/mixed") +
              raw_request("{ item { name } }", "application/json") +
              raw_request(DEFER, "multipart/mixed;deferSpec=20220824",
                          extra=b"Connection: close\r\n"))
    got, rest = read_responses(read_to_end(s), 3)
    s.close()
    assert got[0][0] == 200 and parts(got[0][2]) == DEFER_PARTS, got[0]
    assert got[1][0] == 200 and json.loads(got[1][2]) == {"data": {"item": {"name": "seven"}}}, got[1]
    assert got[2][0] == 200 and parts(got[2][2]) == LEGACY_PARTS, got[2]
    assert rest == b"", rest[:200]


def case_http10_stream_ends_with_the_connection(srv):
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(raw_request(DEFER, "multipart/mixed", "1.0"))
    s.settimeout(10)
    got = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"transfer-encoding" not in head.lower() and b"connection: close" in head.lower(), head
    assert parts(body) == DEFER_PARTS, body[:300]


def case_client_that_stops_reading(srv):
    """A large @stream (about 7 MB) to a client that reads 1 KiB, then
    nothing: the server holds at most the response (its memory grows by
    less than 3x its size), serves others meanwhile, and drops the
    connection at the idle timeout (4 s) once the execution is over."""
    status, _, body = srv.request(STREAM, "multipart/mixed")
    assert status == 200, (status, body[:200])
    ps = parts(body)
    streamed = sum(len(i["items"]) for p in ps[1:] for i in p.get("incremental", []))
    assert len(ps[0]["data"]["items"]) + streamed == NITEMS, (len(ps), streamed)
    size = len(body)
    base = rss_kib(srv.proc.pid)
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(raw_request(STREAM, "multipart/mixed"))
    s.settimeout(10)
    first = s.recv(1024)
    assert first.startswith(b"HTTP/1.1 200"), first[:200]
    t0 = time.monotonic()
    peak = base
    while time.monotonic() - t0 < 5.5:
        srv.still_serves("a stuck stream")
        peak = max(peak, rss_kib(srv.proc.pid))
        time.sleep(0.25)
    assert peak - base < 3 * size // 1024, \
        "grew %d KiB for a %d KiB response" % (peak - base, size // 1024)
    # closed by the server (the kernel may still hold bytes it sends on)
    state = tcp_state(srv.port, s.getsockname()[1])
    s.close()
    assert state not in ("01", None), "the server's socket is still open (%s)" % state
    srv.still_serves("after the stuck stream")


def case_disconnect_mid_stream(srv):
    """Clients that go after the head or mid-body of a large stream: the
    server serves on, its memory returns near where it was, and it exits 0
    (ASan: nothing leaked)."""
    srv.still_serves("warm")
    base = rss_kib(srv.proc.pid)
    for i in range(20):
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(raw_request(STREAM, "multipart/mixed" if i % 2 else "text/event-stream"))
        s.settimeout(10)
        s.recv(1024 * (1 + i * 10))
        if i % 3 == 0:  # a reset, not a FIN
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    time.sleep(0.5)
    srv.still_serves("after 20 clients left mid-stream")
    after = rss_kib(srv.proc.pid)
    assert after - base < 32 * 1024, "RSS %d -> %d KiB" % (base, after)


def case_stop_deadline_closes_a_stuck_stream(srv):
    """SIGTERM while a client holds a large @stream it does not read: the
    stop waits server.shutdown_timeout (1.5 s, not the idle timeout's 4 s,
    nor for ever), then closes the connection, says so, and exits 0."""
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(raw_request(STREAM, "multipart/mixed"))
    s.settimeout(10)
    assert s.recv(1024).startswith(b"HTTP/1.1 200")
    time.sleep(0.3)
    t0 = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    rc = srv.proc.wait(timeout=10)
    took = time.monotonic() - t0
    s.close()
    assert rc == 0, (rc, srv.log())
    assert SHUTDOWN_TIMEOUT_S - 0.2 < took < SHUTDOWN_TIMEOUT_S + 1.5, "exit after %.2f s" % took
    assert "stop: closing 1 connection still open after 1500 ms (server.shutdown_timeout)" \
        in srv.log(), srv.log()


def case_stop_finishes_a_request_still_arriving(srv):
    """SIGTERM while a request's body is still arriving: the request is
    answered in full once its last byte comes (0.5 s later, within the
    deadline), the connection then closes, and gql serve exits 0 without
    the deadline's warning."""
    body = json.dumps({"query": "{ item { id name } }"}).encode()
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body[:5]))
    time.sleep(0.2)
    t0 = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    s.sendall(body[5:])
    got = read_to_end(s, timeout=5)
    s.close()
    [(status, _, resp)], _ = read_responses(got, 1)
    assert status == 200 and json.loads(resp) == {"data": {"item": {"id": 7, "name": "seven"}}}, \
        (status, resp)
    rc = srv.proc.wait(timeout=10)
    took = time.monotonic() - t0
    assert rc == 0 and took < SHUTDOWN_TIMEOUT_S, (rc, "exit after %.2f s" % took)
    assert "server.shutdown_timeout" not in srv.log(), srv.log()


CASES = [case_accept_parameters,
         case_pipelined_requests_behind_a_stream,
         case_http10_stream_ends_with_the_connection,
         case_client_that_stops_reading,
         case_disconnect_mid_stream,
         case_stop_deadline_closes_a_stuck_stream,
         case_stop_finishes_a_request_still_arriving]


def main():
    return run_cases(CASES, Serve, ONLY)


if __name__ == "__main__":
    sys.exit(main())
