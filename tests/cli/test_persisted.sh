#!/usr/bin/env bash
# APQ and persisted documents through gql serve / gql gateway (issue 18):
# tests/persisted/test_apq.py, from outside over HTTP.
# Usage: test_persisted.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_persisted.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_persisted.sh GQL_BINARY REPO_ROOT}
exec python3 "$root/tests/persisted/test_apq.py" "$gql" "$root"
