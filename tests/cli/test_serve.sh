#!/usr/bin/env bash
# `gql serve`: the banner, the Star Wars demo, a schema over JSON data, usage
# errors, and a clean exit on SIGINT / SIGTERM.
# Usage: test_serve.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_serve.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# serve NAME ARGS...: starts gql serve, waits for its banner; sets $pid $port
serve() {
  local name=$1
  shift
  port=$(free_port)
  "$gql" serve --port "$port" --threads 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    grep -q "on http://" "$tmp/$name.out" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  fail "$name: no banner: $(cat "$tmp/$name.out" "$tmp/$name.err")"
  return 1
}

post() { curl -s -H 'content-type: application/json' --data-binary "$2" "http://127.0.0.1:$1/graphql"; }

# The Star Wars demo.
if serve demo; then
  grep -qx "gql serve: serving the Star Wars demo on http://127.0.0.1:$port/graphql" "$tmp/demo.out" &&
    ok || fail "demo banner: $(cat "$tmp/demo.out")"
  got=$(post "$port" '{"query":"{ hero { name } }"}')
  [[ $got == '{"data":{"hero":{"name":"R2-D2"}}}' ]] && ok || fail "demo query: $got"
  kill -INT "$pid"
  wait "$pid" && ok || fail "demo: SIGINT exit status $?"
fi

# The demo with --defer-stream: @defer is known and answers incrementally
# (without it the directive is unknown, as in the demo above).
if serve demo_defer --defer-stream; then
  got=$(curl -s -H 'content-type: application/json' -H 'accept: text/event-stream' \
    --data-binary '{"query":"{ hero { name ... @defer { id } } }"}' "http://127.0.0.1:$port/graphql")
  want='event: next
data: {"data":{"hero":{"name":"R2-D2"}},"pending":[{"id":"0","path":["hero"]}],"hasNext":true}

event: next
data: {"hasNext":false,"incremental":[{"id":"0","data":{"id":"2001"}}],"completed":[{"id":"0"}]}

event: complete
data:'
  [[ $got == "$want"* ]] && ok || fail "demo --defer-stream: $got"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "demo --defer-stream: SIGTERM exit status $?"
fi
if serve demo_plain; then
  got=$(post "$port" '{"query":"{ hero { ... @defer { id } } }"}')
  [[ $got == *'Unknown directive \"@defer\"'* ]] && ok || fail "demo without --defer-stream: $got"
  kill -TERM "$pid"
  wait "$pid" || fail "demo_plain: SIGTERM exit status $?"
fi

# A second server on a port in use fails instead of sharing it (SO_REUSEPORT);
# a host name resolves.
if serve first --host localhost; then
  "$gql" serve --port "$port" >/dev/null 2>"$tmp/second.err"
  [[ $? == 1 ]] && grep -q "in use" "$tmp/second.err" && ok ||
    fail "port in use: $(cat "$tmp/second.err")"
  curl -s "http://localhost:$port/health" | grep -q ok && ok || fail "localhost"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "first: exit status $?"
fi

# A schema over JSON data with the default resolvers.
cat >"$tmp/schema.graphql" <<'SDL'
type Query { greeting: String items: [Item!]! }
type Item { id: Int! name: String }
SDL
echo '{"greeting":"hi","items":[{"id":1,"name":"a"},{"id":2}]}' >"$tmp/data.json"
if serve data --schema "$tmp/schema.graphql" --data "$tmp/data.json" --log-level info; then
  got=$(post "$port" '{"query":"{ greeting items { id name } }"}')
  [[ $got == '{"data":{"greeting":"hi","items":[{"id":1,"name":"a"},{"id":2,"name":null}]}}' ]] &&
    ok || fail "data query: $got"
  got=$(curl -s "http://127.0.0.1:$port/graphql?query=%7Bgreeting%7D")
  [[ $got == '{"data":{"greeting":"hi"}}' ]] && ok || fail "GET query: $got"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "data: SIGTERM exit status $?"
  grep -q "^POST /graphql 200 " "$tmp/data.err" && ok || fail "no access log: $(cat "$tmp/data.err")"
fi

# A deep query hits the parser's depth limit: a GraphQL error, not a crash.
if serve deep --max-depth 8; then
  q='{"query":"{ hero { friends { friends { friends { friends { friends { friends { friends { name } } } } } } } } }"}'
  got=$(post "$port" "$q")
  [[ $got == '{"errors":[{"message":'* ]] && ok || fail "deep query: $got"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "deep: exit status $?"
fi

# examples/embed_server: an embedder's schema, a field completed by a timer.
embed=$(dirname "$gql")/embed_server
if [[ -x $embed ]]; then
  port=$(free_port)
  "$embed" "$port" >"$tmp/embed.out" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do grep -q "on http://" "$tmp/embed.out" && break; sleep 0.05; done
  got=$(post "$port" '{"query":"{ hello(name: \"you\") later(ms: 30) greeting }"}')
  [[ $got == '{"data":{"hello":"hello, you","later":"done after 30 ms","greeting":"hi from the embedder"}}' ]] &&
    ok || fail "embed_server: $got $(cat "$tmp/embed.out")"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "embed_server: exit status $?"
else
  fail "no embed_server next to $gql"
fi

# Usage errors exit 2; a bad schema exits 1.
"$gql" serve --bogus >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "unknown option"
"$gql" serve --log-level loud >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "bad log level"
"$gql" serve --port 70000 >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "bad port"
"$gql" serve --data "$tmp/data.json" >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "--data without --schema"
echo 'type Query { x: Nope }' >"$tmp/bad.graphql"
"$gql" serve --schema "$tmp/bad.graphql" --port "$(free_port)" >/dev/null 2>"$tmp/bad.err"
[[ $? == 1 ]] && grep -q "Nope" "$tmp/bad.err" && ok || fail "bad schema: $(cat "$tmp/bad.err")"
"$gql" serve --host 203.0.113.1 --port "$(free_port)" >/dev/null 2>"$tmp/host.err"
[[ $? == 1 ]] && grep -q "cannot listen" "$tmp/host.err" && ok || fail "unbindable host: $(cat "$tmp/host.err")"
help=$("$gql" serve --help) # read whole: grep -q would stop gql with SIGPIPE
[[ $help == *--max-body* ]] && ok || fail "help"

echo "test_serve: $passed passed, $failures failed"
((failures == 0))
