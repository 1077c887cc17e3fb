#!/usr/bin/env bash
# Instructions per request of `gql gateway` on the federation benchmark
# (callgrind): bench_subgraphs natively on a free port, the gateway (one
# worker) under valgrind on the benchmark supergraph pointed there, N and
# then 2N keep-alive POSTs of request.json, each answer checked against
# expected_response.json; the difference of the two totals over N is one
# request's instructions in the gateway's process (parse, plan cache,
# subgraph fetches, projection, writes), start-up cancelled. Stable between
# runs, unlike timings on a shared machine: for comparing two builds.
# Usage: bench/gateway/callgrind_request.sh [GQL] [BENCH_SUBGRAPHS] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gql=${1:-$root/build-rel/gql}
subs=${2:-$root/build-rel/bench/bench_subgraphs}
n=${3:-300}
bench=${GQL_SHARED_DIR:-$root/../shared}/gateway-bench
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
. "$root/bench/common/callgrind.sh"
sport=$(free_port)
"$subs" --port "$sport" --reviews "$bench/peers/reviews-data.json" >"$tmp/subs.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf -m 1 "http://127.0.0.1:$sport/health" >/dev/null && break; sleep 0.1; done
sed "s#http://127.0.0.1:4200/#http://127.0.0.1:$sport/#g" "$bench/supergraph.graphql" \
  >"$tmp/supergraph.graphql"

# total instructions of a gateway process that answered COUNT requests
run() {
  local count=$1 port cg=$tmp/cg.$1
  port=$(free_port)
  valgrind --tool=callgrind --callgrind-out-file="$cg" "$gql" gateway \
    --supergraph "$tmp/supergraph.graphql" --port "$port" --threads 1 \
    >"$tmp/gw.out" 2>"$tmp/gw.err" &
  local pid=$!
  for _ in $(seq 600); do grep -q "on http://" "$tmp/gw.out" 2>/dev/null && break; sleep 0.1; done
  python3 - "$port" "$count" "$bench/request.json" "$bench/expected_response.json" <<'PY'
import http.client, json, sys
port, n, req, want = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
body = open(req, "rb").read()
want = json.load(open(want))
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for i in range(n):
    c.request("POST", "/graphql", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    got = r.read()
    if r.status != 200 or json.loads(got) != want:
        sys.exit(f"request {i}: status {r.status}, not the expected answer: {got[:200]!r}")
PY
  kill -TERM "$pid"
  wait "$pid" || true
  cg_total "$cg"
}
a=$(run "$n")
b=$(run $((2 * n)))
echo "gateway: $n and $((2 * n)) requests: $a and $b instructions; per request: $(((b - a) / n))"
