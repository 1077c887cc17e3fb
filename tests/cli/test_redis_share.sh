#!/usr/bin/env bash
# One Redis client per gql worker, shared by the APQ store and the
# subscription events (src/cli/redis_share.c), counted with CLIENT LIST on
# a redis-server started here: with --apq, one command connection per
# worker (not one for APQ and one for the events); the subscriber
# connection only once a subscription opens on that worker; with no APQ
# and no subscription, no connection at all. APQ and events then both work
# over the shared client.
# Usage: test_redis_share.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_redis_share.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

# Connections of gql processes: every client but redis-cli's own.
clients() { redis-cli -p "$rport" CLIENT LIST | grep -vc 'cmd=client|list'; }
# Waits until there are $1 (connections are made in the background).
expect_clients() {
  local n
  for _ in $(seq 100); do
    n=$(clients)
    [[ $n == "$1" ]] && return 0
    sleep 0.05
  done
  fail "$2: $n Redis connections, want $1: $(redis-cli -p "$rport" CLIENT LIST)"
  return 1
}

chat_schema String!
printf 'type Query { ok: Boolean }\n' >"$tmp/plain.graphql"

# no APQ, no subscription yet: nothing connects
serve none --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" || exit 1
sleep 0.5
expect_clients 0 "--redis, no APQ, no subscription" && ok
kill "$pid"
wait "$pid" 2>/dev/null

# APQ on a schema without subscriptions: one connection per worker
serve plain --schema "$tmp/plain.graphql" --data "$tmp/data.json" --apq --redis "redis://127.0.0.1:$rport" || exit 1
expect_clients 2 "--apq --threads 2, no Subscription type" && ok
kill "$pid"
wait "$pid" 2>/dev/null
expect_clients 0 "after the stop" && ok

# APQ and subscription events: 2 command connections, then a subscriber
# connection per worker that has a subscription
serve both --schema "$tmp/chat.graphql" --data "$tmp/data.json" --apq --redis "redis://127.0.0.1:$rport" || exit 1
pboth=$pid portb=$port
expect_clients 2 "--apq with a Subscription type, before any subscription" && ok
cat >"$tmp/client.cjs" <<'JS'
'use strict';
// a subscriber, an event through Redis, an APQ registration and its use
const WebSocket = require('ws');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const [port, rport] = process.argv.slice(2);
const post = async (body) => (await fetch(`http://127.0.0.1:${port}/graphql`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
(async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, ['graphql-transport-ws']);
  const got = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type === 'connection_ack')
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { messages { text } }' } }));
    else got.push(m);
  });
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
  await new Promise((r) => setTimeout(r, 700));
  console.log('subscribed');
  execFileSync('redis-cli', ['-p', rport, 'PUBLISH', 'gql:messages', '{"room":"a","text":"hi"}']);
  for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 50));
  if (got[0]?.payload?.data?.messages?.text !== 'hi') { console.log('FAIL event', JSON.stringify(got)); process.exit(1); }
  const q = '{ ok }';
  const ext = { persistedQuery: { version: 1, sha256Hash: crypto.createHash('sha256').update(q).digest('hex') } };
  const reg = await post({ query: q, extensions: ext });
  let hit;
  for (let i = 0; i < 8; i++) hit = await post({ extensions: ext }); // both workers
  if (reg?.data?.ok !== true || hit?.data?.ok !== true) { console.log('FAIL apq', JSON.stringify([reg, hit])); process.exit(1); }
  // stay subscribed until told
  process.stdin.once('data', () => { ws.close(1000); process.exit(0); });
})();
JS
coproc NODE_PATH=$peers/node_modules timeout 60 node "$tmp/client.cjs" "$portb" "$rport"
read -r -u "${COPROC[0]}" line
if [[ $line == subscribed ]]; then
  ok
else
  fail "the subscriber: $line"
fi
# one worker took the subscription: its subscriber connection, no more
expect_clients 3 "--apq and one subscription" && ok
echo done >&"${COPROC[1]}"
wait "$COPROC_PID" && ok || fail "the event or the APQ lookups over the shared client"
kill -TERM "$pboth"
timeout 10 tail --pid="$pboth" -f /dev/null
expect_clients 0 "after the stop" && ok

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
