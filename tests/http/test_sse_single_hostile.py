#!/usr/bin/env python3
"""graphql-sse's single connection mode (src/http/sse.c, sse_single.c)
against clients that misbehave, over raw sockets on 127.0.0.1, on a real
`gql serve --threads 2 --redis` (and a real `gql gateway` for the relayed
subscriptions) with a real redis-server feeding the subscriptions:

- a flood of PUT reservations: exactly --max-connections are made, the rest
  get 503 "Too many event streams", the server's memory stays within a
  ceiling, and once the reservations expire PUTs are served again;
- tokens that are too long, not visible ASCII, badly escaped (400 "Invalid
  stream token"), a token of exactly 128 characters (kept as given), an
  empty token header (graphql-sse's default: a fresh UUID), a token reserved
  twice (409 "Stream already registered");
- a stream opened twice for one token (409 "Stream already open", the first
  stream serving on);
- operations for an unknown token (404 "Stream not found"), without an id
  (400 "Operation ID is missing"), with an id too long (400), with an id in
  use by a running subscription (409 "Operation with ID already exists"),
  a number as the id, an id free again once its operation completed;
- thousands of operations on one token: max_subscriptions_per_connection
  run, the rest 409 "Too many operations on this stream", memory bounded;
  thousands of queries on one token all answered on the stream;
- DELETE of unknown ids (200, as graphql-sse), without an id (400), of an
  unknown token (404), of a running subscription (200, its `complete`);
- results queued for streams never opened: bounded per stream and in all,
  and each stream, once opened, gets what was kept and ends; a burst of a
  600 KB event to 100 open streams is not cut by that shared bound;
- a stream client that stops reading while its subscriptions produce
  events: the output it may hold is bounded, the stream ends, its
  subscriptions stop (gql_subscriptions_open back to 0), the reservation
  goes (404), and the connection is dropped at the idle timeout;
- stream clients that leave mid-stream: their subscriptions stop, memory
  returns near where it was;
- a reservation whose time-to-live expires with a subscription posted to
  it: the subscription stops, the token is unknown;
- garbage pipelined after a PUT: the PUT is answered, then 400, and the
  reservation stands;
- through the gateway: a stream client leaving or not reading while its
  subscriptions are relayed from a subgraph: the relays stop on the gateway
  and on the subgraph.

gql serve and gql gateway exit 0 on SIGTERM after each case (under ASan:
without leaks).

Usage: test_sse_single_hostile.py GQL_BINARY [CASE...]
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

GQL = sys.argv[1]
ONLY = set(sys.argv[2:])
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peerkit import (child_env, free_port, read_responses, read_to_end, rss_kib,  # noqa: E402
                     run_cases, tcp_state, terminate)

TOKEN_HDR = "X-GraphQL-Event-Stream-Token"
UUID = re.compile(rb"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
BIG = "b" * 100000
SUB = "subscription { messages { text } }"
MAX_PER_STREAM = 100  # subscription.max_subscriptions_per_connection's default
IDLE_TIMEOUT = "3s"
HUB_MAX = 8 << 20  # sse_single.c's HUB_MAX_BYTES


# ------------------------------------------------------------ redis

class Redis:
    """A redis-server on a free port, and PUBLISH over RESP."""

    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port))
                break
            except OSError:
                time.sleep(0.025)
        else:
            raise AssertionError("redis-server did not start")

    def publish(self, channel, message):
        """PUBLISH; the number of subscribers that got it."""
        parts = [b"PUBLISH", channel.encode(), message.encode()]
        self.sock.sendall(b"*%d\r\n" % len(parts) +
                          b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        got = b""
        while not got.endswith(b"\r\n"):
            got += self.sock.recv(64)
        assert got.startswith(b":"), got
        return int(got[1:-2])

    def stop(self):
        self.sock.close()
        terminate(self.proc)


REDIS = None


# ------------------------------------------------------------ servers

class Server:
    """A gql process (serve or gateway) on a free port; its stderr kept."""

    probe = ("{ ok }", {"data": {"ok": True}})

    def __init__(self, args, name="gql"):
        self.dir = tempfile.TemporaryDirectory()
        self.name = name
        self.err = open(os.path.join(self.dir.name, "err"), "w+")
        self.proc = subprocess.Popen([GQL] + args + ["--port", "0"], env=child_env(),
                                     stdout=subprocess.PIPE, stderr=self.err)
        line = self.proc.stdout.readline().decode()
        if "on http://" not in line:
            raise AssertionError("%s did not start: %s%s" % (name, line, self.log()))
        self.port = int(line.rsplit(":", 1)[1].split("/")[0])

    def log(self):
        self.err.seek(0)
        return self.err.read()[-3000:]

    def request(self, method, body=None, headers=None, target="/graphql", timeout=20):
        """(status, content type, body) over a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = {"Content-Type": "application/json"} if body is not None else {}
        h.update(headers or {})
        conn.request(method, target, body, h)
        r = conn.getresponse()
        out = (r.status, r.getheader("Content-Type"), r.read())
        conn.close()
        return out

    def reserve(self):
        status, ctype, token = self.request("PUT")
        assert status == 201 and ctype == "text/plain; charset=utf-8" and UUID.match(token), \
            (status, ctype, token)
        return token.decode()

    def post(self, token, op_id, query=SUB, accept="application/json"):
        ext = {} if op_id is None else {"operationId": op_id}
        return self.request("POST", json.dumps({"query": query, "extensions": ext}),
                            {TOKEN_HDR: token, "Accept": accept})

    def delete(self, token, op_id=None, target=None):
        if target is None:
            target = "/graphql" if op_id is None else "/graphql?operationId=" + op_id
        return self.request("DELETE", None, {TOKEN_HDR: token}, target)

    def subs_open(self):
        status, _, body = self.request("GET", target="/metrics")
        assert status == 200, (status, body[:200])
        m = re.search(rb"^gql_subscriptions_open (\S+)$", body, re.M)
        return int(float(m.group(1))) if m else None

    def until_open(self, n, what, timeout=10):
        t0 = time.monotonic()
        v = None
        while time.monotonic() - t0 < timeout:
            v = self.subs_open()
            if v == n:
                return
            time.sleep(0.05)
        raise AssertionError("%s: gql_subscriptions_open %s, want %d (%s)" %
                             (self.name, v, n, what))

    def still_serves(self, what):
        status, _, body = self.request("POST", json.dumps({"query": self.probe[0]}),
                                       {"Accept": "application/json"})
        assert status == 200 and json.loads(body) == self.probe[1], (what, status, body[:300])
        self.alive(what)

    def alive(self, what):
        assert self.proc.poll() is None, (what, self.name + " died", self.log())

    def stop(self):
        rc = terminate(self.proc)
        log = self.log()
        self.err.close()
        self.dir.cleanup()
        assert rc == 0, "%s exited with %s: %s" % (self.name, rc, log)


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    return os.path.join(d, name)


