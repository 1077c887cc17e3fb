#!/usr/bin/env bash
# The incremental-delivery benchmark: the seven operations of
# ../shared/bench/README.md with a @defer around their deepest selection,
# against the same operations without it, in gql (bench_defer) and in
# graphql-js 17 (execute / experimentalExecuteIncrementally, peers17.js),
# and against a hand-written C floor writing gql's payloads (floor.c), in
# one run. The payloads are checked (merged, they equal the plain response;
# the floor's are gql's bytes) before anything is timed. See
# bench/defer/README.md.
#
# Usage: bench/defer/run.sh [--trials N] [--no-callgrind]
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
(( trials >= 5 && trials <= 64 )) || { echo "run.sh: 5 to 64 trials" >&2; exit 2; }
shared=${GQL_SHARED_DIR:-$(cd "$root/../shared" && pwd)}
export GQL_SHARED_DIR=$shared

echo "== building gql (Release, build-rel)"
"$root/scripts/build.sh" "$root/build-rel" -DCMAKE_BUILD_TYPE=Release >/dev/null
bin=$root/build-rel/bench/bench_defer

peers=$root/bench/.peers/graphql17
version=17.1.0
if [[ $(node -p "try{require('$peers/node_modules/graphql/package.json').version}catch(e){''}") != "$version" ]]; then
  echo "== installing graphql@$version into $peers"
  npm_install "$peers" "graphql@$version"
fi
export NODE_PATH=$peers/node_modules
# (by its path: graphql 17's exports do not list package.json)
echo "== peer: graphql $(node -p "require('$peers/node_modules/graphql/package.json').version"), node $(node --version)"

out=$root/bench/.peers/defer-out
rm -rf "$out"
mkdir -p "$out"
"$bin" texts "$out"
echo "== the C floor's payloads against gql's (byte for byte)"
"$bin" dump "$out" # fails at the first byte where a floor's differ
floored=(minimal flat_list nested_lists star_wars)
for op in "${floored[@]}"; do
  cmp "$out/$op.gql-plain.json" "$out/$op.floor-plain.json"
  cmp "$out/$op.gql-defer.jsonl" "$out/$op.floor-defer.jsonl"
done
echo "   identical: ${floored[*]} (plain and @defer)"
echo "== checking the payloads (merged, each system's equals its plain response and gql's)"
node "$root/bench/defer/peers17.js" check "$out"
echo "   all payloads check"

ops=(minimal flat_list nested_lists star_wars fragments introspection introspection_without_one_of)
echo "== timing, op by op ($trials trials per system, CPU time)"
printf 'op\tplain_ns\tdefer_ns\tpayloads\tfloor_plain_ns\tfloor_defer_ns\n' >"$out/gql.tsv"
printf 'op\tplain_ns\tdefer_ns\tpayloads\n' >"$out/js.tsv"
for op in "${ops[@]}"; do
  "$bin" time "$trials" "$op" | tail -n +2 | tee -a "$out/gql.tsv" | tr '\t' ' ' | sed 's/^/   gql         /'
  node "$root/bench/defer/peers17.js" time "$out" "$trials" "$op" | tail -n +2 | tee -a "$out/js.tsv" | tr '\t' ' ' | sed 's/^/   graphql-js  /'
done

cg=$out/callgrind.tsv
if (( callgrind )) && command -v valgrind >/dev/null; then
  echo "== gql's instructions per request under callgrind"
  declare -A iters=([minimal]=2000 [flat_list]=20 [nested_lists]=50 [star_wars]=1000
    [fragments]=300 [introspection]=40 [introspection_without_one_of]=40)
  printf 'op\tir_plain\tir_defer\tir_floor_plain\tir_floor_defer\n' >"$cg"
  for op in "${ops[@]}"; do
    row=$op
    for mode in plain defer floor-plain floor-defer; do
      if [[ $mode == floor-* && " ${floored[*]} " != *" $op "* ]]; then
        row+=$'\t-'
        continue
      fi
      f=$out/callgrind.$op.$mode.out
      valgrind --tool=callgrind --toggle-collect=bench_defer_loop \
        --callgrind-out-file="$f" "$bin" loop "$op" "$mode" "${iters[$op]}" >/dev/null 2>&1
      read -r ir _ < <(node "$root/bench/exec/cgsum.js" "$f" "${iters[$op]}")
      row+=$'\t'$ir
    done
    echo "$row" | tee -a "$cg" | tr '\t' ' ' | sed 's/^/   /'
  done
