#!/usr/bin/env bash
# Validation speed, gql vs graphql-js, in one run (all specified rules).
# Installs graphql from npm into bench/.peers (a scratch folder, not
# committed). Usage: bench/validate/run.sh
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
gen=$peers/generated-starwars-ops.graphql
"$root/build/bench/bench_validate" --generate "$gen" 500
starwars=$root/examples/starwars/schema.graphql
pairs=(
  "introspection=$starwars:$shared/conformance/introspection/graphql16.15-all-options.graphql"
  "kitchen-sink=$shared/conformance/fixtures/validation-testSchema.printed.graphql:$shared/conformance/fixtures/kitchen-sink.graphql"
  "generated-500op=$starwars:$gen"
)
gqlout=$(mktemp)
jsout=$(mktemp)
"$root/build/bench/bench_validate" "${pairs[@]}" | tee "$gqlout"
echo
(cd "$peers" && NODE_PATH=$peers/node_modules node "$root/bench/validate/validate.js" "${pairs[@]}") | tee "$jsout"
echo
echo "side by side (median us per validation; ratio = graphql-js / gql)"
printf "%-16s %12s %12s %8s %12s\n" document gql graphql-js ratio "gql allocs"
paste <(tail -n +2 "$gqlout" | awk '{print $1, $3, $5}') <(tail -n +2 "$jsout" | awk '{print $3}') |
  awk '{printf "%-16s %12.2f %12.2f %7.1fx %12.3f\n", $1, $2, $4, $4 / $2, $3}'
rm -f "$gqlout" "$jsout"
