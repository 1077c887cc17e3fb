#!/usr/bin/env bash
# HTTP throughput of `gql serve` side by side with Node peers (graphql-js
# through graphql-http's handler, graphql-jit on node:http), all serving the
# Star Wars schema, for the star_wars and introspection operations of
# ../shared/bench. wrk drives each server over keep-alive connections.
# Prints requests/s, p50/p99 latency, CPU seconds per 10,000 requests and
# peak RSS. Not a test. Peers are installed into bench/.peers/http.
# Usage: bench/http/run.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=$root/../shared
secs=${1:-5}
conns=${2:-32}
"$root/scripts/deps.sh" --bench
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release >/dev/null
peers=$root/bench/.peers/http
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/graphql-jit || ! -d $peers/node_modules/graphql-http ]]; then
  npm_install "$peers" graphql@16 graphql-http graphql-jit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$shared/conformance/introspection/graphql16.15-all-options.graphql" "$work" <<'PY'
import json, sys
intro = open(sys.argv[1]).read()
ops = {
    "star_wars": "{ hero { id name friends { name appearsIn friends { name } } } }",
    "introspection": intro,
}
for name, q in ops.items():
    body = json.dumps({"query": q})
    lua = ('wrk.method = "POST"\n'
           'wrk.headers["Content-Type"] = "application/json"\n'
           'wrk.body = %s\n' % json.dumps(body))
    open(f"{sys.argv[2]}/{name}.lua", "w").write(lua)
    open(f"{sys.argv[2]}/{name}.json", "w").write(body)
PY
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)

start_server() { # NAME PORT -> pid in $pid
  case $1 in
    gql) "$root/build-release/gql" serve --port "$2" --threads 1 >/dev/null 2>&1 & pid=$! ;;
    graphql-http|graphql-jit)
      (cd "$peers" && exec env NODE_PATH="$peers/node_modules" node "$root/bench/http/peers.js" "$1" "$2") >/dev/null 2>&1 &
      pid=$! ;;
  esac
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$2/graphql" -H 'content-type: application/json' \
      --data-binary @"$work/star_wars.json" && return 0
    sleep 0.1
  done
  echo "bench: $1 did not start" >&2
  exit 1
}

printf "%-14s %-14s %10s %9s %9s %14s %10s\n" operation server "req/s" "p50 ms" "p99 ms" "CPU s/10k req" "peak RSS"
for op in star_wars introspection; do
  for srv in gql graphql-http graphql-jit; do
    port=$(free_port)
    start_server "$srv" "$port"
    # warm-up (JIT, caches), then the measured run
    wrk -t1 -c"$conns" -d1s -s "$work/$op.lua" "http://127.0.0.1:$port/graphql" >/dev/null
    before=$(cpu_ticks "$pid")
    out=$(wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$work/$op.lua" "http://127.0.0.1:$port/graphql")
    after=$(cpu_ticks "$pid")
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    reqs=$(echo "$out" | awk '/requests in/ {print $1}')
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
    [[ -n $non2xx ]] && echo "bench: $srv answered $non2xx non-2xx responses to $op" >&2
    python3 - "$op" "$srv" "$rps" "$p50" "$p99" "$before" "$after" "$reqs" "$tck" "$rss" <<'PY'
import sys
op, srv, rps, p50, p99, b, a, reqs, tck, rss = sys.argv[1:]
def ms(s):
    for unit, f in (("us", 0.001), ("ms", 1), ("s", 1000)):
        if s.endswith(unit):
            return float(s[:-len(unit)]) * f
    return float(s)
cpu = (int(a) - int(b)) / int(tck) / max(int(reqs), 1) * 10000
print(f"{op:<14} {srv:<14} {float(rps):>10.0f} {ms(p50):>9.2f} {ms(p99):>9.2f} {cpu:>14.3f} {int(rss)/1024:>8.1f} MB")
PY
  done
done
echo "(wrk: 1 thread, $conns connections, ${secs}s after a 1s warm-up; each server on one thread/process)"
