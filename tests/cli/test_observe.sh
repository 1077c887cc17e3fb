#!/usr/bin/env bash
# Observing gql serve and gql gateway from the outside: the Prometheus page
# (checked by the real promtool, Debian's prometheus package) and its
# counts moving as requests are made, its path and switch (flag and
# configuration file), JSON access lines, and /ready (the gateway's 503
# until every subgraph answered, 200 after). The gateway runs over two
# `gql serve --subgraph` subgraphs.
# Usage: test_observe.sh GQL_BINARY
set -uo pipefail
gql=${1:?usage: test_observe.sh GQL_BINARY}
source "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || { echo "FAIL: promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }

post() { # post PORT BODY: the response body
  curl -s -m 10 -H 'content-type: application/json' --data-binary "$2" "http://127.0.0.1:$1/graphql"
}
scrape() { curl -s -m 10 "http://127.0.0.1:$1${2:-/metrics}"; }
# value FILE SERIES: the sample of the exact series (0 when absent)
value() { awk -v s="$2" '$1 == s { v = $2 } END { print v == "" ? 0 : v }' "$1"; }
# expect NAME GOT WANT
expect() { [[ $2 == "$3" ]] && ok || fail "$1: got '$2', want '$3'"; }

# ---- gql serve: the families, promtool, counts that move
threads=1 serve plain || exit 1
scrape "$port" >"$tmp/m0.txt"
promtool check metrics <"$tmp/m0.txt" >"$tmp/promtool0.out" 2>&1 && ok ||
  fail "promtool (fresh): $(cat "$tmp/promtool0.out")"
for f in gql_http_requests_total gql_http_request_duration_seconds \
  gql_graphql_errors_total gql_document_cache_hits_total \
  gql_document_cache_misses_total gql_http_connections; do
  grep -q "^# TYPE $f " "$tmp/m0.txt" && ok || fail "serve: no family $f"
done
grep -q '^# TYPE gql_subgraph_requests_total' "$tmp/m0.txt" &&
  fail "serve: gateway families on a plain server" || ok
for _ in 1 2 3; do post "$port" '{"query":"{ hero { name } }"}' >/dev/null; done
post "$port" '{"query":"{ nope }"}' >/dev/null                  # validation error
post "$port" '{"query":"mutation { nope }"}' >/dev/null          # another
curl -s -o /dev/null "http://127.0.0.1:$port/graphql?query=%7Bhero%7Bname%7D%7D"
post "$port" 'not json' >/dev/null                               # 400, no operation
# two connections held open while scraping
exec 7<>"/dev/tcp/127.0.0.1/$port"
exec 8<>"/dev/tcp/127.0.0.1/$port"
sleep 0.2
scrape "$port" >"$tmp/m1.txt"
exec 7>&- 8>&-
promtool check metrics <"$tmp/m1.txt" >"$tmp/promtool1.out" 2>&1 && ok ||
  fail "promtool (after requests): $(cat "$tmp/promtool1.out")"
expect "queries answered 200" \
  "$(value "$tmp/m1.txt" 'gql_http_requests_total{status="200",operation_type="query"}')" 4
expect "refused before an operation" \
  "$(value "$tmp/m1.txt" 'gql_http_requests_total{status="400",operation_type="none"}')" 1
expect "document cache hits" "$(value "$tmp/m1.txt" gql_document_cache_hits_total)" 2
expect "document cache misses" "$(value "$tmp/m1.txt" gql_document_cache_misses_total)" 4
expect "errors without a code" \
  "$(value "$tmp/m1.txt" 'gql_graphql_errors_total{code="none"}')" 3
expect "duration count" \
  "$(value "$tmp/m1.txt" gql_http_request_duration_seconds_count)" 8
# the scrape's own connection and the two held open
expect "open connections" "$(value "$tmp/m1.txt" gql_http_connections)" 3
sleep 0.2
scrape "$port" >"$tmp/m2.txt"
expect "connections closed" "$(value "$tmp/m2.txt" gql_http_connections)" 1
# two scrapes and { nope } (refused by validation: no operation ran)
expect "scrapes counted" \
  "$(value "$tmp/m2.txt" 'gql_http_requests_total{status="200",operation_type="none"}')" 3
expect "a mutation without a Mutation type" \
  "$(value "$tmp/m1.txt" 'gql_http_requests_total{status="200",operation_type="mutation"}')" 1
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready")
expect "serve /ready" "$code" 200
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")
expect "POST /metrics" "$code" 405

# ---- the path and the switch: flags and the configuration file
serve moved --metrics-path /internal/prom || exit 1
expect "moved: /metrics" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" 404
scrape "$port" /internal/prom | grep -q '^# TYPE gql_http_requests_total counter' && ok ||
  fail "moved: nothing at /internal/prom"
