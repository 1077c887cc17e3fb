#!/usr/bin/env bash
# `gql exec`: JSON data with default resolvers, variables, operation names,
# exit statuses, syntax errors and the Star Wars example.
# Usage: test_exec.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_exec.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_exec.sh GQL_BINARY REPO_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passed=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

cat >"$tmp/schema.graphql" <<'SDL'
type Query { hello: String list: [Item!] item(id: Int!): Item }
type Mutation { bump: Int }
type Item { id: Int! name: String }
SDL
cat >"$tmp/data.json" <<'JSON'
{"hello":"world","list":[{"id":1,"name":"a"},{"id":2}],"item":{"id":7},"bump":1}
JSON

# expect NAME STATUS EXPECTED QUERY [ARGS...]: `gql exec` of QUERY on stdin
# prints EXPECTED and exits with STATUS.
expect() {
  local name=$1 status=$2 want=$3 query=$4
  shift 4
  printf '%s' "$query" | "$gql" exec "$@" - >"$tmp/got" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne $status ]]; then
    fail "$name: exit status $rc, want $status ($(cat "$tmp/err"))"
    return
  fi
  if [[ "$(cat "$tmp/got")" != "$want" ]]; then
    fail "$name: got $(cat "$tmp/got"), want $want"
    return
  fi
  passed=$((passed + 1))
}

data=(--schema "$tmp/schema.graphql" --data "$tmp/data.json")
expect "default resolvers read the data" 0 \
  '{"data":{"hello":"world","list":[{"id":1,"name":"a"},{"id":2,"name":null}]}}' \
  '{ hello list { id name } }' "${data[@]}"
expect "aliases and __typename" 0 \
  '{"data":{"h":"world","t":"Query"}}' '{ h: hello t: __typename }' "${data[@]}"
printf '{"id":7}' >"$tmp/vars.json"
expect "variables" 0 '{"data":{"item":{"id":7}}}' \
  'query Q($id: Int!) { item(id: $id) { id } }' "${data[@]}" \
  --variables "$tmp/vars.json"
expect "missing variable exits 1" 1 \
  '{"errors":[{"message":"Variable \"$id\" of required type \"Int!\" was not provided.","locations":[{"line":1,"column":9}]}]}' \
  'query Q($id: Int!) { item(id: $id) { id } }' "${data[@]}"
expect "operation name picks the mutation" 0 '{"data":{"bump":1}}' \
  'query A { hello } mutation B { bump }' "${data[@]}" --operation B
expect "several operations need a name" 1 \
  '{"errors":[{"message":"Must provide operation name if query contains multiple operations."}]}' \
  'query A { hello } query B { hello }' "${data[@]}"
expect "syntax errors come back as errors" 1 \
  '{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":2}]}]}' \
  '{' "${data[@]}"
expect "the Star Wars example" 0 \
  '{"data":{"hero":{"name":"R2-D2","friends":[{"name":"Luke Skywalker"},{"name":"Han Solo"},{"name":"Leia Organa"}]},"luke":{"homePlanet":"Tatooine","appearsIn":["NEW_HOPE","EMPIRE","JEDI"]}}}' \
  '{ hero { name friends { name } } luke: human(id: "1000") { homePlanet appearsIn } }' \
  --example starwars
if [[ -f "$root/../shared/bench/star_wars_expected_data.json" ]]; then
  printf '{ hero { id name friends { name appearsIn friends { name } } } }' |
    "$gql" exec --example starwars - >"$tmp/sw.json"
  if python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a in (b, {'data': b}) or a.get('data') == b.get('data', b) else 1)" \
    "$tmp/sw.json" "$root/../shared/bench/star_wars_expected_data.json"; then
    passed=$((passed + 1))
  else
    fail "star_wars benchmark response differs"
  fi
fi

# Malformed JSON data: a usage-level failure naming the file and position.
printf '{"hello": [1,}' >"$tmp/bad.json"
err=$(echo '{ hello }' | "$gql" exec --schema "$tmp/schema.graphql" --data "$tmp/bad.json" 2>&1 >/dev/null)
status=$?
if [[ $status -eq 2 && $err == "gql exec: $tmp/bad.json: Unexpected character '}' at line 1, column 14" ]]; then
  passed=$((passed + 1))
else
  fail "malformed data: status $status, stderr: $err"
fi

# A subscription runs once over the data, as graphql-js's graphql() runs
# it, with or without --subscription-once (accepted, the default).
printf 'type Query { a: String }\ntype Subscription { tick: Int }\n' >"$tmp/sub.graphql"
echo '{"tick": 3}' >"$tmp/sub.json"
out=$(echo 'subscription { tick }' | "$gql" exec --schema "$tmp/sub.graphql" --data "$tmp/sub.json")
[[ $? -eq 0 && $out == '{"data":{"tick":3}}' ]] && passed=$((passed + 1)) || fail "subscription: $out"
out=$(echo 'subscription { tick }' | "$gql" exec --subscription-once --schema "$tmp/sub.graphql" --data "$tmp/sub.json")
[[ $? -eq 0 && $out == '{"data":{"tick":3}}' ]] && passed=$((passed + 1)) || fail "subscription once: $out"

