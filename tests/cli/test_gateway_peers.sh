#!/usr/bin/env bash
# `gql gateway` over the JavaScript peer subgraphs
# (../shared/gateway-bench/peers/subgraphs.js on @apollo/subgraph 2.14 +
# graphql-yoga 5, npm packages installed into PEERS_DIR once and reused):
# the benchmark request's answer is status 200 and byte-identical to
# expected_response.json, with 6 subgraph requests and 18 representations
# per client request (counted from the bodies the peer logs). No npm or no
# registry is a failure, not a skip.
# Usage: test_gateway_peers.sh GQL_BINARY SHARED_DIR PEERS_DIR
set -uo pipefail
gql=${1:?usage: test_gateway_peers.sh GQL SHARED_DIR PEERS_DIR}
bench=${2:?usage: test_gateway_peers.sh GQL SHARED_DIR PEERS_DIR}/gateway-bench
peers=${3:?usage: test_gateway_peers.sh GQL SHARED_DIR PEERS_DIR}
here=$(dirname "$0")
source "$here/../gateway/common.sh"
source "$here/../gateway/npm_peers.sh"
npm_peers "$peers" || { echo "FAIL: the npm peers could not be installed"; exit 1; }
echo "peers: @apollo/subgraph $(npm_version "$peers" @apollo/subgraph)," \
  "graphql-yoga $(npm_version "$peers" graphql-yoga), graphql" \
  "$(npm_version "$peers" graphql), node $(node --version)"

sub_port=$(free_port)
PORT=$sub_port LOG_BODIES=1 NODE_PATH=$peers/node_modules \
  start_logged subgraphs node "$bench/peers/subgraphs.js"
wait_http "http://127.0.0.1:$sub_port/health" subgraphs || exit 1
rewrite_supergraph "$bench/supergraph.graphql" "$sub_port" >"$tmp/supergraph.graphql"
gw_port=$(free_port)
start_logged gateway "$gql" gateway --supergraph "$tmp/supergraph.graphql" \
  --host 127.0.0.1 --port "$gw_port"
wait_http "http://127.0.0.1:$gw_port/health" gateway || exit 1

for round in 1 2; do
  curl -sf "http://127.0.0.1:$sub_port/reset" >/dev/null || fail "GET /reset"
  post_request "http://127.0.0.1:$gw_port/graphql" "$bench/request.json" \
    "$tmp/answer.json"
  expect_exact "gql gateway over peers/subgraphs.js (request $round)" \
    "$tmp/answer.json" "$bench/expected_response.json"
  sleep 0.2 # the peer logs a body when its request stream ends
  curl -sf "http://127.0.0.1:$sub_port/stats" >"$tmp/stats.json" || fail "GET /stats"
  expect_counts "request $round" "$tmp/stats.json" 1 \
    '{"/accounts": [2, 1], "/products": [2, 1], "/reviews": [1, 11], "/inventory": [1, 5]}'
done
finish
