#!/usr/bin/env bash
# Introspection through gql gateway is answered at the gateway, from the
# API schema, byte for byte as Apollo Gateway 2.14 (npm, installed into
# PEERS_DIR once) answers it over the same supergraph: graphql-js 16.15's
# full introspection query (../shared/conformance/introspection), and the
# same with every option (descriptions of schemas and directives, argument
# and input field deprecation, repeatable directives, @specifiedBy; less
# isOneOf, which Apollo Gateway does not know), over the benchmark's
# supergraph and over one composed here by @apollo/composition with what an
# API schema must show or hide: descriptions, deprecations, a custom scalar,
# a custom directive kept by @composeDirective (hidden, as Apollo hides
# every @link'ed feature), @inaccessible and @tag, interfaces implementing
# interfaces, input defaults, a mutation and a union. One difference, on
# purpose: gql's API schema declares @defer, which the gateway serves, as
# Apollo Router's does (Apollo Gateway does not defer): its entry in
# gql's answer is checked and taken out before the comparison.
# Usage: test_gateway_introspection.sh GQL SHARED_DIR PEERS_DIR
set -uo pipefail
gql=${1:?usage: test_gateway_introspection.sh GQL SHARED_DIR PEERS_DIR}
shared=${2:?usage: test_gateway_introspection.sh GQL SHARED_DIR PEERS_DIR}
peers=${3:?usage: test_gateway_introspection.sh GQL SHARED_DIR PEERS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../gateway/common.sh"
source "$here/../gateway/npm_peers.sh"
npm_peers "$peers" || { echo "FAIL: the npm peers could not be installed"; exit 1; }
mkdir -p "$peers" && peers=$(cd "$peers" && pwd)
queries=$shared/conformance/introspection

cat >"$tmp/s0.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@inaccessible", "@tag", "@composeDirective"])
  @link(url: "https://example.com/custom/v1.0", import: ["@custom"])
  @composeDirective(name: "@custom")
"A custom directive"
directive @custom("why" reason: String = "none") repeatable on FIELD_DEFINITION | OBJECT
"""
The query root.
Several lines.
"""
type Query {
  "All the things"
  things("how many" first: Int = 10, filter: Filter, old: String @deprecated(reason: "use filter")): [Thing!]! @custom(reason: "x")
  node(id: ID!): Node @tag(name: "public")
  secret: String @inaccessible
  when: DateTime
}
"A point in time"
scalar DateTime @specifiedBy(url: "https://tools.ietf.org/html/rfc3339")
"A filter"
input Filter {
  "the name" name: String = "any"
  kind: Kind = A
  legacy: Int @deprecated(reason: "gone")
}
enum Kind { "first" A B @deprecated(reason: "no more B") C @deprecated HIDDEN @inaccessible }
interface Node { id: ID! }
interface Named implements Node { id: ID! name: String }
type Thing implements Node & Named @key(fields: "id") {
  id: ID!
  name: String @shareable
  kind: Kind
  "old field" legacy: String @deprecated(reason: "Use name.")
  created: DateTime
}
SDL
cat >"$tmp/s1.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])
type Thing @key(fields: "id") {
  id: ID!
  name: String @shareable
  """
  Rating,
  from 1 to 5
  """
  rating(scale: Int = 5): Float
}
type Mutation { rate(id: ID!, stars: Int!): Thing }
union Result = Thing
type Query { search(q: String!): [Result] }
SDL
cat >"$tmp/compose.js" <<'JS'
const { composeServices } = require('@apollo/composition');
const { parse } = require('graphql');
const fs = require('fs');
const r = composeServices(process.argv.slice(2).map((f, i) => ({
  name: 's' + i, url: 'http://127.0.0.1:9/s' + i, typeDefs: parse(fs.readFileSync(f, 'utf8')) })));
if (!r.supergraphSdl) { console.error(r.errors.map((e) => e.message).join('\n')); process.exit(1); }
process.stdout.write(r.supergraphSdl);
JS
NODE_PATH=$peers/node_modules node "$tmp/compose.js" "$tmp/s0.graphql" \
  "$tmp/s1.graphql" >"$tmp/composed.graphql" 2>"$tmp/compose.err" ||
  { fail "composition: $(cat "$tmp/compose.err")"; finish; }
grep -v isOneOf "$queries/graphql16.15-all-options.graphql" >"$tmp/all-options.graphql"


n=0
for sg in "$shared/gateway-bench/supergraph.graphql" "$tmp/composed.graphql"; do
  n=$((n + 1))
  ap_port=$(free_port)
  NODE_PATH=$peers/node_modules start_logged "apollo$n" node "$here/../gateway/apollo_gateway.js" "$sg" "$ap_port"
  gw_port=$(free_port)
  start_logged "gql$n" "$gql" gateway --supergraph "$sg" --host 127.0.0.1 \
    --port "$gw_port" --threads 1
  wait_http "http://127.0.0.1:$gw_port/health" "gql$n" || continue
  for _ in $(seq 600); do
    grep -q "apollo gateway at" "$tmp/apollo$n.log" && break
    sleep 0.05
  done
  grep -q "apollo gateway at" "$tmp/apollo$n.log" ||
    { fail "Apollo Gateway did not start: $(tail -c 1000 "$tmp/apollo$n.log")"; continue; }
  for q in "$queries/graphql16.15-default.graphql" "$tmp/all-options.graphql"; do
    python3 -c 'import json,sys; print(json.dumps({"query": open(sys.argv[1]).read()}))' \
      "$q" >"$tmp/body.json"
    post_request "http://127.0.0.1:$ap_port/" "$tmp/body.json" "$tmp/apollo.raw"
    post_request "http://127.0.0.1:$gw_port/graphql" "$tmp/body.json" "$tmp/gql.json"
    # Apollo Server ends its JSON with one newline: drop exactly that one
    python3 - "$tmp/apollo.raw" "$tmp/apollo.json" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b[:-1] if b.endswith(b"\n") else b)
PY
    # @defer as Apollo Router declares it, then the rest byte for byte
    python3 - "$tmp/gql.json" "$tmp/gql-nodefer.json" <<'PY' ||
import json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
ds = json.loads(raw)["data"]["__schema"]["directives"]
d = [x for x in ds if x["name"] == "defer"]
assert len(d) == 1, "no @defer in the API schema's directives"
d = d[0]
assert d.get("locations") == ["FRAGMENT_SPREAD", "INLINE_FRAGMENT"], d
args = {a["name"]: a for a in d["args"]}
assert list(args) == ["label", "if"], d
assert args["if"]["defaultValue"] == "true", d
text = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
for cut in ("," + text, text + ","):
    if cut in raw:
        open(sys.argv[2], "w", encoding="utf-8").write(raw.replace(cut, "", 1))
        break
else:
    sys.exit("the @defer entry is not written compactly: " + text)
PY
      { fail "$(basename "$sg"), $(basename "$q"): gql's @defer"; continue; }
    mv "$tmp/gql-nodefer.json" "$tmp/gql.json"
    if grep -q '"errors"' "$tmp/apollo.json"; then
      fail "Apollo Gateway refused $(basename "$q"): $(head -c 300 "$tmp/apollo.json")"
      continue
    fi
    expect_exact "$(basename "$sg"), $(basename "$q"): gql as Apollo Gateway" \
      "$tmp/gql.json" "$tmp/apollo.json"
  done
done
finish
