#!/usr/bin/env bash
# The request in context (include/gql_http.h): examples/auth_server's hooks
# and resolvers over real HTTP. An execute hook refuses a missing or unknown
# token with 401, a GraphQL error body and WWW-Authenticate; resolvers,
# synchronous and pending, read the request's headers, method, path, peer
# and the user the hook set; a response hook adds headers.
# Usage: test_request_hooks.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_request_hooks.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

app=$(dirname "$gql")/auth_server
[[ -x $app ]] || { echo "FAIL: no auth_server next to $gql"; exit 1; }
port=$(free_port)
"$app" "$port" >"$tmp/app.out" 2>&1 &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do grep -q "on http://" "$tmp/app.out" && break; sleep 0.05; done
url="http://127.0.0.1:$port/graphql"
q() { # q QUERY [CURL ARGS...]: the response, head and body, in $tmp/r
  local query=$1
  shift
  curl -s -D "$tmp/h" -o "$tmp/b" -H 'content-type: application/json' "$@" \
    --data-binary "{\"query\":$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$query")}" "$url"
  tr -d '\r' <"$tmp/h" >"$tmp/head"
}

# No token: 401, the hook's error as a GraphQL error, WWW-Authenticate.
q '{ me }'
grep -q '^HTTP/1.1 401 Unauthorized$' "$tmp/head" && ok || fail "no token: $(cat "$tmp/head")"
grep -qi '^www-authenticate: Bearer realm="auth_server"$' "$tmp/head" && ok || fail "no token: WWW-Authenticate: $(cat "$tmp/head")"
[[ $(cat "$tmp/b") == '{"errors":[{"message":"Authentication required.","extensions":{"code":"UNAUTHENTICATED"}}]}' ]] &&
  ok || fail "no token body: $(cat "$tmp/b")"
grep -qi '^x-user:' "$tmp/head" && fail "no token: X-User set" || ok
# With graphql-response+json asked for, the refusal says so.
q '{ me }' -H 'accept: application/graphql-response+json'
grep -qi '^content-type: application/graphql-response+json' "$tmp/head" && ok || fail "reject media type: $(cat "$tmp/head")"

# A wrong token: 401 with error="invalid_token".
q '{ me }' -H 'authorization: Bearer mallory-token'
grep -q '^HTTP/1.1 401 ' "$tmp/head" && grep -qi '^www-authenticate: .*error="invalid_token"' "$tmp/head" &&
  grep -q '"Invalid token."' "$tmp/b" && ok || fail "bad token: $(cat "$tmp/head" "$tmp/b")"

# A good token: the user reaches the resolvers, synchronous and pending,
# with the request's headers, method, path and peer.
q '{ me method path peer header(name: "X-Trace") meLater(ms: 20) }' \
  -H 'authorization: Bearer alice-token' -H 'x-trace: abc 123' -A 'test-agent/1'
grep -q '^HTTP/1.1 200 ' "$tmp/head" && ok || fail "alice: $(cat "$tmp/head")"
[[ $(cat "$tmp/b") =~ ^\{\"data\":\{\"me\":\"alice\",\"method\":\"POST\",\"path\":\"/graphql\",\"peer\":\"127.0.0.1:[0-9]+\",\"header\":\"abc\ 123\",\"meLater\":\"alice\ \(test-agent/1\)\"\}\}$ ]] &&
  ok || fail "alice body: $(cat "$tmp/b")"
grep -qi '^x-user: alice$' "$tmp/head" && grep -qi '^x-worker-requests: [0-9]' "$tmp/head" &&
  ok || fail "response hook headers: $(cat "$tmp/head")"
# Another user on another request: nothing carries over.
q '{ me header(name: "x-trace") }' -H 'authorization: Bearer bob-token'
[[ $(cat "$tmp/b") == '{"data":{"me":"bob","header":null}}' ]] && ok || fail "bob: $(cat "$tmp/b")"
grep -qi '^x-user: bob$' "$tmp/head" && ok || fail "bob header: $(cat "$tmp/head")"
# The token's claims reach the resolvers (gql_http_request_claims): a
# string as it is, another value as JSON, an absent one null.
q '{ scope: claim(name: "scope") sub: claim(name: "sub") admin: claim(name: "admin") }' \
  -H 'authorization: Bearer alice-token'
[[ $(cat "$tmp/b") == '{"data":{"scope":"read write","sub":"alice","admin":null}}' ]] && ok ||
  fail "alice claims: $(cat "$tmp/b")"
q '{ sub: claim(name: "sub") admin: claim(name: "admin") }' -H 'authorization: Bearer bob-token'
[[ $(cat "$tmp/b") == '{"data":{"sub":"bob","admin":"true"}}' ]] && ok || fail "bob claims: $(cat "$tmp/b")"
# GET goes through the same hook.
got=$(curl -s -H 'authorization: Bearer bob-token' "$url?query=%7Bmethod%20me%7D")
[[ $got == '{"data":{"method":"GET","me":"bob"}}' ]] && ok || fail "GET: $got"
# Repeated headers: the first value; pipelined keep-alive requests each
# see their own headers (python's client reuses the connection).
python3 - "$port" >"$tmp/pipe.out" 2>&1 <<'PY' && ok || fail "keep-alive: $(cat "$tmp/pipe.out")"
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for i, who in enumerate(["alice", "bob", "alice"]):
    body = json.dumps({"query": '{ me a: header(name: "x-n") }'})
    c.putrequest("POST", "/graphql")
    c.putheader("Content-Type", "application/json")
    c.putheader("Authorization", "Bearer %s-token" % who)
    c.putheader("X-N", str(i)); c.putheader("X-N", "second")
    c.putheader("Content-Length", str(len(body)))
    c.endheaders(body.encode())
    r = c.getresponse(); got = json.loads(r.read())
    assert got == {"data": {"me": who, "a": str(i)}}, got
PY
# /health does not pass through the execute hook.
got=$(curl -s "http://127.0.0.1:$port/health")
[[ $got == '{"status":"ok"}' ]] && ok || fail "health: $got"

kill -TERM "$pid"
wait "$pid" && ok || fail "auth_server exit status $?"
echo "test_request_hooks: $passed passed, $failures failed"
((failures == 0))
