#!/usr/bin/env bash
# graphql-sse's single connection mode (src/http/sse_single.c) on
# `gql serve --threads 2 --redis` and through `gql gateway`:
# - the npm graphql-sse 2 client with singleConnection: true
#   (serve_sse_single_client.cjs): two subscriptions on one stream receive
#   the events of redis-cli PUBLISH, one disposed (DELETE) stops on the
#   server while the other goes on, a query over the same stream;
# - curl, a fresh connection per request so that SO_REUSEPORT spreads them
#   over both workers: operations run on another worker than their stream
#   (the debug log says where each runs) and their events arrive; a DELETE
#   stops a subscription; the stream closing stops the operations of every
#   worker; graphql-sse's refusals (404, 409, 400, 405, 406);
# - a stream open at SIGTERM ends and the server exits;
# - the gateway: a subscription relayed from a gql subgraph.
# Usage: test_serve_sse_single.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_serve_sse_single.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

cat >"$tmp/chat.graphql" <<'GQL'
type Query { ok: Boolean }
type Message { room: String, text: String! }
type Subscription { messages(room: String): Message }
GQL
echo '{"ok":true}' >"$tmp/data.json"
serve a --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" \
  --log-level debug || exit 1
pa=$pid porta=$port
url=http://127.0.0.1:$porta/graphql
log=$tmp/a.err

# ---- the npm client
if NODE_PATH=$peers/node_modules timeout 120 node "$here/serve_sse_single_client.cjs" \
  "$porta" "$rport" gql:messages serve "$log"; then
  ok
else
  fail "the npm graphql-sse client's checks (single connection)"
fi

# ---- curl: a fresh connection per request
# wait_for FILE PATTERN WHAT: until grep -E finds PATTERN in FILE (5 s)
wait_for() {
  for _ in $(seq 200); do
    grep -Eq "$2" "$1" 2>/dev/null && return 0
    sleep 0.025
  done
  fail "never: $3"
  return 1
}
# post TOKEN ID QUERY: the status of the POST of an operation
post() {
  curl -s -o "$tmp/post.out" -w '%{http_code}' -X POST -H 'content-type: application/json' \
    -H "x-graphql-event-stream-token: $1" \
    --data "{\"query\":\"$3\",\"extensions\":{\"operationId\":\"$2\"}}" "$url"
}
expect() { # expect WHAT WANT GOT
  if [[ $3 == "$2" ]]; then ok; else fail "$1: want $2, got $3 ($(cat "$tmp/post.out" 2>/dev/null))"; fi
}

