#!/usr/bin/env bash
# gql serve --redis: messages a publisher gets wrong on a subscription
# field's channel (not JSON; over the 1 MiB event limit) are dropped, and
# say so: /metrics counts them (gql_subscription_redis_messages_total and
# gql_subscription_redis_messages_rejected_total{reason}, summed over the
# worker threads: both listen here) and the log has a warning line per
# channel and reason at most every 10 s across the workers, the next one
# telling how many were held back; the subscribers get only the valid
# events. A redis-server on a free port, curl streams (server-sent events)
# as subscribers, promtool on the page; then --log-format json, and the
# limit set by subscription.max_event and --subscription-max-event.
# Usage: test_serve_events_drops.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_serve_events_drops.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
command -v promtool >/dev/null || { echo "FAIL: promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }
expect() { [[ $2 == "$3" ]] && ok || fail "$1: got '$2', expected '$3'"; }

start_redis
chat_schema
serve a --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" || exit 1
pa=$pid porta=$port

numsub() { redis-cli -p "$rport" PUBSUB NUMSUB gql:messages | sed -n 2p; }
publish() { redis-cli -p "$rport" PUBLISH gql:messages "$1" >/dev/null; }
metric() { sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1"; }
nsubs=0 from=0
# subscribe PORT N: N more streams (their output in $tmp/subK.out)
subscribe() {
  local k
  for _ in $(seq "$2"); do
    k=$nsubs
    nsubs=$((nsubs + 1))
    curl -sN -D "$tmp/sub$k.head" -X POST -H 'content-type: application/json' \
      -H 'accept: text/event-stream' --data '{"query":"subscription { messages { text } }"}' \
      "http://127.0.0.1:$1/graphql" >"$tmp/sub$k.out" 2>/dev/null &
    pids+=($!)
  done
  for k in $(seq "$from" $((nsubs - 1))); do
    for _ in $(seq 200); do
      grep -q '^HTTP/1.1 200' "$tmp/sub$k.head" 2>/dev/null && break
      sleep 0.05
    done
  done
}
# wait_text TEXT: until every stream (from $from on) has the event TEXT
wait_text() {
  local k
  for k in $(seq "$from" $((nsubs - 1))); do
    for _ in $(seq 200); do
      grep -q "\"text\":\"$1\"" "$tmp/sub$k.out" && break
      sleep 0.05
    done
  done
}

# Subscribers until both worker threads listen to the channel: each worker
# subscribes on its own Redis connection (the kernel spreads connections
# over the workers' sockets; eight at a time, a few rounds at most).
for _ in 1 2 3 4; do
  subscribe "$porta" 8
  for _ in $(seq 40); do [[ $(numsub) == 2 ]] && break; sleep 0.05; done
  [[ $(numsub) == 2 ]] && break
done
workers=$(numsub)
expect "workers listening to gql:messages" "$workers" 2

# One malformed, one over the limit (valid JSON, 1 MiB + 11 bytes), one valid.
t0=$(date +%s)
publish 'not json'
python3 -c 'print("{\"text\":\"" + "a" * 1048576 + "\"}", end="")' >"$tmp/big.json"
redis-cli -p "$rport" -x PUBLISH gql:messages <"$tmp/big.json" >/dev/null
publish '{"room":"a","text":"hello"}'
wait_text hello
bad=0
for k in $(seq 0 $((nsubs - 1))); do
  # exactly one event, the valid one
  n=$(grep -c '^event: next' "$tmp/sub$k.out")
  grep -q '"text":"hello"' "$tmp/sub$k.out" && [[ $n == 1 ]] || bad=$((bad + 1))
done
expect "subscribers without exactly the valid event" "$bad" 0

curl -s "http://127.0.0.1:$porta/metrics" >"$tmp/m1.txt"
expect "received" "$(metric "$tmp/m1.txt" gql_subscription_redis_messages_total)" $((3 * workers))
expect "malformed" "$(metric "$tmp/m1.txt" 'gql_subscription_redis_messages_rejected_total{reason="malformed"}')" "$workers"
expect "too_big" "$(metric "$tmp/m1.txt" 'gql_subscription_redis_messages_rejected_total{reason="too_big"}')" "$workers"
promtool check metrics <"$tmp/m1.txt" >"$tmp/promtool1.out" 2>&1 && ok ||
  fail "promtool: $(cat "$tmp/promtool1.out")"

# one line each across the two workers, with the channel, size and reason
expect "malformed lines" "$(grep -c 'dropped (malformed)' "$tmp/a.err")" 1
expect "too_big lines" "$(grep -c 'dropped (too_big)' "$tmp/a.err")" 1
grep -q "^gql serve: warn: subscription event dropped (malformed): Redis channel gql:messages, 8 bytes, not JSON: Unexpected character 'o' at line 1, column 2$" "$tmp/a.err" &&
  ok || fail "the malformed line: $(cat "$tmp/a.err")"
grep -q "^gql serve: warn: subscription event dropped (too_big): Redis channel gql:messages, 1048587 bytes, over the limit of 1048576 bytes$" "$tmp/a.err" &&
  ok || fail "the too_big line: $(cat "$tmp/a.err")"

# A burst of 50 malformed messages: counted, not logged (within 10 s of
# the first line); then a valid one, which comes after them on each
# worker's connection.
for i in $(seq 50); do echo "PUBLISH gql:messages bad$i"; done | redis-cli -p "$rport" >/dev/null
publish '{"text":"after"}'
wait_text after
curl -s "http://127.0.0.1:$porta/metrics" >"$tmp/m2.txt"
expect "received after the burst" "$(metric "$tmp/m2.txt" gql_subscription_redis_messages_total)" $((54 * workers))
expect "malformed after the burst" "$(metric "$tmp/m2.txt" 'gql_subscription_redis_messages_rejected_total{reason="malformed"}')" $((51 * workers))
lines=$(grep -c 'dropped (malformed)' "$tmp/a.err")
if (($(date +%s) - t0 < 9)); then
  expect "malformed lines after the burst" "$lines" 1
else # (a slow machine: the interval may have passed once)
  ((lines <= 2)) && ok || fail "malformed lines after the burst: $lines"
fi

# Past the interval, the next one is a line again and tells the held back.
while (($(date +%s) - t0 < 11)); do sleep 0.5; done
publish 'bad again'
publish '{"text":"later"}'
wait_text later
held=$((51 * workers - 1))
grep -q "dropped (malformed): Redis channel gql:messages, 9 bytes, not JSON: .* (and $held more like it since this channel's last such line)$" "$tmp/a.err" &&
  ok || fail "the line after the interval ($held held back): $(grep dropped "$tmp/a.err")"
n=$(grep -c '^event: next' "$tmp/sub0.out")
expect "events of a subscriber" "$n" 3

# --log-format json: the same warnings as JSON lines; the event size limit
# from the file (subscription.max_event), and the flag over it.
threads=1
printf 'subscription:\n  max_event: 1kib\n' >"$tmp/small.yaml"
serve j --config "$tmp/small.yaml" --subscription-max-event 200 --log-format json \
  --schema "$tmp/chat.graphql" --data "$tmp/data.json" --redis "redis://127.0.0.1:$rport" || exit 1
pj=$pid portj=$port
from=$nsubs
subscribe "$portj" 1
for _ in $(seq 40); do [[ $(numsub) == 3 ]] && break; sleep 0.05; done
publish '[1,'
publish "{\"text\":\"$(printf 'x%.0s' $(seq 300))\"}"
publish "{\"text\":\"fits $(printf 'y%.0s' $(seq 180))\"}"
publish '{"text":"json"}'
wait_text json
expect "events of the small one" "$(grep -c '^event: next' "$tmp/sub$from.out")" 2
grep -q '"text":"fits y' "$tmp/sub$from.out" && ok || fail "the 193-byte event did not come"
python3 - "$tmp/j.err" <<'PY' && ok || fail "the JSON lines: $(cat "$tmp/j.err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
drops = [l for l in lines if "dropped" in l.get("msg", "")]
assert len(drops) == 2, lines
for d in drops:
    assert d["level"] == "warn" and d["logger"] == "gql serve", d
assert drops[0]["msg"].startswith("subscription event dropped (malformed): Redis channel gql:messages, 3 bytes, not JSON: "), drops
assert drops[1]["msg"] == "subscription event dropped (too_big): Redis channel gql:messages, 311 bytes, over the limit of 200 bytes", drops
PY
for bad in "--subscription-max-event 63" "--subscription-max-event 268435457" "--subscription-max-event x"; do
  # shellcheck disable=SC2086
  "$gql" serve $bad >"$tmp/bad.out" 2>&1
  rc=$?
  [[ $rc == 2 ]] && grep -q "^gql serve: --subscription-max-event" "$tmp/bad.out" && ok ||
    fail "gql serve $bad: exit $rc, $(cat "$tmp/bad.out")"
done
printf 'subscription:\n  max_event: 10\n' >"$tmp/tiny.yaml"
"$gql" serve --config "$tmp/tiny.yaml" >"$tmp/bad.out" 2>&1
rc=$?
[[ $rc != 0 ]] && grep -q "subscription.max_event needs a byte size from 64" "$tmp/bad.out" && ok ||
  fail "max_event: 10: exit $rc, $(cat "$tmp/bad.out")"

stop_cleanly "$pa" "$pj"
kill "$rpid" 2>/dev/null

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
