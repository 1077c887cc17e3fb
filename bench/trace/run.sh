#!/usr/bin/env bash
# deep_trace: gql untraced and traced (default, collapse off, depth 2,
# depth 0) beside graphql-js execute() plain and under dd-trace's graphql
# plugin (spans to a local agent stand-in), in one run. Installs graphql and
# dd-trace from npm into bench/.peers (scratch, not committed).
# Usage: bench/trace/run.sh [ITERS] [TRIALS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
iters=${1:-2000}
trials=${2:-9}
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null
peers=$root/bench/.peers
mkdir -p "$peers"
# The versions the README describes (dd-trace 5.105.0: the #8498 release).
ver() { node -p "require('$peers/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [[ $(ver graphql) != 16.15.0 || $(ver dd-trace) != 5.105.0 ]]; then
  npm_install "$peers" graphql@16.15.0 dd-trace@5.105.0
fi
echo "gql (C resolvers, prepared document; us per operation, median of $trials trials)"
"$root/build-rel/bench/bench_trace" "$iters" "$trials" | tee /tmp/gql_trace_bench.$$
echo
portfile=$(mktemp)
node "$root/bench/trace/sink.js" >"$portfile" &
sink=$!
trap 'kill $sink 2>/dev/null; rm -f "$portfile" /tmp/gql_trace_bench.$$' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do [[ -s $portfile ]] && break; sleep 0.2; done
export DD_TRACE_AGENT_URL=http://127.0.0.1:$(cat "$portfile")
export DD_INSTRUMENTATION_TELEMETRY_ENABLED=false DD_REMOTE_CONFIGURATION_ENABLED=false
export DD_TRACE_STARTUP_LOGS=false DD_RUNTIME_METRICS_ENABLED=false
echo "graphql-js $(node -p "require('$peers/node_modules/graphql/package.json').version")," \
  "dd-trace $(node -p "require('$peers/node_modules/dd-trace/package.json').version") (execute() + JSON.stringify; us per operation)"
declare -A js
for m in plain dd_default dd_collapse_off dd_depth_2 dd_depth_0; do
  line=$(cd "$peers" && NODE_PATH=$peers/node_modules node "$root/bench/trace/deep_trace.js" "$m" "$iters" "$trials")
  echo "$line"
  js[$m]=$(echo "$line" | awk '{print $2}')
done
echo
g() { awk -v k="$1" '$1 == k {print $2}' /tmp/gql_trace_bench.$$; }
echo "side by side (us per operation; overhead = traced / untraced of the same engine)"
printf "%-16s %10s %10s %12s %12s %10s\n" config gql "gql ovh" graphql-js "js ovh" "js / gql"
row() {
  local name=$1 gk=$2 jk=$3
  local gv jv
  gv=$(g "$gk"); jv=${js[$jk]}
  awk -v n="$name" -v g="$gv" -v gb="$(g untraced)" -v j="$jv" -v jb="${js[plain]}" \
    'BEGIN {printf "%-16s %10.2f %9.2fx %12.2f %11.2fx %9.1fx\n", n, g, g / gb, j, j / jb, j / g}'
}
row untraced untraced plain
row default traced_default dd_default
row collapse_off traced_collapse_off dd_collapse_off
row depth_2 traced_depth_2 dd_depth_2
row depth_0 traced_depth_0 dd_depth_0
echo
echo "gql default tracing, untraced and traced rounds of 50 operations alternating (the steadier ratio)"
"$root/build-rel/bench/bench_trace" "$iters" "$trials" ab:traced_default | tail -2
echo
echo "gql exporter alone: records queued untimed, one flush encodes them in batches of 512"
"$root/build-rel/bench/bench_trace" "$iters" "$trials" enc
