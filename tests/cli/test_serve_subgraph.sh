#!/usr/bin/env bash
# `gql serve --subgraph`: a Federation subgraph over a JSON document, with no
# C code: _service { sdl } as given, _entities by simple, compound and
# multiple keys, @requires fields from the representation, an unknown
# __typename as an error of its item, order kept; usage errors.
# Usage: test_serve_subgraph.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_serve_subgraph.sh GQL_BINARY REPO_ROOT}
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
passed=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { passed=$((passed + 1)); }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
post() { curl -s -H 'content-type: application/json' --data-binary "$1" "http://127.0.0.1:$port/graphql"; }

cat >"$tmp/s.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])
type Query { topProducts: [Product] }
type Product @key(fields: "upc") @key(fields: "sku { id } region") {
  upc: String!
  sku: Sku
  region: String
  name: String
  price: Int @external
  label: String @requires(fields: "price")
}
type Sku { id: ID! }
SDL
cat >"$tmp/d.json" <<'JSON'
{"topProducts": [{"upc": "1", "name": "Table"}],
 "Product": [
  {"upc": "1", "sku": {"id": "s1"}, "region": "eu", "name": "Table"},
  {"upc": "2", "sku": {"id": "s1"}, "region": "us", "name": "Couch"}]}
JSON

# usage errors
"$gql" serve --subgraph >/dev/null 2>"$tmp/usage.err"
[[ $? == 2 ]] && grep -q -- "--subgraph needs --schema" "$tmp/usage.err" && ok || fail "usage: $(cat "$tmp/usage.err")"
echo 'type Query { a: Nope }' >"$tmp/bad.graphql"
"$gql" serve --subgraph --schema "$tmp/bad.graphql" --port "$port" >/dev/null 2>"$tmp/bad.err"
[[ $? == 1 ]] && grep -q 'Unknown type "Nope"' "$tmp/bad.err" && ok || fail "bad schema: $(cat "$tmp/bad.err")"

"$gql" serve --subgraph --schema "$tmp/s.graphql" --data "$tmp/d.json" --port "$port" --threads 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do grep -q "on http://" "$tmp/out" && break; sleep 0.05; done
grep -q "serving the subgraph" "$tmp/out" && ok || fail "banner: $(cat "$tmp/out" "$tmp/err")"

got=$(post '{"query":"{ _service { sdl } }"}')
want=$(python3 -c 'import json,sys; print(json.dumps({"data":{"_service":{"sdl":open(sys.argv[1]).read()}}},separators=(",",":")))' "$tmp/s.graphql")
[[ $got == "$want" ]] && ok || fail "_service: $got"

got=$(post '{"query":"{ topProducts { upc name } }"}')
[[ $got == '{"data":{"topProducts":[{"upc":"1","name":"Table"}]}}' ]] && ok || fail "root field: $got"

q='query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc name label price } } }'
reps='[{"__typename":"Product","upc":"2","price":5},{"__typename":"Nope","upc":"1"},{"__typename":"Product","sku":{"id":"s1"},"region":"eu"},{"__typename":"Product","upc":"3"}]'
got=$(post "{\"query\":\"$q\",\"variables\":{\"r\":$reps}}")
want='{"errors":[{"message":"The _entities resolver tried to load an entity for type \"Nope\", but no object type of that name was found in the schema","locations":[{"line":1,"column":23}],"path":["_entities",1]}],"data":{"_entities":[{"upc":"2","name":"Couch","label":null,"price":5},null,{"upc":"1","name":"Table","label":null,"price":null},null]}}'
[[ $got == "$want" ]] && ok || fail "_entities: $got"

kill -TERM "$pid"
wait "$pid" && ok || fail "exit status $?"
pid=

echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
