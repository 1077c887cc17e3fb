#!/usr/bin/env bash
# An npm client against a test server of gql's subscription transports
# (ws_peer_server, sse_peer_server: a libuv socket and a fake executor,
# until gql serve serves subscriptions): starts the server, which prints
# its port, and runs the client script (ws_npm_client.cjs,
# sse_npm_client.cjs) on it. The npm clients go to PEERS_DIR with their
# own package.json.
# Usage: run_npm_peer.sh SERVER CLIENT_SCRIPT PEERS_DIR
set -euo pipefail
server=$1
script=$2
peers=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$peers"
peers=$(cd "$peers" && pwd)
if [[ ! -f $peers/node_modules/graphql-ws/package.json || ! -f $peers/node_modules/ws/package.json ||
  ! -f $peers/node_modules/graphql-sse/package.json ]]; then
  [[ -f $peers/package.json ]] || echo '{"name":"gql-subscription-peers","private":true}' >"$peers/package.json"
  (cd "$peers" && timeout 300 npm install --silent --no-audit --no-fund graphql@16 graphql-ws@6 ws@8 graphql-sse@2)
fi
out=$(mktemp)
pid=
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$out"
}
trap cleanup EXIT
"$server" >"$out" &
pid=$!
for _ in $(seq 100); do
  grep -q '^PORT ' "$out" && break
  sleep 0.05
done
port=$(sed -n 's/^PORT //p' "$out")
[[ -n $port ]] || { echo "FAIL: the peer server did not start"; exit 1; }
NODE_PATH=$peers/node_modules timeout 120 node "$here/$script" "$port"
