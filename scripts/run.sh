#!/usr/bin/env bash
# Builds gql and runs it on the built-in Star Wars demo: until the server
# lands, that is `gql exec` of the demo's queries against its C resolvers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$root/build" >/dev/null
for q in star_wars fragments; do
  echo "# gql exec --example starwars examples/starwars/$q.graphql"
  "$root/build/gql" exec --example starwars "$root/examples/starwars/$q.graphql"
done
