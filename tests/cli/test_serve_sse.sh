#!/usr/bin/env bash
# gql serve over server-sent events (src/http/stream.c) with the npm
# graphql-sse 2 client in distinct connections mode (serve_sse_client.cjs):
# subscriptions fed by redis-cli PUBLISH through a redis-server started here
# on a free port, queries and @defer queries as event streams, a client
# leaving frees its subscription, the subscription limit, a gql without
# --redis; then each gql stops cleanly on SIGTERM with a stream open.
# Usage: test_serve_sse.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_serve_sse.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

chat_schema
cat >"$tmp/one.yaml" <<YAML
redis:
  url: redis://127.0.0.1:$rport
subscription:
  max_opened_subscriptions: 1
YAML
serve a --config "$tmp/one.yaml" --schema "$tmp/chat.graphql" --data "$tmp/data.json" --defer-stream || exit 1
pa=$pid porta=$port
serve none --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pn=$pid portn=$port

if NODE_PATH=$peers/node_modules timeout 120 node "$here/serve_sse_client.cjs" "$porta" "$portn" "$rport"; then
  ok
else
  fail "the npm graphql-sse client's checks"
fi

# a stream open at SIGTERM: it completes and the server exits
curl -sN -D "$tmp/open.head" -X POST -H 'content-type: application/json' -H 'accept: text/event-stream' \
  --data '{"query":"subscription { messages { text } }"}' "http://127.0.0.1:$porta/graphql" >"$tmp/open.out" &
cpid=$!
# the head goes out once the subscription is made (the channel's NUMSUB
# may count an earlier subscriber's: gql does not unsubscribe a channel)
for _ in $(seq 200); do
  grep -q '^HTTP/1.1 200' "$tmp/open.head" 2>/dev/null && break
  sleep 0.05
done
stop_cleanly "$pa" "$pn"
timeout 5 tail --pid="$cpid" -f /dev/null || fail "the open stream did not end at the stop"
grep -q "event: complete" "$tmp/open.out" || fail "the open stream did not complete: $(cat "$tmp/open.out")"
kill "$rpid" 2>/dev/null

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
