#!/usr/bin/env bash
# ctest entry: runs the conformance corpora with Debian's python3 (which has
# python3-yaml from scripts/deps.sh). $1 = gql binary, $2 = conformance dir.
set -euo pipefail
py=/usr/bin/python3
[[ -x $py ]] || py=python3
exec "$py" "$(dirname "$0")/run.py" "$@"
