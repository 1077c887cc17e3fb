#!/usr/bin/env bash
# The execution benchmark: gql (prepared, full, JSON default resolver), the
# hand-written C floor, graphql-js and graphql-jit on the seven operations of
# ../shared/bench/README.md, in one run. Outputs are checked byte for byte
# against gql's before anything is timed. See bench/exec/README.md.
#
# Usage: bench/exec/run.sh [--trials N] [--no-callgrind]
# Environment: BENCH_TRIAL_MS (length of one trial in ms, default 20),
# BENCH_CLOCK=wall (time trials by the wall clock instead of CPU time).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/common/npm.sh"
trials=15
callgrind=1
while [[ $# -gt 0 ]]; do
  case $1 in
  --trials) trials=$2; shift 2 ;;
  --no-callgrind) callgrind=0; shift ;;
  *) echo "usage: $0 [--trials N] [--no-callgrind]" >&2; exit 2 ;;
  esac
done
if (( trials < 7 )); then
  echo "run.sh: at least 7 trials" >&2
  exit 2
fi
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}
export GQL_SHARED_DIR=$shared

echo "== building gql (Release, build-rel)"
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null
bin=$root/build-rel/bench/bench_exec

peers=$root/bench/.peers
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/graphql || ! -d $peers/node_modules/graphql-jit ]]; then
  echo "== installing graphql@16 and graphql-jit into bench/.peers"
  npm_install "$peers" graphql@16 graphql-jit
fi
export NODE_PATH=$peers/node_modules
echo "== peers: graphql $(node -p 'require("graphql/package.json").version')," \
  "graphql-jit $(node -p 'require("graphql-jit/package.json").version'), node $(node --version)"

out=$peers/exec-out
rm -rf "$out"
mkdir -p "$out/responses"

echo "== checking that every system's response equals gql's, byte for byte"
if ! "$bin" dump "$out/responses"; then
  echo "run.sh: FAILED: a gql system (full, json or the C floor) differs from gql prepared" >&2
  exit 1
fi
if ! node "$root/bench/exec/peers.js" check "$out/responses"; then
  echo "run.sh: FAILED: a peer's response differs from gql's (files in $out/responses)" >&2
  exit 1
fi
echo "   all responses identical ($(ls "$out/responses" | wc -l) files in $out/responses)"

# One op at a time, gql then the peers, so that both see the same load on a
# shared machine (the ratios are what this benchmark is about).
ops=(minimal flat_list nested_lists star_wars fragments introspection introspection_without_one_of)
echo "== timing, op by op: gql and the C floor, then graphql-js and graphql-jit"
echo "   ($trials trials per system; node warms up 0.5 s per system first)"
printf 'op\tprepared_ns\tfull_ns\tjson_ns\tmembers_ns\tfloor_ns\tallocs_prepared\tallocs_full\tallocs_json\tallocs_members\tbytes\n' >"$out/gql.tsv"
printf 'op\tgraphql_js_full_ns\tgraphql_js_cached_ns\tgraphql_jit_ns\n' >"$out/peers.tsv"
for op in "${ops[@]}"; do
  "$bin" time "$trials" "$op" | tail -n +2 | tee -a "$out/gql.tsv" | cut -f1-6 | tr '\t' ' ' | sed 's/^/   gql  /'
  node "$root/bench/exec/peers.js" time "$trials" "$op" | tail -n +2 | tee -a "$out/peers.tsv" | tr '\t' ' ' | sed 's/^/   node /'
done

# Instructions per request under callgrind: N requests inside
# bench_exec_loop (collection toggled on there only) divided by N. Also
# counts every call to malloc, calloc and realloc in that region.
cg_run() { # op mode n -> "ir mallocs"
  local f=$out/callgrind.$1.$2.out
  valgrind --tool=callgrind --toggle-collect=bench_exec_loop \
    --callgrind-out-file="$f" "$bin" loop "$1" "$2" "$3" >/dev/null 2>&1
  if [[ ! -s $f ]]; then
    echo "run.sh: FAILED: callgrind run of $1 $2" >&2
    exit 1
  fi
  node "$root/bench/exec/cgsum.js" "$f" "$3"
}
cg_file=$out/callgrind.tsv
if (( callgrind )) && command -v valgrind >/dev/null; then
  echo "== instructions per request under callgrind"
  printf 'op\tir_prepared\tir_full\tir_members\tir_floor\tmallocs_prepared\tmallocs_full\n' >"$cg_file"
  declare -A iters=([minimal]=2000 [flat_list]=20 [nested_lists]=50 [star_wars]=1000
    [fragments]=300 [introspection]=40 [introspection_without_one_of]=40)
  for op in "${ops[@]}"; do
    n=${iters[$op]}
    read -r ir_p m_p < <(cg_run "$op" prepared "$n")
    read -r ir_f m_f < <(cg_run "$op" full "$n")
    ir_floor=- ir_m=-
    case $op in
    flat_list | nested_lists | star_wars)
      read -r ir_floor _ < <(cg_run "$op" floor "$n")
      read -r ir_m _ < <(cg_run "$op" members "$n")
      ;;
    fragments) read -r ir_m _ < <(cg_run "$op" members "$n") ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$op" "$ir_p" "$ir_f" "$ir_m" "$ir_floor" "$m_p" "$m_f" | tee -a "$cg_file"
  done
  echo "== where gql prepared spends its instructions (callgrind_annotate, top functions)"
  for op in flat_list nested_lists star_wars; do
    for mode in prepared members; do
      echo "-- $op ($mode)"
      callgrind_annotate --inclusive=no "$out/callgrind.$op.$mode.out" 2>/dev/null |
        grep -E '^ *[0-9,]+ \(' | head -12
    done
  done
else
  echo "== callgrind skipped"
  rm -f "$cg_file"
fi

echo
echo "== results (this machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
node "$root/bench/exec/report.js" "$out/gql.tsv" "$out/peers.tsv" "$cg_file"
