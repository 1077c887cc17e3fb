#!/usr/bin/env bash
# Time to the first payload over HTTP: a query whose deferred part waits on a
# slow pending resolver (D ms), served by gql (bench_defer_http_server, gql's
# executor, a uv_timer completing the pending field) and by graphql-js 17.1
# (peer17.js: experimentalExecuteIncrementally behind node's http server, a
# Promise resolved by setTimeout), both as multipart/mixed. client.js checks
# that both systems' merged payloads equal the same final result, then
# times N requests per system, 1 and 32 in flight. See README.md.
#
# Usage: bench/defer-http/run.sh [--delay MS] [--requests N]
#          [--concurrency 1,32] [--threads 1]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/defer-http
. "$root/bench/common/npm.sh"
delay=100 requests=200 conc=1,32 threads=1
while [[ $# -gt 0 ]]; do
  case $1 in
  --delay) delay=$2; shift 2 ;;
  --requests) requests=$2; shift 2 ;;
  --concurrency) conc=$2; shift 2 ;;
  --threads) threads=$2; shift 2 ;;
  *) echo "usage: $0 [--delay MS] [--requests N] [--concurrency 1,32] [--threads N]" >&2; exit 2 ;;
  esac
done

echo "== building bench_defer_http_server (Release, build-rel)"
build=$root/build-rel
[[ -f $build/CMakeCache.txt ]] || "$root/scripts/deps.sh"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_defer_http_server -j "$(nproc)" >/dev/null
bin=$build/bench/bench_defer_http_server

peers=$root/bench/.peers/graphql17
version=17.1.0
# (graphql 17's package.json is not among its exports: read as a file)
installed=$(node -p "try{JSON.parse(require('fs').readFileSync('$peers/node_modules/graphql/package.json')).version}catch(e){''}")
if [[ $installed != "$version" ]]; then
  echo "== installing graphql@$version into $peers"
  npm_install "$peers" "graphql@$version"
fi
export NODE_PATH=$peers/node_modules
echo "== peer: graphql $(node -p 'require("graphql").version'), node $(node --version)"

tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
# start NAME CMD...: runs CMD until its banner ("... on http://HOST:PORT/graphql")
start() {
  local name=$1
  shift
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  for _ in $(seq 200); do
    url=$(sed -n 's|.* on \(http://[^ ]*\)$|\1|p' "$tmp/$name.out")
    [[ -n $url ]] && return 0
    sleep 0.05
  done
  echo "run.sh: $name did not start: $(cat "$tmp/$name.out" "$tmp/$name.err")" >&2
  exit 1
}
start gql "$bin" --threads "$threads"
gql_url=$url
start js node "$here/peer17.js"
js_url=$url

echo "== $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); gql --threads $threads, node one thread"
node "$here/client.js" --delay "$delay" --requests "$requests" --concurrency "$conc" \
  "gql=$gql_url" "graphql-js=$js_url"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
