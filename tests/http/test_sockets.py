#!/usr/bin/env python3
"""gql serve over real sockets: HTTP/1.1 framing, limits, timeouts, hostile
clients. Each case starts its own server on a free 127.0.0.1 port.

Usage: test_sockets.py GQL_BINARY [CASE...]
"""
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
HERO = b'{"query":"{ hero { name } }"}'
HERO_RESPONSE = b'{"data":{"hero":{"name":"R2-D2"}}}'


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, *args):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [GQL, "serve", "--port", str(self.port), "--threads", "1", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if "on http://" not in line:
            raise AssertionError("server did not start: " + line +
                                 self.proc.stderr.read().decode())

    def connect(self, timeout=5):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("server did not stop on SIGTERM")
        err = self.proc.stderr.read().decode()
        self.proc.stdout.close()
        self.proc.stderr.close()
        if rc != 0:
            raise AssertionError(f"server exited {rc}: {err}")
        if "AddressSanitizer" in err or "runtime error" in err:
            raise AssertionError("sanitizer report:\n" + err)
        return err


def post(body, path="/graphql", ctype="application/json", extra=b""):
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body)}\r\n").encode()
    return head + extra + b"\r\n" + body


def get(path, extra=b""):
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode() + extra + b"\r\n"


class Reader:
    """Reads HTTP/1.1 responses (Content-Length framed) from a socket."""

    def __init__(self, sock):
        self.s = sock
        self.buf = b""

    def _fill(self):
        data = self.s.recv(65536)
        if not data:
            raise EOFError("connection closed")
        self.buf += data

    def response(self):
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            self._fill()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body

    def closed(self, timeout=5):
        """True when the server closes the connection within timeout."""
        self.s.settimeout(timeout)
        try:
            while True:
                data = self.s.recv(65536)
                if not data:
                    return True
                self.buf += data
        except (socket.timeout, TimeoutError):
            return False
        except ConnectionResetError:
            return True


def exchange(srv, raw):
    s = srv.connect()
    s.sendall(raw)
    r = Reader(s).response()
    s.close()
    return r


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def head(path):
    return f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


@case
def head_requests_get_the_head_of_get_without_body():
    """RFC 9110: a HEAD request is answered as GET would be (the status and
    the same header fields) without the body; gql leaves Content-Length out
    of every HEAD response (8.6 allows it), so that a response's framing is
    never in doubt: a response with Content-Length has that body, one
    without has none. Pipelined, each response must be framed right for the
    next to parse."""
    srv = Server()
    s = srv.connect()
    hero = "/graphql?query=%7Bhero%7Bname%7D%7D"
    s.sendall(head("/health") + head(hero) + get(hero) + head("/graphql")
              + get("/graphql") + get("/health"))
    r = Reader(s)
    got = []
    for _ in range(6):
        status, h, _ = r.response()  # no Content-Length: no body read
        got.append((status, h))
    for (hs, hh), (gs, gh) in [(got[0], got[5]), (got[1], got[2]),
                               (got[3], got[4])]:
        assert hs == gs, (hs, gs)
        assert "content-length" not in hh, hh
        assert "content-length" in gh, gh
        assert {k: v for k, v in hh.items()} == \
            {k: v for k, v in gh.items() if k != "content-length"}, (hh, gh)
    assert got[1][0] == 200 and got[3][0] == 400, got
    s.close()
    srv.stop()


@case
def a_malformed_method_that_begins_with_head_gets_its_body():
    """The fuzz finding: llhttp reads "HEADA..." as far as HEAD before the
    request line fails; the 400 must still carry the body its
    Content-Length announces."""
    srv = Server()
    status, h, body = exchange(srv, b'HEADAero { name } }"}GET /graphql?query=%7Bhero%7D HTTP/1.1\r\n\r\n')
    assert status == 400 and int(h["content-length"]) == len(body) > 0, (h, body)
    srv.stop()


@case
def keep_alive_serves_many_requests_on_one_connection():
    srv = Server()
    s = srv.connect()
    r = Reader(s)
    for _ in range(5):
        s.sendall(post(HERO))
        status, h, body = r.response()
        assert status == 200 and body == HERO_RESPONSE, (status, body)
        assert "close" not in h.get("connection", "")
    s.close()
    srv.stop()


