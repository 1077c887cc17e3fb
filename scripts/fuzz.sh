#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-30}
shift || true
build=$root/build-fuzz
CC=clang CXX=clang++ "$root/scripts/build.sh" "$build" -DGQL_FUZZ=ON \
  -DGQL_BUILD_TESTS=OFF -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.log" 2>&1 || {
  tail -n 40 "$build.log"
  echo "fuzz: the fuzz targets did not build (whole log: $build.log)"
  exit 1
}
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$root"/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
export UBSAN_OPTIONS=halt_on_error=1
# One target: its corpus, its seeds, SECS seconds; its DONE line on success.
run_target() {
  local t=$1 corpus=$build/corpus/$1 seeds=()
  mkdir -p "$corpus"
  [[ -d "$root/fuzz/seeds/$t" ]] && seeds=("$root/fuzz/seeds/$t")
  if [[ $t == fuzz_supergraph ]]; then
    # Seeds made at fuzz time rather than copied into the repo: the gateway
    # benchmark's supergraph, the planner target's, and the audit suites'
    # when bench/gateway-scale/audit.sh has composed them.
    local gen=$build/seeds-gen/$t f shared=${GQL_SHARED_DIR:-$root/../shared}
    mkdir -p "$gen"
    cp -f "$shared/gateway-bench/supergraph.graphql" "$gen/gateway-bench" 2>/dev/null || true
    cp -f "$root/fuzz/fuzz_planner.graphql" "$gen/fuzz-planner"
    for f in "$root"/bench/.peers/gateway-scale/audit/*/supergraph.graphql; do
      [[ -f $f ]] && cp -f "$f" "$gen/audit-$(basename "$(dirname "$f")")"
    done
    seeds+=("$gen")
  fi
  "$build/$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
    -print_final_stats=0 "$corpus" "${seeds[@]}" 2>"$build/$t.log" || {
    tail -n 60 "$build/$t.log"
    echo "fuzz: $t FAILED"
    return 1
  }
  echo "fuzz: $t for ${secs}s: $(grep -E '^(Done [0-9]+ runs|#[0-9]+ +DONE)' "$build/$t.log" | tail -n 1)"
}
# As many targets at once as there are cores (GQL_FUZZ_JOBS overrides).
jobs=${GQL_FUZZ_JOBS:-$(nproc)}
failed=0 running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
if ((failed)); then
  echo "fuzz: a target failed (above)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no failure"
