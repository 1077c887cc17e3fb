#!/usr/bin/env bash
# Scale-out on this machine: N gql replicas (gql serve on the demo, APQ
# shared through one redis-server) behind haproxy, all on free loopback
# ports (issue 18, item 3). Prints:
#   1. throughput through haproxy with one replica, then with three (wrk,
#      keep-alive POSTs of a small query; every answer's body checked);
#   2. an APQ registered through one replica, served by the other two
#      (directly and through haproxy);
#   3. Redis stopped under load: the load's throughput and wrong answers,
#      and APQ lookups during the outage (PERSISTED_QUERY_NOT_FOUND, how
#      long they took); then Redis restarted and the APQ shared again.
# Needs redis-server, haproxy and wrk (scripts/deps.sh).
# Usage: bench/scaleout/run.sh [GQL_BINARY] [SECONDS] [CONNECTIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gql=$(realpath "${1:-$root/build/gql}")
secs=${2:-10}
conns=${3:-32}
for c in redis-server haproxy wrk python3; do
  command -v "$c" >/dev/null || { echo "scaleout: $c is needed (scripts/deps.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [[ -n ${KEEP_TMP:-} ]] && echo "scaleout: kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

rport=$(free_port)
start_redis() {
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning \
    >"$tmp/redis.log" 2>&1 &
  rpid=$!
  pids+=("$rpid")
  wait_port "$rport"
}
start_redis
redis_url="redis://127.0.0.1:$rport"

# three replicas, one worker thread each (this machine has 2 cores)
ports=()
for i in 0 1 2; do
  "$gql" serve --port 0 --threads 1 --apq --redis "$redis_url" >"$tmp/gql$i.out" 2>"$tmp/gql$i.err" &
  pids+=($!)
  for _ in $(seq 200); do
    p=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gql$i.out")
    [[ -n $p ]] && break
    sleep 0.05
  done
  [[ -n $p ]] || { echo "scaleout: replica $i did not start: $(cat "$tmp/gql$i.err")" >&2; exit 1; }
  ports+=("$p")
done

# haproxy: round robin over the replicas given, health-checked on /ready
hport=$(free_port)
hpid=
start_haproxy() { # start_haproxy NREPLICAS
  {
    printf 'global\n  maxconn 4096\n\ndefaults\n  mode http\n  timeout connect 2s\n'
    printf '  timeout client 30s\n  timeout server 30s\n  option http-keep-alive\n\n'
    printf 'frontend fe\n  bind 127.0.0.1:%s\n  default_backend gql\n\n' "$hport"
    printf 'backend gql\n  balance roundrobin\n  option httpchk GET /ready\n'
    for ((i = 0; i < $1; i++)); do
      printf '  server r%d 127.0.0.1:%s check inter 1s\n' "$i" "${ports[$i]}"
    done
  } >"$tmp/haproxy.cfg"
  haproxy -f "$tmp/haproxy.cfg" -db >"$tmp/haproxy.log" 2>&1 &
  hpid=$!
  pids+=("$hpid")
  wait_port "$hport"
}
stop_haproxy() { kill "$hpid"; wait "$hpid" 2>/dev/null || true; }

load() { # load SECONDS: "requests/s wrong non2xx errors p99"
  wrk -t 2 -c "$conns" -d "${1}s" --latency -s "$here/post.lua" "http://127.0.0.1:$hport/graphql" >"$tmp/wrk.txt" 2>&1
  awk '/Requests\/sec/ {rps=$2} /wrong answers/ {wrong=$3} /Non-2xx/ {non2xx=$NF}
       /Socket errors/ {err=$0} / 99%/ {p99=$2}
       END {printf "%s req/s, wrong answers %s, non-2xx %s, p99 %s, %s\n", rps, wrong, non2xx+0, p99, err ? err : "no socket errors"}' "$tmp/wrk.txt"
}

echo "scaleout: $(nproc) cores; replicas on ${ports[*]}, redis on $rport, haproxy on $hport; wrk ${secs}s, $conns connections"
start_haproxy 1
echo "1 replica : $(load "$secs")"
stop_haproxy
start_haproxy 3
sleep 1.2 # the health checks mark the replicas up
echo "3 replicas: $(load "$secs")"

# APQ across replicas
python3 - "${ports[@]}" "$hport" <<'PY'
import hashlib, json, sys, time, urllib.parse, urllib.request
ports, hport = sys.argv[1:4], sys.argv[4]
q = "{ hero { name appearsIn } scaleout: __typename }"
h = hashlib.sha256(q.encode()).hexdigest()
ext = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": h}})
def get(port):
    u = f"http://127.0.0.1:{port}/graphql?" + urllib.parse.urlencode({"extensions": ext})
    return json.load(urllib.request.urlopen(u, timeout=5))
before = [get(p) for p in ports]
miss = all(b["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND" for b in before)
req = urllib.request.Request(f"http://127.0.0.1:{ports[0]}/graphql",
    data=json.dumps({"query": q, "extensions": json.loads(ext)}).encode(),
    headers={"content-type": "application/json"})
reg = json.load(urllib.request.urlopen(req, timeout=5))
time.sleep(0.1)
after = [get(p) for p in ports[1:]] + [get(hport) for _ in range(6)]
served = sum("data" in a for a in after)
print(f"APQ: unknown on all 3 before: {miss}; registered through replica 0: {'data' in reg}; "
      f"served by replicas 1 and 2 and 6 times through haproxy: {served}/{len(after)}")
PY

# Redis stopped under load
probe() { # APQ lookups of unknown hashes through haproxy while Redis is down
  python3 - "$hport" "$1" <<'PY'
import hashlib, json, sys, time, urllib.parse, urllib.request
port, secs = sys.argv[1], float(sys.argv[2])
n = nf = 0; worst = 0.0; end = time.monotonic() + secs
while time.monotonic() < end:
    n += 1
    h = hashlib.sha256(f"probe {n} {time.time()}".encode()).hexdigest()
    ext = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": h}})
    t0 = time.monotonic()
    b = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/graphql?" +
                  urllib.parse.urlencode({"extensions": ext}), timeout=5))
    worst = max(worst, time.monotonic() - t0)
    nf += b["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
    time.sleep(0.01)
print(f"{n} APQ lookups during the outage: {nf} PERSISTED_QUERY_NOT_FOUND, slowest {worst*1000:.0f} ms")
PY
}
( sleep 2; kill "$rpid"; wait "$rpid" 2>/dev/null || true ) &
killer=$!
( sleep 3; probe 3 >"$tmp/probe.txt" ) &
prober=$!
echo "Redis stopped 2 s into the load: $(load "$secs")"
wait "$killer" "$prober"
cat "$tmp/probe.txt"
for i in 0 1 2; do kill -0 "${pids[$((i + 1))]}" 2>/dev/null || echo "replica $i died"; done
start_redis
t0=$(date +%s.%N)
python3 - "${ports[@]}" <<'PY'
import hashlib, json, sys, time, urllib.parse, urllib.request
ports = sys.argv[1:]
q = "{ hero { name } back: __typename }"
h = hashlib.sha256(q.encode()).hexdigest()
ext = {"persistedQuery": {"version": 1, "sha256Hash": h}}
t0 = time.monotonic()
while time.monotonic() - t0 < 15:
    req = urllib.request.Request(f"http://127.0.0.1:{ports[0]}/graphql",
        data=json.dumps({"query": q, "extensions": ext}).encode(),
        headers={"content-type": "application/json"})
    urllib.request.urlopen(req, timeout=5).read()
    time.sleep(0.05)
    u = f"http://127.0.0.1:{ports[2]}/graphql?" + urllib.parse.urlencode({"extensions": json.dumps(ext)})
    if "data" in json.load(urllib.request.urlopen(u, timeout=5)):
        print(f"Redis restarted: APQ shared again after {time.monotonic() - t0:.2f} s")
        break
    time.sleep(0.2)
else:
    print("Redis restarted: APQ NOT shared again within 15 s")
PY
