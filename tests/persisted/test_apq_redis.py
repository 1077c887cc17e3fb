"""APQ shared through Redis by two gql instances (issue 18, item 3), with a
real redis-server on a free port: a registration made through one instance
is served by the other; Redis stopped or frozen under load: hash lookups
answer PERSISTED_QUERY_NOT_FOUND quickly, full documents keep working,
nothing hangs; Redis restarted: gql reconnects.
Usage: test_apq_redis.py GQL_BINARY REPO_ROOT"""
import os
import signal
import sys
import threading
import time

from common import Gql, Redis, apq_ext, check, code, finish, sha

gql, root = sys.argv[1], sys.argv[2]
R2 = {"data": {"hero": {"name": "R2-D2"}}}


def query(i):
    """A distinct document per i (so that each is a new registration)."""
    return "{ hero { name } a%d: __typename }" % i


redis = Redis()
args = ["--apq", "--redis", redis.url(), "--redis-timeout", "100"]
a = Gql(gql, "a", args)
b = Gql(gql, "b", args)
time.sleep(0.3)  # the workers' connections are made

# ---- a registration through one is served by the other
Q = "{ hero { name } }"
st, body, _ = b.get({"extensions": apq_ext(sha(Q))})
check("unknown on b", code(body) == "PERSISTED_QUERY_NOT_FOUND", body)
st, body, _ = a.post({"query": Q, "extensions": apq_ext(sha(Q))})
check("register on a", body == R2, body)
time.sleep(0.1)  # the SET is fire and forget
ok = 0
for _ in range(6):  # new connections: every worker thread of b
    st, body, _ = b.get({"extensions": apq_ext(sha(Q))})
    ok += body == R2
check("served by b from Redis", ok == 6, f"{ok}/6 {body}")
reply = redis.command("GET", "apq:" + sha(Q))
check("kept in Redis as apq:<sha256>", Q.encode() in reply, reply)
# a value in Redis that does not hash to its key is not trusted
bad_key = sha("{ hero { id } }")
redis.command("SET", "apq:" + bad_key, "{ hero { name } }")
st, body, _ = b.get({"extensions": apq_ext(bad_key)})
check("a corrupt Redis value is a miss", code(body) == "PERSISTED_QUERY_NOT_FOUND",
      body)


def load(target, stop, results, i0):
    """Full documents and hash lookups, alternately, until stop."""
    i = i0
    while not stop.is_set():
        i += 1
        t0 = time.monotonic()
        try:
            if i % 2:
                st, body, _ = target.post({"query": Q}, timeout=5)
                kind = "full"
                good = body == R2
            else:
                st, body, _ = target.get(
                    {"extensions": apq_ext(sha(query(i)))}, timeout=5)
                kind = "hash"
                good = code(body) == "PERSISTED_QUERY_NOT_FOUND"
        except Exception as e:  # a hang or a dropped connection
            kind, good = "error", False
            body = repr(e)
        results.append((kind, good, time.monotonic() - t0, body))


def under_load(name, action, seconds=2.0):
    """Runs `action` while 4 clients load a and b; returns the results."""
    stop = threading.Event()
    results = []
    ts = [threading.Thread(target=load, args=(t, stop, results, k * 100000))
          for k, t in enumerate([a, b, a, b])]
    for t in ts:
        t.start()
    time.sleep(0.3)
    action()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join(15)
    check(f"{name}: clients returned", not any(t.is_alive() for t in ts))
    full = [r for r in results if r[0] == "full"]
    hashes = [r for r in results if r[0] == "hash"]
    errors = [r for r in results if r[0] == "error"]
    bad = [r for r in results if not r[1]]
    worst = max(r[2] for r in results) if results else 0
    print(f"{name}: {len(full)} full, {len(hashes)} hash lookups, "
          f"{len(errors)} errors, slowest {worst * 1000:.0f} ms", flush=True)
    check(f"{name}: every answer right", not bad and full and hashes,
          bad[:3])
    return worst


# ---- Redis stopped under load
worst = under_load("redis stopped", redis.stop)
check("redis stopped: nothing waited long", worst < 1.0, worst)
check("redis stopped: said once per worker",
      a.stderr().count("gql: redis: connection lost") == 2, a.stderr())
st, body, _ = a.get({"extensions": apq_ext(sha(Q))})
st2, body2, _ = a.post({"query": "{ hero { id } }"})
check("redis down: full documents work", body2 == {"data": {"hero": {"id": "2001"}}},
      body2)

# ---- Redis restarted: gql reconnects (backoff at most 5 s)
redis.start()
Q2 = "{ hero { name } again: __typename }"
served = False
deadline = time.monotonic() + 12
while time.monotonic() < deadline and not served:
    a.post({"query": Q2, "extensions": apq_ext(sha(Q2))})
    time.sleep(0.2)
    hits = 0
    for _ in range(4):
        st, body, _ = b.get({"extensions": apq_ext(sha(Q2))})
        hits += "data" in body
    served = hits == 4
check("redis restarted: registrations shared again", served, body)
check("redis restarted: said (at start and once reconnected)",
      a.stderr().count("gql: redis: connected to") >= 3, a.stderr())

# ---- Redis frozen (accepts, never answers): lookups time out at ~100 ms
os.kill(redis.proc.pid, signal.SIGSTOP)
try:
    worst = under_load("redis frozen", lambda: None, seconds=3.0)
    check("redis frozen: lookups bounded", worst < 1.5, worst)
finally:
    os.kill(redis.proc.pid, signal.SIGCONT)

# ---- nothing hangs at the end, and no crash
check("a stops cleanly", a.stop() == 0, a.stderr()[-2000:])
check("b stops cleanly", b.stop() == 0, b.stderr()[-2000:])
for g in (a, b):
    err = g.stderr()
    check(f"{g.name}: no sanitizer or crash report",
          "ERROR:" not in err and "runtime error" not in err, err[-2000:])
redis.stop()
finish("test_apq_redis")
