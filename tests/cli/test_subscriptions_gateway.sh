#!/usr/bin/env bash
# gql gateway relays subscriptions: two gql subgraphs (gql serve --subgraph),
# products (a Subscription field fed from Redis with --redis) and prices; a
# supergraph for them; gql gateway in front. The npm graphql-ws 6 client
# (gateway_subs_client.cjs) subscribes through the gateway, events go in
# with redis-cli PUBLISH, and each must arrive with the field of the other
# subgraph resolved; completing (or dropping) the client completes the
# subgraph's subscription (products allows one open subscription, so the
# next one is accepted only once the previous one is gone); queries and
# mutations over the gateway's socket; the prices subgraph down gives events
# with a null price and its error; the products subgraph dying ends the
# client's subscription with an error; then the gateway stops cleanly.
# Usage: test_subscriptions_gateway.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_subscriptions_gateway.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

# one open subscription at a time on the products subgraph
printf 'subscription:\n  max_opened_subscriptions: 1\n' >"$tmp/products.yaml"
subscription_subgraphs --config "$tmp/products.yaml"

"$gql" gateway --port 0 --threads "$threads" --supergraph "$tmp/sg.graphql" >"$tmp/gw.out" 2>"$tmp/gw.err" &
pg=$!
pids+=("$pg")
for _ in $(seq 200); do
  portg=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw.out" 2>/dev/null)
  [[ -n $portg ]] && break
  sleep 0.05
done
[[ -n ${portg:-} ]] || { fail "gateway: no banner: $(cat "$tmp/gw.out" "$tmp/gw.err")"; exit 1; }

# the plan: the subscription from products, then prices per event
echo 'subscription { productAdded { name price } }' >"$tmp/sub.graphql"
plan=$("$gql" gateway --supergraph "$tmp/sg.graphql" --plan "$tmp/sub.graphql")
if [[ $plan == *'Fetch(service: "products")'*'productAdded'*'Fetch(service: "prices")'*'price'* ]]; then ok; else fail "plan: $plan"; fi

# a subscription over plain HTTP is refused with a clear error
out=$(curl -s -H 'Content-Type: application/json' \
  -d '{"query":"subscription { productAdded { name } }"}' "http://127.0.0.1:$portg/graphql")
if [[ $out == *'WebSocket'* && $out != *'"data"'* ]]; then ok; else fail "subscription over HTTP: $out"; fi

if NODE_PATH=$peers/node_modules timeout 120 node "$here/gateway_subs_client.cjs" "$portg" "$rport" "$pp" "$pq"; then
  ok
else
  fail "the npm client's checks: gateway log: $(cat "$tmp/gw.err")"
fi

# the gateway is still alive and stops cleanly
kill -0 "$pg" 2>/dev/null && ok || fail "the gateway died: $(cat "$tmp/gw.err")"
kill -TERM "$pg"
rc=0
timeout 10 tail --pid="$pg" -f /dev/null || rc=1
wait "$pg" || rc=$?
[[ $rc == 0 ]] && ok || fail "gql gateway did not stop cleanly on SIGTERM (rc $rc): $(cat "$tmp/gw.err")"

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
