#!/usr/bin/env bash
# What @defer costs the server per request, on the seven execution
# operations (../shared/bench/README.md) with and without a @defer around
# their deepest selection (bench_defer texts): bench_defer_http_server --op
# serves each operation's schema with its C resolvers, and server_cost.py
# asks both texts over HTTP (the deferred one as multipart/mixed), measuring
# the server process's CPU time per request and, with --callgrind N, its
# instructions per request. See README.md.
#
# Usage: bench/defer-http/server_cost.sh [--ops a,b] [--requests N]
#          [--trials T] [--callgrind N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-rel
[[ -f $build/CMakeCache.txt ]] || "$root/scripts/deps.sh"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "== building bench_defer_http_server and bench_defer (Release, build-rel)"
cmake --build "$build" --target bench_defer_http_server bench_defer -j "$(nproc)" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/bench_defer" texts "$tmp"
echo "== $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/bench/defer-http/server_cost.py" "$build/bench/bench_defer_http_server" "$tmp" "$@"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
