#!/usr/bin/env bash
# Apollo Client's APQ link (npm) against gql serve --apq: apollo_apq.mjs.
# The client goes into PEERS_DIR (its own package.json) once; no npm or no
# registry is a failure, never a skip.
# Usage: run_apollo.sh GQL_BINARY PEERS_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gql=$1
mkdir -p "$2"
peers=$(cd "$2" && pwd)
packages="@apollo/client@4 graphql@16 rxjs@7"
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "FAIL: node and npm are required (scripts/deps.sh)"; exit 1; }
(
  flock 9
  if [[ ! -f $peers/installed.txt || $(cat "$peers/installed.txt") != "$packages" ]]; then
    [[ -f $peers/package.json ]] || echo '{"private":true}' >"$peers/package.json"
    # shellcheck disable=SC2086
    (cd "$peers" && npm install --no-audit --no-fund --loglevel=error $packages >"$peers/npm.log" 2>&1) ||
      { echo "FAIL: npm install failed:"; tail -n 20 "$peers/npm.log"; exit 1; }
    echo "$packages" >"$peers/installed.txt"
  fi
) 9>"$peers/.lock"
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
# one worker thread: without Redis the APQ store is per thread
"$gql" serve --port 0 --threads 1 --apq >"$work/out" 2>"$work/err" &
pid=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$work/out")
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n $port ]] || { echo "FAIL: gql serve did not start: $(cat "$work/err")"; exit 1; }
node "$here/apollo_apq.mjs" "http://127.0.0.1:$port/graphql" "$peers"
