#!/usr/bin/env bash
# @authenticated and @requiresScopes enforced by gql gateway (issue 16,
# item 5): a field the request may not see is null with Router's
# UNAUTHORIZED_FIELD_OR_TYPE error and the rest of the response stands
# (a non-null one nulls its parent), and, as Router filters it out before
# planning, no subgraph is asked it: a mutation field the request may not
# see is not run. Tokens made here (HS256) carry the scopes. The subgraph
# is tests/gateway/echo_subgraph.py, which logs the queries it gets.
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
  mutation: Mutation
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
type Mutation @join__type(graph: A) {
  wipe: Boolean @authenticated
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

ask() { # ask TOKEN|"" QUERY: the response; the subgraph's queries in $asked
  local auth=()
  [[ -n $1 ]] && auth=(-H "authorization: Bearer $1")
  : >"$tmp/echo.queries"
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' "${auth[@]}" \
    --data-binary "{\"query\":\"$2\"}"
  asked=$(cat "$tmp/echo.queries")
}
U='"extensions":{"code":"UNAUTHORIZED_FIELD_OR_TYPE"}'
q='{ echoA: __typename secret admin me { name email } }'

ask "" "$q" >"$tmp/got"
got=$(cat "$tmp/got")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"secret\"],$U},{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U},{\"message\":\"Unauthorized field or type\",\"path\":[\"me\",\"email\"],$U}],\"data\":{\"echoA\":\"Query\",\"secret\":null,\"admin\":null,\"me\":null}}" ]] &&
  ok || fail "anonymous: $got"
asked=$(cat "$tmp/echo.queries")
[[ $asked == *me* && $asked != *secret* && $asked != *admin* && $asked != *email* ]] &&
  ok || fail "anonymous: the subgraph was asked: $asked"
ask "$(token read)" "$q" >"$tmp/got"
got=$(cat "$tmp/got")
asked=$(cat "$tmp/echo.queries")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U}],\"data\":{\"echoA\":\"Query\",\"secret\":\"secret\",\"admin\":null,\"me\":{\"name\":\"ann\",\"email\":\"ann@example.com\"}}}" ]] &&
  ok || fail "authenticated without the scope: $got"
[[ $asked == *secret* && $asked == *email* && $asked != *admin* ]] &&
  ok || fail "authenticated: the subgraph was asked: $asked"
ask "$(token 'read admin')" "$q" >"$tmp/got"
got=$(cat "$tmp/got")
asked=$(cat "$tmp/echo.queries")
[[ $got == '{"data":{"echoA":"Query","secret":"secret","admin":"admin","me":{"name":"ann","email":"ann@example.com"}}}' ]] &&
  ok || fail "admin scope: $got"
[[ $asked == *admin* ]] && ok || fail "admin: the subgraph was asked: $asked"
# a mutation field the request may not see is not run
ask "" "mutation { wipe }" >"$tmp/got"
got=$(cat "$tmp/got")
asked=$(cat "$tmp/echo.queries")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"wipe\"],$U}],\"data\":{\"wipe\":null}}" ]] &&
  ok || fail "anonymous mutation: $got"
[[ -z $asked ]] && ok || fail "anonymous mutation: the subgraph was asked: $asked"
ask "$(token read)" "mutation { wipe }" >"$tmp/got"
got=$(cat "$tmp/got")
asked=$(cat "$tmp/echo.queries")
[[ $got == '{"data":{"wipe":true}}' && $asked == *wipe* ]] &&
  ok || fail "authenticated mutation: $got (asked: $asked)"
got=$(ask "$(token 'write root')" "{ admin }")
[[ $got == '{"data":{"admin":"admin"}}' ]] && ok || fail "root+write set: $got"
got=$(ask "$(token 'write')" "{ admin }")
[[ $got == "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":[\"admin\"],$U}],\"data\":{\"admin\":null}}" ]] &&
  ok || fail "half a set: $got"
# in a deferred fragment: null with its error in the fragment's payload,
# and not asked
: >"$tmp/echo.queries"
got=$(curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
  -H 'accept: multipart/mixed' \
  --data-binary '{"query":"{ echoA: __typename ... @defer { secret me { name } } }"}')
asked=$(cat "$tmp/echo.queries")
[[ $got == *'{"hasNext":false,"incremental":[{"id":"0","data":{"secret":null,"me":{"name":"ann"}},"errors":[{"message":"Unauthorized field or type","path":["secret"],"extensions":{"code":"UNAUTHORIZED_FIELD_OR_TYPE"}}]}],"completed":[{"id":"0"}]}'* ]] &&
  ok || fail "deferred: $got"
[[ $asked == *me* && $asked != *secret* ]] && ok || fail "deferred: the subgraph was asked: $asked"
# the public schema still shows the fields (introspection is not filtered)
got=$(ask "" "{ __type(name: \\\"Query\\\") { fields { name } } }")
[[ $got == *'"name":"secret"'* ]] && ok || fail "introspection: $got"

echo "test_subgraph_auth: $passed passed, $failures failed"
((failures == 0))
