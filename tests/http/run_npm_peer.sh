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
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=npm_peers.sh
. "$here/npm_peers.sh"
install_subscription_peers "$3"
"$server" >"$out" &
pid=$!
for _ in $(seq 100); do
  grep -q '^PORT ' "$out" && break
  sleep 0.05
done
port=$(sed -n 's/^PORT //p' "$out")
[[ -n $port ]] || { echo "FAIL: the peer server did not start"; exit 1; }
NODE_PATH=$peers/node_modules timeout 120 node "$here/$script" "$port"
