"""Fake benchmark subgraphs for the gateway socket tests.

Four HTTP/1.1 keep-alive servers on 127.0.0.1 (accounts, inventory, products,
reviews), each on its own port, answering with the benchmark's data and
quirks (gateway-bench/README.md): a small GraphQL selection interpreter over
Python data, enough for the operations the gateway sends (root fields,
aliased `_entities` with inline fragments). Each server counts the
connections it accepted and the requests it answered, and can be told to
misbehave (mode) to test the gateway's failure handling.
"""
import json
import os
import re
import socket
import socketserver
import struct
import threading
import time

BENCH = None  # set by load(bench_dir)
PROBE = b'{"query":"{__typename}"}'  # gql gateway's readiness probe

USERS = [("1", "Uri Goldshtein", "urigo"), ("2", "Dotan Simha", "dotansimha"),
         ("3", "Kamil Kisiela", "kamilkisiela"), ("4", "Arda Tanrikulu", "ardatan"),
         ("5", "Gil Gardosh", "gilgardosh"), ("6", "Laurin Quast", "laurin")]
PRODUCTS = [("1", "Table", 899, 100), ("2", "Couch", 1299, 1000), ("3", "Glass", 15, 20),
            ("4", "Chair", 499, 100), ("5", "TV", 1299, 1000), ("6", "Lamp", 6999, 300),
            ("7", "Grill", 3999, 2000), ("8", "Fridge", 100000, 6000), ("9", "Sofa", 9999, 800)]
IN_STOCK = {"1": True, "2": False, "3": False, "4": False, "5": True, "6": True,
            "7": True, "8": False, "9": True}


def user(u):
    return {"__t": "User", "id": u[0], "name": u[1], "username": u[2],
            "birthday": 1234567890}


def product(p):
    return {"__t": "Product", "upc": p[0], "name": p[1], "price": p[2], "weight": p[3]}


class Data:
    def __init__(self, bench_dir):
        with open(os.path.join(bench_dir, "peers", "reviews-data.json")) as f:
            self.reviews = json.load(f)

    def review(self, r):
        return {"__t": "Review", "id": r["id"], "body": r["body"],
                "product": lambda: self.entity(
                    "reviews", {"__typename": "Product", "upc": r["upc"]}),
                "author": lambda: {"__t": "User", "id": "1", "username": "urigo",
                                   "reviews": self.first_two}}

    def first_two(self):
        return [self.review(r) for r in self.reviews[:2]]

    def entity(self, graph, rep):
        t = rep.get("__typename")
        if graph == "accounts" and t == "User":
            return next((user(u) for u in USERS if u[0] == rep.get("id")), None)
        if graph == "products" and t == "Product":
            return next((product(p) for p in PRODUCTS if p[0] == rep.get("upc")), None)
        if graph == "inventory" and t == "Product":
            # the Rust resolver ignores price/weight: shippingEstimate is null
            return {"__t": "Product", "upc": rep["upc"], "inStock": IN_STOCK.get(rep["upc"]),
                    "price": None, "weight": None, "shippingEstimate": None}
        if graph == "reviews" and t == "User":
            return {"__t": "User", "id": rep["id"], "username": "user",
                    "reviews": self.first_two}
        if graph == "reviews" and t == "Product":
            upc = rep["upc"]
            return {"__t": "Product", "upc": upc,
                    "reviews": lambda: [self.review(r) for r in self.reviews if r["upc"] == upc]}
        return None

    def root(self, graph, field, args, variables):
        if field == "_entities":
            reps = args.get("representations")
            if isinstance(reps, str):
                reps = variables.get(reps)
            return [self.entity(graph, r) for r in reps or []]
        if graph == "accounts" and field == "users":
            return [user(u) for u in USERS]
        if graph == "accounts" and field == "me":
            return user(USERS[0])
        if graph == "products" and field == "topProducts":
            first = args.get("first", 5)
            if isinstance(first, str):
                first = variables.get(first, 5)
            return [product(p) for p in PRODUCTS[:first]]
        raise KeyError(field)


# ---------------------------------------------------------------- GraphQL

TOKEN = re.compile(r'\s*(\.\.\.|[{}():\[\]!$,=]|[_A-Za-z][_0-9A-Za-z]*|-?\d+|"(?:[^"\\]|\\.)*")')


def tokenize(text):
    out, i = [], 0
    while i < len(text):
        m = TOKEN.match(text, i)
        if not m:
            if text[i:].strip() == "":
                break
            raise ValueError("bad query at %d" % i)
        out.append(m.group(1))
        i = m.end()
    return [t for t in out if t != ","]


