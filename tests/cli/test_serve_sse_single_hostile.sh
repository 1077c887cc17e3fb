#!/usr/bin/env bash
# graphql-sse's single connection mode on gql serve --threads 2 --redis and
# through gql gateway, against clients that misbehave, over raw sockets on
# free loopback ports with a real redis-server: a flood of reservations
# (bounded by --max-connections, memory within a ceiling), bad tokens and
# operation ids, a stream opened twice, unknown and expired tokens,
# thousands of operations on one stream, results queued for streams never
# opened (bounded per stream and in all), a stream client that stops
# reading or leaves (its subscriptions stop: gql_subscriptions_open back to
# 0, on the subgraph too through the gateway), garbage pipelined after a
# PUT; each server exits 0 on SIGTERM after each case. The cases are in
# tests/http/test_sse_single_hostile.py.
# Usage: test_serve_sse_single_hostile.sh GQL_BINARY REPO_ROOT [CASE...]
set -uo pipefail
gql=${1:?usage: test_serve_sse_single_hostile.sh GQL_BINARY REPO_ROOT [CASE...]}
root=${2:?usage: test_serve_sse_single_hostile.sh GQL_BINARY REPO_ROOT [CASE...]}
shift 2
exec timeout 280 python3 "$root/tests/http/test_sse_single_hostile.py" "$gql" "$@"
