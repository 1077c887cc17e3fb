#!/usr/bin/env bash
# Memory over gateway reloads (issue 16, item 5): gql gateway over two real
# subgraphs (gql serve --subgraph), its supergraph swapped between two
# versions and SIGHUP sent RELOADS times, with requests between reloads so
# that each generation's subgraph clients hold pooled connections. Prints
# the gateway's RSS after a warm-up, after RELOADS reloads and after as many
# again: a generation's clients, plans and header rules are freed once it is
# released, so the two last figures stay close to the first.
# Usage: [GQL=build/gql] bench/reload/rss.sh [RELOADS] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reloads=${1:-100}
threads=${2:-2}
gql=${GQL:-$root/build/gql}
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # start NAME ARGS...: runs gql ARGS, waits for its banner, prints its port
  local name=$1 port
  shift
  "$gql" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  echo $! >"$work/$name.pid"
  for _ in $(seq 200); do
    port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$work/$name.out" 2>/dev/null || true)
    [[ -n $port ]] && { echo "$port"; return; }
    sleep 0.05
  done
  echo "bench: $name did not start: $(cat "$work/$name.err")" >&2
  exit 1
}
cat >"$work/a.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { topProducts: [Product] }
type Product @key(fields: "upc") { upc: String! name: String }
SDL
echo '{"topProducts": [{"upc": "1", "name": "Table"}, {"upc": "2", "name": "Couch"}]}' >"$work/a.json"
cat >"$work/b.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { _unused: Int }
type Product @key(fields: "upc") { upc: String! price: Int }
SDL
echo '{"Product": [{"upc": "1", "price": 100}, {"upc": "2", "price": 250}]}' >"$work/b.json"
pa=$(start a serve --port 0 --threads 1 --subgraph --schema "$work/a.graphql" --data "$work/a.json")
pb=$(start b serve --port 0 --threads 1 --subgraph --schema "$work/b.graphql" --data "$work/b.json")
supergraph() { # supergraph EXTRA: the supergraph, EXTRA a Query field or ""
  cat <<SDL
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$pa/graphql")
  B @join__graph(name: "b", url: "http://127.0.0.1:$pb/graphql")
}
type Query @join__type(graph: A) @join__type(graph: B) {
  topProducts: [Product] @join__field(graph: A)
  $1
}
type Product @join__type(graph: A, key: "upc") @join__type(graph: B, key: "upc") {
  upc: String!
  name: String @join__field(graph: A)
  price: Int @join__field(graph: B)
}
SDL
}
supergraph "" >"$work/v1.graphql"
supergraph "_unused: Int @join__field(graph: B)" >"$work/v2.graphql"
cp "$work/v1.graphql" "$work/sg.graphql"
port=$(start gw gateway --port 0 --threads "$threads" --log-level info --supergraph "$work/sg.graphql")
gpid=$(cat "$work/gw.pid")
body='{"query":"{ topProducts { name price } }"}'
traffic() { # a few requests on new connections: every worker's pools fill
  for _ in 1 2 3 4 5 6; do
    curl -s -H 'content-type: application/json' -d "$body" "http://127.0.0.1:$port/graphql" >/dev/null &
  done
  wait
}
rss() { sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$gpid/status"; }
n=0
reload_times() { # reload_times N
  for _ in $(seq "$1"); do
    n=$((n + 1))
    if ((n % 2)); then v=v2; else v=v1; fi
    cp "$work/$v.graphql" "$work/sg.tmp" && mv "$work/sg.tmp" "$work/sg.graphql"
    kill -HUP "$gpid"
    sleep 0.03
    traffic
  done
  sleep 0.5
}
reload_times 10 # warm-up: allocator pools, first generations
r0=$(rss)
reload_times "$reloads"
r1=$(rss)
reload_times "$reloads"
r2=$(rss)
gens=$(grep -c 'reloaded: generation' "$work/gw.err" || true)
answer=$(curl -s -H 'content-type: application/json' -d "$body" "http://127.0.0.1:$port/graphql")
echo "gateway RSS after 10 reloads: $r0 kB; after $reloads more: $r1 kB; after $reloads more: $r2 kB ($gens generations)"
echo "answer after the last: $answer"
