#!/usr/bin/env bash
# Hot reload (issue 16, item 5): gql serve and gql gateway load their files
# again on SIGHUP and when they change, keep serving the old generation when
# a new file does not load (the log says why), apply the configuration's
# operation limits, and answer every request during reloads (200, right
# data, no connection dropped).
# Usage: test_reload.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_reload.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_reload.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

q() { # q QUERY: the response body of POST {"query": QUERY} on $port
  curl -s -m 5 -H 'content-type: application/json' \
    -d "{\"query\":\"$1\"}" "http://127.0.0.1:$port/graphql"
}
# wait_for QUERY EXPECTED: polls up to 5 s until QUERY answers EXPECTED
wait_for() {
  local got
  for _ in $(seq 100); do
    got=$(q "$1")
    [[ $got == "$2" ]] && return 0
    sleep 0.05
  done
  echo "$got"
  return 1
}
# wait_log FILE PATTERN: polls up to 5 s until FILE has a line matching
wait_log() {
  for _ in $(seq 100); do
    grep -q -- "$2" "$1" && return 0
    sleep 0.05
  done
  return 1
}

# ---- gql serve: SIGHUP reloads the schema and the data
mkdir -p "$tmp/s"
printf 'type Query { a: String }\n' >"$tmp/s/schema.graphql"
echo '{"a":"one"}' >"$tmp/s/data.json"
if serve s --log-level info --schema "$tmp/s/schema.graphql" --data "$tmp/s/data.json"; then
  [[ $(q '{a}') == '{"data":{"a":"one"}}' ]] && ok || fail "first generation: $(q '{a}')"
  [[ $(q '{a b}') == *'Cannot query field \"b\"'* ]] && ok || fail "b before the reload: $(q '{a b}')"

  printf 'type Query { a: String b: Int }\n' >"$tmp/s/schema.graphql.new"
  echo '{"a":"two","b":2}' >"$tmp/s/data.json.new"
  # renamed into place as deploys do; SIGHUP at once, before the watch
  # (debounced 100 ms) would load them
  mv "$tmp/s/schema.graphql.new" "$tmp/s/schema.graphql"
  mv "$tmp/s/data.json.new" "$tmp/s/data.json"
  kill -HUP "$pid"
  wait_log "$tmp/s.err" 'reloaded: generation 1' && ok || fail "no generation 1: $(cat "$tmp/s.err")"
  # on a loaded machine the watch may fire before the signal is handled;
  # then the signal makes a reload of its own after it
  wait_log "$tmp/s.err" 'info: reload (SIGHUP)' && ok || fail "SIGHUP did not reload: $(cat "$tmp/s.err")"
  got=$(wait_for '{a b}' '{"data":{"a":"two","b":2}}') && ok || fail "after SIGHUP: $got"

  # a schema that does not build: the error is logged, the old one serves
  sleep 0.3 # let the watch's reload of the files above pass
  gen_before=$(grep -c 'reloaded: generation' "$tmp/s.err")
  printf 'type Query { a: Strin b: Int }\n' >"$tmp/s/schema.graphql"
  kill -HUP "$pid"
  wait_log "$tmp/s.err" 'Unknown type "Strin"' && ok || fail "the error is not logged: $(cat "$tmp/s.err")"
  wait_log "$tmp/s.err" 'error: reload (SIGHUP) failed: still serving generation' && ok ||
    fail "no failed-reload line: $(cat "$tmp/s.err")"
  [[ $(q '{a b}') == '{"data":{"a":"two","b":2}}' ]] && ok || fail "old generation after a bad schema: $(q '{a b}')"

  # bad JSON data: the same
  printf 'type Query { a: String b: Int }\n' >"$tmp/s/schema.graphql"
  echo '{"a":"three",' >"$tmp/s/data.json"
  sleep 0.4
  [[ $(q '{a b}') == '{"data":{"a":"two","b":2}}' ]] && ok || fail "old generation after bad JSON: $(q '{a b}')"
  gen_after=$(grep -c 'reloaded: generation' "$tmp/s.err")
  [[ $gen_after == "$gen_before" ]] && ok || fail "a generation was made of bad files ($gen_before -> $gen_after)"

  # the file watch alone (no signal): a new field answers
  printf 'type Query { a: String b: Int c: [Int] }\n' >"$tmp/s/schema.graphql"
  echo '{"a":"four","b":4,"c":[1,2]}' >"$tmp/s/data.json"
  got=$(wait_for '{c}' '{"data":{"c":[1,2]}}') && ok || fail "file watch: $got"
  [[ $(q '{a}') == '{"data":{"a":"four"}}' ]] && ok || fail "file watch data: $(q '{a}')"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- warming: the operations a worker served are prepared on the new
