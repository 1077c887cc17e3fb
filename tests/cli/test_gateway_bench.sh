#!/usr/bin/env bash
# The federation benchmark end to end over real sockets: bench_subgraphs
# (the four benchmark subgraphs written with gql's C API) on a free port,
# `gql gateway` on the benchmark supergraph (URLs rewritten to that port),
# request.json POSTed: status 200 and a body byte-identical to
# expected_response.json. bench_subgraphs counts what it is sent (GET
# /stats): each client request must cost exactly 6 subgraph requests
# (accounts 2, products 2, reviews 1, inventory 1) carrying 18 de-duplicated
# representations (reviews 11, products 1, accounts 1, inventory 5), also
# when the plan comes from the cache and over reused connections.
# Usage: test_gateway_bench.sh GQL_BINARY BENCH_SUBGRAPHS_BINARY SHARED_DIR
set -uo pipefail
gql=${1:?usage: test_gateway_bench.sh GQL BENCH_SUBGRAPHS SHARED_DIR}
subgraphs=${2:?usage: test_gateway_bench.sh GQL BENCH_SUBGRAPHS SHARED_DIR}
bench=${3:?usage: test_gateway_bench.sh GQL BENCH_SUBGRAPHS SHARED_DIR}/gateway-bench
source "$(dirname "$0")/../gateway/common.sh"

sub_port=$(free_port)
start_logged subgraphs "$subgraphs" --port "$sub_port" \
  --reviews "$bench/peers/reviews-data.json"
wait_http "http://127.0.0.1:$sub_port/health" subgraphs || exit 1
rewrite_supergraph "$bench/supergraph.graphql" "$sub_port" >"$tmp/supergraph.graphql"
gw_port=$(free_port)
start_logged gateway "$gql" gateway --supergraph "$tmp/supergraph.graphql" \
  --host 127.0.0.1 --port "$gw_port"
wait_http "http://127.0.0.1:$gw_port/health" gateway || exit 1

stats() { curl -sf "http://127.0.0.1:$sub_port/stats"; }
curl -sf -X POST "http://127.0.0.1:$sub_port/reset" >/dev/null ||
  fail "POST /reset to bench_subgraphs"

# Three client requests: the first plans, the others use the cached plan.
for round in 1 2 3; do
  post_request "http://127.0.0.1:$gw_port/graphql" "$bench/request.json" \
    "$tmp/answer.json"
  expect_exact "gql gateway over bench_subgraphs (request $round)" \
    "$tmp/answer.json" "$bench/expected_response.json"
  stats >"$tmp/stats.json" || fail "GET /stats"
  expect_counts "request $round" "$tmp/stats.json" "$round" \
    '{"/accounts": [2, 1], "/products": [2, 1], "/reviews": [1, 11], "/inventory": [1, 5]}'
done

# Concurrent clients: every answer still exact, still 6 requests each.
curl -sf -X POST "http://127.0.0.1:$sub_port/reset" >/dev/null
clients=()
for i in 1 2 3 4 5 6 7 8; do
  post_request "http://127.0.0.1:$gw_port/graphql" "$bench/request.json" \
    "$tmp/answer$i.json" &
  clients+=($!)
done
wait "${clients[@]}"
for i in 1 2 3 4 5 6 7 8; do
  expect_exact "concurrent request $i" "$tmp/answer$i.json" \
    "$bench/expected_response.json"
done
stats >"$tmp/stats.json" || fail "GET /stats"
expect_counts "8 concurrent requests" "$tmp/stats.json" 8 \
  '{"/accounts": [2, 1], "/products": [2, 1], "/reviews": [1, 11], "/inventory": [1, 5]}'

finish