class Parser:
    def __init__(self, text):
        self.t = tokenize(text)
        self.i = 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok != want:
            raise ValueError("expected %s, got %s" % (want, tok))
        self.i += 1
        return tok

    def document(self):
        if self.peek() == "query":
            self.take()
            if self.peek() not in ("{", "("):
                self.take()
            if self.peek() == "(":
                depth = 0
                while True:
                    tok = self.take()
                    depth += tok == "("
                    depth -= tok == ")"
                    if depth == 0:
                        break
        return self.selection_set()

    def value(self):
        tok = self.take()
        if tok == "$":
            return self.take()  # variable name: looked up by the resolver
        if tok.startswith('"'):
            return json.loads(tok)
        if tok.lstrip("-").isdigit():
            return int(tok)
        return tok

    def selection_set(self):
        self.take("{")
        sels = []
        while self.peek() != "}":
            if self.peek() == "...":
                self.take()
                self.take("on")
                cond = self.take()
                sels.append(("frag", cond, self.selection_set()))
                continue
            name = self.take()
            alias = name
            if self.peek() == ":":
                self.take()
                name = self.take()
            args = {}
            if self.peek() == "(":
                self.take()
                while self.peek() != ")":
                    k = self.take()
                    self.take(":")
                    args[k] = self.value()
                self.take(")")
            sub = self.selection_set() if self.peek() == "{" else None
            sels.append(("field", alias, name, args, sub))
        self.take("}")
        return sels


def complete(value, sels):
    if callable(value):
        value = value()
    if value is None:
        return None
    if isinstance(value, list):
        return [complete(v, sels) for v in value]
    if sels is None:
        return value
    out = {}
    typename = value.get("__t")
    for sel in sels:
        if sel[0] == "frag":
            if sel[1] == typename:
                out.update(complete(value, sel[2]))
            continue
        _, alias, name, _args, sub = sel
        if name == "__typename":
            out[alias] = typename
        else:
            out[alias] = complete(value.get(name), sub)
    return out


def execute(data, graph, body):
    req = json.loads(body)
    variables = req.get("variables") or {}
    sels = Parser(req["query"]).document()
    out = {}
    for sel in sels:
        _, alias, name, args, sub = sel
        if name == "__typename":  # the gateway's readiness probe
            out[alias] = "Query"
            continue
        out[alias] = complete(data.root(graph, name, args, variables), sub)
    return json.dumps({"data": out}, separators=(",", ":")).encode()


# ---------------------------------------------------------------- HTTP

class Subgraph:
    """One fake subgraph server. mode: normal | chunked | chunked_slow_end |
    hang | reset | bad_json | http_500 | never_closes (the root is cut
    short, the body ends) | open_root (the root is cut short, the body never
    ends) | close_after."""

    def __init__(self, data, name, port=0):
        self.data, self.name = data, name
        self.mode = "normal"
        self.connections = 0
        self.requests = 0
        self.lock = threading.Lock()
        self.server = None
        self.port = port
        self.start()

    def start(self):
        owner = self
        self.open = set()

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                with owner.lock:
                    owner.connections += 1
                    owner.open.add(self.request)
                try:
                    owner.serve_connection(self.request)
                except OSError:
                    pass
                finally:
                    with owner.lock:
                        owner.open.discard(self.request)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            request_queue_size = 256
            daemon_threads = True

        self.server = Server(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        """Down: no listener, open connections closed."""
        self.server.shutdown()
        self.server.server_close()
        with self.lock:
            for s in list(self.open):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stats(self):
        with self.lock:
            return self.connections, self.requests

    def serve_connection(self, s):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        first = True
        while True:
            while b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    return
                buf += chunk
            head, buf = buf.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v)
            while len(buf) < length:
                chunk = s.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[:length], buf[length:]
            # the gateway's readiness probes (on connections of their own)
            # are not requests of a query plan
            with self.lock:
                if body != PROBE:
                    self.requests += 1
                elif first:
                    self.connections -= 1
            first = False
            if not self.respond(s, body):
                return

    def respond(self, s, body):
        mode = self.mode
        if mode == "hang":
            time.sleep(3)
            return False
        if mode == "http_500":
            msg = b"internal error"
            s.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\n"
                      b"Content-Type: text/plain\r\n\r\n%s" % (len(msg), msg))
            return True
        if mode == "bad_json":
            msg = b"{this is not json"
            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                      b"Content-Type: application/json\r\n\r\n%s" % (len(msg), msg))
            return True
        if mode == "open_root":
            msg = b'{"data":{"_entities":[{"inStock":true'
            s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                      b"Content-Type: application/json\r\n\r\n%x\r\n%s\r\n"
                      % (len(msg), msg))
            time.sleep(3)
            return False
        if mode == "never_closes":
            msg = b'{"data":{"_entities":[{"inStock":true'
            s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                      b"Content-Type: application/json\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"
                      % (len(msg), msg))
            return True
        answer = execute(self.data, self.name, body)
        if mode == "reset":
            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                      b"Content-Type: application/json\r\n\r\n%s"
                      % (len(answer), answer[: len(answer) // 2]))
            time.sleep(0.05)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
            return False
        if mode in ("chunked", "chunked_slow_end"):
            s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                      b"Content-Type: application/json\r\n\r\n%x\r\n%s\r\n"
                      % (len(answer), answer))
            if mode == "chunked_slow_end":
                time.sleep(0.6)  # the terminator comes in a later segment
            s.sendall(b"0\r\n\r\n")
            return True
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                  b"Content-Type: application/json\r\n\r\n%s" % (len(answer), answer))
        return mode != "close_after"


def start_all(bench_dir):
    data = Data(bench_dir)
    return {name: Subgraph(data, name)
            for name in ("accounts", "inventory", "products", "reviews")}
