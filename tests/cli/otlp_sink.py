#!/usr/bin/env python3
"""A small OTLP/HTTP JSON collector sink for the `gql serve --trace-otlp`
tests: listens on 127.0.0.1 (a free port, written to PORT_FILE once
listening), accepts POST /v1/traces with Content-Type application/json and
appends each request body as one line to OUT (after checking that it is
JSON), answering 200 {}. Anything else gets 400/404/415 and a line
"BAD <reason>" in OUT, so that the test sees it.

--hang: accepts connections and reads them but never answers (an exporter
that has no timeout would wait forever); at exit writes "HANG accepted N"
to OUT.

Stops on SIGTERM / SIGINT, or by itself after --lifetime seconds.

Usage: otlp_sink.py PORT_FILE OUT [--hang] [--lifetime SECONDS]
"""
import json
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _answer(self, status, body=b"{}"):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self, line):
        with self.server.lock:
            self.server.out.write(line + "\n")
            self.server.out.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        if self.path != "/v1/traces":
            self._record("BAD path " + self.path)
            return self._answer(404)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype != "application/json":
            self._record("BAD content-type " + ctype)
            return self._answer(415)
        try:
            text = body.decode("utf-8")
            json.loads(text)
        except (UnicodeDecodeError, ValueError) as e:
            self._record("BAD json " + str(e))
            return self._answer(400)
        if "\n" in text:  # one batch a line in OUT
            text = json.dumps(json.loads(text), separators=(",", ":"))
        self._record(text)
        self._answer(200)

    def do_GET(self):
        self._answer(404)


def hang(port_file, out, lifetime):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.2)
    write_port(port_file, srv.getsockname()[1])
    held = []
    accepted = 0
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    end = time.time() + lifetime
    while not stop.is_set() and time.time() < end:
        try:
            c, _ = srv.accept()
            c.setblocking(False)
            held.append(c)
            accepted += 1
        except socket.timeout:
            pass
        for c in list(held):  # read and drop; close what the client closed
            try:
                if c.recv(65536) == b"":
                    c.close()
                    held.remove(c)
            except BlockingIOError:
                pass
            except OSError:
                held.remove(c)
    for c in held:
        c.close()
    srv.close()
    with open(out, "a") as f:  # for the test: the exporter did come
        f.write(f"HANG accepted {accepted}\n")


def write_port(port_file, port):
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    import os

    os.replace(port_file + ".tmp", port_file)


def main():
    args = sys.argv[1:]
    lifetime = 300.0
    if "--lifetime" in args:
        i = args.index("--lifetime")
        lifetime = float(args[i + 1])
        del args[i : i + 2]
    do_hang = "--hang" in args
    if do_hang:
        args.remove("--hang")
    port_file, out = args
    if do_hang:
        return hang(port_file, out, lifetime)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.lock = threading.Lock()
    httpd.out = open(out, "a")
    stop = lambda *a: threading.Thread(target=httpd.shutdown).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Timer(lifetime, httpd.shutdown).start()
    write_port(port_file, httpd.server_address[1])
    httpd.serve_forever(poll_interval=0.1)
    httpd.out.close()
    import os

    os._exit(0)  # the lifetime timer thread may still wait


if __name__ == "__main__":
    main()
