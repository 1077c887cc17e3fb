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
#   worker; graphql-sse's refusals (404, 409, 400, 405, 406), and 400
#   application/json for an operation that does not parse or validate,
#   whatever the POST accepts (graphql-sse 2.6.1's handler);
# - gql_subscriptions_open counting SSE subscriptions of both modes, down
#   again after a DELETE, a client gone, a stream closed;
# - subscription.sse_reservation_ttl (and its flag): a reservation no
#   stream opened expires;
# - a stream open at SIGTERM ends and the server exits;
# - the gateway: a subscription relayed from a gql subgraph, and its
#   gql_subscriptions_open (SSE both modes, WebSocket, across a reload).
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

chat_schema
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
# an operation that does not validate, parse, or name an operation of its
# document: 400 application/json with the errors, as graphql-sse 2.6.1's
# handler answers, with no Accept, with */* and with application/json (not
# graphql-http's 200 for application/json)
# post_as ACCEPT TOKEN ID QUERY [OPERATION]: the status and content type
post_as() {
  curl -s -o "$tmp/post.out" -w '%{http_code} %{content_type}' -X POST -H 'content-type: application/json' \
    ${1:+-H "accept: $1"} -H "x-graphql-event-stream-token: $2" \
    --data "{\"query\":\"$4\",\"operationName\":${5:-null},\"extensions\":{\"operationId\":\"$3\"}}" "$url"
}
jct='application/json; charset=utf-8'
for acc in '' '*/*' 'application/json'; do
  expect "a query that does not validate (accept '$acc')" "400 $jct" "$(post_as "$acc" "$tok" "bad$acc" '{ nope }')"
  grep -q '^{"errors":\[{"message":"Cannot query field' "$tmp/post.out" || fail "validation error: $(cat "$tmp/post.out")"
  expect "a query that does not parse (accept '$acc')" "400 $jct" "$(post_as "$acc" "$tok" "syn$acc" '{ ok ')"
  grep -q '^{"errors":\[{"message":' "$tmp/post.out" || fail "syntax error: $(cat "$tmp/post.out")"
  expect "an unknown operation name (accept '$acc')" "400 $jct" \
    "$(post_as "$acc" "$tok" "unk$acc" 'query A { ok }' '"B"')"
done
# the refused ids were never taken: the same id runs now
expect "an id of a refused operation, reused" 202 "$(post "$tok" bad '{ ok }')"
wait_for "$tmp/stream.out" '^data: \{"id":"bad","payload":\{"data":\{"ok":true\}\}\}$' "bad's result" && ok
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

# ---- gql_subscriptions_open counts the subscriptions over SSE, both modes
# (summed over the workers), and each way of ending one takes it off
# subs_open PORT: the gauge's value on that server's /metrics
subs_open() { curl -s "http://127.0.0.1:$1/metrics" | sed -n 's/^gql_subscriptions_open \([0-9.e+]*\)$/\1/p'; }
# until_open PORT N WHAT: until the gauge is N (5 s)
until_open() {
  local v=
  for _ in $(seq 200); do
    v=$(subs_open "$1")
    [[ $v == "$2" ]] && { ok; return 0; }
    sleep 0.025
  done
  fail "gql_subscriptions_open: want $2 ($3), got '$v'"
  return 1
}
# distinct URL FILE QUERY: a distinct connections subscription by curl (pid in $dpid)
distinct() {
  curl -sN -H 'accept: text/event-stream' -H 'content-type: application/json' \
    --data "{\"query\":\"$3\"}" "$1" >"$2" &
  dpid=$!
  pids+=("$dpid")
}
until_open "$porta" 0 "every subscription above ended"
distinct "$url" "$tmp/d1.out" 'subscription { messages(room: \"m\") { text } }'
d1=$dpid
distinct "$url" "$tmp/d2.out" 'subscription { messages(room: \"m\") { text } }'
d2=$dpid
until_open "$porta" 2 "two distinct connections subscriptions"
tok=$(curl -s -X PUT "$url")
curl -sN -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $tok" "$url" >"$tmp/m.out" &
mpid=$!
pids+=("$mpid")
wait_for "$log" "stream $tok open" "the metrics' stream open"
for i in 1 2 3; do
  expect "POST subscription ms$i" 202 "$(post "$tok" "ms$i" 'subscription { messages(room: \"m\") { text } }')"
done
expect "POST query mq" 202 "$(post "$tok" mq '{ ok }')"
wait_for "$tmp/m.out" '^data: \{"id":"mq"\}$' "mq's complete"
until_open "$porta" 5 "and three on a reservation's stream (not its query)"
# an event reaches all five, each counted as written
redis-cli -p "$rport" PUBLISH gql:messages '{"room":"m","text":"counted"}' >/dev/null
wait_for "$tmp/m.out" '"id":"ms3","payload":\{"data":\{"messages":\{"text":"counted"' "ms3's event"
wait_for "$tmp/d2.out" '"text":"counted"' "d2's event"
expect "DELETE ms1" 200 "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE "$url?token=$tok&operationId=ms1")"
until_open "$porta" 4 "a DELETE ends one"
kill "$d1"
until_open "$porta" 3 "a distinct client gone ends its one"
kill "$mpid"
until_open "$porta" 1 "the reservation's stream closing ends its two"
kill "$d2"
until_open "$porta" 0 "the last client gone"

# ---- a reservation no stream opened expires: subscription.sse_reservation_ttl
# (1.5 s here, time enough for a stream to open under load; expiry is checked
# each second, so it goes within 2.5 s) and its flag; 30 s by default
cat >"$tmp/ttl.yaml" <<'YAML'
subscription:
  sse_reservation_ttl: 1500ms