# schema before it serves from it, so that the first request after a
# reload hits the document cache (one worker: its cache is the only one)
metric() { # metric NAME: its value on /metrics
  curl -s "http://127.0.0.1:$port/metrics" | sed -n "s/^$1 \([0-9]*\)$/\1/p"
}
mkdir -p "$tmp/w"
printf 'type Query { a: String b: Int }\n' >"$tmp/w/schema.graphql"
echo '{"a":"w","b":1}' >"$tmp/w/data.json"
if threads=1 serve w --log-level info --schema "$tmp/w/schema.graphql" --data "$tmp/w/data.json"; then
  q '{a}' >/dev/null
  q '{a b}' >/dev/null
  q '{a}' >/dev/null
  misses=$(metric gql_document_cache_misses_total)
  [[ $misses == 2 ]] && ok || fail "warm: misses before the reload: $misses"
  printf 'type Query { a: String b: Int c: Int }\n' >"$tmp/w/schema.graphql"
  kill -HUP "$pid"
  wait_log "$tmp/w.err" 'reloaded: generation 1' || fail "warm: no reload: $(cat "$tmp/w.err")"
  got=$(wait_for '{c}' '{"data":{"c":null}}') || fail "warm: new schema: $got"
  misses=$(metric gql_document_cache_misses_total)
  [[ $(q '{a b}') == '{"data":{"a":"w","b":1}}' && $(q '{a}') == '{"data":{"a":"w"}}' ]] && ok || fail "warm: answers"
  [[ $(metric gql_document_cache_misses_total) == "$misses" ]] && ok ||
    fail "warm: the hot operations missed the cache after the reload ($misses -> $(metric gql_document_cache_misses_total))"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- gql serve --config: the operation limits reload; the endpoint path
# (like the listen address and the thread count) does not (logged)
mkdir -p "$tmp/c"
printf 'type Query { a: String b: Int }\n' >"$tmp/c/schema.graphql"
echo '{"a":"x","b":1}' >"$tmp/c/data.json"
cfg() {
  cat >"$tmp/c/gql.yaml" <<YAML
serve:
  schema: schema.graphql
  data: data.json
supergraph:
  path: $1
limits:
  max_root_fields: $2
YAML
}
cfg /graphql 5
if serve c --config "$tmp/c/gql.yaml"; then
  [[ $(q '{a b}') == '{"data":{"a":"x","b":1}}' ]] && ok || fail "config: first: $(q '{a b}')"
  cfg /gql 1
  got=$(wait_for '{a b}' '{"errors":[{"message":"Maximum root fields limit exceeded in this operation","extensions":{"code":"MAX_ROOT_FIELDS_LIMIT"}}]}') &&
    ok || fail "config: max_root_fields did not reload: $got"
  [[ $(q '{a}') == '{"data":{"a":"x"}}' ]] && ok || fail "config: one root field: $(q '{a}')"
  grep -q 'warning: reload: the endpoint path (supergraph.path) changed; needs a restart' "$tmp/c.err" && ok ||
    fail "config: path change not reported: $(cat "$tmp/c.err")"
  # a configuration that does not parse: said with its line, limits stay
  printf 'limits:\n  max_root_fields: [\n' >"$tmp/c/gql.yaml"
  kill -HUP "$pid"
  wait_log "$tmp/c.err" 'gql.yaml:[0-9]*:[0-9]*: ' && ok || fail "config: bad YAML not reported: $(cat "$tmp/c.err")"
  [[ $(q '{a b}') == *MAX_ROOT_FIELDS_LIMIT* ]] && ok || fail "config: limits lost on a bad file: $(q '{a b}')"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- gql serve under load: every answer during 60 reloads is 200 and
# right, on keep-alive connections and new ones alike
mkdir -p "$tmp/l"
printf 'type Query { a: String v: Int }\n' >"$tmp/l/one.graphql"
printf 'type Query { a: String v: Int w: Int }\n' >"$tmp/l/two.graphql"
echo '{"a":"same","v":1}' >"$tmp/l/one.json"
echo '{"a":"same","v":2,"w":2}' >"$tmp/l/two.json"
cp "$tmp/l/one.graphql" "$tmp/l/schema.graphql"
cp "$tmp/l/one.json" "$tmp/l/data.json"
if serve l --log-level info --schema "$tmp/l/schema.graphql" --data "$tmp/l/data.json"; then
  python3 - "$port" >"$tmp/load.out" 2>&1 <<'PY' &
import http.client, json, sys, threading, time
port = int(sys.argv[1])
stop = time.time() + 4.0
bad, counts, lock = [], {}, threading.Lock()
def client(keep):
    conn = None
    while time.time() < stop:
        try:
            if conn is None or not keep:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("POST", "/graphql", body='{"query":"{a v}"}',
                         headers={"content-type": "application/json"})
            r = conn.getresponse()
            body = r.read().decode()
            d = json.loads(body)
            ok = r.status == 200 and d.get("data", {}).get("a") == "same" and d["data"].get("v") in (1, 2)
            with lock:
                counts[ok] = counts.get(ok, 0) + 1
                if not ok:
                    bad.append((r.status, body))
            if not keep:
                conn.close()
        except Exception as e:
            with lock:
                bad.append(("exception", repr(e)))
            conn = None