class Serve(Server):
    def __init__(self, *extra):
        d = tempfile.mkdtemp()
        self.files = d
        schema = write(d, "s.graphql", "type Query { ok: Boolean big: String }\n"
                       "type Message { room: String, text: String! }\n"
                       "type Subscription { messages(room: String): Message }\n")
        data = write(d, "d.json", json.dumps({"ok": True, "big": BIG}))
        conf = write(d, "c.yaml", "server:\n  idle_timeout: %s\n" % IDLE_TIMEOUT)
        super().__init__(["serve", "--config", conf, "--threads", "2", "--schema", schema,
                          "--data", data, "--redis", "redis://127.0.0.1:%d" % REDIS.port]
                         + list(extra), "gql serve")

    def stop(self):
        super().stop()
        for f in os.listdir(self.files):
            os.unlink(os.path.join(self.files, f))
        os.rmdir(self.files)


def refusal(resp, status, message):
    """resp is graphql-sse's refusal: status, JSON {"errors":[{message}]}."""
    st, ctype, body = resp
    assert st == status, (status, message, st, body[:300])
    if message is None:
        return
    assert ctype == "application/json; charset=utf-8", (message, ctype)
    assert json.loads(body) == {"errors": [{"message": message}]}, (message, body[:300])


# ------------------------------------------------------------ the stream

def decode_chunks(data):
    """The chunked body in `data` so far: (bytes, ended)."""
    out, i = b"", 0
    while True:
        j = data.find(b"\r\n", i)
        if j < 0:
            return out, False
        n = int(data[i:j], 16)
        if n == 0:
            return out, True
        if len(data) < j + 2 + n + 2:
            return out, False
        out += data[j + 2:j + 2 + n]
        assert data[j + 2 + n:j + 4 + n] == b"\r\n", data[j:j + n + 8][:100]
        i = j + 4 + n


