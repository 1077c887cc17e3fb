#!/usr/bin/env bash
# gql as a correct federation subgraph: Apollo Gateway 2.14 (npm, on
# @apollo/server 5, installed into PEERS_DIR once and reused) over
# bench_subgraphs (the benchmark subgraphs written with gql's C API)
# answers the benchmark request with status 200 and expected_response.json
# byte for byte (Apollo Server adds one newline, which is dropped). Apollo's
# planner makes 16 subgraph requests for it without de-duplicating
# representations (reference §6.1: accounts 3 with 48 + 11, reviews 2 with
# 6 + 5, products 4 with 12 + 96 + 22, inventory 7 with 5 + 2 x 12 +
# 2 x 96 + 2 x 22), counted by bench_subgraphs.
# Usage: test_gateway_apollo.sh BENCH_SUBGRAPHS_BINARY SHARED_DIR PEERS_DIR
set -uo pipefail
subgraphs=${1:?usage: test_gateway_apollo.sh BENCH_SUBGRAPHS SHARED_DIR PEERS_DIR}
bench=${2:?usage: test_gateway_apollo.sh BENCH_SUBGRAPHS SHARED_DIR PEERS_DIR}/gateway-bench
peers=${3:?usage: test_gateway_apollo.sh BENCH_SUBGRAPHS SHARED_DIR PEERS_DIR}
here=$(dirname "$0")
source "$here/../gateway/common.sh"
source "$here/../gateway/npm_peers.sh"
npm_peers "$peers" || { echo "FAIL: the npm peers could not be installed"; exit 1; }
echo "peers: @apollo/gateway $(npm_version "$peers" @apollo/gateway)," \
  "@apollo/server $(npm_version "$peers" @apollo/server), node $(node --version)"

sub_port=$(free_port)
start_logged subgraphs "$subgraphs" --port "$sub_port" \
  --reviews "$bench/peers/reviews-data.json"
wait_http "http://127.0.0.1:$sub_port/health" subgraphs || exit 1
rewrite_supergraph "$bench/supergraph.graphql" "$sub_port" >"$tmp/supergraph.graphql"
gw_port=$(free_port)
NODE_PATH=$peers/node_modules start_logged gateway node "$here/../gateway/apollo_gateway.js" \
  "$tmp/supergraph.graphql" "$gw_port"
# Apollo Server answers GET / with 400 without a query: wait for the log line
for _ in $(seq 600); do
  grep -q "apollo gateway at" "$tmp/gateway.log" && break
  kill -0 "$pid_gateway" 2>/dev/null || break
  sleep 0.05
done
grep -q "apollo gateway at" "$tmp/gateway.log" ||
  { fail "Apollo Gateway did not start: $(tail -c 2000 "$tmp/gateway.log")"; finish; }

curl -sf -X POST "http://127.0.0.1:$sub_port/reset" >/dev/null || fail "POST /reset"
post_request "http://127.0.0.1:$gw_port/graphql" "$bench/request.json" "$tmp/raw.json"
# Apollo Server ends its JSON with one newline: drop exactly that one
python3 - "$tmp/raw.json" "$tmp/answer.json" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b[:-1] if b.endswith(b"\n") else b)
PY
cp "$tmp/raw.json.status" "$tmp/answer.json.status"
expect_exact "Apollo Gateway over bench_subgraphs" "$tmp/answer.json" \
  "$bench/expected_response.json"
curl -sf "http://127.0.0.1:$sub_port/stats" >"$tmp/stats.json" || fail "GET /stats"
expect_counts "Apollo Gateway's requests" "$tmp/stats.json" 1 \
  '{"/accounts": [3, 59], "/products": [4, 130], "/reviews": [2, 11], "/inventory": [7, 265]}'
finish
