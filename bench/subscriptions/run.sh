#!/usr/bin/env bash
# Subscription fan-out, side by side: N WebSocket subscribers (graphql-ws's
# graphql-transport-ws) on one server, events published one at a time and
# waited for at every subscriber; latency p50/p99, memory per idle
# subscriber and CPU per delivered event of each server (see load.c).
#   - gql: `gql serve --schema schema.graphql --redis URL`, events published
#     with Redis PUBLISH on gql:events (a redis-server started here);
#   - node: ws + graphql-ws 6 + graphql-js (peer.cjs), events published by
#     an HTTP POST to its in-process publisher (no Redis hop: the peer's
#     latency is, if anything, flattered).
# Not a test. Loopback only, bounded in time; the npm packages go to
# bench/.peers/subscriptions. Run it niced on a shared machine:
#   nice -n 19 bench/subscriptions/run.sh [N] [ROUNDS] [gql|node|both]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/subscriptions
n=${1:-10000}
rounds=${2:-5}
which=${3:-both}
build=${BUILD:-$root/build}
load=$build/bench/bench_subscriptions_load
gql=$build/gql
[[ -x $load ]] || { echo "build first: scripts/build.sh ($load missing)"; exit 1; }

# N client sockets here, N server sockets in the server.
ulimit -n "$(ulimit -Hn)"
(($(ulimit -n) > n + 256)) || { echo "need more than $n file descriptors (ulimit -Hn)"; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_port() { # port, pid
  for _ in $(seq 1 200); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

results=()

run_node() {
  local peers=$root/bench/.peers/subscriptions
  mkdir -p "$peers"
  if [[ ! -d $peers/node_modules/graphql-ws || ! -d $peers/node_modules/ws ]]; then
    (cd "$peers" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
      timeout 300 npm install --no-audit --no-fund --silent graphql@16 graphql-ws@6 ws@8 >/dev/null)
  fi
  local port
  port=$(free_port)
  (cd "$peers" && NODE_PATH=$peers/node_modules exec node "$here/peer.cjs" "$port" "$here/schema.graphql") >/dev/null 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_port "$port" "$pid" || { echo "node peer did not start"; return 1; }
  local out
  out=$(timeout 900 "$load" --label node --port "$port" --pid "$pid" --n "$n" \
    --rounds "$rounds" --publish-http "$port") || true
  echo "$out" | grep -v '^RESULT'
  results+=("$(echo "$out" | grep '^RESULT' || echo "RESULT label=node failed")")
  kill "$pid" 2>/dev/null || true
}

run_gql() {
  local rport port
  rport=$(free_port)
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
    --loglevel warning >/dev/null 2>&1 &
  pids+=("$!")
  wait_port "$rport" "$!" || { echo "redis-server did not start"; return 1; }
  port=$(free_port)
  echo '{}' >"$build/bench-subscriptions-data.json"
  "$gql" serve --schema "$here/schema.graphql" --data "$build/bench-subscriptions-data.json" \
    --redis "redis://127.0.0.1:$rport" --port "$port" --threads 1 \
    --max-connections $((n + 100)) >/dev/null 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_port "$port" "$pid" || { echo "gql serve did not start"; return 1; }
  local out
  out=$(timeout 900 "$load" --label gql --port "$port" --pid "$pid" --n "$n" \
    --rounds "$rounds" --publish-redis "$rport" --channel gql:events) || true
  echo "$out" | grep -v '^RESULT'
  results+=("$(echo "$out" | grep '^RESULT' || echo "RESULT label=gql failed")")
  kill "$pid" 2>/dev/null || true
}

case $which in
gql) run_gql ;;
node) run_node ;;
*) run_gql; run_node ;;
esac

echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores: latency is mostly waiting for one)"
printf '%-6s %12s %10s %10s %14s %14s %12s %12s\n' server delivered p50_ms p99_ms \
  kB/subscriber 'CPU us/event' 'user us/ev' 'sys us/ev'
for r in "${results[@]}"; do
  label=$(sed -n 's/.*label=\([^ ]*\).*/\1/p' <<<"$r")
  get() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$r"; }
  printf '%-6s %12s %10s %10s %14s %14s %12s %12s\n' "$label" "$(get delivered)/$(get expected)" \
    "$(get p50_ms)" "$(get p99_ms)" "$(get kb_per_sub)" "$(get cpu_us_per_event)" \
    "$(get user_us_per_event)" "$(get sys_us_per_event)"
done
# the ratios the issue asks for (node over gql), when both ran
gr=$(printf '%s\n' "${results[@]}" | grep 'label=gql ' || true)
nr=$(printf '%s\n' "${results[@]}" | grep 'label=node ' || true)
if [[ -n $gr && -n $nr ]]; then
  ratio() { # field
    local a b
    a=$(sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$nr")
    b=$(sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$gr")
    awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'
  }
  echo "node / gql: memory per subscriber $(ratio kb_per_sub), CPU per event $(ratio cpu_us_per_event)" \
    "(user $(ratio user_us_per_event), system $(ratio sys_us_per_event))"
fi
