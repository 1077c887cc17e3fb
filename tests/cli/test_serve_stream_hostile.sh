#!/usr/bin/env bash
# gql serve's incremental delivery (@defer / @stream over multipart/mixed and
# text/event-stream) against clients that misbehave, on a free loopback
# port: Accept headers with odd parameters, requests pipelined behind a
# stream, HTTP/1.0 streams, a client that stops reading a 7 MB @stream
# (bounded memory, dropped at the idle timeout), clients that leave
# mid-stream, a SIGTERM with a stream nobody reads (closed at
# server.shutdown_timeout) or a request still arriving (answered first);
# gql serve exits 0 on SIGTERM after each. The cases are in
# tests/http/test_stream_hostile.py.
# Usage: test_serve_stream_hostile.sh GQL_BINARY REPO_ROOT [CASE...]
set -uo pipefail
gql=${1:?usage: test_serve_stream_hostile.sh GQL_BINARY REPO_ROOT [CASE...]}
root=${2:?usage: test_serve_stream_hostile.sh GQL_BINARY REPO_ROOT [CASE...]}
shift 2
exec timeout 240 python3 "$root/tests/http/test_stream_hostile.py" "$gql" "$@"
