#!/usr/bin/env bash
# gql gateway refuses a supergraph that does not load before anything
# listens: exit status 1 and "gql gateway: FILE:LINE:COLUMN: message" on
# stderr, the place inside the file (in a field set, the offending
# character's column), never a crash or a partial start.
# Usage: test_supergraph_errors.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_supergraph_errors.sh GQL REPO_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passed=0
head='enum join__Graph { A @join__graph(name: "a", url: "http://127.0.0.1:9/a") }'
check() { # check NAME WANT_STDERR_REGEX SUPERGRAPH_TEXT [no join__Graph]
  if [[ ${4:-} == bare ]]; then
    printf '%s\n' "$3" >"$tmp/$1.graphql"
  else
    printf '%s\n%s\n' "$head" "$3" >"$tmp/$1.graphql"
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  timeout 10 "$gql" gateway --supergraph "$tmp/$1.graphql" --port "$port" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [[ $status == 1 ]] && grep -Eq "^gql gateway: $tmp/$1.graphql:$2" "$tmp/err" &&
    ! grep -q "serving" "$tmp/out"; then
    passed=$((passed + 1))
  else
    echo "FAIL: $1: status $status, stderr: $(cat "$tmp/err")"
    failures=$((failures + 1))
  fi
}
check syntax '3:1: Syntax Error' 'type Query @join__type(graph: A) {'
check key_field '3:39: @join__type key "id nme" on T: Cannot query field "nme"' \
  'type Query @join__type(graph: A) { t: T }
type T @join__type(graph: A, key: "id nme") { id: ID name: String }'
check requires_fragment '4:54: @join__field requires .*unknown type "Nope"' \
  'type Query @join__type(graph: A) { t: T }
type T @join__type(graph: A) { id: ID
  x: Int @join__field(graph: A, requires: "id ... on Nope { id }") }'
check unknown_graph '2:63: @join__field names no graph' \
  'type Query @join__type(graph: A) { x: Int @join__field(graph: B) }'
check not_a_supergraph '1:1: not a supergraph' 'type Query { x: Int }' bare
# a good supergraph starts (the checks above are not refusing everything)
printf '%s\ntype Query @join__type(graph: A) { x: Int }\n' "$head" >"$tmp/good.graphql"
"$gql" gateway --supergraph "$tmp/good.graphql" --print-api-schema >"$tmp/api" 2>&1 &&
  grep -q "x: Int" "$tmp/api" && passed=$((passed + 1)) ||
  { echo "FAIL: a good supergraph: $(cat "$tmp/api")"; failures=$((failures + 1)); }
echo "passed $passed, failed $failures"
[[ $failures == 0 ]]