serve off --no-metrics || exit 1
expect "--no-metrics" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" 404
printf 'server:\n  metrics_path: /m\n' >"$tmp/on.yaml"
serve cfg_on --config "$tmp/on.yaml" || exit 1
scrape "$port" /m | grep -q '^gql_http_connections ' && ok || fail "config: nothing at /m"
printf 'server:\n  metrics: false\n' >"$tmp/off.yaml"
serve cfg_off --config "$tmp/off.yaml" || exit 1
expect "config metrics: false" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" 404
"$gql" serve --metrics-path nope >/dev/null 2>"$tmp/bad.err"
[[ $? == 2 ]] && grep -q 'takes a path' "$tmp/bad.err" && ok || fail "bad path: $(cat "$tmp/bad.err")"
printf 'server:\n  log_format: yaml\n' >"$tmp/badfmt.yaml"
"$gql" serve --config "$tmp/badfmt.yaml" >/dev/null 2>"$tmp/badfmt.err"
[[ $? != 0 ]] && grep -q 'needs text or json' "$tmp/badfmt.err" && ok ||
  fail "bad log_format: $(cat "$tmp/badfmt.err")"

# ---- the gateway over two gql subgraphs; b starts late (readiness)
products_subgraphs
threads=1 serve sub_a --subgraph --schema "$tmp/a.graphql" --data "$tmp/a.json" || exit 1
pa=$port
pb=$(free_port)
products_supergraph "$pa" "$pb"
gp=$(free_port)
"$gql" gateway --supergraph "$tmp/sg.graphql" --port "$gp" --threads 2 \
  --log-level info --log-format json >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
for _ in $(seq 200); do grep -q ' on http://' "$tmp/gw.out" && break; sleep 0.05; done
sleep 0.3
expect "gateway /ready, b down" \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gp/ready")" 503
expect "gateway /health, b down" \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gp/health")" 200
# an execution error (b is down): counted by its code, which the gateway
# tells the server it has (gql_http_exec_done_errors)
got=$(post "$gp" '{"query":"{ topProducts { name price } }"}')
[[ $got == *SUBREQUEST_HTTP_ERROR* ]] && ok || fail "gateway, b down: $got"
"$gql" serve --subgraph --schema "$tmp/b.graphql" --data "$tmp/b.json" --port "$pb" \
  --threads 1 >"$tmp/sub_b.out" 2>"$tmp/sub_b.err" &
pids+=($!)
ready=
for _ in $(seq 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gp/ready") == 200 ]] && { ready=1; break; }
  sleep 0.1
done
[[ -n $ready ]] && ok || fail "gateway /ready never 200 once b is up"
want='{"data":{"topProducts":[{"name":"Table","price":100},{"name":"Couch","price":250}]}}'
for _ in 1 2; do expect "gateway answer" "$(post "$gp" '{"query":"{ topProducts { name price } }"}')" "$want"; done
post "$gp" '{"query":"{ topProducts { nope } }"}' >/dev/null
scrape "$gp" >"$tmp/g1.txt"
promtool check metrics <"$tmp/g1.txt" >"$tmp/promtool_g.out" 2>&1 && ok ||
  fail "promtool (gateway): $(cat "$tmp/promtool_g.out")"
expect "subgraph a requests" "$(value "$tmp/g1.txt" 'gql_subgraph_requests_total{subgraph="a",status="200"}')" 3
expect "subgraph b requests" "$(value "$tmp/g1.txt" 'gql_subgraph_requests_total{subgraph="b",status="200"}')" 2
expect "subgraph b durations" "$(value "$tmp/g1.txt" 'gql_subgraph_request_duration_seconds_count{subgraph="b"}')" 3
# two threads: each plans once or hits its own cache (3 requests planned)
hits=$(value "$tmp/g1.txt" gql_plan_cache_hits_total)
misses=$(value "$tmp/g1.txt" gql_plan_cache_misses_total)
[[ $((hits + misses)) == 3 && $misses -ge 1 ]] && ok || fail "plan cache: $hits hits, $misses misses"
expect "gateway validation error code" \
  "$(value "$tmp/g1.txt" 'gql_graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"}')" 1
expect "gateway execution error code" \
  "$(value "$tmp/g1.txt" 'gql_graphql_errors_total{code="SUBREQUEST_HTTP_ERROR"}')" 1
expect "gateway errors without a code" \
  "$(value "$tmp/g1.txt" 'gql_graphql_errors_total{code="none"}')" 0

# ---- JSON access lines (the gateway above ran with --log-format json)
python3 - "$tmp/gw.err" <<'PY' && ok || fail "json log lines: $(head -c 2000 "$tmp/gw.err")"
import json, re, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines, "no log lines"
access = []
for l in lines:
    o = json.loads(l)  # every line one JSON object
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o["time"]), o
    assert o["level"] in ("error", "warn", "info", "debug"), o
    assert "msg" in o, o
    if "status" in o:
        access.append(o)
q = [o for o in access if o["path"] == "/graphql" and o["status"] == 200]
assert len(q) >= 2, access
for o in q:
    assert o["method"] == "POST", o
    assert re.fullmatch(r"127\.0\.0\.1:\d+", o["client"]), o
    assert o["bytes"] > 0 and isinstance(o["duration_ms"], (int, float)), o
ready = [o for o in access if o["path"] == "/ready"]
assert {o["status"] for o in ready} >= {503, 200}, ready
PY

echo "observe: $passed passed, $failures failed"
[[ $failures == 0 ]]
