#!/usr/bin/env bash
# Header propagation from clients to subgraphs in gql gateway (issue 16,
# item 4): headers.all.request and headers.subgraphs.NAME.request rules
# (propagate named / rename / default / matching, insert, insert from a
# JWT claim, remove), checked on what two real subgraphs received
# (tests/gateway/echo_subgraph.py answers with the headers it got).
# Usage: test_subgraph_headers.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_subgraph_headers.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_subgraph_headers.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

echo_subgraph "$root"

cat >"$tmp/supergraph.graphql" <<GRAPHQL
schema
  @link(url: "https://specs.apollo.dev/link/v1.0")
  @link(url: "https://specs.apollo.dev/join/v0.3", for: EXECUTION)
{
  query: Query
}
directive @join__enumValue(graph: join__Graph!) repeatable on ENUM_VALUE
directive @join__field(graph: join__Graph, requires: join__FieldSet, provides: join__FieldSet, type: String, external: Boolean, override: String, usedOverridden: Boolean) repeatable on FIELD_DEFINITION | INPUT_FIELD_DEFINITION
directive @join__graph(name: String!, url: String!) on ENUM_VALUE
directive @join__implements(graph: join__Graph!, interface: String!) repeatable on OBJECT | INTERFACE
directive @join__type(graph: join__Graph!, key: join__FieldSet, extension: Boolean! = false, resolvable: Boolean! = true, isInterfaceObject: Boolean! = false) repeatable on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR
directive @join__unionMember(graph: join__Graph!, member: String!) repeatable on UNION
directive @link(url: String, as: String, for: link__Purpose, import: [link__Import]) repeatable on SCHEMA
scalar join__FieldSet
scalar link__Import
enum link__Purpose { SECURITY EXECUTION }
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$sport/a")
  B @join__graph(name: "b", url: "http://127.0.0.1:$sport/b")
}
type Query @join__type(graph: A) @join__type(graph: B) {
  echoA: String @join__field(graph: A)
  echoB: String @join__field(graph: B)
}
GRAPHQL

# an HS256 key set and a token whose sub claim a rule forwards
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
secret_hex=$(head -c 32 /dev/urandom | xxd -p | tr -d '\n')
k=$(echo -n "$secret_hex" | xxd -r -p | b64url)
echo "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"h\",\"alg\":\"HS256\",\"k\":\"$k\"}]}" >"$tmp/jwks.json"
h=$(printf '{"alg":"HS256","kid":"h"}' | b64url)
p=$(printf '{"sub":"user-42","exp":%d}' $(($(date +%s) + 600)) | b64url)
sig=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$secret_hex" -binary | b64url)
tok="$h.$p.$sig"

port=$(free_port)
cat >"$tmp/gw.yaml" <<YAML
supergraph:
  listen: 127.0.0.1:$port
gateway:
  supergraph: supergraph.graphql
authentication:
  router:
    jwt:
      jwks:
        - url: file://jwks.json
headers:
  all:
    request:
      - propagate:
          named: x-tenant
      - propagate:
          named: x-old
          rename: x-new
      - propagate:
          named: x-absent
          default: fallback
      - propagate:
          matching: "^x-trace-.*"
      - insert:
          name: x-gateway
          value: gql
      - insert:
          name: x-user
          from_claim: sub
      - insert:
          name: x-op
          path: .operationName
          default: anonymous
      - remove:
          named: x-trace-secret
      - propagate:
          matching: "^(connection|content-length|x-tenant)$"
  subgraphs:
    b:
      request:
        - insert:
            name: x-only-b
            value: "yes"
        - remove:
            named: x-tenant
YAML
"$gql" gateway --config "$tmp/gw.yaml" --threads 2 >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
for _ in $(seq 200); do grep -q "on http://" "$tmp/gw.out" && break; sleep 0.05; done
grep -q "on http://" "$tmp/gw.out" || fail "gateway did not start: $(cat "$tmp/gw.err")"

curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
  -H "authorization: Bearer $tok" -H 'x-tenant: acme' -H 'X-Old: o1' \
  -H 'x-trace-id: t-1' -H 'x-trace-secret: s' -H 'x-unlisted: u' \
  --data-binary '{"query":"query Both { echoA echoB }","operationName":"Both"}' >"$tmp/resp.json"
python3 - "$tmp/resp.json" >"$tmp/check.out" 2>&1 <<'PY' && ok || fail "propagation: $(cat "$tmp/check.out")"
import json, sys
resp = json.load(open(sys.argv[1]))
assert "errors" not in resp, resp
a = json.loads(resp["data"]["echoA"]); b = json.loads(resp["data"]["echoB"])
def get(h, name): return [v for k, v in h if k == name]
for h, who in ((a, "a"), (b, "b")):
    assert get(h, "x-new") == ["o1"], (who, "rename", h)
    assert get(h, "x-old") == [], (who, "renamed away", h)
    assert get(h, "x-absent") == ["fallback"], (who, "default", h)
    assert get(h, "x-trace-id") == ["t-1"], (who, "matching", h)
    assert get(h, "x-trace-secret") == [], (who, "remove", h)
    assert get(h, "x-gateway") == ["gql"], (who, "insert", h)
    assert get(h, "x-user") == ["user-42"], (who, "from_claim", h)
    assert get(h, "x-op") == ["Both"], (who, "from the body", h)
    assert get(h, "x-unlisted") == [], (who, "not propagated", h)
    assert get(h, "authorization") == [], (who, "authorization not propagated", h)
    assert get(h, "connection") in ([], ["keep-alive"]), (who, "hop-by-hop", h)
    assert len(get(h, "content-length")) == 1, (who, "one content-length", h)
assert get(a, "x-tenant") == ["acme"], ("a tenant: once, though two rules name it", a)
assert get(b, "x-tenant") == [], ("b: removed by its own rule", b)
assert get(b, "x-only-b") == ["yes"] and get(a, "x-only-b") == [], (a, b)
print("ok")
PY
# Without a token: the claim rule sends nothing; nothing leaks between
# requests on the same pooled connections.
curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
  --data-binary '{"query":"{ echoA }"}' >"$tmp/resp2.json"
python3 - "$tmp/resp2.json" >"$tmp/check2.out" 2>&1 <<'PY' && ok || fail "second request: $(cat "$tmp/check2.out")"
import json, sys
resp = json.load(open(sys.argv[1]))
a = json.loads(resp["data"]["echoA"])
names = [k for k, v in a]
assert "x-user" not in names and "x-tenant" not in names and "x-new" not in names, a
assert ["x-absent", "fallback"] in a and ["x-gateway", "gql"] in a, a
assert ["x-op", "anonymous"] in a, a
PY

echo "test_subgraph_headers: $passed passed, $failures failed"
((failures == 0))
