#!/usr/bin/env bash
# Subgraph fetches per query on the federation audit's suites
# (../shared/federation-audit/audit/src/test-suites): gql's plan beside
# Apollo's and Hive's planners, and whether gql is ever above the best of
# them. Not a test (exit 1 when gql is above somewhere or cannot plan).
# Usage: bench/gateway-scale/audit.sh [SUITE...]   OUT=FILE keeps the table.
# npm packages go to bench/.peers/gateway-scale; the suites' composed
# supergraphs to bench/.peers/gateway-scale/audit/SUITE/ (scripts/fuzz.sh
# takes them as fuzz_supergraph seeds when present).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}
peers=$root/bench/.peers/gateway-scale
echo "== building (build-rel, Release)" >&2
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null
if [[ ! -d $peers/node_modules/@graphql-hive/router-query-planner ||
  ! -d $peers/node_modules/@apollo/composition ]]; then
  npm_install "$peers" graphql@16 @apollo/composition@2.14 \
    @apollo/query-planner@2.14 @apollo/federation-internals@2.14 \
    @graphql-hive/router-query-planner
fi
mkdir -p "$peers/audit"
exec python3 "$root/bench/gateway-scale/audit.py" --gql "$root/build-rel/gql" \
  --peers "$peers" --audit "$shared/federation-audit/audit" \
  --work "$peers/audit" --out "${OUT:-}" "$@"
