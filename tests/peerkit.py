"""What the Python socket tests share (tests/gateway/test_hostile_subgraph.py,
tests/http/test_stream_hostile.py, tests/http/test_sse_single_hostile.py):
free ports, gql's environment, RSS readings, a loopback socket's TCP state,
a SIGTERM stop, and the loop that runs each case on a fresh server.
Imported with tests/ on sys.path."""
import http.client
import io
import os
import signal
import socket
import subprocess
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def child_env():
    """The environment for gql: under ASan, a small quarantine, and under
    glibc's malloc a fixed mmap threshold (glibc raises it after each large
    free, then serves large buffers from heaps it rarely gives back), so
    that freed memory (dropped events, results) does not count as growth
    in RSS readings."""
    env = dict(os.environ)
    opts = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "quarantine_size_mb=4"
    env.setdefault("MALLOC_MMAP_THRESHOLD_", "131072")
    return env


def rss_kib(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def tcp_state(local_port, remote_port):
    """The state of the loopback TCP socket local_port -> remote_port in
    /proc/net/tcp ("01" established, "04" FIN-WAIT-1...), or None."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if int(cols[1].split(":")[1], 16) == local_port and \
                    int(cols[2].split(":")[1], 16) == remote_port:
                return cols[3]
    return None


def terminate(proc, timeout=20):
    """SIGTERM, then the exit status (None when it had to be killed)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


class _Bytes(io.BytesIO):
    def close(self):  # http.client closes its file after each body
        pass


class _Sock:
    def __init__(self, f):
        self.f = f

    def makefile(self, *args, **kwargs):
        return self.f


def read_responses(data, n):
    """The first n HTTP responses of `data`: (status, content type, body)."""
    f = _Bytes(data)
    out = []
    for _ in range(n):
        r = http.client.HTTPResponse(_Sock(f))
        r.begin()
        out.append((r.status, r.getheader("Content-Type"), r.read()))
    return out, f.read()


def read_to_end(s, timeout=10):
    s.settimeout(timeout)
    got = b""
    while True:
        d = s.recv(65536)
        if not d:
            return got
        got += d


def run_cases(cases, make, only):
    """Runs each case(env) on env = make(), then env.stop(); prints ok or
    FAIL with env.log(). The exit status: 1 when a case failed."""
    failed = 0
    for case in cases:
        name = case.__name__[5:]
        if only and name not in only:
            continue
        t0 = time.monotonic()
        env = make()
        try:
            case(env)
            env.stop()
            print("ok   %s (%.2f s)" % (name, time.monotonic() - t0))
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAIL %s: %r" % (name, e))
            try:
                print("  log: " + env.log())
                env.stop()
            except Exception as e2:  # noqa: BLE001
                print("  stop: %s" % e2)
    print("%d failed" % failed)
    return 1 if failed else 0
