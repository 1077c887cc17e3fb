#!/usr/bin/env bash
# @authenticated and @requiresScopes enforced by gql gateway (issue 16,
# item 5): a field the request may not see is null with Router's
# UNAUTHORIZED_FIELD_OR_TYPE error and the rest of the response stands
# (a non-null one nulls its parent); tokens made here (HS256) carry the
# scopes. The subgraph is tests/gateway/echo_subgraph.py.
# Usage: test_subgraph_auth.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_subgraph_auth.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_subgraph_auth.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

echo_subgraph "$root"

cat >"$tmp/supergraph.graphql" <<GRAPHQL
schema
  @link(url: "https://specs.apollo.dev/link/v1.0")
  @link(url: "https://specs.apollo.dev/join/v0.3", for: EXECUTION)
  @link(url: "https://specs.apollo.dev/authenticated/v0.1", for: SECURITY)
  @link(url: "https://specs.apollo.dev/requiresScopes/v0.1", for: SECURITY)
{
  query: Query
}
directive @authenticated on FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM
directive @requiresScopes(scopes: [[requiresScopes__Scope!]!]!) on FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM
directive @join__enumValue(graph: join__Graph!) repeatable on ENUM_VALUE
directive @join__field(graph: join__Graph, requires: join__FieldSet, provides: join__FieldSet, type: String, external: Boolean, override: String, usedOverridden: Boolean) repeatable on FIELD_DEFINITION | INPUT_FIELD_DEFINITION
directive @join__graph(name: String!, url: String!) on ENUM_VALUE
directive @join__implements(graph: join__Graph!, interface: String!) repeatable on OBJECT | INTERFACE
directive @join__type(graph: join__Graph!, key: join__FieldSet, extension: Boolean! = false, resolvable: Boolean! = true, isInterfaceObject: Boolean! = false) repeatable on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR
directive @join__unionMember(graph: join__Graph!, member: String!) repeatable on UNION
directive @link(url: String, as: String, for: link__Purpose, import: [link__Import]) repeatable on SCHEMA
scalar join__FieldSet
scalar link__Import
scalar requiresScopes__Scope
enum link__Purpose { SECURITY EXECUTION }
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$sport/a")
}
type Query @join__type(graph: A) {
  echoA: String
  secret: String @authenticated
  admin: String @requiresScopes(scopes: [["admin"], ["root", "write"]])
  me: User
}
type User @join__type(graph: A) {
  name: String
  email: String! @authenticated
}
GRAPHQL

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
secret_hex=$(head -c 32 /dev/urandom | xxd -p | tr -d '\n')
k=$(echo -n "$secret_hex" | xxd -r -p | b64url)
echo "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"h\",\"alg\":\"HS256\",\"k\":\"$k\"}]}" >"$tmp/jwks.json"
token() { # token SCOPE
  local h p sig
  h=$(printf '{"alg":"HS256","kid":"h"}' | b64url)
  p=$(printf '{"sub":"u","scope":"%s","exp":%d}' "$1" $(($(date +%s) + 600)) | b64url)
  sig=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$secret_hex" -binary | b64url)
  printf '%s.%s.%s' "$h" "$p" "$sig"
}
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
YAML
"$gql" gateway --config "$tmp/gw.yaml" --threads 2 >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
for _ in $(seq 200); do grep -q "on http://" "$tmp/gw.out" && break; sleep 0.05; done
grep -q "on http://" "$tmp/gw.out" || fail "gateway did not start: $(cat "$tmp/gw.err")"

ask() { # ask TOKEN|"" QUERY
  local auth=()
  [[ -n $1 ]] && auth=(-H "authorization: Bearer $1")
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' "${auth[@]}" \
    --data-binary "{\"query\":\"$2\"}"
}
U='"extensions":{"code":"UNAUTHORIZED_FIELD_OR_TYPE"}'
q='{ echoA: __typename secret admin me { name email } }'

got=$(ask "" "$q")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"secret\"],$U},{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U},{\"message\":\"Unauthorized field or type\",\"path\":[\"me\",\"email\"],$U}],\"data\":{\"echoA\":\"Query\",\"secret\":null,\"admin\":null,\"me\":null}}" ]] &&
  ok || fail "anonymous: $got"
got=$(ask "$(token read)" "$q")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U}],\"data\":{\"echoA\":\"Query\",\"secret\":\"secret\",\"admin\":null,\"me\":{\"name\":\"ann\",\"email\":\"ann@example.com\"}}}" ]] &&
  ok || fail "authenticated without the scope: $got"
got=$(ask "$(token 'read admin')" "$q")
[[ $got == '{"data":{"echoA":"Query","secret":"secret","admin":"admin","me":{"name":"ann","email":"ann@example.com"}}}' ]] &&
  ok || fail "admin scope: $got"
got=$(ask "$(token 'write root')" "{ admin }")
[[ $got == '{"data":{"admin":"admin"}}' ]] && ok || fail "root+write set: $got"
got=$(ask "$(token 'write')" "{ admin }")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U}],\"data\":{\"admin\":null}}" ]] &&
  ok || fail "half a set: $got"
# the public schema still shows the fields (introspection is not filtered)
got=$(ask "" "{ __type(name: \\\"Query\\\") { fields { name } } }")
[[ $got == *'"name":"secret"'* ]] && ok || fail "introspection: $got"

echo "test_subgraph_auth: $passed passed, $failures failed"
((failures == 0))
