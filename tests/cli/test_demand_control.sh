#!/usr/bin/env bash
# Demand control in gql serve and gql gateway (issue 18):
# tests/persisted/test_demand_control.py, from outside over HTTP.
# Usage: test_demand_control.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_demand_control.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_demand_control.sh GQL_BINARY REPO_ROOT}
exec python3 "$root/tests/persisted/test_demand_control.py" "$gql" "$root"
