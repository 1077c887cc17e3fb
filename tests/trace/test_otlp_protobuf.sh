#!/usr/bin/env bash
# OTLP/HTTP protobuf checked with the OpenTelemetry proto definitions: the
# static protobufjs code @opentelemetry/otlp-transformer generates from
# opentelemetry-proto (npm, installed once into bench/.peers/otlp-proto,
# gitignored). (1) The same span records encoded as JSON and as protobuf
# (otlp_pairs) decode to the same request, and the protobuf re-encodes to
# its own bytes. (2) `gql serve --trace-otlp-protocol http/protobuf` sends
# application/x-protobuf to a decoding collector stand-in, whose requests,
# mapped to OTLP JSON, pass otlp_check.py's Star Wars checks.
# Usage: test_otlp_protobuf.sh GQL_BINARY OTLP_PAIRS_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_otlp_protobuf.sh GQL OTLP_PAIRS REPO_ROOT}
pairs_bin=${2:?}
root=${3:?}
here=$root/tests/cli
# shellcheck source=../cli/lib.sh
. "$here/lib.sh"
# shellcheck source=../cli/otlp_requests.sh
. "$here/otlp_requests.sh"
check=$root/tests/trace/otlp_proto_check.js

# The proto definitions: otlp-transformer 0.212.0 carries Span.flags
# (opentelemetry-proto 1.1+) in its generated protobufjs code.
peers=$root/bench/.peers/otlp-proto
want="@opentelemetry/otlp-transformer@0.212.0"
mkdir -p "$peers"
(
  flock 9 || exit 1
  if [[ $(cat "$peers/installed.txt" 2>/dev/null) != "$want" ]]; then
    command -v npm >/dev/null || { echo "FAIL: npm is required (scripts/deps.sh)"; exit 1; }
    [[ -f $peers/package.json ]] || echo '{"private":true}' >"$peers/package.json"
    (cd "$peers" && timeout 300 npm install --no-audit --no-fund --loglevel=error "$want" \
      >"$peers/npm.log" 2>&1) || { echo "FAIL: npm install $want:"; tail -20 "$peers/npm.log"; exit 1; }
    echo "$want" >"$peers/installed.txt"
  fi
) 9>"$peers/.lock" || exit 1
export NODE_PATH=$peers/node_modules

# (1) pairs
mkdir -p "$tmp/pairs"
n=$("$pairs_bin" "$tmp/pairs") || { echo "FAIL: otlp_pairs"; exit 1; }
node "$check" pairs "$tmp/pairs" "$n" && ok || fail "protobuf and JSON pairs (above)"

# (2) gql serve to a protobuf collector
node "$check" sink "$tmp/sink.port" "$tmp/sink.jsonl" 120 &
pids+=("$!")
for _ in $(seq 100); do [[ -s $tmp/sink.port ]] && break; sleep 0.05; done
sink_port=$(cat "$tmp/sink.port" 2>/dev/null)
[[ -n $sink_port ]] || { echo "FAIL: the sink did not start"; exit 1; }
if serve sw --trace-otlp "http://127.0.0.1:$sink_port/v1/traces" \
  --trace-otlp-protocol http/protobuf --trace-source --trace-variables ep,id \
  --trace-service gql-otlp-test; then
  otlp_starwars "$tmp/sink.jsonl"
fi
# the protocol from the OpenTelemetry variable
: >"$tmp/sink.jsonl"
if OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf serve sw2 \
  --trace-otlp "http://127.0.0.1:$sink_port/v1/traces"; then
  curl -s -H 'content-type: application/json' --data-binary '{"query":"{ hero { name } }"}' \
    "http://127.0.0.1:$port/graphql" >/dev/null
  stop "$pid"
  [[ $(grep -o "\"graphql.resolve\"" "$tmp/sink.jsonl" | wc -l) == 2 && $(grep -c '^BAD' "$tmp/sink.jsonl") == 0 ]] &&
    ok || fail "OTEL_EXPORTER_OTLP_PROTOCOL: $(head -c 300 "$tmp/sink.jsonl")"
fi
echo "$passed passed, $failures failed"
[[ $failures == 0 ]]