# An operation type the schema has no root for: graphql-js's execution
# error with data null (it crashed: no root to walk).
out=$(echo 'mutation { x }' | "$gql" exec --schema "$tmp/sub.graphql" --data "$tmp/sub.json")
[[ $? -eq 1 && $out == '{"errors":[{"message":"Schema is not configured to execute mutation operation.","locations":[{"line":1,"column":1}]}],"data":null}' ]] &&
  passed=$((passed + 1)) || fail "no mutation root: $out"

# @defer and @stream (--defer-stream adds the directives): one payload a
# line, graphql-js 17's format; the exit status says whether any payload
# had errors; without --defer-stream the directive is unknown.
nl=$'\n'
expect "deferred fragment: one payload a line" 0 \
  '{"data":{"item":{"id":7}},"pending":[{"id":"0","path":["item"],"label":"L"}],"hasNext":true}'"$nl"'{"hasNext":false,"incremental":[{"id":"0","data":{"name":null}}],"completed":[{"id":"0"}]}' \
  '{ item(id: 1) { id ... @defer(label: "L") { name } } }' --defer-stream "${data[@]}"
expect "streamed list: the items after initialCount" 0 \
  '{"data":{"list":[{"id":1}]},"pending":[{"id":"0","path":["list"]}],"hasNext":true}'"$nl"'{"hasNext":false,"incremental":[{"id":"0","items":[{"id":2}]}],"completed":[{"id":"0"}]}' \
  '{ list @stream(initialCount: 1) { id } }' --defer-stream "${data[@]}"
echo '{"list":[{"id":1,"name":"a"},{"name":"b"}]}' >"$tmp/d2.json"
expect "a deferred fragment nulled: completed with its errors, exit 1" 1 \
  '{"data":{"list":[{"name":"a"},{"name":"b"}]},"pending":[{"id":"0","path":["list",0]},{"id":"1","path":["list",1]}],"hasNext":true}'"$nl"'{"hasNext":false,"incremental":[{"id":"0","data":{"id":1}}],"completed":[{"id":"1","errors":[{"message":"Cannot return null for non-nullable field Item.id.","locations":[{"line":1,"column":28}],"path":["list",1,"id"]}]},{"id":"0"}]}' \
  '{ list { name ... @defer { id } } }' --defer-stream --schema "$tmp/schema.graphql" --data "$tmp/d2.json"
expect "the Star Wars example with --defer-stream" 0 \
  '{"data":{"hero":{"name":"R2-D2"}},"pending":[{"id":"0","path":["hero"]}],"hasNext":true}'"$nl"'{"hasNext":false,"incremental":[{"id":"0","data":{"id":"2001"}}],"completed":[{"id":"0"}]}' \
  '{ hero { name ... @defer { id } } }' --example starwars --defer-stream
printf '{ list { ... @defer { n: id } } }' | "$gql" exec "${data[@]}" - >"$tmp/got" 2>&1
[[ $? -eq 1 ]] && grep -q 'Unknown directive \\"@defer\\"' "$tmp/got" &&
  passed=$((passed + 1)) || fail "@defer without --defer-stream: $(cat "$tmp/got")"

# A deferred fragment's resolvers belong to the execution's trace, and
# the execute span ends with the last payload (after every resolve span).
echo '{"item":{"id":7,"name":"n","list":[{"id":1},{"id":2}]}}' >"$tmp/d3.json"
printf 'type Query { item: Item }\ntype Item { id: Int name: String list: [Item] }\n' >"$tmp/s3.graphql"
echo '{ item { id ... @defer { name list { ... @defer { id } } } } }' |
  "$gql" exec --defer-stream --schema "$tmp/s3.graphql" --data "$tmp/d3.json" \
    --trace-file "$tmp/trace.jsonl" - >"$tmp/got" 2>&1
python3 - "$tmp/trace.jsonl" <<'PY' && passed=$((passed + 1)) || fail "deferred fields' spans: $(cat "$tmp/trace.jsonl")"
import json, sys
spans = [s for l in open(sys.argv[1]) for rs in json.loads(l)["resourceSpans"]
         for ss in rs["scopeSpans"] for s in ss["spans"]]
def path(s):
    return next((list(a["value"].values())[0] for a in s.get("attributes", [])
                 if a["key"] == "graphql.field.path"), None)
resolved = {path(s): s for s in spans if s["name"] == "graphql.resolve"}
for p in ("item", "item.id", "item.name", "item.list", "item.list.*.id"):
    assert p in resolved, f"no span for {p}: {sorted(map(str, resolved))}"
execute = [s for s in spans if s["name"] == "query"]
assert len(execute) == 1, execute
end = int(execute[0]["endTimeUnixNano"])
assert all(int(s["endTimeUnixNano"]) <= end for s in resolved.values())
ids = {s["traceId"] for s in spans}
assert len(ids) == 1, ids
PY

echo "exec: $passed passed, $failures failed"
[[ $failures -eq 0 ]]
