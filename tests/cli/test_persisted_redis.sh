#!/usr/bin/env bash
# APQ shared through a real redis-server by two gql instances, Redis stopped,
# restarted and frozen under load (issue 18): tests/persisted/test_apq_redis.py.
# Usage: test_persisted_redis.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_persisted_redis.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_persisted_redis.sh GQL_BINARY REPO_ROOT}
exec python3 "$root/tests/persisted/test_apq_redis.py" "$gql" "$root"
