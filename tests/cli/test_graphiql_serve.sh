#!/usr/bin/env bash
# GraphiQL from gql serve and gql gateway over HTTP (issue 18, item 1; the
# page in a real browser is tests/graphiql/run_browser.sh): a browser's GET
# of the endpoint gets the page, other clients GraphQL; the assets from the
# default CDN, a base URL or a local folder served from memory; off by
# --no-graphiql or graphiql.enabled: false.
# Usage: test_graphiql_serve.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_graphiql_serve.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_graphiql_serve.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
html='text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
cdn=$(sed -n 's/^#define GQL_GRAPHIQL_VERSION "\(.*\)"$/\1/p' "$root/src/graphiql/graphiql.h")

# a folder with the five files (their bytes are what gql must serve back)
assets="$tmp/assets"
mkdir -p "$assets/monacoeditorwork"
for f in graphiql.css yoga-graphiql.umd.js monacoeditorwork/editor.worker.bundle.js \
  monacoeditorwork/json.worker.bundle.js monacoeditorwork/graphql.worker..bundle.js; do
  head -c 3000 /dev/urandom | base64 >"$assets/$f"
done

if serve default; then
  url="http://127.0.0.1:$port/graphql"
  got=$(curl -s -D "$tmp/h" -H "accept: $html" "$url")
  [[ $got == *'<div id="graphiql">'* || $got == *graphiql* ]] && ok || fail "page: $got"
  grep -qi '^content-type: text/html' "$tmp/h" && ok || fail "page type: $(cat "$tmp/h")"
  grep -qi '^vary: accept' "$tmp/h" && ok || fail "page vary: $(cat "$tmp/h")"
  [[ $got == *"unpkg.com/@graphql-yoga/graphiql@$cdn/dist/"* ]] && ok || fail "CDN by default: $got"
  got=$(curl -s -H "accept: $html" "$url?query=%7B__typename%7D")
  [[ $got == *graphiql* ]] && ok || fail "a browser's GET with a query: the page"
  got=$(curl -s "$url?query=%7B__typename%7D")
  [[ $got == '{"data":{"__typename":"Query"}}' ]] && ok || fail "GraphQL GET: $got"
  # text/html refused by q=0 (and q=0.000) is no browser asking for the page
  for q in 'q=0' 'q=0.000'; do
    got=$(curl -s -H "accept: text/html;$q, application/json" "$url?query=%7B__typename%7D")
    [[ $got == '{"data":{"__typename":"Query"}}' ]] && ok || fail "text/html;$q: $got"
  done
  got=$(curl -s -H 'accept: application/json' -H 'content-type: application/json' \
    -d '{"query":"{ hero { name } }"}' "$url")
  [[ $got == '{"data":{"hero":{"name":"R2-D2"}}}' ]] && ok || fail "POST: $got"
  got=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/graphiql/assets/graphiql.css")
  [[ $got == 404 ]] && ok || fail "no local assets without a folder: $got"
  kill -TERM "$pid"; wait "$pid"
fi

if serve local --graphiql-assets "$assets"; then
  base="http://127.0.0.1:$port"
  got=$(curl -s -H "accept: $html" "$base/graphql")
  [[ $got == *'/graphiql/assets/yoga-graphiql.umd.js'* && $got != *unpkg* ]] && ok || fail "local page: $got"
  for f in graphiql.css yoga-graphiql.umd.js monacoeditorwork/graphql.worker..bundle.js; do
    curl -s -D "$tmp/h" "$base/graphiql/assets/$f" >"$tmp/got" && cmp -s "$tmp/got" "$assets/$f" && ok || fail "asset $f"
  done
  grep -qi '^content-type: text/javascript' "$tmp/h" && ok || fail "asset type: $(cat "$tmp/h")"
  got=$(curl -s -o /dev/null -w '%{http_code}' "$base/graphiql/assets/../../etc/passwd")
  [[ $got == 404 ]] && ok || fail "traversal: $got"
  got=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/graphiql/assets/graphiql.css")
  [[ $got == 405 ]] && ok || fail "POST asset: $got"
  kill -TERM "$pid"; wait "$pid"
fi

if serve base --graphiql-assets https://cdn.example.com/gq/; then
  got=$(curl -s -H "accept: $html" "http://127.0.0.1:$port/graphql")
  [[ $got == *'https://cdn.example.com/gq/yoga-graphiql.umd.js'* ]] && ok || fail "base URL: $got"
  kill -TERM "$pid"; wait "$pid"
fi

if serve off --no-graphiql; then
  got=$(curl -s -o /dev/null -w '%{http_code}' -H 'accept: text/html' "http://127.0.0.1:$port/graphql")
  [[ $got == 406 ]] && ok || fail "--no-graphiql: $got"
  kill -TERM "$pid"; wait "$pid"
fi
printf 'graphiql:\n  enabled: false\n' >"$tmp/off.yaml"
if serve offcfg --config "$tmp/off.yaml"; then
  got=$(curl -s -o /dev/null -w '%{http_code}' -H 'accept: text/html' "http://127.0.0.1:$port/graphql")
  [[ $got == 406 ]] && ok || fail "graphiql.enabled false: $got"
  kill -TERM "$pid"; wait "$pid"
fi
"$gql" serve --port 0 --graphiql-assets "$tmp/nowhere" >/dev/null 2>"$tmp/err" && fail "missing folder accepted" ||
  { grep -q graphiql-assets.sh "$tmp/err" && ok || fail "missing folder message: $(cat "$tmp/err")"; }

# the gateway: the same page at its endpoint
gport=$(free_port)
"$gql" gateway --supergraph "$root/tests/gateway/data/keys.graphql" --port "$gport" --threads 1 \
  --graphiql-assets "$assets" >"$tmp/gw.out" 2>"$tmp/gw.err" &
gpid=$!
pids+=("$gpid")
for _ in $(seq 200); do grep -q "on http://" "$tmp/gw.out" && break; sleep 0.05; done
got=$(curl -s -H "accept: $html" "http://127.0.0.1:$gport/graphql")
[[ $got == *'/graphiql/assets/yoga-graphiql.umd.js'* ]] && ok || fail "gateway page: $got"
curl -s "http://127.0.0.1:$gport/graphiql/assets/graphiql.css" >"$tmp/got" && cmp -s "$tmp/got" "$assets/graphiql.css" && ok || fail "gateway asset"
got=$(curl -s "http://127.0.0.1:$gport/graphql?query=%7B__typename%7D")
[[ $got == '{"data":{"__typename":"Query"}}' ]] && ok || fail "gateway GraphQL GET: $got"
kill -TERM "$gpid"; wait "$gpid"

echo "test_graphiql_serve: $passed passed, $failures failed"
((failures == 0))
