#!/usr/bin/env bash
# The federation gateway benchmark, side by side in one run: `gql gateway`,
# Apollo Gateway (npm @apollo/gateway 2.14 on @apollo/server 5) and Hive
# Gateway (npm @graphql-hive/gateway), each on the benchmark supergraph in
# front of the same gql subgraphs (bench_subgraphs), loaded with wrk (50
# keep-alive connections POSTing request.json) on 127.0.0.1, in the
# scenarios `constant` and `constant-latency` (every subgraph answer held
# 4 ms by bench_subgraphs --delay-ms). Not a test. See README.md.
#
# Usage: bench/gateway/run.sh
#   WARMUP=10 DURATION=20 (seconds per gateway per scenario), CONNECTIONS=50,
#   SINGLE=5 (then seconds of one client, for latency without queueing; 0: none),
#   WRK_THREADS=2, DELAY_MS=4, GATEWAYS="gql apollo hive",
#   SCENARIOS="constant constant-latency", GQL_THREADS (gql gateway
#   --threads; default: its own, one per CPU), OUT=FILE (the Markdown
#   tables, also printed).
# npm packages go to bench/.peers/gateway and bench/.peers/hive (not
# committed); the Release build to build-rel.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}

command -v wrk >/dev/null || { echo "run.sh: wrk is needed (apt-get install wrk)" >&2; exit 1; }
echo "== building (build-rel, Release)" >&2
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null

gateways=${GATEWAYS:-gql apollo hive}
peers=$root/bench/.peers
if [[ $gateways == *apollo* ]] &&
  [[ ! -d $peers/gateway/node_modules/@apollo/gateway || ! -d $peers/gateway/node_modules/@apollo/server ]]; then
  echo "== installing @apollo/gateway@2.14, @apollo/server@5, graphql@16 into bench/.peers/gateway" >&2
  npm_install "$peers/gateway" graphql@16 @apollo/gateway@2.14 @apollo/server@5
fi
if [[ $gateways == *hive* ]] && [[ ! -x $peers/hive/node_modules/.bin/hive-gateway ]]; then
  echo "== installing @graphql-hive/gateway, graphql@16 into bench/.peers/hive" >&2
  npm_install "$peers/hive" --ignore-scripts graphql@16 @graphql-hive/gateway
fi

exec python3 "$root/bench/gateway/run.py" --root "$root" --shared "$shared" \
  --peers "$peers" --gateways "$gateways" \
  --scenarios "${SCENARIOS:-constant constant-latency}" \
  --warmup "${WARMUP:-10}" --duration "${DURATION:-20}" \
  --connections "${CONNECTIONS:-50}" --wrk-threads "${WRK_THREADS:-2}" \
  --delay-ms "${DELAY_MS:-4}" --gql-threads "${GQL_THREADS:-0}" \
  --single "${SINGLE:-5}" \
  --out "${OUT:-}"