class Stream:
    """A reservation's event stream on its own socket (raw)."""

    def __init__(self, srv, token, rcvbuf=None, via_query=False):
        self.s = socket.socket()
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.connect(("127.0.0.1", srv.port))
        target = "/graphql?token=" + token if via_query else "/graphql"
        hdr = "" if via_query else "%s: %s\r\n" % (TOKEN_HDR, token)
        self.s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n%s\r\n"
                        % (target, hdr)).encode())
        self.raw = b""
        self.head = None
        self.s.settimeout(10)
        while b"\r\n\r\n" not in self.raw:
            d = self.s.recv(65536)
            assert d, ("the stream's connection closed", self.raw)
            self.raw += d
        head, _, self.raw = self.raw.partition(b"\r\n\r\n")
        self.head = head.decode("latin-1")

    def ok(self):
        return self.head.startswith("HTTP/1.1 200") and \
            "text/event-stream" in self.head.lower()

    def events(self):
        """(events so far as (event, data) pairs, whether the body ended)."""
        body, ended = decode_chunks(self.raw)
        evs = []
        for block in body.split(b"\n\n"):
            lines = block.split(b"\n")
            ev = [l[7:].decode() for l in lines if l.startswith(b"event: ")]
            data = [l[5:].strip() for l in lines if l.startswith(b"data:")]
            if ev:
                evs.append((ev[0], json.loads(data[0]) if data and data[0] else None))
        return evs, ended

    def read_until(self, pred, timeout=10, what=""):
        t0 = time.monotonic()
        while True:
            evs, ended = self.events()
            if pred(evs, ended):
                return evs, ended
            left = timeout - (time.monotonic() - t0)
            assert left > 0, ("stream: never " + what, evs[-5:], ended)
            self.s.settimeout(left)
            try:
                d = self.s.recv(1 << 20)
            except socket.timeout:
                continue
            if not d:
                evs, ended = self.events()
                assert pred(evs, ended), ("stream: closed before " + what, evs[-5:], ended)
                return evs, ended
            self.raw += d

    def reset(self):
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.s.close()

    def close(self):
        self.s.close()


def completed(evs, op_id):
    return ("complete", {"id": op_id}) in evs


