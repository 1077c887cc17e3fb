#!/usr/bin/env bash
# Builds gql and runs every test: unit tests, CLI tests and the conformance
# corpora of ../shared/conformance (when that folder exists).
# Usage: scripts/test.sh [--sanitize]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
args=()
if [[ "${1:-}" == "--sanitize" ]]; then
  build=$root/build-asan
  args=(-DGQL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
"$root/scripts/build.sh" "$build" "${args[@]}"
if [[ -d "$root/../shared/conformance" ]]; then
  echo "test: conformance corpora found at $(cd "$root/../shared/conformance" && pwd)"
else
  echo "test: ../shared/conformance NOT FOUND: the conformance corpora will not run"
fi
cd "$build"
ctest --output-on-failure -j "$(nproc)"
