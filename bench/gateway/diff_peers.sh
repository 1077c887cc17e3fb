#!/usr/bin/env bash
# Differential check of bench_subgraphs against the JavaScript peer
# subgraphs (../shared/gateway-bench/peers/subgraphs.js, on @apollo/subgraph
# + graphql-yoga): the same requests to both, answers compared after JSON
# parsing. Covers root fields, entities of every type (known and unknown
# keys), the quirks (inventory ignores price/weight, reviews' User entity
# username "user", author always user 1), and arguments. Not compared:
# _service.sdl (Apollo prints its schema, gql answers the text as given) and
# unknown Review ids (the peer throws, the Rust subgraph panics, gql gives
# null). Usage: bench/gateway/diff_peers.sh (npm installs into
# bench/.peers/gateway). PEER_PORT / GQL_PORT default 4211 / 4212.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}
peer_port=${PEER_PORT:-4211}
gql_port=${GQL_PORT:-4212}
"$root/scripts/build.sh" >/dev/null
peers=$root/bench/.peers/gateway
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/@apollo/subgraph || ! -d $peers/node_modules/graphql-yoga ]]; then
  npm_install "$peers" --ignore-scripts graphql@16 @apollo/subgraph@2.14 graphql-yoga@5
fi
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
PORT=$peer_port NODE_PATH=$peers/node_modules node "$shared/gateway-bench/peers/subgraphs.js" >/dev/null 2>&1 &
pids+=($!)
"$root/build/bench/bench_subgraphs" --port "$gql_port" >/dev/null 2>&1 &
pids+=($!)
for port in "$peer_port" "$gql_port"; do
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
done
python3 - "$peer_port" "$gql_port" <<'PY'
import json, sys, urllib.request
peer, gql = sys.argv[1], sys.argv[2]
E = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename %s } }'
def reps(t, key, vals, **extra):
    return {"r": [dict({"__typename": t, key: v}, **extra) for v in vals]}
cases = [
 ("accounts", '{ users { id name username birthday } me { id name } user(id: "3") { name } nobody: user(id: "9") { name } }', None),
 ("accounts", E % '... on User { id name username birthday }', reps("User", "id", ["1", "6", "9", "2"])),
 ("products", '{ topProducts { upc name price weight } two: topProducts(first: 2) { upc } none: topProducts(first: 0) { upc } all: topProducts(first: 20) { upc } }', None),
 ("products", E % '... on Product { upc name price weight }', reps("Product", "upc", ["1", "9", "10", "5"])),
 ("inventory", E % '... on Product { upc inStock shippingEstimate price weight }', reps("Product", "upc", ["1", "2", "8", "10"], price=899, weight=100)),
 ("inventory", E % '... on Product { upc inStock shippingEstimate }', reps("Product", "upc", [str(i) for i in range(1, 10)])),
 ("reviews", E % '... on Product { upc reviews { id body product { upc } author { id username reviews { id body product { upc } } } } }', reps("Product", "upc", ["1", "2", "3", "4", "5", "6"])),
 ("reviews", E % '... on User { id username reviews { id product { upc reviews { id } } } }', reps("User", "id", ["1", "3", "42"])),
 ("reviews", E % '... on Review { id body author { id username } product { upc } }', reps("Review", "id", [str(i) for i in range(1, 12)])),
]
fails = 0
for path, q, v in cases:
    body = json.dumps({"query": q, **({"variables": v} if v else {})}).encode()
    got = []
    for port in (peer, gql):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/{path}", body, {"content-type": "application/json"})
        got.append(json.load(urllib.request.urlopen(req)))
    if got[0] != got[1]:
        fails += 1
        print(f"DIFF /{path}: {q[:70]}\n  peer: {json.dumps(got[0])[:300]}\n  gql:  {json.dumps(got[1])[:300]}")
print(f"diff_peers: {len(cases) - fails} of {len(cases)} requests answer alike")
sys.exit(1 if fails else 0)
PY