@case
def pipelined_requests_are_answered_in_order():
    srv = Server()
    s = srv.connect()
    queries = [b'{"query":"{ human(id: \\"1000\\") { name } }"}',
               b'{"query":"{ droid(id: \\"2001\\") { name } }"}',
               b'{"query":"{ hero(episode: EMPIRE) { name } }"}',
               b'{"query":"{ nope }"}']
    s.sendall(b"".join(post(q) for q in queries) + get("/health"))
    r = Reader(s)
    names = [r.response()[2] for _ in queries]
    assert names[0] == b'{"data":{"human":{"name":"Luke Skywalker"}}}', names
    assert names[1] == b'{"data":{"droid":{"name":"R2-D2"}}}', names
    assert names[2] == b'{"data":{"hero":{"name":"Luke Skywalker"}}}', names
    assert b"Cannot query field" in names[3], names
    assert r.response()[0] == 200
    s.close()
    srv.stop()


@case
def request_split_across_tiny_writes_is_parsed():
    srv = Server()
    s = srv.connect()
    raw = post(HERO) + post(HERO)
    for i in range(len(raw)):
        s.send(raw[i:i + 1])
        if i % 16 == 0:
            time.sleep(0.001)
    r = Reader(s)
    for _ in range(2):
        status, _, body = r.response()
        assert status == 200 and body == HERO_RESPONSE, (status, body)
    s.close()
    srv.stop()


@case
def chunked_request_body_is_decoded():
    srv = Server()
    body = HERO
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 7]), body[i:i + 7])
                      for i in range(0, len(body), 7))
    raw = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
           b"\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n")
    status, _, resp = exchange(srv, raw)
    assert status == 200 and resp == HERO_RESPONSE, (status, resp)
    srv.stop()


@case
def expect_100_continue_gets_continue_before_the_body():
    srv = Server()
    s = srv.connect()
    s.sendall(post(HERO, extra=b"Expect: 100-continue\r\n")[:-len(HERO)])
    first = s.recv(100)
    assert first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), first
    s.sendall(HERO)
    r = Reader(s)
    r.buf = first[len(b"HTTP/1.1 100 Continue\r\n\r\n"):]
    status, _, body = r.response()
    assert status == 200 and body == HERO_RESPONSE
    s.close()
    srv.stop()


@case
def body_over_the_limit_is_413():
    srv = Server("--max-body", "1024")
    big = b'{"query":"{ hero { name } }","x":"' + b"a" * 2000 + b'"}'
    status, h, _ = exchange(srv, post(big))
    assert status == 413 and h.get("connection") == "close", status
    # chunked: refused while reading, the limit holds without a length
    raw = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
           b"\r\nTransfer-Encoding: chunked\r\n\r\n" +
           b"".join(b"100\r\n" + b"a" * 256 + b"\r\n" for _ in range(8)))
    status, _, _ = exchange(srv, raw)
    assert status == 413, status
    # Expect: 100-continue with a too large body: no 100, a 413
    s = srv.connect()
    s.sendall(post(big, extra=b"Expect: 100-continue\r\n")[:-len(big)])
    status, _, _ = Reader(s).response()
    assert status == 413, status
    s.close()
    srv.stop()


@case
def refused_body_still_being_sent_gets_the_413_not_a_reset():
    import threading
    srv = Server("--max-body", "1024")
    for _ in range(5):
        s = srv.connect()
        head = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: "
                b"application/json\r\nContent-Length: 600000\r\n\r\n")

        def send():
            try:
                s.sendall(head)
                for _ in range(30):
                    s.sendall(b"a" * 20000)
                    time.sleep(0.001)
            except OSError:
                pass

        th = threading.Thread(target=send)
        th.start()
        status, h, _ = Reader(s).response()
        th.join()
        assert status == 413 and h.get("connection") == "close", status
        s.close()
    assert srv.alive()
    srv.stop()


@case
def malformed_request_lines_are_400():
    srv = Server()
    for raw in [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                b"GET /graphql HTTP/1.1\r\nBad Header\r\n\r\n",
                b"\x00\x01\x02\x03\r\n\r\n",
                b"POST /graphql HTTP/1.1\r\nContent-Length: 5\r\n"
                b"Content-Length: 7\r\n\r\nhello"]:
        status, h, _ = exchange(srv, raw)
        assert status == 400, (raw, status)
        assert h.get("connection") == "close"
    status, _, _ = exchange(srv, b"BREW /graphql HTTP/1.1\r\n\r\n")
    assert status == 400, status
    # a method llhttp knows but GraphQL does not use
    status, h, _ = exchange(srv, b"DELETE /graphql HTTP/1.1\r\n\r\n")
    assert status == 405 and "GET" in h.get("allow", ""), (status, h)
    assert exchange(srv, get("/health"))[0] == 200
    srv.stop()


