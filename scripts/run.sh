#!/usr/bin/env bash
# Builds gql and runs it on the built-in Star Wars demo: until the server
# lands, that is `gql format` of the demo schema and its fragments query.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$root/build" >/dev/null
"$root/build/gql" format "$root/examples/starwars/schema.graphql"
echo
exec "$root/build/gql" format "$root/examples/starwars/fragments.graphql"
