#!/usr/bin/env bash
# The planning benchmark at scale: gql beside Apollo's query planner and
# Hive's Rust planner on one large generated supergraph (200 subgraphs,
# about 5,000 types, about 10 MB) and its queries. Not a test. See README.md.
#
# Usage: bench/gateway-scale/run.sh
#   SEED=1 (the graph), QUERIES=200, REPS=30 (gql plans per query),
#   APOLLO_REPS=1, HIVE_REPS=3, PLANNERS="gql apollo hive",
#   STREAM=20000 (distinct operations for the plan cache), CACHE_BYTES
#   (--plan-cache-bytes for that stream, default 32 MiB), OUT=FILE (the
#   Markdown tables, also printed). A peer planner gets 30 minutes to load
#   and 2 minutes a query (run.py --load-timeout, --plan-timeout).
# npm packages go to bench/.peers/gateway-scale; the generated graph, composed
# once by Apollo's composition, is cached in bench/.peers/gateway-scale/graphs
# (not committed); the Release build to build-rel.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
here=$root/bench/gateway-scale
peers=$root/bench/.peers/gateway-scale
seed=${SEED:-1}
nq=${QUERIES:-200}

echo "== building (build-rel, Release)" >&2
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null
if [[ ! -d $peers/node_modules/@graphql-hive/router-query-planner ||
  ! -d $peers/node_modules/@apollo/composition ]]; then
  echo "== installing @apollo/composition, @apollo/query-planner, @apollo/federation-internals 2.14, @graphql-hive/router-query-planner into bench/.peers/gateway-scale" >&2
  npm_install "$peers" graphql@16 @apollo/composition@2.14 \
    @apollo/query-planner@2.14 @apollo/federation-internals@2.14 \
    @graphql-hive/router-query-planner
fi
export PEERS=$peers

# The graph: generated and composed once per seed and generator version.
ver=$(cat "$here/gen.py" "$here/compose.mjs" | sha1sum | cut -c1-10)
graph=$peers/graphs/seed$seed-q$nq-$ver
if [[ ! -f $graph/supergraph.graphql ]]; then
  echo "== generating the graph (seed $seed) into $graph" >&2
  rm -rf "$graph"
  python3 "$here/gen.py" --out "$graph" --seed "$seed" --queries "$nq"
  echo "== composing it with @apollo/composition (a few minutes, once)" >&2
  node --max-old-space-size=8000 "$here/compose.mjs" "$graph" --no-satisfiability >&2
fi
# The same generator on 10 subgraphs, composed with the satisfiability check
# on: composition's full validation of what the generator makes.
small=$peers/graphs/small-seed$seed-$ver
if [[ ! -f $small/supergraph.graphql ]]; then
  rm -rf "$small"
  python3 "$here/gen.py" --out "$small" --seed "$seed" --subgraphs 10 \
    --entities 120 --value-types 60 --enums 40 --inputs 20 --interfaces 10 \
    --unions 5 --queries 10
  node "$here/compose.mjs" "$small" >&2
fi
# For the HTTP stream: the subgraph URLs moved to a port nothing listens on
# (every subgraph fetch is refused at once).
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed "s#http://127.0.0.1:4200/#http://127.0.0.1:$closed/#" "$graph/supergraph.graphql" \
  >"$graph/supergraph-closed.graphql"

{
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); node $(node --version)"
  echo "gql $(git -C "$root" rev-parse --short HEAD) (Release); @apollo/query-planner $(node -p "require('$peers/node_modules/@apollo/query-planner/package.json').version"), @graphql-hive/router-query-planner $(node -p "require('$peers/node_modules/@graphql-hive/router-query-planner/package.json').version")"
  python3 - "$graph" <<'PY'
import json, os, re, sys
d = sys.argv[1]
s = open(os.path.join(d, "supergraph.graphql")).read()
kinds = re.findall(r"^(type|interface|union|enum|input|scalar) (\w+)", s, re.M)
types = [n for k, n in kinds if not n.startswith(("join__", "link__"))]
graphs = len(re.findall(r"@join__graph\(", s)) - 1  # the definition
keys = len(re.findall(r'@join__type\(graph: \w+, key:', s))
print("graph: %s; %d subgraphs, %d types (%d entities), %.1f MB of supergraph SDL, "
      "%d @join__type keys, %d @requires, %d @provides, %d external fields" % (
          os.path.basename(d), graphs, len(types),
          sum(1 for b in re.split(r"\n\n", s) if b.startswith("type ")
              and "key: " in b.split("{", 1)[0]),
          len(s) / 1e6, keys, s.count("requires: \""), s.count("provides: \""),
          s.count("external: true")))
PY
} | tee "${OUT:-/dev/null}.head" >&2
exec python3 "$here/run.py" --gql "$root/build-rel/gql" \
  --bench-plan "$root/build-rel/bench/bench_plan" --peers "$peers" \
  --supergraph "$graph/supergraph.graphql" \
  --http-supergraph "$graph/supergraph-closed.graphql" \
  --queries "$graph/queries" --reps "${REPS:-30}" \
  --apollo-reps "${APOLLO_REPS:-1}" --hive-reps "${HIVE_REPS:-3}" --planners "${PLANNERS:-gql apollo hive}" \
  --stream "${STREAM:-20000}" --cache-bytes "${CACHE_BYTES:-33554432}" \
  --out "${OUT:-}"
