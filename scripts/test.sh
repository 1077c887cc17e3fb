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
# The tests' python3 is Debian's (scripts/deps.sh installs their modules
# for it: python3-yaml), not a version manager's shim found first on PATH:
# pyenv's costs 0.6 s a start, and the tests start python3 hundreds of times.
if [[ -x /usr/bin/python3 && $(command -v python3) != /usr/bin/python3 ]]; then
  mkdir -p "$build/test-path"
  ln -sf /usr/bin/python3 "$build/test-path/python3"
  export PATH="$build/test-path:$PATH"
fi
cd "$build"
ctest --output-on-failure -j "$(nproc)"
