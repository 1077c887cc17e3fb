#!/usr/bin/env bash
# The C sources follow .clang-format (STYLE.md): clang-format --dry-run
# reports every file that would change. $2 = source root.
set -uo pipefail
root=$(cd "$2" && pwd)
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed (scripts/deps.sh)"; exit 1; }
# (bench/.peers holds the benchmarks' npm packages, some with C headers)
mapfile -t files < <(cd "$root" && find src include tests examples bench fuzz \
  -path bench/.peers -prune -o \
  -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print | sort)
((${#files[@]} > 100)) || { echo "FAIL: only ${#files[@]} source files found under $root"; exit 1; }
bad=$(cd "$root" && clang-format --dry-run -Werror "${files[@]}" 2>&1 | grep -oE '^[^:]+\.(c|h|cc):' | sort -u)
if [[ -n $bad ]]; then
  echo "FAIL: not clang-formatted (run clang-format -i on them):"
  echo "$bad"
  exit 1
fi
echo "style: ${#files[@]} C sources clang-formatted"
