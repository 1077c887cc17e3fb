#!/usr/bin/env bash
# `gql serve --trace-otlp` against a collector sink on 127.0.0.1
# (otlp_sink.py), and `--trace-file`: the spans that arrive are valid OTLP
# JSON, one trace per request shaped as the requests call for
# (otlp_check.py), and the SIGTERM flush delivers every queued span (the
# requests are done well within the exporter's 5-s period, so nothing but
# the flush sends them). otlp_check.py selftest then breaks the received data
# in several ways and checks that each break is caught.
# Usage: test_serve_otlp.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_serve_otlp.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# shellcheck source=otlp_requests.sh
. "$here/otlp_requests.sh"

# The sink.
python3 "$here/otlp_sink.py" "$tmp/sink.port" "$tmp/sink.jsonl" --lifetime 120 &
sink=$!
pids+=("$sink")
for _ in $(seq 100); do [[ -s $tmp/sink.port ]] && break; sleep 0.05; done
sink_port=$(cat "$tmp/sink.port" 2>/dev/null)
[[ -n $sink_port ]] || { echo "FAIL: the sink did not start"; exit 1; }

# The Star Wars demo, traced to the sink (otlp_requests.sh).
if serve sw --trace-otlp "http://127.0.0.1:$sink_port/v1/traces" --trace-source \
  --trace-variables ep,id --trace-service gql-otlp-test; then
  otlp_starwars "$tmp/sink.jsonl"
fi

# --trace-file, collapse off, depth 2, a field error with a path.
cat >"$tmp/items.graphql" <<'SDL'
type Query { items: [Item] }
type Item { id: Int name: String sub: Sub }
type Sub { label: String }
SDL
cat >"$tmp/items.json" <<'JSON'
{"items":[{"id":1,"name":"a","sub":{"label":"x"}},{"id":"two","name":"b"},{"id":3,"name":"c","sub":{"label":"z"}}]}
JSON
if serve items --schema "$tmp/items.graphql" --data "$tmp/items.json" \
  --trace-file "$tmp/items.jsonl" --trace-collapse off --trace-depth 2; then
  for _ in 1 2; do
    got=$(post "$port" '{"query":"{ items { id name sub { label } } }"}')
    [[ $got == *'"id":null'* && $got == *'Int cannot represent'* ]] || fail "items: $got"
  done
  stop "$pid"
  python3 "$here/otlp_check.py" items "$tmp/items.jsonl" "$tmp/items.err" "$threads" &&
    ok || fail "items spans (above)"
fi

# Bad trace options are usage errors.
for args in "--trace-otlp https://x/v1/traces" "--trace-otlp ftp://x" \
  "--trace-file $tmp/f --trace-collapse maybe" "--trace-file $tmp/f --trace-depth x" \
  "--trace-file $tmp/f --trace-depth -2" "--trace-depth 2" "--trace-source" \
  "--trace-otlp http://127.0.0.1:1 --trace-timeout 0" \
  "--trace-otlp http://127.0.0.1:1 --trace-otlp-protocol grpc" \
  "--trace-file $tmp/f --trace-otlp-protocol http/protobuf" \
  "--trace-otlp http://127.0.0.1:1 --trace-file $tmp/f --trace-otlp-protocol http/protobuf"; do
  # shellcheck disable=SC2086
  "$gql" serve --port 0 $args >/dev/null 2>"$tmp/usage.err"
  [[ $? == 2 ]] && ok || fail "usage error for '$args': $(cat "$tmp/usage.err")"
done

kill -TERM "$sink" 2>/dev/null
echo "$passed passed, $failures failed"
[[ $failures == 0 ]]