tok=$(curl -s -X PUT "$url")
if [[ $tok =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]; then ok; else fail "PUT: a UUID token, got '$tok'"; fi
curl -sN -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $tok" "$url" >"$tmp/stream.out" &
spid=$!
pids+=("$spid")
wait_for "$log" "stream $tok open on worker [0-9]" "the stream open" || exit 1
sw=$(sed -n "s/.*stream $tok open on worker \([0-9]*\).*/\1/p" "$log")

expect "a second GET of the reservation" 409 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $tok" "$url")"
for i in $(seq 16); do
  expect "POST query x$i" 202 "$(post "$tok" "x$i" '{ ok }')"
done
for i in $(seq 6); do
  expect "POST subscription xs$i" 202 "$(post "$tok" "xs$i" 'subscription { messages(room: \"x\") { text } }')"
done
# each query's result and complete on the stream
for i in $(seq 16); do
  wait_for "$tmp/stream.out" "^data: \\{\"id\":\"x$i\",\"payload\":\\{\"data\":\\{\"ok\":true\\}\\}\\}$" "x$i's next" &&
    wait_for "$tmp/stream.out" "^data: \\{\"id\":\"x$i\"\\}$" "x$i's complete" && ok
done
# operations ran on the other worker than the stream's
cross=$(grep -Ec "operation x[s0-9]+ runs on worker [0-9]+, its stream on worker $sw$" "$log")
other=$(grep -Ec "operation x[s0-9]+ runs on worker [^$sw], its stream on worker $sw$" "$log")
if [[ $cross == 22 && $other -ge 1 ]]; then
  ok
else
  fail "operations on the other worker: $other of $cross (stream on worker $sw)"
fi
# the subscriptions, wherever they run, get the event
sleep 0.2
for _ in $(seq 100); do
  redis-cli -p "$rport" PUBLISH gql:messages '{"room":"x","text":"hello"}' >/dev/null
  grep -q '"id":"xs6","payload"' "$tmp/stream.out" && break
  sleep 0.05
done
for i in $(seq 6); do
  wait_for "$tmp/stream.out" "^data: \\{\"id\":\"xs$i\",\"payload\":\\{\"data\":\\{\"messages\":\\{\"text\":\"hello\"\\}\\}\\}\\}$" "xs$i's event" && ok
done
# refusals, as graphql-sse answers them
expect "an id in use" 409 "$(post "$tok" xs2 '{ ok }')"
grep -q 'Operation with ID already exists' "$tmp/post.out" || fail "409 message: $(cat "$tmp/post.out")"
expect "no operation id" 400 "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X POST -H 'content-type: application/json' \
  -H "x-graphql-event-stream-token: $tok" --data '{"query":"{ ok }"}' "$url")"
grep -q 'Operation ID is missing' "$tmp/post.out" || fail "400 message: $(cat "$tmp/post.out")"
expect "an unknown token" 404 "$(post nosuchtoken y '{ ok }')"
grep -q 'Stream not found' "$tmp/post.out" || fail "404 message: $(cat "$tmp/post.out")"
expect "DELETE of an unknown token" 404 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE -H "x-graphql-event-stream-token: nosuchtoken" "$url?operationId=xs1")"
expect "DELETE without operationId" 400 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE -H "x-graphql-event-stream-token: $tok" "$url")"
expect "PATCH with a token" 405 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X PATCH -H "x-graphql-event-stream-token: $tok" "$url")"
expect "PUT accepting JSON only" 406 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X PUT -H 'accept: application/json' "$url")"
expect "a token with a space" 400 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE "$url?token=a+b&operationId=1")"
expect "a query with an error: the POST's answer" 200 "$(post "$tok" bad '{ nope }')"
grep -q 'Cannot query field' "$tmp/post.out" || fail "validation error: $(cat "$tmp/post.out")"
# DELETE stops one subscription (with `complete`, as graphql-sse); the
# token in the query string this time
expect "DELETE xs1" 200 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE "$url?token=$tok&operationId=xs1")"
wait_for "$log" "operation xs1 ended on worker [0-9]+ \\(stopped\\)" "xs1 stopped on the server" && ok
wait_for "$tmp/stream.out" '^data: \{"id":"xs1"\}$' "xs1's complete" && ok
redis-cli -p "$rport" PUBLISH gql:messages '{"room":"x","text":"second"}' >/dev/null
wait_for "$tmp/stream.out" '"id":"xs2","payload":\{"data":\{"messages":\{"text":"second"' "xs2's second event" && ok
if grep -q '"id":"xs1","payload":{"data":{"messages":{"text":"second"' "$tmp/stream.out"; then
  fail "xs1 got an event after its DELETE"
else
  ok
fi
# the stream closing stops its operations on every worker, and the
# reservation goes
kill "$spid"
for i in $(seq 2 6); do
  wait_for "$log" "operation xs$i ended on worker [0-9]+ \\(stopped\\)" "xs$i stopped with its stream" && ok
done
expect "the closed stream's token" 404 "$(post "$tok" z '{ ok }')"

# ---- a stream open at SIGTERM: it ends, the server exits
tok=$(curl -s -X PUT "$url")
curl -sN -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $tok" "$url" >"$tmp/open.out" &
cpid=$!
wait_for "$log" "stream $tok open" "the last stream open"
expect "a subscription on it" 202 "$(post "$tok" last 'subscription { messages { text } }')"
kill -TERM "$pa"
rc=0
timeout 10 tail --pid="$pa" -f /dev/null || rc=1
wait "$pa" || rc=$?
[[ $rc == 0 ]] || fail "gql serve did not stop cleanly on SIGTERM (rc $rc): $(tail -5 "$log")"
rc=0
timeout 5 tail --pid="$cpid" -f /dev/null || rc=1
wait "$cpid" || rc=$? # curl: 0 once the chunked body ended properly
[[ $rc == 0 ]] || fail "the open stream did not end at the stop (rc $rc): $(cat "$tmp/open.out")"

# ---- the gateway: a subscription relayed from a gql subgraph
subscription_subgraphs
"$gql" gateway --port 0 --threads "$threads" --supergraph "$tmp/sg.graphql" --log-level debug \
  >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
for _ in $(seq 200); do
  portg=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw.out" 2>/dev/null)
  [[ -n $portg ]] && break
  sleep 0.05
done
[[ -n ${portg:-} ]] || { fail "gateway: no banner: $(cat "$tmp/gw.out" "$tmp/gw.err")"; exit 1; }
if NODE_PATH=$peers/node_modules timeout 120 node "$here/serve_sse_single_client.cjs" \
  "$portg" "$rport" gql:productAdded gateway "$tmp/gw.err"; then
  ok
else
  fail "the npm graphql-sse client through the gateway: $(grep -v debug "$tmp/gw.err" | tail -5)"
fi
kill "$rpid" 2>/dev/null

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
