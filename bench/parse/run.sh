#!/usr/bin/env bash
# Parse throughput, gql vs graphql-js, in one run. Installs graphql from npm
# into bench/.peers (a scratch folder, not committed).
# Usage: bench/parse/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=$root/../shared
"$root/scripts/deps.sh" --bench
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
peers=$root/bench/.peers
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/graphql ]]; then
  npm_install "$peers" graphql@16
fi
gen=$peers/generated-1mb.graphql
"$root/build/bench/bench_parse" --generate "$gen" 1048576
docs=(
  "kitchen-sink=$shared/conformance/fixtures/kitchen-sink.graphql"
  "schema-kitchen=$shared/conformance/fixtures/schema-kitchen-sink.graphql"
  "introspection=$shared/conformance/introspection/graphql16.15-all-options.graphql"
  "generated-1mb=$gen"
)
gqlout=$(mktemp)
jsout=$(mktemp)
"$root/build/bench/bench_parse" "${docs[@]}" | tee "$gqlout"
echo
(cd "$peers" && NODE_PATH=$peers/node_modules node "$root/bench/parse/parse.js" "${docs[@]}") | tee "$jsout"
echo
echo "side by side (median us per parse; ratio = graphql-js / gql)"
printf "%-16s %12s %12s %8s\n" document gql graphql-js ratio
paste <(tail -n +2 "$gqlout" | awk '{print $1, $3}') <(tail -n +2 "$jsout" | awk '{print $3}') |
  awk '{printf "%-16s %12.2f %12.2f %7.1fx\n", $1, $2, $3, $3 / $2}'
rm -f "$gqlout" "$jsout"
