#!/usr/bin/env bash
# gql serve's observability of GraphQL over WebSocket: the /metrics
# families (gql_websocket_connections, gql_subscriptions_open,
# gql_subscription_events_total, gql_subscription_events_dropped_total,
# gql_subscription_executions_total) after known actions
# (serve_ws_observe_client.cjs: sockets, subscriptions, events from a
# redis-server started here, a subscriber that stops reading), the page
# through promtool; and with --trace-file a trace per subscription event
# (its execute span named "subscription"), one per execution.
# Usage: test_serve_ws_observe.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_serve_ws_observe.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=1
# shellcheck source=lib.sh
. "$here/lib.sh"
command -v promtool >/dev/null || { echo "FAIL: promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }
subscription_peers

start_redis

cat >"$tmp/chat.graphql" <<'GQL'
type Query { ok: Boolean }
type Message { room: String!, text: String! }
type Subscription { messages(room: String): Message }
GQL
echo '{"ok":true}' >"$tmp/data.json"

# ---- the metrics after known actions
serve m --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" || exit 1
pm=$pid portm=$port
if NODE_PATH=$peers/node_modules timeout 200 node "$here/serve_ws_observe_client.cjs" "$portm" "$rport"; then
  ok
else
  fail "the WebSocket metrics"
fi
curl -s "http://127.0.0.1:$portm/metrics" >"$tmp/m.txt"
if promtool check metrics <"$tmp/m.txt" >"$tmp/promtool.out" 2>&1; then
  ok
else
  fail "promtool: $(cat "$tmp/promtool.out")"
fi
for family in "gql_websocket_connections gauge" "gql_subscriptions_open gauge" \
  "gql_subscription_events_total counter" "gql_subscription_events_dropped_total counter" \
  "gql_subscription_executions_total counter"; do
  grep -q "^# TYPE $family\$" "$tmp/m.txt" && ok || fail "no '# TYPE $family' on the page"
done

# ---- a trace per event execution
serve t --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" \
  --trace-file "$tmp/spans.jsonl" || exit 1
pt=$pid portt=$port
cat >"$tmp/trace_client.cjs" <<'JS'
'use strict';
// two subscribers of one operation (one execution per event), three events
const WebSocket = require('ws');
const { execFileSync } = require('node:child_process');
const [port, rport] = process.argv.slice(2);
const open = () => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, ['graphql-transport-ws']);
  const got = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type === 'connection_ack')
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription Chat { messages { text } }' } }));
    else got.push(m);
  });
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
  ws.on('error', reject);
  resolve({ ws, got });
});
(async () => {
  const a = await open(), b = await open();
  await new Promise((r) => setTimeout(r, 500));
  for (const t of ['1', '2', '3'])
    execFileSync('redis-cli', ['-p', rport, 'PUBLISH', 'gql:messages', JSON.stringify({ room: 'a', text: t })]);
  for (let i = 0; i < 100 && (a.got.length < 3 || b.got.length < 3); i++) await new Promise((r) => setTimeout(r, 50));
  if (a.got.length !== 3 || b.got.length !== 3) { console.log('FAIL events', a.got, b.got); process.exit(1); }
  a.ws.close(1000); b.ws.close(1000);
  await new Promise((r) => setTimeout(r, 200));
})();
JS
if NODE_PATH=$peers/node_modules timeout 30 node "$tmp/trace_client.cjs" "$portt" "$rport"; then
  ok
else
  fail "the traced subscribers"
fi
kill -TERM "$pt"
timeout 10 tail --pid="$pt" -f /dev/null
# the execute spans of subscription operations: one per event (three), as
# the two subscribers share each execution
n=$(python3 - "$tmp/spans.jsonl" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    for rs in json.loads(line).get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                attrs = {a["key"]: a["value"].get("stringValue") for a in sp.get("attributes", [])}
                if sp["name"] == "subscription" and attrs.get("graphql.operation.name") == "Chat":
                    n += 1
print(n)
PY
)
[[ $n == 3 ]] && ok || fail "subscription execute spans: $n, want 3 ($(head -c 2000 "$tmp/spans.jsonl"))"

kill -TERM "$pm"
rc=0
timeout 10 tail --pid="$pm" -f /dev/null || rc=1
wait "$pm" || rc=$?
[[ $rc == 0 ]] || fail "gql serve did not stop cleanly on SIGTERM (rc $rc): $(cat "$tmp/m.err")"

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
