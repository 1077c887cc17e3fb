#!/usr/bin/env bash
# gql serve --redis: subscription events from Redis channels, across two
# gql instances sharing one redis-server (started here on a free port),
# with the npm graphql-ws client (serve_redis_client.cjs): PUBLISH reaches
# the subscribers of both, the argument filter, a Redis restart, a gql
# without --redis; the subscription section's limits (serve_limits_client.cjs);
# then every gql stops cleanly on SIGTERM.
# Usage: test_serve_redis.sh GQL_BINARY REPO_ROOT [PEERS_DIR]
set -uo pipefail
gql=${1:?usage: test_serve_redis.sh GQL_BINARY REPO_ROOT [PEERS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${3:-$(dirname "$gql")/subscription-peers}
threads=1
# shellcheck source=lib.sh
. "$here/lib.sh"
subscription_peers

start_redis
echo "$rpid" >"$tmp/redis.pid"

chat_schema String!
serve a --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" || exit 1
pa=$pid porta=$port
cat >"$tmp/redis.yaml" <<YAML
redis:
  url: redis://127.0.0.1:$rport
YAML
serve b --config "$tmp/redis.yaml" --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pb=$pid portb=$port
serve none --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pn=$pid portn=$port

cat >"$tmp/limits.yaml" <<YAML
redis:
  url: redis://127.0.0.1:$rport
subscription:
  max_opened_subscriptions: 4
  max_subscriptions_per_connection: 3
  init_timeout: 300ms
  ping_interval: 500ms
  max_message: 1KiB
  channel_prefix: "lim:"
YAML
serve limited --config "$tmp/limits.yaml" --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pl=$pid portl=$port
printf 'subscription:\n  enabled: false\n' >"$tmp/off.yaml"
serve off --config "$tmp/off.yaml" --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
po=$pid porto=$port
if NODE_PATH=$peers/node_modules timeout 60 node "$here/serve_limits_client.cjs" "$portl" "$porto" 1024; then
  ok
else
  fail "the subscription limits"
fi

# The same limits as gql serve flags, over a file that says otherwise: a
# flag wins.
cat >"$tmp/loose.yaml" <<YAML
subscription:
  max_opened_subscriptions: 100
  max_subscriptions_per_connection: 50
  init_timeout: 10s
  ping_interval: 60s
  max_message: 1MiB
YAML
serve flags --config "$tmp/loose.yaml" --redis "redis://127.0.0.1:$rport" \
  --max-opened-subscriptions 4 --max-subscriptions-per-connection 3 \
  --subscription-init-timeout 300 --subscription-ping-interval 500 \
  --subscription-max-message 1024 --subscription-queue-capacity 8 \
  --subscription-channel-prefix lim: \
  --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pf=$pid portf=$port
serve offflag --subscriptions off --schema "$tmp/chat.graphql" --data "$tmp/data.json" || exit 1
pof=$pid portof=$port
if NODE_PATH=$peers/node_modules timeout 60 node "$here/serve_limits_client.cjs" "$portf" "$portof" 1024; then
  ok
else
  fail "the subscription limits as flags"
fi
for bad in "--max-opened-subscriptions 0" "--subscriptions maybe" \
  "--subscription-ping-interval 99" "--subscription-max-message 63" \
  "--max-subscriptions-per-connection x" "--subscription-queue-capacity"; do
  # shellcheck disable=SC2086
  "$gql" serve $bad >"$tmp/bad.out" 2>&1
  rc=$?
  if [[ $rc == 2 ]] && grep -q "^gql serve: ${bad%% *}" "$tmp/bad.out"; then
    ok
  else
    fail "gql serve $bad: exit $rc, $(cat "$tmp/bad.out")"
  fi
done

# stop Redis, wait, start it again on the same port (the client backs off)
export RESTART_REDIS="kill \$(cat $tmp/redis.pid); while kill -0 \$(cat $tmp/redis.pid) 2>/dev/null; do sleep 0.05; done; sleep 0.3;
  redis-server --port $rport --bind 127.0.0.1 --save '' --appendonly no >>$tmp/redis.log 2>&1 & echo \$! >$tmp/redis.pid;
  for i in \$(seq 100); do redis-cli -p $rport PING 2>/dev/null | grep -q PONG && break; sleep 0.05; done"
if NODE_PATH=$peers/node_modules timeout 120 node "$here/serve_redis_client.cjs" "$porta" "$portb" "$portn" "$rport"; then
  ok
else
  fail "the npm client's checks"
fi
pids+=("$(cat "$tmp/redis.pid")")

stop_cleanly "$pa" "$pb" "$pn" "$pl" "$po" "$pf" "$pof"
kill "$(cat "$tmp/redis.pid")" 2>/dev/null

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