YAML
serve b --config "$tmp/ttl.yaml" --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
urlb=http://127.0.0.1:$port/graphql
for bad in "--subscription-sse-reservation-ttl 99" "--subscription-sse-reservation-ttl 3600001"; do
  # shellcheck disable=SC2086
  "$gql" serve $bad >"$tmp/bad.out" 2>&1
  rc=$?
  if [[ $rc == 2 ]] && grep -q "^gql serve: --subscription-sse-reservation-ttl" "$tmp/bad.out"; then
    ok
  else
    fail "gql serve $bad: exit $rc, $(cat "$tmp/bad.out")"
  fi
done
# server c: the flag over the file's key, 60 s
serve c --config "$tmp/ttl.yaml" --subscription-sse-reservation-ttl 60000 \
  --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
urlc=http://127.0.0.1:$port/graphql
# post_to URL TOKEN ID: a query's POST
post_to() {
  curl -s -o "$tmp/post.out" -w '%{http_code}' -X POST -H 'content-type: application/json' \
    -H "x-graphql-event-stream-token: $2" --data "{\"query\":\"{ ok }\",\"extensions\":{\"operationId\":\"$3\"}}" "$1"
}
kept=$(curl -s -X PUT "$urlb")
curl -sN -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $kept" "$urlb" >"$tmp/kept.out" &
pids+=($!)
idle=$(curl -s -X PUT "$urlb")
idle_a=$(curl -s -X PUT "$url") # server a: the default time-to-live
idle_c=$(curl -s -X PUT "$urlc")
expect "a fresh reservation takes operations" 202 "$(post_to "$urlb" "$idle" i1)"
sleep 3.5
expect "a reservation never opened, past its 1.5 s" 404 "$(post_to "$urlb" "$idle" i2)"
grep -q 'Stream not found' "$tmp/post.out" || fail "expired: $(cat "$tmp/post.out")"
expect "a reservation whose stream opened in time, past 1.5 s" 202 "$(post_to "$urlb" "$kept" k1)"
wait_for "$tmp/kept.out" '^data: \{"id":"k1","payload":\{"data":\{"ok":true\}\}\}$' "k1's result on the kept stream" && ok
expect "server a's reservation, 3.5 s on (30 s by default)" 202 "$(post_to "$url" "$idle_a" ia)"
expect "server c's reservation, 3.5 s on (the flag's 60 s over the file's 1.5 s)" 202 \
  "$(post_to "$urlc" "$idle_c" c1)"

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
gwpid=$!
pids+=("$gwpid")
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

# gql_subscriptions_open on the gateway: its subscriptions over SSE (both
# modes) and over WebSocket, through a reload, each end taking one off
urlg=http://127.0.0.1:$portg/graphql
gsub='subscription { productAdded { upc name price } }'
until_open "$portg" 0 "the gateway: none open"
distinct "$urlg" "$tmp/gd.out" "$gsub"
gd=$dpid
tg=$(curl -s -X PUT "$urlg")
curl -sN -H 'accept: text/event-stream' -H "x-graphql-event-stream-token: $tg" "$urlg" >"$tmp/gs.out" &
gs=$!
pids+=("$gs")
wait_for "$tmp/gw.err" "stream $tg open" "the gateway's stream open"
for i in 1 2; do
  expect "the gateway: POST subscription gs$i" 202 "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X POST \
    -H 'content-type: application/json' -H "x-graphql-event-stream-token: $tg" \
    --data "{\"query\":\"$gsub\",\"extensions\":{\"operationId\":\"gs$i\"}}" "$urlg")"
done
NODE_PATH=$peers/node_modules node -e "
const { createClient } = require('graphql-ws/client');
const c = createClient({ url: 'ws://127.0.0.1:$portg/graphql', webSocketImpl: require('ws'), retryAttempts: 0 });
c.subscribe({ query: '$gsub' }, { next: (v) => console.log(JSON.stringify(v)), error: (e) => { console.error(e); process.exit(1); }, complete: () => {} });
setInterval(() => {}, 1000);" >"$tmp/gw_ws.out" 2>&1 &
gw_ws=$!
pids+=("$gw_ws")
until_open "$portg" 4 "the gateway: one distinct, two on a stream, one over WebSocket"
kill -HUP "$gwpid"
wait_for "$tmp/gw.err" 'reload \(SIGHUP\)' "the gateway's reload"
until_open "$portg" 4 "the gateway: the same after a reload"
for _ in $(seq 100); do
  redis-cli -p "$rport" PUBLISH gql:productAdded '{"upc":"2","name":"Couch"}' >/dev/null
  grep -q '"price":250' "$tmp/gw_ws.out" && grep -q '"id":"gs2","payload".*"price":250' "$tmp/gs.out" &&
    grep -q '"price":250' "$tmp/gd.out" && break
  sleep 0.05
done
grep -q '"price":250' "$tmp/gw_ws.out" && grep -q '"price":250' "$tmp/gd.out" &&
  grep -q '"id":"gs1","payload".*"price":250' "$tmp/gs.out" && ok || fail "the gateway's four got no event"
expect "the gateway: DELETE gs1" 200 \
  "$(curl -s -o "$tmp/post.out" -w '%{http_code}' -X DELETE "$urlg?token=$tg&operationId=gs1")"
until_open "$portg" 3 "the gateway: a DELETE ends one"
kill "$gd"
until_open "$portg" 2 "the gateway: a distinct client gone"
kill "$gw_ws"
until_open "$portg" 1 "the gateway: a WebSocket client gone"
kill "$gs"
until_open "$portg" 0 "the gateway: the reservation's stream closing"
kill "$rpid" 2>/dev/null

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