ts = [threading.Thread(target=client, args=(k,)) for k in (True, True, False, False)]
for t in ts: t.start()
for t in ts: t.join()
print("answers", counts.get(True, 0), "bad", len(bad))
for b in bad[:5]: print("BAD", b)
PY
  load=$!
  for i in $(seq 60); do
    if ((i % 2)); then src=two; else src=one; fi
    cp "$tmp/l/$src.graphql" "$tmp/l/schema.graphql.tmp" && mv "$tmp/l/schema.graphql.tmp" "$tmp/l/schema.graphql"
    cp "$tmp/l/$src.json" "$tmp/l/data.json.tmp" && mv "$tmp/l/data.json.tmp" "$tmp/l/data.json"
    kill -HUP "$pid"
    sleep 0.05
  done
  wait "$load"
  out=$(cat "$tmp/load.out")
  [[ $out == *"bad 0"* && $out != *"answers 0 "* ]] && ok || fail "under load: $out"
  gens=$(grep -c 'reloaded: generation' "$tmp/l.err")
  ((gens >= 60)) && ok || fail "under load: only $gens generations for 60 SIGHUPs"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- gql gateway: a new supergraph is planned (the subgraph is asked for
# the new field), a broken one is refused and the old one kept
echo_subgraph "$root"
supergraph() { # supergraph FIELDS: a supergraph of subgraph a with FIELDS
  cat <<GRAPHQL
schema
  @link(url: "https://specs.apollo.dev/link/v1.0")
  @link(url: "https://specs.apollo.dev/join/v0.3", for: EXECUTION)
{
  query: Query
}
directive @join__field(graph: join__Graph, requires: join__FieldSet, provides: join__FieldSet, type: String, external: Boolean, override: String, usedOverridden: Boolean) repeatable on FIELD_DEFINITION | INPUT_FIELD_DEFINITION
directive @join__graph(name: String!, url: String!) on ENUM_VALUE
directive @join__type(graph: join__Graph!, key: join__FieldSet, extension: Boolean! = false, resolvable: Boolean! = true, isInterfaceObject: Boolean! = false) repeatable on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR
directive @link(url: String, as: String, for: link__Purpose, import: [link__Import]) repeatable on SCHEMA
scalar join__FieldSet
scalar link__Import
enum link__Purpose { SECURITY EXECUTION }
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$sport/a")
}
type Query @join__type(graph: A) {
$1
}
GRAPHQL
}
mkdir -p "$tmp/g"
supergraph '  secret: String @join__field(graph: A)' >"$tmp/g/supergraph.graphql"
"$gql" gateway --port 0 --threads 1 --log-level info --supergraph "$tmp/g/supergraph.graphql" \
  >"$tmp/gw.out" 2>"$tmp/gw.err" &
gpid=$!
pids+=("$gpid")
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw.out")
  [[ -n $port ]] && break
  sleep 0.05
done
if [[ -n $port ]]; then
  [[ $(q '{secret}') == '{"data":{"secret":"secret"}}' ]] && ok || fail "gateway: first: $(q '{secret}')"
  [[ $(q '{admin}') == *'Cannot query field \"admin\"'* ]] && ok || fail "gateway: admin before: $(q '{admin}')"
  supergraph '  secret: String @join__field(graph: A)
  admin: String @join__field(graph: A)' >"$tmp/g/supergraph.graphql"
  kill -HUP "$gpid"
  got=$(wait_for '{secret admin}' '{"data":{"secret":"secret","admin":"admin"}}') && ok ||
    fail "gateway: the new field: $got"
  # the plans of the hot operations were made before the switch: {secret}
  # (served before) is no plan-cache miss after it
  pm=$(metric gql_plan_cache_misses_total)
  [[ $(q '{secret}') == '{"data":{"secret":"secret"}}' ]] && ok || fail "gateway: secret after: $(q '{secret}')"
  [[ $(metric gql_plan_cache_misses_total) == "$pm" ]] && ok ||
    fail "gateway: {secret} was planned again after the reload ($pm -> $(metric gql_plan_cache_misses_total))"
  # a supergraph that does not load
  echo 'schema { query: Query' >"$tmp/g/supergraph.graphql"
  kill -HUP "$gpid"
  wait_log "$tmp/gw.err" 'error: reload (SIGHUP) failed' && ok || fail "gateway: bad supergraph not reported: $(cat "$tmp/gw.err")"
  [[ $(q '{secret admin}') == '{"data":{"secret":"secret","admin":"admin"}}' ]] && ok ||
    fail "gateway: old generation after a bad supergraph: $(q '{secret admin}')"
  kill "$gpid"
  wait "$gpid" 2>/dev/null
else
  fail "gateway: no banner: $(cat "$tmp/gw.out" "$tmp/gw.err")"
fi

echo "test_reload: $passed passed, $failures failed"
((failures == 0))
