#!/usr/bin/env bash
# gql gateway and graphql-sse on both sides: the products subgraph (gql serve
# --subgraph --redis) is configured for SSE (subscription.mode.passthrough
# .subgraphs.products.protocol: sse), prices is reached over HTTP per event.
# gateway_subs_sse_client.cjs subscribes through the gateway with the npm
# graphql-ws 6 client and with the npm graphql-sse 2 client (distinct
# connections); events go in with redis-cli PUBLISH and must arrive with the
# price of the other subgraph; products must have served the subscription
# over SSE (its metrics: an HTTP request of operation type subscription, no
# WebSocket connection); the client's complete must end the subgraph's
# stream (products' open connections drop); a reload setting products back
# to graphql_ws applies to new subscriptions; products dying ends the
# subscriptions with the gateway's error, and a new one gets "cannot
# connect". A second gateway over tests/gateway/sse_subgraph.py meets each
# way a stream can end (complete event, body end, cut, error status, JSON
# instead of a stream), with the SSE path and header rules applied. Bad
# subscription.mode values are refused with FILE:LINE:COLUMN; an entry of
# subscription.mode.passthrough.subgraphs or headers.subgraphs naming no
# subgraph of the supergraph is warned of at the start and at a reload.
# Usage: test_subscriptions_gateway_sse.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_subscriptions_gateway_sse.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

subscription_subgraphs

# bad values of the new keys: refused at start, at their place
printf 'subscription:\n  mode:\n    passthrough:\n      subgraphs:\n        products:\n          protocol: sses\n' >"$tmp/bad.yaml"
out=$("$gql" gateway --config "$tmp/bad.yaml" --supergraph "$tmp/sg.graphql" --port 0 2>&1)
if [[ $out == *'bad.yaml:6:21: subscription.mode.passthrough.subgraphs.products.protocol needs graphql_ws or sse'* ]]; then
  ok
else
  fail "a bad protocol: $out"
fi

printf 'subscription:\n  mode:\n    passthrough:\n      subgraphs:\n        products:\n          protocol: sse\n' >"$tmp/gw.yaml"
"$gql" gateway --config "$tmp/gw.yaml" --port 0 --threads "$threads" --supergraph "$tmp/sg.graphql" \
  >"$tmp/gw.out" 2>"$tmp/gw.err" &
pg=$!
pids+=("$pg")
for _ in $(seq 200); do
  portg=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw.out" 2>/dev/null)
  [[ -n $portg ]] && break
  sleep 0.05
done
[[ -n ${portg:-} ]] || { fail "gateway: no banner: $(cat "$tmp/gw.out" "$tmp/gw.err")"; exit 1; }

client() { # PHASE: the npm clients' checks of that phase
  if NODE_PATH=$peers/node_modules timeout 120 node "$here/gateway_subs_sse_client.cjs" "$1" "$portg" "$rport" "$portp" "$pp"; then
    ok
  else
    fail "the npm clients' checks ($1): gateway log: $(cat "$tmp/gw.err")"
  fi
}
client sse
if grep -q 'names no subgraph' "$tmp/gw.err"; then fail "a warning for known names: $(cat "$tmp/gw.err")"; else ok; fi
# subscription.mode is applied on a reload (no "needs a restart" warning):
# products set back to graphql_ws, new subscriptions go over WebSocket; an
# entry naming no subgraph of the supergraph (a typo) is warned of at the
# reload, naming the supergraph's subgraphs, as one of headers.subgraphs
printf 'subscription:\n  mode:\n    passthrough:\n      subgraphs:\n        products:\n          protocol: graphql_ws\n        prodcuts:\n          protocol: sse\nheaders:\n  subgraphs:\n    pricse:\n      request:\n        - propagate:\n            named: x-a\n' >"$tmp/gw.yaml"
kill -HUP "$pg"
client reload-ws
if grep -q 'needs a restart' "$tmp/gw.err"; then fail "reload: $(cat "$tmp/gw.err")"; else ok; fi
for w in "gw.yaml:7:9: subscription.mode.passthrough.subgraphs.prodcuts names no subgraph of the supergraph (products, prices): it applies to none" \
  "gw.yaml:11:5: headers.subgraphs.pricse names no subgraph of the supergraph (products, prices): it applies to none"; do
  if grep -qF "gql gateway: warning: $tmp/$w" "$tmp/gw.err"; then ok; else fail "reload: no warning '$w': $(cat "$tmp/gw.err")"; fi
done
# back to SSE for the streams cut by products dying
printf 'subscription:\n  mode:\n    passthrough:\n      subgraphs:\n        products:\n          protocol: sse\n' >"$tmp/gw.yaml"
kill -HUP "$pg"
client reload-sse
client dying

