#!/usr/bin/env bash
# The federation benchmark's client side for `gql gateway`: starts the
# gateway on the benchmark supergraph, checks that the benchmark query's
# answer equals expected_response.json, then drives it with wrk over
# keep-alive connections (POST request.json) and prints requests/s, latency
# percentiles, CPU seconds per 1,000 requests and peak RSS. Not a test.
#
# Subgraphs: whatever serves 127.0.0.1:4200/{accounts,inventory,products,
# reviews} (the supergraph's URLs: e.g. the benchmark subgraph server);
# when nothing answers GET /health there, the Python fakes of
# tests/gateway/fake_subgraphs.py are started instead (slow: they measure
# the fakes more than the gateway).
# Usage: bench/gateway/run_gateway.sh [SECONDS] [CONNECTIONS] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$root/../shared/gateway-bench
secs=${1:-10}
conns=${2:-50}
threads=${3:-2}
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release >/dev/null
gql=$root/build-release/gql
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
supergraph=$bench/supergraph.graphql
if ! curl -sf -m 2 http://127.0.0.1:4200/health >/dev/null; then
  echo "no subgraphs on 127.0.0.1:4200: starting the Python fakes" >&2
  python3 - "$root" "$bench" "$work" <<'PY' &
import os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "gateway"))
import fake_subgraphs
subs = fake_subgraphs.start_all(sys.argv[2])
sdl = open(os.path.join(sys.argv[2], "supergraph.graphql")).read()
for name, s in subs.items():
    sdl = sdl.replace("http://127.0.0.1:4200/" + name,
                      "http://127.0.0.1:%d/%s" % (s.port, name))
open(os.path.join(sys.argv[3], "supergraph.tmp"), "w").write(sdl)
os.rename(os.path.join(sys.argv[3], "supergraph.tmp"),
          os.path.join(sys.argv[3], "supergraph.graphql"))
while True:
    time.sleep(3600)
PY
  pids+=($!)
  for _ in $(seq 50); do [[ -f $work/supergraph.graphql ]] && break; sleep 0.1; done
  supergraph=$work/supergraph.graphql
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$gql" gateway --supergraph "$supergraph" --port "$port" --threads "$threads" \
  >"$work/gateway.out" 2>"$work/gateway.err" &
gw=$!
pids+=("$gw")
for _ in $(seq 50); do grep -q "on http://" "$work/gateway.out" 2>/dev/null && break; sleep 0.1; done
url=http://127.0.0.1:$port/graphql
curl -sf -H 'Content-Type: application/json' --data-binary "@$bench/request.json" "$url" >"$work/answer.json"
python3 - "$work/answer.json" "$bench/expected_response.json" <<'PY'
import json, sys
got, want = (open(p, "rb").read() for p in sys.argv[1:3])
if b'"errors"' in got or json.loads(got) != json.loads(want):
    sys.exit("the gateway's answer differs from expected_response.json")
print("answer: %d bytes, equals expected_response.json" % len(got))
PY
python3 - "$bench/request.json" "$work/post.lua" <<'PY'
import json, sys
body = open(sys.argv[1]).read()
open(sys.argv[2], "w").write('wrk.method = "POST"\nwrk.headers["Content-Type"] = '
                             '"application/json"\nwrk.body = %s\n' % json.dumps(body))
PY
ticks0=$(awk '{print $14 + $15}' "/proc/$gw/stat")
wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$work/post.lua" "$url" | tee "$work/wrk.txt"
ticks1=$(awk '{print $14 + $15}' "/proc/$gw/stat")
reqs=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
hz=$(getconf CLK_TCK)
rss=$(awk '/VmHWM/ {print $2}' "/proc/$gw/status")
python3 -c "import sys; t,r,hz,rss=map(float,sys.argv[1:]); print('gateway CPU: %.3f s per 1,000 requests; peak RSS %.1f MB' % (t/hz/max(r,1)*1000, rss/1024))" \
  "$((ticks1 - ticks0))" "$reqs" "$hz" "$rss"
