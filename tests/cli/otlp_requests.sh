# Sourced by the OTLP tests (test_serve_otlp.sh, tests/trace/
# test_otlp_protobuf.sh) after lib.sh: the Star Wars requests whose spans
# otlp_check.py's `starwars` mode expects (keep them in step), and their
# check. Needs $here (tests/cli), $pid, $port and $tmp/sw.err from `serve sw`.

post() { curl -s -H 'content-type: application/json' --data-binary "$2" "http://127.0.0.1:$1/graphql"; }
urlenc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }

# stop PID: SIGTERM, and the exit status must be 0
stop() {
  kill -TERM "$1"
  wait "$1" && ok || fail "server exit status $?"
}

# otlp_starwars SINK_OUT: the requests, SIGTERM (whose flush sends the
# spans), then otlp_check.py starwars and selftest on what the sink wrote
# (one OTLP JSON request a line).
otlp_starwars() {
  local out=$1 t_start body got q m queued
  local friends='query HeroFriends($ep: Episode) { hero(episode: $ep) { name friends { name } } }'
  local hero='{ hero { name } }'
  local varerr='query Human($id: String!) { human(id: $id) { name } }'
  local invalid='{ hero { nope } }'
  t_start=$(date +%s%N)
  body=$(python3 -c 'import json,sys; print(json.dumps({"query":sys.argv[1],"variables":{"ep":"EMPIRE"}}))' "$friends")
  for _ in 1 2; do
    got=$(post "$port" "$body")
    [[ $got == '{"data":{"hero":{"name":"Luke Skywalker","friends":[{"name":"Han Solo"},{"name":"Leia Organa"},{"name":"C-3PO"},{"name":"R2-D2"}]}}}' ]] &&
      ok || fail "friends: $got"
  done
  q=$(urlenc "$hero")
  for _ in $(seq 20); do
    got=$(curl -s "http://127.0.0.1:$port/graphql?query=$q")
    [[ $got == '{"data":{"hero":{"name":"R2-D2"}}}' ]] || fail "GET hero: $got"
  done
  ok
  got=$(post "$port" "$(python3 -c 'import json,sys; print(json.dumps({"query":sys.argv[1]}))' "$varerr")")
  [[ $got == *'$id'* && $got != *'"data"'* ]] && ok || fail "variable error: $got"
  got=$(post "$port" "$(python3 -c 'import json,sys; print(json.dumps({"query":sys.argv[1]}))' "$invalid")")
  [[ $got == *'Cannot query field'* ]] && ok || fail "invalid: $got"
  # nothing was sent yet (the export period is 5 s, the batch 512 spans):
  # the flush at SIGTERM is what sends them
  if (($(date +%s%N) - t_start < 4500000000)); then
    [[ ! -s $out ]] && ok || fail "spans arrived before SIGTERM"
    m=$(curl -s "http://127.0.0.1:$port/metrics")
    queued=$(sed -n 's/^gql_trace_spans_queued_total //p' <<<"$m")
    [[ $queued -gt 80 && $m == *"gql_trace_spans_pending $queued"* &&
      $m == *"gql_trace_spans_exported_total 0"* ]] && ok || fail "/metrics: $m"
  else
    echo "note: slow machine, spans may have left before SIGTERM"
  fi
  stop "$pid"
  grep -q "trace: [0-9]* spans queued" "$tmp/sw.err" && ok ||
    fail "stats line: $(cat "$tmp/sw.err")"
  python3 "$here/otlp_check.py" starwars "$out" "$tmp/sw.err" "$threads" gql-otlp-test &&
    ok || fail "starwars spans (above)"
  python3 "$here/otlp_check.py" selftest "$out" "$tmp/sw.err" "$threads" gql-otlp-test &&
    ok || fail "selftest (above)"
}
