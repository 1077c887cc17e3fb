#!/usr/bin/env bash
# Instructions per request on the server's request path (callgrind): `gql
# serve` (or another server command) under valgrind with collection on only
# inside gql_http_conn_feed, N keep-alive POSTs of a small query with the
# headers a browser sends, then the total divided by N. Stable between
# runs, unlike timings on a shared machine.
# Usage: bench/http/callgrind_request.sh [GQL_BINARY] [N] [-- EXTRA SERVE ARGS]
set -euo pipefail
gql=${1:-build/gql}
n=${2:-2000}
shift $(($# >= 2 ? 2 : $#))
[[ ${1:-} == -- ]] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../common/callgrind.sh"
port=$(free_port)
valgrind --tool=callgrind --callgrind-out-file="${CG_OUT:-$tmp/cg.out}" \
  --toggle-collect=gql_http_conn_feed "$gql" serve --threads 1 --port "$port" "$@" \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do grep -q "on http://" "$tmp/out" 2>/dev/null && break; sleep 0.1; done
python3 - "$port" "$n" <<'PY'
import http.client, os, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
body = b'{"query":"{ hero { name friends { name } } }"}'
hdrs = {"Content-Type": "application/json", "Accept": "application/graphql-response+json, application/json",
        "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) bench", "Accept-Language": "en-US,en;q=0.5",
        "Origin": "https://app.example.com", "Authorization": os.environ.get("AUTH", "Bearer not-checked-here")}
for i in range(n):
    c.request("POST", "/graphql", body, hdrs)
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
PY
kill -TERM "$pid"
wait "$pid" || true
total=$(cg_total "${CG_OUT:-$tmp/cg.out}")
echo "requests: $n  instructions in gql_http_conn_feed: $total  per request: $((total / n))"
