# Sourced by run_npm_peer.sh and run_serve_ws.sh. install_subscription_peers
# DIR installs the npm clients of the subscription transports (graphql-ws 6,
# ws 8, graphql-sse 2) into DIR with its own package.json and sets $peers
# to DIR's absolute path. Then $out is a temporary file for a server's
# output and $pid, once set, a server stopped (and $out removed) on exit.
install_subscription_peers() {
  mkdir -p "$1"
  peers=$(cd "$1" && pwd)
  if [[ ! -f $peers/node_modules/graphql-ws/package.json || ! -f $peers/node_modules/ws/package.json ||
    ! -f $peers/node_modules/graphql-sse/package.json ]]; then
    [[ -f $peers/package.json ]] || echo '{"name":"gql-subscription-peers","private":true}' >"$peers/package.json"
    (cd "$peers" && timeout 300 npm install --silent --no-audit --no-fund graphql@16 graphql-ws@6 ws@8 graphql-sse@2)
  fi
}
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
