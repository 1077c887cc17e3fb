#!/usr/bin/env bash
# The npm graphql-ws client against a real gql_http server that serves
# subscriptions (examples/subscribe/server.c): starts it on a free port,
# runs serve_ws_npm_client.cjs, which ends by stopping the server with
# SIGTERM; the server must then exit 0 (open sockets closed with 1001).
# Usage: run_serve_ws.sh SERVER PEERS_DIR
set -euo pipefail
server=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=npm_peers.sh
. "$here/npm_peers.sh"
install_subscription_peers "$2"
"$server" -1 >"$out" &
pid=$!
for _ in $(seq 100); do
  grep -q ' on http://' "$out" && break
  sleep 0.05
done
port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$out")
[[ -n $port ]] || { echo "FAIL: the server did not start"; exit 1; }
NODE_PATH=$peers/node_modules timeout 120 node "$here/serve_ws_npm_client.cjs" "$port" "$pid"
for _ in $(seq 100); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if kill -0 "$pid" 2>/dev/null; then
  echo "FAIL: the server did not stop within 5 s of SIGTERM"
  exit 1
fi
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || { echo "FAIL: the server exited $rc"; exit 1; }
echo "server stopped cleanly"
