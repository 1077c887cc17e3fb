#!/usr/bin/env bash
# gql gateway against a subgraph that misbehaves on purpose
# (tests/gateway/hostile_subgraph.py, raw sockets on a free loopback port):
# oversized, endless and trickling answers, heads that never end, JSON too
# deep or of the wrong shape, HTML, HTTP/1.0, resets, redirects, 100
# Continue, garbage; subscriptions over graphql-sse and graphql-ws with
# oversized events, bad JSON, unknown events or ids, no connection_ack, and
# floods to a client that does not read. Each gives a clear error in time,
# bounded memory, and a gateway that answers the next request; the gateway
# exits 0 on SIGTERM, within --shutdown-timeout when a subgraph holds a
# fetch past it (the fetch aborted), after a fetch that ends in time. The cases are in tests/gateway/test_hostile_subgraph.py.
# Usage: test_hostile_subgraph.sh GQL_BINARY REPO_ROOT [CASE...]
set -uo pipefail
gql=${1:?usage: test_hostile_subgraph.sh GQL_BINARY REPO_ROOT [CASE...]}
root=${2:?usage: test_hostile_subgraph.sh GQL_BINARY REPO_ROOT [CASE...]}
shift 2
exec timeout 240 python3 "$root/tests/gateway/test_hostile_subgraph.py" "$gql" "$root" "$@"