def pipelined(port, reqs, n=None):
    """Sends the raw requests in one go on one connection; their responses."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"".join(reqs))
    s.shutdown(socket.SHUT_WR)
    got, rest = read_responses(read_to_end(s, 60), len(reqs) if n is None else n)
    s.close()
    return got, rest


def raw(method, target="/graphql", headers=(), body=b""):
    h = "".join("%s: %s\r\n" % kv for kv in headers)
    if body or method in ("POST", "PUT"):
        h += "Content-Length: %d\r\n" % len(body)
    return ("%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (method, target, h)).encode() + body


def raw_op(token, op_id, query=SUB):
    body = json.dumps({"query": query, "extensions": {"operationId": op_id}}).encode()
    return raw("POST", headers=((TOKEN_HDR, token), ("Content-Type", "application/json"),
                                ("Accept", "application/json")), body=body)


def feed(stream, channel, message, pred, what, timeout=10):
    """Publishes `message` every 50 ms until the stream's events satisfy
    pred (a worker subscribes to redis asynchronously)."""
    t0 = time.monotonic()
    while True:
        REDIS.publish(channel, message)
        try:
            return stream.read_until(pred, timeout=0.05, what=what)
        except AssertionError:
            assert time.monotonic() - t0 < timeout, ("never: " + what, stream.events()[0][-5:])


def has_next(op_id):
    return lambda e, _: any(x[0] == "next" and x[1]["id"] == op_id for x in e)


WARM = json.dumps({"text": "warm"})


# ------------------------------------------------------------ cases

def case_reservation_flood(srv):
    """--max-connections 2000: 2000 PUTs get a token each, the next 500
    503 "Too many event streams", memory stays under 12 MiB of growth
    (a reservation is about 0.5 KiB); once they expire (ttl 6 s), a PUT
    is served again and the early tokens are unknown."""
    srv.still_serves("warm")
    base = rss_kib(srv.proc.pid)
    t0 = time.monotonic()
    got, rest = pipelined(srv.port, [raw("PUT")] * 2500)
    took = time.monotonic() - t0
    assert took < 5, "2500 PUTs took %.1f s (the ttl is 6 s)" % took
    assert rest == b"", rest[:100]
    made = [b for st, _, b in got if st == 201]
    assert len(made) == 2000 and all(UUID.match(t) for t in made), len(made)
    assert len(set(made)) == 2000, "tokens repeat"
    assert [st for st, _, _ in got[:2000]] == [201] * 2000
    for st, ctype, body in got[2000:]:
        refusal((st, ctype, body), 503, "Too many event streams")
    grown = rss_kib(srv.proc.pid) - base
    assert grown < 12 * 1024, "2000 reservations grew RSS by %d KiB" % grown
    refusal(srv.request("PUT"), 503, "Too many event streams")
    srv.still_serves("full")
    deadline = time.monotonic() + 15
    while srv.request("PUT")[0] != 201:
        assert time.monotonic() < deadline, "the reservations never expired"
        time.sleep(0.2)
    refusal(srv.post(made[0].decode(), "x", "{ ok }"), 404, "Stream not found")


def case_tokens(srv):
    a128 = "a" * 128
    st, _, body = srv.request("PUT", None, {TOKEN_HDR: a128})
    assert st == 201 and body == a128.encode(), (st, body[:200])
    refusal(srv.request("PUT", None, {TOKEN_HDR: a128}), 409, "Stream already registered")
    st, _, body = srv.request("PUT", None, {}, "/graphql?token=%7Eq%2Bz")
    assert st == 201 and body == b"~q+z", (st, body)  # decoded
    refusal(srv.post("~q+z", "1", "{ ok }"), 202, None)  # the same token by the header
    for tok in ("a" * 129, "a b", "\u00e9t\u00e9".encode().decode("latin-1")):
        for method in ("PUT", "DELETE", "POST"):
            refusal(srv.request(method, "{}" if method == "POST" else None,
                                {TOKEN_HDR: tok}, "/graphql?operationId=1"),
                    400, "Invalid stream token")
        resp = srv.request("GET", None, {TOKEN_HDR: tok, "Accept": "text/event-stream"})
        refusal(resp, 400, "Invalid stream token")
    for q in ("%zz", "%C3%A9", "a%20b", "%00", "x" * 129, "%"):
        refusal(srv.request("PUT", None, {}, "/graphql?token=" + q), 400, "Invalid stream token")
        refusal(srv.request("GET", None, {"Accept": "text/event-stream"},
                            "/graphql?token=" + q), 400, "Invalid stream token")
    # the header wins over the query parameter
    st, _, body = srv.request("PUT", None, {TOKEN_HDR: "hdr"}, "/graphql?token=%zz")
    assert st == 201 and body == b"hdr", (st, body)
    # an empty token header is none: graphql-sse's default authenticate
    # makes a fresh one for a PUT
    st, _, body = srv.request("PUT", None, {TOKEN_HDR: ""})
    assert st == 201 and UUID.match(body), (st, body)
    # an empty token parameter, though, is refused as any bad token
    refusal(srv.request("PUT", None, {}, "/graphql?token="), 400, "Invalid stream token")
    refusal(srv.request("PUT", None, {"Accept": "application/json"}), 406, None)
    # header values the HTTP parser itself refuses: 400, nothing reserved
    got, _ = pipelined(srv.port, [raw("PUT", headers=((TOKEN_HDR, "a\x01b"),))], 1)
    assert got[0][0] == 400, got
    srv.still_serves("tokens")


def case_stream_opened_twice(srv):
    tok = srv.reserve()
    first = Stream(srv, tok)
    assert first.ok(), first.head
    for via_query in (False, True):
        second = socket.create_connection(("127.0.0.1", srv.port))
        target = "/graphql?token=" + tok if via_query else "/graphql"
        hdr = "" if via_query else "%s: %s\r\n" % (TOKEN_HDR, tok)
        second.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                        "Connection: close\r\n%s\r\n" % (target, hdr)).encode())
        got, _ = read_responses(read_to_end(second), 1)
        second.close()
        refusal(got[0], 409, "Stream already open")
    refusal(srv.request("PUT", None, {TOKEN_HDR: tok}), 409, "Stream already registered")
    # the first stream serves on
    refusal(srv.post(tok, "q", "{ ok }"), 202, None)
    evs, _ = first.read_until(lambda e, _: completed(e, "q"), what="q's complete")
    assert ("next", {"id": "q", "payload": {"data": {"ok": True}}}) in evs, evs
    first.close()


def case_unknown_token(srv):
    refusal(srv.post("nope", "1", "{ ok }"), 404, "Stream not found")
    refusal(srv.delete("nope", "1"), 404, "Stream not found")
    # GET with an unknown token and an event stream: distinct connections
    # mode (as graphql-sse), here without a query: refused, not a stream
    st, _, body = srv.request("GET", None, {TOKEN_HDR: "nope", "Accept": "text/event-stream"})
    assert st == 400, (st, body[:200])
    # ... with a query: the operation's own stream, which ends
    st, ctype, body = srv.request("GET", None, {TOKEN_HDR: "nope", "Accept": "text/event-stream"},
                                  "/graphql?query=%7Bok%7D")
    assert st == 200 and ctype.startswith("text/event-stream"), (st, ctype)
    assert b'event: next\ndata: {"data":{"ok":true}}' in body and b"event: complete" in body, body
    # a token whose stream closed: gone with its reservation
    tok = srv.reserve()
    s = Stream(srv, tok)
    s.close()
    deadline = time.monotonic() + 5
    while srv.post(tok, "1", "{ ok }")[0] != 404:
        assert time.monotonic() < deadline, "the closed stream's reservation stayed"
        time.sleep(0.05)
    refusal(srv.post(tok, "1", "{ ok }"), 404, "Stream not found")


def case_operation_ids(srv):
    tok = srv.reserve()
    s = Stream(srv, tok)
    refusal(srv.post(tok, "s1"), 202, None)
    srv.until_open(1, "s1 running")
    refusal(srv.post(tok, "s1"), 409, "Operation with ID already exists")
    refusal(srv.post(tok, "s1", "{ ok }"), 409, "Operation with ID already exists")
    refusal(srv.post(tok, None, "{ ok }"), 400, "Operation ID is missing")
    refusal(srv.post(tok, "", "{ ok }"), 400, "Operation ID is missing")
    refusal(srv.post(tok, "i" * 129, "{ ok }"), 400, "Invalid operation ID")
    refusal(srv.post(tok, "i" * 128, "{ ok }"), 202, None)
    refusal(srv.post(tok, 7, "{ ok }"), 202, None)  # a number: String(7)
    refusal(srv.post(tok, "q", "{ ok }"), 202, None)
    evs, _ = s.read_until(lambda e, _: completed(e, "q") and completed(e, "7"), what="q, 7")
    assert ("next", {"id": "7", "payload": {"data": {"ok": True}}}) in evs, evs
    refusal(srv.post(tok, "q", "{ ok }"), 202, None)  # free again once completed
    s.read_until(lambda e, _: [x for x in e if x == ("complete", {"id": "q"})][1:] != [],
                 what="the second q")
    feed(s, "gql:messages", WARM, has_next("s1"), "s1's event")
    assert srv.subs_open() == 1
    refusal(srv.delete(tok, "s1"), 200, None)
    s.read_until(lambda e, _: completed(e, "s1"), what="s1's complete")
    srv.until_open(0, "s1 deleted")
    refusal(srv.post(tok, "s1"), 202, None)  # free again once deleted
    srv.until_open(1, "s1 again")
    s.close()
    srv.until_open(0, "the stream closed")


def case_delete(srv):
    tok = srv.reserve()
    s = Stream(srv, tok)
    refusal(srv.delete(tok, "unknown"), 200, None)  # graphql-sse: deletes nothing, 200
    refusal(srv.delete(tok), 400, "Operation ID is missing")
    refusal(srv.delete(tok, target="/graphql?operationId="), 400, "Operation ID is missing")
    refusal(srv.delete(tok, target="/graphql?operationId=%zz"), 400, "Invalid operation ID")
    refusal(srv.delete(tok, "d" * 129), 400, "Invalid operation ID")
    refusal(srv.delete("other", "x"), 404, "Stream not found")
    refusal(srv.post(tok, "a"), 202, None)
    refusal(srv.post(tok, "b"), 202, None)
    srv.until_open(2, "a, b")
    # a thousand DELETEs of unknown ids (pipelined): each 200, nothing stops
    got, _ = pipelined(srv.port, [raw("DELETE", "/graphql?operationId=u%d" % i,
                                      ((TOKEN_HDR, tok),)) for i in range(1000)])
    assert [g[0] for g in got] == [200] * 1000, set(g[0] for g in got)
    assert srv.subs_open() == 2
    refusal(srv.delete(tok, "a"), 200, None)
    evs, _ = s.read_until(lambda e, _: completed(e, "a"), what="a's complete")
    srv.until_open(1, "a deleted")
    refusal(srv.delete(tok, "a"), 200, None)  # again: unknown now
    assert not completed(evs, "b")
    feed(s, "gql:messages", WARM, has_next("b"), "b's event after a's DELETE")
    s.close()
    srv.until_open(0, "the stream closed")


def case_thousands_of_operations(srv):
    """2000 subscriptions POSTed (pipelined) to one stream: the first 100
    run, the rest get 409; memory grows by under 16 MiB. Then 3000 queries
    on it: all answered, each its next and complete on the stream."""
    tok = srv.reserve()
    s = Stream(srv, tok)
    srv.still_serves("warm")
    base = rss_kib(srv.proc.pid)
    got, _ = pipelined(srv.port, [raw_op(tok, "s%d" % i) for i in range(2000)])
    sts = [g[0] for g in got]
    assert sts[:MAX_PER_STREAM] == [202] * MAX_PER_STREAM, sts[:MAX_PER_STREAM]
    for g in got[MAX_PER_STREAM:]:
        refusal(g, 409, "Too many operations on this stream")
    srv.until_open(MAX_PER_STREAM, "the first 100")
    grown = rss_kib(srv.proc.pid) - base
    assert grown < 16 * 1024, "2000 POSTs grew RSS by %d KiB" % grown
    s.close()
    srv.until_open(0, "the stream closed")
    tok = srv.reserve()
    s = Stream(srv, tok)
    n = 3000
    got, _ = pipelined(srv.port, [raw_op(tok, "q%d" % i, "{ ok }") for i in range(n)])
    assert [g[0] for g in got] == [202] * n, set(g[0] for g in got)
    evs, _ = s.read_until(lambda e, _: sum(1 for x in e if x[0] == "complete") == n,
                          timeout=60, what="3000 completes")
    nexts = {x[1]["id"] for x in evs if x[0] == "next"}
    assert nexts == {"q%d" % i for i in range(n)}, len(nexts)
    s.close()
    srv.still_serves("thousands")


def case_queued_before_the_stream(srv):
    """Ten reservations whose streams are not open, each POSTed 200
    results of 100 KB (200 MB in all): a hub keeps at most 8 MiB, all of
    them together 32 MiB (sse_single.c's QUEUED_MAX_BYTES), so memory
    stops growing once four hubs are full (the last six reservations grow
    it by under 16 MiB; without the shared budget, each took 8 MiB more);
    each stream, once opened, gets what was kept of its results (whole
    events) and ends; the reservations are then gone."""
    srv.still_serves("warm")
    base = rss_kib(srv.proc.pid)
    toks = []
    mid = None
    for r in range(10):
        tok = srv.reserve()
        toks.append(tok)
        got, _ = pipelined(srv.port, [raw_op(tok, "b%d" % i, "{ big }") for i in range(200)])
        assert [g[0] for g in got] == [202] * 200, set(g[0] for g in got)
        if r == 3:
            time.sleep(0.3)
            mid = rss_kib(srv.proc.pid)
    time.sleep(0.3)
    end = rss_kib(srv.proc.pid)
    assert end - mid < 16 * 1024 and end - base < 128 * 1024, \
        "200 MB of results for unopened streams: RSS +%d KiB, +%d KiB over the last six" \
        % (end - base, end - mid)
    kept = 0
    for tok in toks:
        s = Stream(srv, tok)
        evs, ended = s.read_until(lambda e, ended: ended, what="the end")
        nexts = [x for x in evs if x[0] == "next"]
        assert len(nexts) < 200, len(nexts)
        assert all(x[1]["payload"] == {"data": {"big": BIG}} for x in nexts)
        assert len(s.raw) <= HUB_MAX + 4096, len(s.raw)
        kept += len(s.raw)
        s.close()
        refusal(srv.post(tok, "x", "{ ok }"), 404, "Stream not found")
    assert 0 < kept <= (32 << 20) + 8 * 4096, kept
    # the budget is back: a new reservation's results are kept
    tok = srv.reserve()
    refusal(srv.post(tok, "b", "{ big }"), 202, None)
    s = Stream(srv, tok)
    s.read_until(lambda e, _: completed(e, "b"), what="b after the overflows")
    s.close()
    srv.still_serves("after the overflow")
    # the log says why those streams ended (not "does not read")
    assert "events came for a stream not yet open past the queues' limit" in srv.log(), \
        srv.log()


def case_event_burst_to_many_streams(srv):
    """100 open streams, a subscription each, one event of 600 KB (gql
    serve's events are at most 1 MiB): 60 MB queued at once in the hubs (a
    worker fans the event out before the streams' owners drain), past what
    unopened streams may hold together (32 MiB),
    yet every stream gets it and stays open: the shared bound is for
    streams not open."""
    streams = []
    for i in range(100):
        tok = srv.reserve()
        s = Stream(srv, tok)
        refusal(srv.post(tok, "s"), 202, None)
        streams.append(s)
    srv.until_open(100, "100 streams subscribed")
    for s in streams:  # every subscription hears events
        feed(s, "gql:messages", WARM, has_next("s"), "a warm event")
    big = "e" * 600000
    REDIS.publish("gql:messages", json.dumps({"text": big}))
    for i, s in enumerate(streams):
        evs, ended = s.read_until(
            lambda e, _: any(x[0] == "next" and x[1]["payload"]["data"]["messages"]["text"] == big
                             for x in e), timeout=20, what="the 600 KB event on stream %d" % i)
        assert not ended, i
    assert srv.subs_open() == 100
    for s in streams:
        s.close()
    srv.until_open(0, "the streams closed")


def stuck_stream(srv, n_subs, publish, count_on, query=SUB):
    """A stream client that reads its head and then nothing while n_subs
    subscriptions on it receive 64 KB events: the stream ends, every
    subscription stops, the reservation goes, memory stays bounded, and
    the connection is dropped at the idle timeout. `publish(i)` sends event
    i; `count_on` are the servers whose gql_subscriptions_open go back."""
    tok = srv.reserve()
    s = Stream(srv, tok, rcvbuf=4096)
    for i in range(n_subs):
        refusal(srv.post(tok, "s%d" % i, query), 202, None)
    for x in count_on:
        x.until_open(n_subs, "subscribed")
    srv.still_serves("warm")
    base = rss_kib(srv.proc.pid)
    peak = base
    sent = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20:
        publish(sent)
        sent += 1
        if sent % 10 == 0:
            peak = max(peak, rss_kib(srv.proc.pid))
            if srv.subs_open() == 0:
                break
    else:
        raise AssertionError("the stuck stream's %d subscriptions never stopped (%d events)"
                             % (n_subs, sent))
    # more than the bound went to the stuck client
    assert sent * n_subs * 65536 > HUB_MAX, sent
    assert peak - base < 4 * HUB_MAX // 1024, "RSS grew %d KiB" % (peak - base)
    for x in count_on:
        x.until_open(0, "the stuck stream ended")
    refusal(srv.post(tok, "late", "{ ok }"), 404, "Stream not found")
    srv.still_serves("a stuck stream")
    time.sleep(4)  # the idle timeout (3 s)
    state = tcp_state(srv.port, s.s.getsockname()[1])
    s.close()
    assert state not in ("01", None), "the server's socket is still open (%s)" % state


def case_stream_client_stops_reading(srv):
    ev = json.dumps({"text": "t" * 65536})
    stuck_stream(srv, 4, lambda i: REDIS.publish("gql:messages", ev), [srv])
    srv.still_serves("after")


def case_clients_leave_mid_stream(srv):
    srv.still_serves("warm")
    base = None
    for round_ in range(12):
        tok = srv.reserve()
        s = Stream(srv, tok)
        for i in range(10):
            refusal(srv.post(tok, "s%d" % i), 202, None)
        refusal(srv.post(tok, "b", "{ big }"), 202, None)
        srv.until_open(10, "round %d" % round_)
        feed(s, "gql:messages", WARM,
             lambda e, _: len({x[1]["id"] for x in e if x[0] == "next"}) == 11,
             "an event of each")
        if round_ % 2:
            s.reset()
        else:
            s.close()
        srv.until_open(0, "round %d: the client left" % round_)
        refusal(srv.post(tok, "x", "{ ok }"), 404, "Stream not found")
        if round_ == 1:
            base = rss_kib(srv.proc.pid)
    grown = rss_kib(srv.proc.pid) - base
    assert grown < 16 * 1024, "10 rounds grew RSS by %d KiB" % grown
    srv.still_serves("clients gone")


def case_reservation_expires(srv):
    """--subscription-sse-reservation-ttl 500: a subscription posted to a
    reservation whose stream never opens stops when it expires; a
    reservation whose stream opened stays."""
    tok = srv.reserve()
    kept = srv.reserve()
    s = Stream(srv, kept)
    refusal(srv.post(tok, "s"), 202, None)
    srv.until_open(1, "posted")
    srv.until_open(0, "the reservation expired", timeout=5)
    refusal(srv.post(tok, "t", "{ ok }"), 404, "Stream not found")
    refusal(srv.delete(tok, "s"), 404, "Stream not found")
    st, _, _ = srv.request("GET", None, {TOKEN_HDR: tok, "Accept": "text/event-stream"})
    assert st == 400, st  # no reservation: distinct mode, no query
    time.sleep(1)
    refusal(srv.post(kept, "k", "{ ok }"), 202, None)
    s.read_until(lambda e, _: completed(e, "k"), what="k on the kept stream")
    s.close()


def case_pipelined_garbage_after_put(srv):
    got, rest = pipelined(srv.port, [raw("PUT"), b"\x00\xffGARBAGE / HTTP/9\r\n\r\n",
                                     raw("PUT")], 2)
    assert got[0][0] == 201 and UUID.match(got[0][2]), got[0]
    assert got[1][0] == 400, got[1]
    assert rest == b"", rest[:100]  # the connection closed after the 400
    tok = got[0][2].decode()
    s = Stream(srv, tok)
    assert s.ok(), s.head
    # a PUT with a body, a PUT with its token, pipelined: both made
    got, _ = pipelined(srv.port, [raw("PUT", body=b"ignored body"),
                                  raw("PUT", headers=((TOKEN_HDR, "mine"),))])
    assert got[0][0] == 201 and UUID.match(got[0][2]), got[0]
    assert got[1][0] == 201 and got[1][2] == b"mine", got[1]
    # a PUT cut mid-head, the client gone: nothing reserved, the server on
    c = socket.create_connection(("127.0.0.1", srv.port))
    c.sendall(b"PUT /graphql HTTP/1.1\r\nHost: x\r\n" + TOKEN_HDR.encode() + b": cut")
    c.close()
    time.sleep(0.2)
    refusal(srv.post("cut", "1", "{ ok }"), 404, "Stream not found")
    refusal(srv.post(tok, "1", "{ ok }"), 202, None)
    s.read_until(lambda e, _: completed(e, "1"), what="1 on the stream")
    s.close()
    srv.still_serves("garbage")


# ------------------------------------------------------------ the gateway

class Gateway:
    """gql gateway over a products subgraph (gql serve --subgraph --redis)
    whose subscriptions it relays."""

    def __init__(self):
        d = tempfile.mkdtemp()
        self.files = d
        sdl = ('extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", '
               'import: ["@key"])\n'
               "type Query { topProducts: [Product] }\n"
               'type Product @key(fields: "upc") { upc: String! name: String }\n'
               "type Subscription { productAdded: Product }\n")
        self.sub = Server(["serve", "--subgraph", "--threads", "1",
                           "--schema", write(d, "p.graphql", sdl),
                           "--data", write(d, "p.json", '{"topProducts": []}'),
                           "--redis", "redis://127.0.0.1:%d" % REDIS.port], "subgraph")
        sg = ('enum join__Graph {\n  PRODUCTS @join__graph(name: "products", '
              'url: "http://127.0.0.1:%d/graphql")\n}\n'
              "type Query @join__type(graph: PRODUCTS) {\n"
              "  topProducts: [Product] @join__field(graph: PRODUCTS)\n}\n"
              "type Subscription @join__type(graph: PRODUCTS) {\n"
              "  productAdded: Product @join__field(graph: PRODUCTS)\n}\n"
              'type Product @join__type(graph: PRODUCTS, key: "upc") {\n'
              "  upc: String!\n  name: String\n}\n" % self.sub.port)
        conf = write(d, "c.yaml", "server:\n  idle_timeout: %s\n" % IDLE_TIMEOUT)
        try:
            self.gw = Server(["gateway", "--config", conf, "--threads", "2",
                              "--supergraph", write(d, "sg.graphql", sg)], "gql gateway")
        except Exception:
            self.sub.stop()
            raise
        self.gw.probe = ("{ topProducts { upc } }", {"data": {"topProducts": []}})
        self.port = self.gw.port
        self.proc = self.gw.proc

    def log(self):
        return "gateway: " + self.gw.log() + "\nsubgraph: " + self.sub.log()

    def stop(self):
        try:
            self.gw.stop()
        finally:
            self.sub.stop()
            for f in os.listdir(self.files):
                os.unlink(os.path.join(self.files, f))
            os.rmdir(self.files)


GW_SUB = "subscription { productAdded { upc name } }"


def gcase_gateway_client_leaves(g):
    gw = g.gw
    for round_ in range(4):
        tok = gw.reserve()
        s = Stream(gw, tok)
        for i in range(5):
            refusal(gw.post(tok, "p%d" % i, GW_SUB), 202, None)
        refusal(gw.post(tok, "p0", GW_SUB), 409, "Operation with ID already exists")
        gw.until_open(5, "relayed")
        g.sub.until_open(5, "on the subgraph")
        feed(s, "gql:productAdded", json.dumps({"upc": "w", "name": "warm"}),
             lambda e, _: len({x[1]["id"] for x in e if x[0] == "next"}) == 5,
             "an event on each relay")
        if round_ == 0:
            refusal(gw.delete(tok, "p0"), 200, None)
            s.read_until(lambda e, _: completed(e, "p0"), what="p0's complete")
            gw.until_open(4, "p0 deleted")
            g.sub.until_open(4, "p0 deleted, on the subgraph")
        if round_ % 2:
            s.reset()
        else:
            s.close()
        gw.until_open(0, "the stream's client left")
        g.sub.until_open(0, "the relays stopped on the subgraph")
        refusal(gw.post(tok, "x", GW_SUB), 404, "Stream not found")
    st, _, body = gw.request("POST", json.dumps({"query": "{ topProducts { upc } }"}),
                             {"Accept": "application/json"})
    assert st == 200 and json.loads(body) == {"data": {"topProducts": []}}, (st, body)


def gcase_gateway_client_stops_reading(g):
    ev = json.dumps({"upc": "u", "name": "n" * 65536})
    stuck_stream(g.gw, 4, lambda i: REDIS.publish("gql:productAdded", ev), [g.gw, g.sub],
                 GW_SUB)


SERVE_CASES = [
    (case_reservation_flood, ("--max-connections", "2000",
                              "--subscription-sse-reservation-ttl", "6000")),
    (case_tokens, ()),
    (case_stream_opened_twice, ()),
    (case_unknown_token, ()),
    (case_operation_ids, ()),
    (case_delete, ()),
    (case_thousands_of_operations, ()),
    (case_queued_before_the_stream, ()),
    (case_event_burst_to_many_streams, ()),
    (case_stream_client_stops_reading, ()),
    (case_clients_leave_mid_stream, ()),
    (case_reservation_expires, ("--subscription-sse-reservation-ttl", "500")),
    (case_pipelined_garbage_after_put, ()),
]
GATEWAY_CASES = [gcase_gateway_client_leaves, gcase_gateway_client_stops_reading]


def main():
    global REDIS
    REDIS = Redis()
    try:
        failed = 0
        for case, flags in SERVE_CASES:
            failed |= run_cases([case], lambda f=flags: Serve(*f), ONLY)
        gw = [c for c in GATEWAY_CASES]
        for c in gw:  # run_cases names a case by what follows "case_"
            c.__name__ = "case_" + c.__name__[6:]
        failed |= run_cases(gw, Gateway, ONLY)
        return failed
    finally:
        REDIS.stop()


if __name__ == "__main__":
    sys.exit(main())
