"""Shared by the persisted-operations tests: gql and redis-server started on
free loopback ports and stopped after, HTTP helpers, pass/fail counting."""
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

TMP = tempfile.mkdtemp(prefix="gql-persisted-")
PROCS = []
FAILURES = []
PASSED = [0]


def check(name, cond, detail=""):
    if cond:
        PASSED[0] += 1
    else:
        FAILURES.append(name)
        print(f"FAIL: {name}: {detail}", flush=True)


def finish(test):
    for p in PROCS:
        if p.poll() is None:
            p.kill()
            p.wait()
    print(f"{test}: {PASSED[0]} passed, {len(FAILURES)} failed")
    sys.exit(1 if FAILURES else 0)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def sha(q):
    return hashlib.sha256(q.encode()).hexdigest()


def apq_ext(h, version=1):
    return {"persistedQuery": {"version": version, "sha256Hash": h}}


class Gql:
    """gql serve / gql gateway on a free port."""

    def __init__(self, gql, name, args, cmd="serve", threads=2):
        self.name = name
        self.err = open(os.path.join(TMP, name + ".err"), "w+")
        self.proc = subprocess.Popen(
            [gql, cmd, "--port", "0", "--threads", str(threads)] + args,
            stdout=subprocess.PIPE, stderr=self.err, text=True)
        PROCS.append(self.proc)
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)(/\S*)", line)
        if not m:
            self.proc.wait(5)
            self.err.seek(0)
            raise RuntimeError(f"{name}: no banner: {line!r} {self.err.read()}")
        self.url = f"http://127.0.0.1:{m.group(1)}{m.group(2)}"

    def post(self, body, accept="application/json", timeout=10):
        data = json.dumps(body).encode()
        req = urllib.request.Request(self.url, data=data, headers={
            "content-type": "application/json", "accept": accept})
        return self._send(req, timeout)

    def get(self, params, accept="application/json", timeout=10):
        q = urllib.parse.urlencode({k: v if isinstance(v, str) else json.dumps(v)
                                    for k, v in params.items()})
        req = urllib.request.Request(self.url + "?" + q,
                                     headers={"accept": accept})
        return self._send(req, timeout)

    @staticmethod
    def _send(req, timeout):
        """(status, JSON body, headers)"""
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                raw = r.read()
                return r.status, json.loads(raw), r.headers
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
            return e.code, body, e.headers

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "hung"
        return rc

    def stderr(self):
        self.err.flush()
        with open(self.err.name) as f:
            return f.read()


def code(body):
    try:
        return body["errors"][0]["extensions"]["code"]
    except (KeyError, IndexError, TypeError):
        return None


class Redis:
    """Debian's redis-server on a free port, no persistence."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        PROCS.append(self.proc)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.025)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)

    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def command(self, *args):
        """One command over RESP (for checks); the raw reply bytes."""
        s = socket.create_connection(("127.0.0.1", self.port), 2)
        out = f"*{len(args)}\r\n"
        for a in args:
            out += f"${len(a.encode())}\r\n{a}\r\n"
        s.sendall(out.encode())
        time.sleep(0.05)
        data = s.recv(65536)
        s.close()
        return data
