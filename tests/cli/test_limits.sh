#!/usr/bin/env bash
# Apollo Router's operation limits and the introspection switch, with the
# same names in gql serve and gql gateway (issue 16, item 6): from the
# configuration file and from flags, over HTTP.
# Usage: test_limits.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_limits.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_limits.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

cat >"$tmp/limits.yaml" <<'YAML'
supergraph:
  introspection: false
limits:
  max_depth: 3
  max_height: 6
  max_aliases: 1
  max_root_fields: 2
  http_max_request_bytes: 400
YAML

ask() { # ask URL QUERY [ACCEPT]: "STATUS BODY"
  local body
  body=$(python3 -c 'import json,sys; print(json.dumps({"query": sys.argv[1]}))' "$2")
  curl -s -w ' %{http_code}' -H 'content-type: application/json' -H "accept: ${3:-application/json}" \
    --data-binary "$body" "$1"
}
E() { printf '{"errors":[{"message":"%s","extensions":{"code":"%s"}}]} %s' "$1" "$2" "${3:-200}"; }

check() { # NAME URL
  local name=$1 url=$2 got
  got=$(ask "$url" '{ __typename }')
  [[ $got == '{"data":{"__typename":"Query"}} 200' ]] && ok || fail "$name small: $got"
  got=$(ask "$url" '{ a: __typename b: __typename c: __typename }')
  [[ $got == "$(E "Maximum root fields limit exceeded in this operation" MAX_ROOT_FIELDS_LIMIT)" ]] && ok || fail "$name root fields: $got"
  got=$(ask "$url" '{ a: __typename b: __typename }')
  [[ $got == "$(E "Maximum aliases limit exceeded in this operation" MAX_ALIASES_LIMIT)" ]] && ok || fail "$name aliases: $got"
  got=$(ask "$url" '{ a: __typename b: __typename }' application/graphql-response+json)
  [[ $got == "$(E "Maximum aliases limit exceeded in this operation" MAX_ALIASES_LIMIT 400)" ]] && ok || fail "$name aliases, graphql-response+json: $got"
  got=$(ask "$url" '{ __schema { queryType { name } } }')
  [[ $got == "$(E "GraphQL introspection is not allowed, but the query contained __schema or __type" INTROSPECTION_DISABLED)" ]] && ok || fail "$name introspection: $got"
  got=$(ask "$url" 'query { ...F } fragment F on Query { __type(name: "Query") { name } }')
  [[ $got == *INTROSPECTION_DISABLED* ]] && ok || fail "$name __type in a fragment: $got"
  got=$(ask "$url" "{ __typename } $(printf '# padding %.0s' $(seq 40))")
  [[ $got == *' 413' ]] && ok || fail "$name http_max_request_bytes: $got"
}

# serve: the Star Wars demo (depth and height on its types)
if serve limits --config "$tmp/limits.yaml"; then
  url="http://127.0.0.1:$port/graphql"
  check serve "$url"
  got=$(ask "$url" '{ hero { friends { friends { name } } } }')
  [[ $got == "$(E "Maximum depth limit exceeded in this operation" MAX_DEPTH_LIMIT)" ]] && ok || fail "serve depth: $got"
  got=$(ask "$url" '{ hero { friends { name } } }')
  [[ $got == *'"data":{"hero"'*' 200' ]] && ok || fail "serve depth 3: $got"
  got=$(ask "$url" '{ hero { name id appearsIn friends { name id } } }')
  [[ $got == "$(E "Maximum height (field count) limit exceeded in this operation" MAX_HEIGHT_LIMIT)" ]] && ok || fail "serve height: $got"
  # a name selected twice in one set counts once; a fragment's fields once
  got=$(ask "$url" 'query { hero { ...H ...H name } } fragment H on Character { name id appearsIn }')
  [[ $got == *'"data":{"hero"'*' 200' ]] && ok || fail "serve height with fragments: $got"
  kill -TERM "$pid"
  wait "$pid"
fi
# flags, and a flag over the file
if serve flags --max-aliases 3 --introspection off --max-query-depth 2; then
  url="http://127.0.0.1:$port/graphql"
  got=$(ask "$url" '{ a: __typename b: __typename c: __typename }')
  [[ $got == '{"data":{"a":"Query","b":"Query","c":"Query"}} 200' ]] && ok || fail "flags aliases: $got"
  got=$(ask "$url" '{ hero { friends { name } } }')
  [[ $got == *MAX_DEPTH_LIMIT* ]] && ok || fail "flags depth: $got"
  got=$(ask "$url" '{ __type(name: "Query") { name } }')
  [[ $got == *INTROSPECTION_DISABLED* ]] && ok || fail "flags introspection: $got"
  kill -TERM "$pid"
  wait "$pid"
fi
if serve on --introspection on; then
  got=$(ask "http://127.0.0.1:$port/graphql" '{ __type(name: "Query") { name } }')
  [[ $got == '{"data":{"__type":{"name":"Query"}}} 200' ]] && ok || fail "introspection on: $got"
  kill -TERM "$pid"
  wait "$pid"
fi

# gateway: the same names, refused before any subgraph is asked
port=$(free_port)
"$gql" gateway --supergraph "$root/tests/gateway/data/keys.graphql" --config "$tmp/limits.yaml" \
  --port "$port" --threads 2 >"$tmp/gw.out" 2>"$tmp/gw.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 200); do grep -q "on http://" "$tmp/gw.out" && break; sleep 0.05; done
check gateway "http://127.0.0.1:$port/graphql"
grep -q "not applied" "$tmp/gw.err" && fail "gateway warns: $(cat "$tmp/gw.err")" || ok
kill -TERM "$pid"
wait "$pid"

echo "test_limits: $passed passed, $failures failed"
((failures == 0))