# a second gateway over tests/gateway/sse_subgraph.py, whose x-mode header
# (propagated by a header rule) picks how its stream ends; the SSE path
# comes from subscription.mode (/stream: the supergraph's /graphql is 404)
fport=$(free_port)
python3 "$2/tests/gateway/sse_subgraph.py" "$fport" >"$tmp/fake.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$tmp/fake.out" && break; sleep 0.05; done
cat >"$tmp/sg2.graphql" <<SDL
enum join__Graph {
  FAKE @join__graph(name: "fake", url: "http://127.0.0.1:$fport/graphql")
}
type Query @join__type(graph: FAKE) { _unused: Int @join__field(graph: FAKE) }
type Subscription @join__type(graph: FAKE) { ticks: Tick @join__field(graph: FAKE) }
type Tick @join__type(graph: FAKE) { n: Int seen: String }
SDL
cat >"$tmp/gw2.yaml" <<'YAML'
subscription:
  mode:
    passthrough:
      all:
        protocol: sse
        path: /stream
      subgraphs:
        reviews:
          protocol: graphql_ws
headers:
  subgraphs:
    fake:
      request:
        - propagate:
            named: x-mode
        - insert:
            name: x-from
            value: gateway
YAML
"$gql" gateway --config "$tmp/gw2.yaml" --port 0 --threads 1 --supergraph "$tmp/sg2.graphql" \
  >"$tmp/gw2.out" 2>"$tmp/gw2.err" &
pg2=$!
pids+=("$pg2")
for _ in $(seq 200); do
  portg2=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw2.out" 2>/dev/null)
  [[ -n $portg2 ]] && break
  sleep 0.05
done
# its subgraphs.reviews names no subgraph: warned of at the start
if grep -qF "gql gateway: warning: $tmp/gw2.yaml:8:9: subscription.mode.passthrough.subgraphs.reviews names no subgraph of the supergraph (fake): it applies to none" "$tmp/gw2.err"; then
  ok
else
  fail "gateway 2: no warning at start: $(cat "$tmp/gw2.err")"
fi
if [[ -z ${portg2:-} ]]; then
  fail "gateway 2: no banner: $(cat "$tmp/gw2.out" "$tmp/gw2.err")"
elif NODE_PATH=$peers/node_modules timeout 120 node "$here/gateway_subs_sse_client.cjs" ends "$portg2"; then
  ok
else
  fail "the stream endings: gateway 2 log: $(cat "$tmp/gw2.err")"
fi

# subscription.max_opened_subscriptions holds for subscriptions the
# gateway relays over SSE: a second one is refused while the first is
# open, and taken again once the first has gone.
sed 's/^subscription:$/subscription:\n  max_opened_subscriptions: 1/' "$tmp/gw2.yaml" >"$tmp/gw3.yaml"
"$gql" gateway --config "$tmp/gw3.yaml" --port 0 --threads 2 --supergraph "$tmp/sg2.graphql" \
  >"$tmp/gw3.out" 2>"$tmp/gw3.err" &
pg3=$!
pids+=("$pg3")
for _ in $(seq 200); do
  portg3=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw3.out" 2>/dev/null)
  [[ -n $portg3 ]] && break
  sleep 0.05
done
sse_sub() { # MODE OUT [CURL ARGS...]: a subscription to ticks over SSE
  local mode=$1 out=$2
  shift 2
  curl -sN "$@" -H 'content-type: application/json' -H 'accept: text/event-stream' -H "x-mode: $mode" \
    --data '{"query":"subscription { ticks { n } }"}' "http://127.0.0.1:$portg3/graphql" >"$out" 2>&1
}
if [[ -z ${portg3:-} ]]; then
  fail "gateway 3: no banner: $(cat "$tmp/gw3.out" "$tmp/gw3.err")"
else
  curl -sN --max-time 20 -H 'content-type: application/json' -H 'accept: text/event-stream' -H 'x-mode: hold' \
    --data '{"query":"subscription { ticks { n } }"}' "http://127.0.0.1:$portg3/graphql" >"$tmp/hold.out" 2>&1 &
  holder=$!
  pids+=("$holder")
  for _ in $(seq 200); do grep -q '"n":1' "$tmp/hold.out" && break; sleep 0.05; done
  grep -q '"n":1' "$tmp/hold.out" && ok || fail "the first subscription: $(cat "$tmp/hold.out")"
  sse_sub complete "$tmp/second.out" --max-time 10
  if grep -q 'Too many subscriptions are open on this server (subscription.max_opened_subscriptions).' "$tmp/second.out" &&
    ! grep -q '"n":' "$tmp/second.out"; then
    ok
  else
    fail "a second subscription over the limit: $(cat "$tmp/second.out")"
  fi
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  got=
  for _ in $(seq 100); do
    sse_sub complete "$tmp/third.out" --max-time 10
    got=$(grep -c '"n":' "$tmp/third.out")
    [[ $got == 2 ]] && break
    sleep 0.1
  done
  [[ $got == 2 ]] && ok || fail "a subscription once the first has gone: $(cat "$tmp/third.out")"
fi

kill -0 "$pg" 2>/dev/null && ok || fail "the gateway died: $(cat "$tmp/gw.err")"
kill -TERM "$pg"
rc=0
timeout 10 tail --pid="$pg" -f /dev/null || rc=1
wait "$pg" || rc=$?
[[ $rc == 0 ]] && ok || fail "gql gateway did not stop cleanly on SIGTERM (rc $rc): $(cat "$tmp/gw.err")"

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
