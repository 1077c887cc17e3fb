#!/usr/bin/env bash
# Builds gql and serves the built-in Star Wars demo on
# http://127.0.0.1:4000/graphql (extra arguments go to `gql serve`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$root/build" >/dev/null
exec "$root/build/gql" serve "$@"
