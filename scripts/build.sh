#!/usr/bin/env bash
# Configures and builds gql. Usage: scripts/build.sh [BUILD_DIR] [cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
"$root/scripts/deps.sh"
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" "${gen[@]}" "$@" >/dev/null
else
  cmake "$build" "$@" >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
