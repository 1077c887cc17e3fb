#!/usr/bin/env bash
# gql serve shares an event's execution among the subscribers of one
# operation with equal variables (src/http/fanout.c), but never for a
# socket whose hooks set claims or a context: with JWT authentication
# (HS256 tokens made here, the key set in a file) two anonymous sockets
# share (one execution per event, gql_subscription_executions_total),
# while two sockets with tokens (alice, bob) each get their own (two per
# event); a bad token is refused (4403). Events come from a redis-server
# started here; the sockets are raw npm `ws` speaking graphql-transport-ws.
# Usage: test_serve_ws_claims.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_serve_ws_claims.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=1 # one worker: every socket may join the same group
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis

# ---- an HS256 key set and tokens
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
secret=$(head -c 32 /dev/urandom | b64url)
echo "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"hs1\",\"alg\":\"HS256\",\"k\":\"$secret\"}]}" >"$tmp/jwks.json"
hexkey=$(printf '%s' "$secret" | tr -- '-_' '+/' | sed 's/$/==/' | openssl base64 -d -A 2>/dev/null | xxd -p | tr -d '\n')
token() { # token SUB
  local h p
  h=$(printf '{"alg":"HS256","kid":"hs1","typ":"JWT"}' | b64url)
  p=$(printf '{"sub":"%s","iss":"https://issuer.example","aud":"gql","exp":%d}' "$1" $(($(date +%s) + 600)) | b64url)
  printf '%s.%s.%s' "$h" "$p" "$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | b64url)"
}
alice=$(token alice)
bob=$(token bob)

cat >"$tmp/chat.graphql" <<'GQL'
type Query { ok: Boolean }
type Message { room: String!, text: String! }
type Subscription { messages(room: String): Message }
GQL
echo '{"ok":true}' >"$tmp/data.json"
cat >"$tmp/gql.yaml" <<YAML
serve:
  schema: chat.graphql
  data: data.json
redis:
  url: redis://127.0.0.1:$rport
authentication:
  router:
    jwt:
      jwks:
        - url: file://jwks.json
          issuers: [https://issuer.example]
          audiences: [gql]
YAML
serve claims --config "$tmp/gql.yaml" || exit 1

cat >"$tmp/client.cjs" <<'JS'
'use strict';
const assert = require('node:assert/strict');
const http = require('node:http');
const WebSocket = require('ws');
const { execFileSync } = require('node:child_process');
const [port, rport, alice, bob] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const redis = (...a) => execFileSync('redis-cli', ['-p', rport, ...a]).toString().trim();
const metrics = () => new Promise((resolve, reject) => {
  http.get(`http://127.0.0.1:${port}/metrics`, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => {
      const m = {};
      for (const line of body.split('\n')) {
        const g = /^(gql_(?:websocket|subscription)\w*) (\S+)$/.exec(line);
        if (g) m[g[1]] = Number(g[2]);
      }
      resolve(m);
    });
  }).on('error', reject);
});
async function until(pred, what) {
  for (let i = 0; i < 200; i++) {
    if (await pred()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}
// A socket subscribed to the operation; token: its connection_init's
// Authorization (none: anonymous).
function open(token) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, ['graphql-transport-ws']);
  const s = { ws, got: [], closed: null, acked: false };
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type === 'connection_ack') {
      s.acked = true;
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription Chat { messages { room text } }' } }));
    } else if (m.type === 'next') s.got.push(m.payload);
    else if (m.type !== 'pong' && m.type !== 'ping') s.got.push(m);
  });
  ws.on('close', (code) => (s.closed = code));
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: token ? { Authorization: `Bearer ${token}` } : {} })));
  ws.on('error', () => {});
  return s;
}
// Executions per event for two sockets with these tokens.
async function executionsPerEvent(t1, t2) {
  const a = open(t1), b = open(t2);
  await until(async () => (await metrics()).gql_subscriptions_open === 2, 'two subscriptions open');
  // the worker's subscriber connection has the channel (again: the last
  // phase's leaving unsubscribed it)
  await until(() => Number(redis('PUBSUB', 'NUMSUB', 'gql:messages').split('\n')[1]) === 1, 'gql:messages subscribed');
  const before = (await metrics()).gql_subscription_executions_total;
  const events = 3;
  for (let i = 0; i < events; i++) redis('PUBLISH', 'gql:messages', JSON.stringify({ room: 'r', text: String(i) }));
  await until(() => a.got.length >= events && b.got.length >= events, `${events} events on both sockets`);
  const want = { data: { messages: { room: 'r', text: '2' } } };
  assert.deepEqual(a.got[events - 1], want);
  assert.deepEqual(b.got[events - 1], want);
  const after = (await metrics()).gql_subscription_executions_total;
  a.ws.close(1000);
  b.ws.close(1000);
  await until(async () => (await metrics()).gql_subscriptions_open === 0, 'subscriptions closed');
  return (after - before) / events;
}
(async () => {
  let failures = 0;
  const check = async (name, fn) => {
    try {
      await fn();
      console.log(`ok   ${name}`);
    } catch (e) {
      failures++;
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
    }
  };
  await check('a bad token is refused (4403)', async () => {
    const s = open('not.a.jwt');
    await until(() => s.closed !== null, 'closed');
    assert.equal(s.closed, 4403);
  });
  await check('two anonymous subscribers of one operation share each execution', async () => {
    assert.equal(await executionsPerEvent(null, null), 1);
  });
  await check('two subscribers with claims (alice, bob) each get their own execution', async () => {
    assert.equal(await executionsPerEvent(alice, bob), 2);
  });
  await check('the same claims on two sockets: still never shared', async () => {
    assert.equal(await executionsPerEvent(alice, alice), 2);
  });
  await check('one with claims beside an anonymous one: not shared', async () => {
    assert.equal(await executionsPerEvent(alice, null), 2);
  });
  process.exit(failures ? 1 : 0);
})();
JS
if NODE_PATH=$peers/node_modules timeout 120 node "$tmp/client.cjs" "$port" "$rport" "$alice" "$bob"; then
  ok
else
  fail "sharing with and without claims"
fi

kill -TERM "$pid"
rc=0
timeout 10 tail --pid="$pid" -f /dev/null || rc=1
wait "$pid" || rc=$?
[[ $rc == 0 ]] || fail "gql serve did not stop cleanly on SIGTERM (rc $rc): $(cat "$tmp/claims.err")"

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
