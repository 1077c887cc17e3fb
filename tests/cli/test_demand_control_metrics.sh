#!/usr/bin/env bash
# Demand control seen by operators (gql serve and gql gateway): every
# estimate is counted on /metrics, exactly, by Apollo Router's cost.result
# and the mode (gql_cost_requests_total{result,mode}), and the estimates
# land in gql_cost_estimated{result} (a histogram of costs, powers of 10),
# summed over the worker threads; promtool takes the page. In measure mode
# an operation over the maximum runs and is one warning line at most every
# 10 s (with the count held back since), as text or as a JSON line with
# --log-format json, nothing below --log-level; a reload that turns demand
# control on counts from then on. persisted_queries.log_unknown's lines go
# the same way (JSON lines with --log-format json).
# Usage: test_demand_control_metrics.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_demand_control_metrics.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_demand_control_metrics.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
threads=2
# shellcheck source=lib.sh
. "$here/lib.sh"
command -v promtool >/dev/null || { echo "FAIL: promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }
expect() { [[ $2 == "$3" ]] && ok || fail "$1: got '$2', expected '$3'"; }
data=$root/tests/persisted/data

# books(first: n) costs n (assumed 5 without it), with author 8n; cheap 0.
# Here one slicing argument is required: books without `first` cannot be
# estimated (COST_QUERY_PARSE_FAILURE).
sed 's/requireOneSlicingArgument: false/requireOneSlicingArgument: true/' \
  "$data/cost_schema.graphql" >"$tmp/cost.graphql"
cp "$data/cost_data.json" "$tmp/data.json"
post() { # post PORT QUERY [VARIABLES]: the answer (QUERY without '"')
  curl -s "http://127.0.0.1:$1/graphql" -H 'content-type: application/json' \
    -d "{\"query\":\"$2\",\"variables\":${3:-null}}"
}
metric() { # metric FILE SERIES: its value
  awk -v s="$2" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "$1"
}
scrape() { curl -s "http://127.0.0.1:$1/metrics" >"$2"; }
promtool_ok() { promtool check metrics <"$1" >"$tmp/promtool.out" 2>&1 && ok || fail "promtool $1: $(cat "$tmp/promtool.out")"; }
req() { echo "gql_cost_requests_total{result=\"$1\",mode=\"$2\"}"; }
est() { echo "gql_cost_estimated$1{result=\"$2\"${3:-}}"; }

# counts MODE OK TOO_EXPENSIVE PARSE_FAILURE FILE: the six counters (the
# other mode's at 0)
counts() {
  local other=measure f=$5
  [[ $1 == measure ]] && other=enforce
  expect "$1 COST_OK" "$(metric "$f" "$(req COST_OK "$1")")" "$2"
  expect "$1 COST_ESTIMATED_TOO_EXPENSIVE" "$(metric "$f" "$(req COST_ESTIMATED_TOO_EXPENSIVE "$1")")" "$3"
  expect "$1 COST_QUERY_PARSE_FAILURE" "$(metric "$f" "$(req COST_QUERY_PARSE_FAILURE "$1")")" "$4"
  for r in COST_OK COST_ESTIMATED_TOO_EXPENSIVE COST_QUERY_PARSE_FAILURE; do
    expect "$other $r" "$(metric "$f" "$(req "$r" "$other")")" 0
  done
}

# The known sequence: cheap ones (0, 0 again from the document cache, 5,
# 16 with variables), expensive ones (100, 56 named Big), one that cannot
# be estimated, and one that does not validate (never estimated).
sequence() {
  post "$1" '{ cheap }' >"$tmp/r1"
  post "$1" '{ cheap }' >/dev/null
  post "$1" '{ books(first: 5) { title } }' >/dev/null
  post "$1" 'query($n: Int) { books(first: $n) { author { name } } }' '{"n": 2}' >/dev/null
  post "$1" '{ books(first: 100) { title } }' >"$tmp/r2"
  post "$1" 'query Big { books(first: 7) { author { name } } }' >/dev/null
  post "$1" '{ books { title } }' >"$tmp/r3"
  post "$1" '{ nope }' >/dev/null
}
# the histogram after the sequence: COST_OK 0, 0, 5, 16 (sum 21);
# COST_ESTIMATED_TOO_EXPENSIVE 100, 56 (sum 156)
histogram() {
  local f=$1
  expect "COST_OK le=1" "$(metric "$f" "$(est _bucket COST_OK ',le="1"')")" 2
  expect "COST_OK le=10" "$(metric "$f" "$(est _bucket COST_OK ',le="10"')")" 3
  expect "COST_OK le=100" "$(metric "$f" "$(est _bucket COST_OK ',le="100"')")" 4
  expect "COST_OK +Inf" "$(metric "$f" "$(est _bucket COST_OK ',le="+Inf"')")" 4
  expect "COST_OK sum" "$(metric "$f" "$(est _sum COST_OK)")" 21
  expect "COST_OK count" "$(metric "$f" "$(est _count COST_OK)")" 4
  expect "too expensive le=10" "$(metric "$f" "$(est _bucket COST_ESTIMATED_TOO_EXPENSIVE ',le="10"')")" 0
  expect "too expensive le=100" "$(metric "$f" "$(est _bucket COST_ESTIMATED_TOO_EXPENSIVE ',le="100"')")" 2
  expect "too expensive sum" "$(metric "$f" "$(est _sum COST_ESTIMATED_TOO_EXPENSIVE)")" 156
  expect "too expensive count" "$(metric "$f" "$(est _count COST_ESTIMATED_TOO_EXPENSIVE)")" 2
}

# ---- gql serve, enforce: the families at 0 from the start, then exact
serve e --schema "$tmp/cost.graphql" --data "$tmp/data.json" --demand-control-max 50 || exit 1
pe=$pid porte=$port
scrape "$porte" "$tmp/e0.txt"
counts enforce 0 0 0 "$tmp/e0.txt"
expect "no estimate yet" "$(metric "$tmp/e0.txt" "$(est _count COST_OK)")" 0
sequence "$porte"
grep -q COST_ESTIMATED_TOO_EXPENSIVE "$tmp/r2" && ok || fail "enforce: not refused: $(cat "$tmp/r2")"
grep -q COST_QUERY_PARSE_FAILURE "$tmp/r3" && ok || fail "enforce: no parse failure: $(cat "$tmp/r3")"
scrape "$porte" "$tmp/e1.txt"
counts enforce 4 2 1 "$tmp/e1.txt"
histogram "$tmp/e1.txt"
promtool_ok "$tmp/e1.txt"
grep -q 'demand control' "$tmp/e.err" && fail "enforce wrote demand-control lines: $(cat "$tmp/e.err")" || ok
kill "$pe"

# ---- measure (the configuration file): the same sequence runs; counted as
# what enforce would do
cat >"$tmp/measure.yaml" <<'YAML'
demand_control:
  enabled: true
  mode: measure
  strategy:
    static_estimated:
      max: 50
YAML
serve m --schema "$tmp/cost.graphql" --data "$tmp/data.json" --config "$tmp/measure.yaml" || exit 1
pm=$pid portm=$port
t0=$(date +%s)
sequence "$portm"
grep -q '"data"' "$tmp/r2" && ok || fail "measure: the expensive one did not run: $(cat "$tmp/r2")"
# (as Router: measure mode drops the estimate's failure too, and runs it)
grep -q '"data":{"books":\[{"title"' "$tmp/r3" && ok || fail "measure: the one not estimated did not run: $(cat "$tmp/r3")"
scrape "$portm" "$tmp/m1.txt"
counts measure 4 2 1 "$tmp/m1.txt"
histogram "$tmp/m1.txt"
promtool_ok "$tmp/m1.txt"
# one line for the two over the maximum (within 10 s), naming the first
expect "measure lines" "$(grep -c 'demand control (measure)' "$tmp/m.err")" 1
grep -qx 'gql serve: warn: demand control (measure): operation - estimated cost 100 exceeds the maximum 50; it ran, enforce would refuse it' "$tmp/m.err" &&
  ok || fail "the measure line: $(cat "$tmp/m.err")"
# a burst of 40 more: all counted, no more lines
for _ in $(seq 40); do post "$portm" 'query Big { books(first: 7) { author { name } } }' >/dev/null; done
scrape "$portm" "$tmp/m2.txt"
counts measure 4 42 1 "$tmp/m2.txt"
expect "burst sum" "$(metric "$tmp/m2.txt" "$(est _sum COST_ESTIMATED_TOO_EXPENSIVE)")" $((156 + 40 * 56))
lines=$(grep -c 'demand control (measure)' "$tmp/m.err")
if (($(date +%s) - t0 < 9)); then
  expect "measure lines after the burst" "$lines" 1
else # (a slow machine: the interval may have passed once)
  ((lines <= 2)) && ok || fail "measure lines after the burst: $lines"
fi
# past the interval: a line again, with the 41 held back
while (($(date +%s) - t0 < 11)); do sleep 0.5; done
post "$portm" 'query Big { books(first: 7) { author { name } } }' >/dev/null
grep -q 'demand control (measure): operation Big estimated cost 56 exceeds the maximum 50; it ran, enforce would refuse it (and 41 more over the maximum since the last such line)$' "$tmp/m.err" &&
  ok || fail "the line after the interval: $(grep 'demand control' "$tmp/m.err")"
kill "$pm"

# ---- measure with --log-format json: JSON lines, as the server's own
threads=1
serve j --schema "$tmp/cost.graphql" --data "$tmp/data.json" --config "$tmp/measure.yaml" --log-format json || exit 1
pj=$pid portj=$port
for _ in $(seq 20); do post "$portj" 'query Big { books(first: 7) { author { name } } }' >/dev/null; done
scrape "$portj" "$tmp/j.txt"
counts measure 0 20 0 "$tmp/j.txt"
kill "$pj"
python3 - "$tmp/j.err" <<'PY' && ok || fail "the JSON lines: $(cat "$tmp/j.err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
dc = [l for l in lines if "demand control" in l.get("msg", "")]
assert len(dc) == 1, lines
assert dc[0]["level"] == "warn" and dc[0]["logger"] == "gql serve", dc
assert dc[0]["msg"] == "demand control (measure): operation Big estimated cost 56 exceeds the maximum 50; it ran, enforce would refuse it", dc
PY

# ---- --log-level error: no line; still counted
serve q --schema "$tmp/cost.graphql" --data "$tmp/data.json" --config "$tmp/measure.yaml" --log-level error || exit 1
pq=$pid portq=$port
post "$portq" '{ books(first: 100) { title } }' >/dev/null
scrape "$portq" "$tmp/q.txt"
counts measure 0 1 0 "$tmp/q.txt"
kill "$pq"
wait "$pq" 2>/dev/null
grep -q 'demand control' "$tmp/q.err" && fail "a line below the log level: $(cat "$tmp/q.err")" || ok

# ---- without demand control: no families; a reload that turns it on
# counts from then on
cat >"$tmp/reload.yaml" <<YAML
serve:
  schema: $tmp/cost.graphql
  data: $tmp/data.json
YAML
threads=2
serve r --config "$tmp/reload.yaml" || exit 1
pr=$pid portr=$port
post "$portr" '{ books(first: 100) { title } }' >/dev/null
scrape "$portr" "$tmp/r0.txt"
grep -q gql_cost "$tmp/r0.txt" && fail "cost families without demand control" || ok
cat >>"$tmp/reload.yaml" <<'YAML'
demand_control:
  enabled: true
  mode: enforce
  strategy:
    static_estimated:
      max: 50
YAML
kill -HUP "$pr"
for _ in $(seq 100); do
  post "$portr" '{ books(first: 100) { title } }' | grep -q COST_ESTIMATED_TOO_EXPENSIVE && break
  sleep 0.05
done
post "$portr" '{ books(first: 100) { title } }' >/dev/null
post "$portr" '{ cheap }' >/dev/null
scrape "$portr" "$tmp/r1.txt"
counts enforce 1 2 0 "$tmp/r1.txt"
promtool_ok "$tmp/r1.txt"
kill "$pr"

# ---- persisted_queries.log_unknown: text, and JSON lines
echo '{"q1":"{ cheap }"}' >"$tmp/manifest.json"
cat >"$tmp/pq.yaml" <<YAML
persisted_queries:
  enabled: true
  log_unknown: true
  local_manifests: [$tmp/manifest.json]
  safelist:
    enabled: true
YAML
serve pt --schema "$tmp/cost.graphql" --data "$tmp/data.json" --config "$tmp/pq.yaml" || exit 1
ppt=$pid
post "$port" '{ books(first: 1) { title } }' | grep -q QUERY_NOT_IN_SAFELIST && ok || fail "log_unknown: not refused"
kill "$ppt"
wait "$ppt" 2>/dev/null
grep -q '^gql serve: warn: persisted queries: QUERY_NOT_IN_SAFELIST (' "$tmp/pt.err" && ok ||
  fail "log_unknown text line: $(cat "$tmp/pt.err")"
serve pj --schema "$tmp/cost.graphql" --data "$tmp/data.json" --config "$tmp/pq.yaml" --log-format json || exit 1
ppj=$pid
post "$port" '{ books(first: 1) { title } }' >/dev/null
kill "$ppj"
wait "$ppj" 2>/dev/null
python3 - "$tmp/pj.err" <<'PY' && ok || fail "log_unknown JSON lines: $(cat "$tmp/pj.err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
pq = [l for l in lines if "persisted queries" in l.get("msg", "")]
assert len(pq) == 1, lines
assert pq[0]["level"] == "warn" and pq[0]["logger"] == "gql serve", pq
assert pq[0]["msg"].startswith("persisted queries: QUERY_NOT_IN_SAFELIST ("), pq
PY

# ---- gql gateway: estimated on the supergraph's weights, counted the same
serve sub --subgraph --schema "$data/cost_subgraph.graphql" --data "$tmp/data.json" || exit 1
psub=$pid
sed "s|SUBGRAPH_URL|http://127.0.0.1:$port/graphql|" "$data/cost_supergraph.graphql" >"$tmp/sg.graphql"
"$gql" gateway --port 0 --threads 2 --supergraph "$tmp/sg.graphql" --demand-control-max 50 >"$tmp/g.out" 2>"$tmp/g.err" &
pg=$!
pids+=("$pg")
portg=
for _ in $(seq 200); do
  portg=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/g.out")
  [[ -n $portg ]] && break
  sleep 0.05
done
if [[ -z $portg ]]; then
  fail "gateway: no banner: $(cat "$tmp/g.out" "$tmp/g.err")"
else
  post "$portg" '{ cheap }' | grep -q '"cheap":1' && ok || fail "gateway: cheap did not run"
  post "$portg" '{ books { title } }' >/dev/null
  post "$portg" '{ books(first: 100) { title } }' | grep -q COST_ESTIMATED_TOO_EXPENSIVE && ok || fail "gateway: not refused"
  scrape "$portg" "$tmp/g.txt"
  counts enforce 2 1 0 "$tmp/g.txt"
  expect "gateway COST_OK sum" "$(metric "$tmp/g.txt" "$(est _sum COST_OK)")" 5
  expect "gateway too expensive le=100" "$(metric "$tmp/g.txt" "$(est _bucket COST_ESTIMATED_TOO_EXPENSIVE ',le="100"')")" 1
  expect "gateway too expensive le=10" "$(metric "$tmp/g.txt" "$(est _bucket COST_ESTIMATED_TOO_EXPENSIVE ',le="10"')")" 0
  promtool_ok "$tmp/g.txt"
  kill "$pg"
fi
kill "$psub"

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