@case
def oversized_headers_are_431_and_long_uris_414():
    srv = Server("--max-header-bytes", "4096", "--max-headers", "20")
    status, _, _ = exchange(srv, get("/health", b"X-Big: " + b"a" * 8000 + b"\r\n"))
    assert status == 431, status
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(30))
    status, _, _ = exchange(srv, get("/health", many))
    assert status == 431, status
    status, _, _ = exchange(srv, get("/graphql?query=" + "a" * 5000))
    assert status == 414, status
    assert exchange(srv, get("/health"))[0] == 200
    srv.stop()


@case
def graphql_over_http_status_codes():
    schema = tempfile.NamedTemporaryFile("w", suffix=".graphql", delete=False)
    schema.write("type Query { n: Int } type Mutation { m: Int }")
    schema.close()
    data = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    data.write('{"n": 7, "m": 8}')
    data.close()
    srv = Server("--schema", schema.name, "--data", data.name)
    gqlr = b"Accept: application/graphql-response+json\r\n"
    checks = [
        (post(b'{"query":"{ n }"}'), 200, b'{"data":{"n":7}}'),
        (get("/graphql?query=%7B%20n%20%7D"), 200, b'{"data":{"n":7}}'),
        (get("/graphql?query=mutation%7Bm%7D"), 405, None),
        (post(b'{"query":"mutation { m }"}'), 200, b'{"data":{"m":8}}'),
        (post(b'{"query":"{ n }"}', ctype="text/plain"), 415, None),
        (post(b'{"query":'), 400, None),
        (post(b'{"notquery":1}'), 400, None),
        (post(b'[1]'), 400, None),
        (post(b'{"query":"{ n }","variables":[]}'), 400, None),
        (post(b'{"query":"{"}'), 200, None),
        (post(b'{"query":"{"}', extra=gqlr), 400, None),
        (post(b'{"query":"{ x }"}', extra=gqlr), 400, None),
        (post(b'{"query":"{ n }"}', extra=gqlr), 200, b'{"data":{"n":7}}'),
        (post(b'{"query":"{ n }"}', extra=b"Accept: text/html\r\n"), 406, None),
        (post(b'{"query":"{ n }"}', path="/other"), 404, None),
        # PUT is graphql-sse's reservation (201, a token); other methods 405
        (b"PUT /graphql HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 201, None),
        (b"PATCH /graphql HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, None),
        (get("/health"), 200, b'{"status":"ok"}'),
    ]
    for raw, want, body in checks:
        status, h, got = exchange(srv, raw)
        assert status == want, (raw, status, got)
        if body is not None:
            assert got == body, (raw, got)
        if status == 405:
            assert "allow" in h, h
    srv.stop()
    os.unlink(schema.name)
    os.unlink(data.name)


@case
def stalled_client_times_out_without_leaking():
    srv = Server("--request-timeout", "300", "--idle-timeout", "400")
    base = srv.fds()
    socks = []
    for i in range(20):
        s = srv.connect()
        s.sendall(b"POST /graphql HTTP/1.1\r\nContent-Length: 100\r\n\r\n{" if i % 2
                  else b"GET /graph")
        socks.append(s)
    for s in socks:
        assert Reader(s).closed(timeout=3), "stalled request was not timed out"
        s.close()
    # slowloris: a byte every 100 ms keeps the request going past the limit
    s = srv.connect()
    start = time.time()
    closed = False
    for ch in b"GET /health HTTP/1.1\r\nX-A: " + b"a" * 100:
        try:
            s.send(bytes([ch]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.1)
        if time.time() - start > 3:
            break
    assert closed or Reader(s).closed(timeout=1), "slowloris was not cut off"
    assert time.time() - start < 3
    s.close()
    # idle keep-alive connection closes too
    s = srv.connect()
    s.sendall(get("/health"))
    r = Reader(s)
    assert r.response()[0] == 200
    assert r.closed(timeout=3)
    s.close()
    time.sleep(0.2)
    assert srv.fds() == base, (srv.fds(), base)
    srv.stop()


@case
def request_timeout_counts_from_each_request_not_the_connection():
    srv = Server("--request-timeout", "300")
    s = srv.connect()
    r = Reader(s)
    for _ in range(10):  # a second in all, each request quick
        raw = post(HERO)
        s.sendall(raw[:20])
        time.sleep(0.05)
        s.sendall(raw[20:])
        assert r.response()[2] == HERO_RESPONSE
        time.sleep(0.05)
    s.close()
    srv.stop()


@case
def http_1_0_keep_alive_is_acknowledged():
    srv = Server()
    s = srv.connect()
    s.sendall(b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
    r = Reader(s)
    status, h, _ = r.response()
    assert status == 200 and h.get("connection") == "keep-alive", h
    s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
    status, h, _ = r.response()
    assert status == 200 and h.get("connection") == "close", h
    assert r.closed()
    s.close()
    srv.stop()


@case
def client_disconnecting_mid_response_does_not_hurt():
    srv = Server()
    intro = json.dumps({"query": "{ __schema { types { name fields { name "
                        "args { name type { name } } type { name ofType "
                        "{ name } } } } } }"}).encode()
    for i in range(50):
        s = srv.connect()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.sendall(post(intro) * 20)
        if i % 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    # a client that never reads a big pipelined answer, then leaves
    s = srv.connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    try:
        for _ in range(200):
            s.sendall(post(intro) * 10)
    except (socket.timeout, TimeoutError, BrokenPipeError):
        pass
    s.close()
    assert srv.alive()
    assert exchange(srv, post(HERO))[2] == HERO_RESPONSE
    srv.stop()


@case
def ten_thousand_requests_on_one_connection_do_not_grow_memory():
    srv = Server()
    s = srv.connect()
    r = Reader(s)
    q = post(b'{"query":"{ hero { name friends { name } } }"}')

    def burst(n, depth=50):
        done = 0
        while done < n:
            k = min(depth, n - done)
            s.sendall(q * k)
            for _ in range(k):
                status, _, body = r.response()
                assert status == 200 and body.startswith(b'{"data"'), body
            done += k

    burst(1000)
    before = srv.rss_kib()
    burst(10000, depth=1)  # one after the other
    after = srv.rss_kib()
    assert after - before < 1024, f"RSS grew from {before} to {after} KiB"
    s.close()
    srv.stop()


@case
def client_pipelining_without_reading_cannot_pile_up_output():
    import threading
    srv = Server()
    q = ("{ __schema { types { name description kind fields { name description "
         "isDeprecated args { name description type { name kind } } type { "
         "name kind ofType { name kind } } } } } }")
    req = post(json.dumps({"query": q}).encode())
    s = srv.connect(timeout=30)
    base = srv.rss_kib()
    n = 4000  # about 50 MB of responses
    sender = threading.Thread(target=lambda: s.sendall(req * n))
    sender.start()
    time.sleep(1.5)  # not reading: the server must stop, not buffer
    grown = srv.rss_kib() - base
    r = Reader(s)
    first = r.response()
    for _ in range(n - 1):
        status, _, body = r.response()
        assert status == 200 and body == first[2]
    sender.join()
    assert grown < 12 * 1024, f"RSS grew {grown} KiB with an unread pipeline"
    s.close()
    srv.stop()


@case
def max_connections_refuses_the_extra_ones():
    srv = Server("--max-connections", "2")
    a, b = srv.connect(), srv.connect()
    a.sendall(get("/health"))
    assert Reader(a).response()[0] == 200
    b.sendall(get("/health"))
    assert Reader(b).response()[0] == 200
    c = srv.connect()
    assert Reader(c).closed(timeout=3)
    for x in (a, b, c):
        x.close()
    time.sleep(0.1)
    assert exchange(srv, get("/health"))[0] == 200
    srv.stop()


@case
def sigterm_stops_cleanly_with_open_connections():
    srv = Server("--threads", "2")
    idle = srv.connect()
    idle.sendall(get("/health"))
    assert Reader(idle).response()[0] == 200
    srv.proc.send_signal(signal.SIGTERM)
    assert Reader(idle).closed(timeout=5)
    # the socket closes before the process has finished exiting: wait for
    # it, so that stop() does not send a second SIGTERM (which kills a
    # server already stopping, as it should)
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    srv.stop()


@case
def access_log_at_info_level():
    srv = Server("--log-level", "info")
    s = srv.connect()
    s.sendall(post(b'{"query":"query Q { hero { name } }","operationName":"Q"}'))
    Reader(s).response()
    s.close()
    err = srv.stop()
    assert "POST /graphql 200 " in err and " Q" in err, err


def main():
    failed = 0
    for fn in CASES:
        if ONLY and fn.__name__ not in ONLY:
            continue
        start = time.time()
        try:
            fn()
            print(f"ok   {fn.__name__} ({time.time() - start:.2f}s)")
        except Exception as e:  # noqa: BLE001 - report every failure
            failed += 1
            print(f"FAIL {fn.__name__}: {e!r}")
    print(f"{len(CASES) - failed if not ONLY else '-'} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