fi

echo
echo "== results ($(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
awk -F'\t' -v cgfile="$cg" '
  FNR == 1 { next }
  FILENAME ~ /gql.tsv$/ { gp[$1] = $2; gd[$1] = $3; n[$1] = $4; fp[$1] = $5; fd[$1] = $6; order[++k] = $1; next }
  FILENAME ~ /js.tsv$/ { jp[$1] = $2; jd[$1] = $3; jn[$1] = $4; next }
  FILENAME == cgfile { ip[$1] = $2; id[$1] = $3; ifp[$1] = $4; ifd[$1] = $5 }
  END {
    printf "%-29s %9s %11s %9s %11s %9s %8s %9s %9s %6s\n", "op", "payloads", "gql plain", "gql defer",
      "defer/plain", "Ir ratio", "js17 plain", "js17 defer", "margin plain", "defer"
    bad = 0
    for (i = 1; i <= k; i++) {
      o = order[i]
      r = gd[o] / gp[o]; mp = jp[o] / gp[o]; md = jd[o] / gd[o]
      ir = (o in ip && ip[o] > 0) ? sprintf("%.2f", id[o] / ip[o]) : "-"
      printf "%-29s %9s %9.0fns %9.0fns %11.2f %9s %8.0fns %9.0fns %8.1fx %8.1fx\n", o, n[o], gp[o], gd[o], r, ir,
        jp[o], jd[o], mp, md
      if (r > 1.3) { bad = 1; printf "   target missed: %s defer/plain %.2f > 1.3\n", o, r }
      if (md < mp) { bad = 1; printf "   target missed: %s margin over graphql-js 17 with @defer %.1fx < plain %.1fx\n", o, md, mp }
    }
    print bad ? "targets: NOT all met (see above)" : "targets: defer/plain within 1.3x, and the margin over graphql-js 17 with @defer at least the plain one, on every op"
    floor_table("Ir a request (callgrind)", ip, id, ifp, ifd, "%11.0f")
    floor_table("CPU ns a request (median)", gp, gd, fp, fd, "%11.1f")
  }
  # The C floor (floor.c) beside gql: what the format itself costs, and the
  # bound it implies for defer/plain. A gql whose plain cost stays as it is
  # and whose deferral costs no more than the extra of the floor (floor
  # defer - floor plain) would run at 1 + extra / gql plain.
  function floor_table(title, p, d, f0, f1, fmt,    i, o, any, extra) {
    for (i = 1; i <= k; i++)
      if (f0[order[i]] != "" && f0[order[i]] != "-" && p[order[i]] > 0)
        any = 1
    if (!any)
      return
    printf "\n== the C floor (floor.c, the same bytes), %s\n", title
    printf "%-13s %11s %11s %11s %11s %9s %11s %11s %11s %9s\n", "op", "gql plain", "gql defer", "floor plain",
      "floor defer", "floor d/p", "gql/floor p", "gql/floor d", "extra/gql p", "bound"
    for (i = 1; i <= k; i++) {
      o = order[i]
      if (f0[o] == "" || f0[o] == "-" || !(p[o] > 0))
        continue
      extra = (f1[o] - f0[o]) / p[o]
      printf "%-13s " fmt " " fmt " " fmt " " fmt " %9.2f %11.2f %11.2f %11.2f %9.2f%s\n", o, p[o], d[o], f0[o], f1[o],
        f1[o] / f0[o], p[o] / f0[o], d[o] / f1[o], extra, 1 + extra, (1 + extra > 1.3) ? "  (over 1.3 even so)" : ""
    }
  }' "$out/gql.tsv" "$out/js.tsv" ${cg:+$([[ -f $cg ]] && echo "$cg")}
