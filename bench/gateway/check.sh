#!/usr/bin/env bash
# Checks that gql is a correct federation subgraph: starts bench_subgraphs
# (the four benchmark subgraphs in C), puts Apollo Gateway (npm
# @apollo/gateway + @apollo/server + graphql, installed into
# bench/.peers/gateway) in front of them with the benchmark supergraph, sends
# the benchmark request and compares the answer with expected_response.json.
# Not a ctest test (it needs npm). Exit 0 when the answer is right.
#
# Usage: bench/gateway/check.sh
#   SUBGRAPH_PORT (default 4200) and GATEWAY_PORT (default 4000) move the
#   ports; the supergraph's URLs are rewritten to SUBGRAPH_PORT.
#   SUBGRAPHS_BIN runs another build of bench_subgraphs (e.g. build-asan's).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}
bench=$shared/gateway-bench
sub_port=${SUBGRAPH_PORT:-4200}
gw_port=${GATEWAY_PORT:-4000}

echo "== building (build)"
"$root/scripts/build.sh" >/dev/null
bin=${SUBGRAPHS_BIN:-$root/build/bench/bench_subgraphs}

peers=$root/bench/.peers/gateway
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/@apollo/gateway || ! -d $peers/node_modules/@apollo/server ]]; then
  echo "== installing @apollo/gateway@2.14, @apollo/server@5, graphql@16 into bench/.peers/gateway"
  npm_install "$peers" --ignore-scripts graphql@16 @apollo/gateway@2.14 @apollo/server@5
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

wait_for() { # wait_for URL NAME PID
  for _ in $(seq 200); do
    curl -sf "$1" >/dev/null 2>&1 && return 0
    kill -0 "$3" 2>/dev/null || { echo "check.sh: $2 exited" >&2; return 1; }
    sleep 0.1
  done
  echo "check.sh: $2 did not come up" >&2
  return 1
}

"$bin" --port "$sub_port" --reviews "$bench/peers/reviews-data.json" >"$tmp/subgraphs.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$sub_port/health" bench_subgraphs "${pids[-1]}"

sed "s#http://127.0.0.1:4200/#http://127.0.0.1:$sub_port/#g; s#http://0.0.0.0:4200/#http://127.0.0.1:$sub_port/#g" \
  "$bench/supergraph.graphql" >"$tmp/supergraph.graphql"
cat >"$tmp/gateway.js" <<'EOF'
const fs = require('fs');
const { ApolloServer } = require('@apollo/server');
const { startStandaloneServer } = require('@apollo/server/standalone');
const { ApolloGateway } = require('@apollo/gateway');
(async () => {
  const gateway = new ApolloGateway({ supergraphSdl: fs.readFileSync(process.argv[2], 'utf8') });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: +process.argv[3], host: '127.0.0.1' } });
  console.log('apollo gateway at', url);
})().catch(e => { console.error(e); process.exit(1); });
EOF
NODE_PATH=$peers/node_modules node "$tmp/gateway.js" "$tmp/supergraph.graphql" "$gw_port" >"$tmp/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
  grep -q "apollo gateway at" "$tmp/gateway.log" && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$tmp/gateway.log" >&2; exit 1; }
  sleep 0.1
done
ver() { node -p "JSON.parse(require('fs').readFileSync('$peers/node_modules/$1/package.json','utf8')).version"; }
echo "== peers: @apollo/gateway $(ver @apollo/gateway), @apollo/server $(ver @apollo/server)," \
  "graphql $(ver graphql), node $(node --version)"

status=$(curl -s -o "$tmp/response.json" -w '%{http_code}' -H 'content-type: application/json' \
  --data-binary "@$bench/request.json" "http://127.0.0.1:$gw_port/graphql")
echo "== status $status, $(wc -c <"$tmp/response.json") bytes"
fail=0
[[ $status == 200 ]] || { echo "FAIL: status $status"; fail=1; }
if grep -q '"errors"' "$tmp/response.json"; then
  echo "FAIL: errors in the response: $(head -c 600 "$tmp/response.json")"
  fail=1
fi
if python3 - "$tmp/response.json" "$bench/expected_response.json" <<'EOF'; then
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
if got != want:
    def diff(a, b, path="$"):
        if type(a) != type(b):
            return f"{path}: {json.dumps(a)[:80]} != {json.dumps(b)[:80]}"
        if isinstance(a, dict):
            for k in list(b) + [k for k in a if k not in b]:
                if k not in a or k not in b:
                    return f"{path}.{k}: missing on one side"
                d = diff(a[k], b[k], f"{path}.{k}")
                if d: return d
        elif isinstance(a, list):
            if len(a) != len(b):
                return f"{path}: {len(a)} items != {len(b)}"
            for i, (x, y) in enumerate(zip(a, b)):
                d = diff(x, y, f"{path}[{i}]")
                if d: return d
        elif a != b:
            return f"{path}: {json.dumps(a)[:80]} != {json.dumps(b)[:80]}"
        return None
    print("FAIL: the answer differs from expected_response.json:", diff(got, want))
    sys.exit(1)
print("== the answer equals expected_response.json")
EOF
  :
else
  fail=1
fi
[[ $fail == 0 ]] && echo "check.sh: PASS (Apollo Gateway over gql's subgraphs)" ||
  echo "check.sh: FAIL"
exit $fail
