#!/usr/bin/env bash
# The npm clients (meros, Apollo Client 4, graphql-sse) read incremental
# responses framed by src/http/incremental.c: incremental_replay serves the
# recorded payloads of every case in tests/incremental/cases/exec, and
# clients.mjs reads them with each client and compares with the recording.
# Usage: run.sh REPLAY_BINARY PEERS_DIR
#        run.sh --serve GQL_BINARY PEERS_DIR INCREMENTAL_SERVE_BINARY
# With --serve the clients read gql itself over HTTP: all 82 cases served
# by incremental_serve (gql's HTTP server, the markers' C resolvers of
# markers.c, a port a case; clients.mjs --urls), then every case whose data
# gql serve --data can hold (no $async / $error markers) against its own
# gql serve --schema --data [--defer-stream] (clients.mjs --path gql): the
# initial payload identical, the merged result the same, in graphql-js
# 17's format and in Apollo's deferSpec=20220824.
# The clients go into PEERS_DIR (its own package.json) once; no npm or no
# registry is a failure, never a skip.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
serve=
if [[ $1 == --serve ]]; then serve=1; shift; fi
replay=$1
mkdir -p "$2"
peers=$(cd "$2" && pwd)
packages="meros@1 @apollo/client@4 graphql@16 rxjs@7 graphql-sse@2"
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "FAIL: node and npm are required (scripts/deps.sh)"; exit 1; }
mkdir -p "$peers"
(
  flock 9
  if [[ ! -f $peers/installed.txt || $(cat "$peers/installed.txt") != "$packages" ]]; then
    [[ -f $peers/package.json ]] || echo '{"private":true}' >"$peers/package.json"
    echo "installing $packages into $peers" >&2
    # shellcheck disable=SC2086
    (cd "$peers" && npm install --no-audit --no-fund --loglevel=error $packages >"$peers/npm.log" 2>&1) ||
      { echo "FAIL: npm install failed:"; tail -n 20 "$peers/npm.log"; exit 1; }
    echo "$packages" >"$peers/installed.txt"
  fi
) 9>"$peers/.lock"
echo "clients: meros $(node -p "require('$peers/node_modules/meros/package.json').version")," \
  "@apollo/client $(node -p "require('$peers/node_modules/@apollo/client/package.json').version")," \
  "graphql-sse $(node -p "require('$peers/node_modules/graphql-sse/package.json').version"), node $(node --version)"

work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT

if [[ -n $serve ]]; then
  gql=$replay
  cases_server=$3
  status=0
  "$cases_server" "$here/../cases/exec" >"$work/urls" 2>"$work/cases_server.log" &
  pid=$!
  for _ in $(seq 600); do grep -q '^ready$' "$work/urls" && break; sleep 0.05; done
  grep -q '^ready$' "$work/urls" ||
    { echo "FAIL: incremental_serve did not start:"; cat "$work/cases_server.log"; exit 1; }
  grep -v '^ready$' "$work/urls" >"$work/urls.txt"
  served=$(wc -l <"$work/urls.txt")
  echo "incremental_serve: $served cases"
  [[ $served -eq $(ls "$here/../cases/exec"/*.json | wc -l) ]] ||
    { echo "FAIL: incremental_serve serves $served cases"; status=1; }
  node "$here/clients.mjs" "$peers" http://unused "$here/../cases" --urls "$work/urls.txt" || status=1
  kill "$pid"
  wait "$pid" 2>/dev/null || { echo "FAIL: incremental_serve did not stop cleanly"; status=1; }
  pid=
  # each servable case's schema and data, and its flags
  python3 - "$here/../cases/exec" "$work" <<'PY' >"$work/cases.txt"
import json, os, sys
src, dst = sys.argv[1:]
for name in sorted(os.listdir(src)):
    text = open(os.path.join(src, name), encoding="utf-8").read()
    if '"$async"' in text or '"$error"' in text:
        continue
    c = json.loads(text)
    n = c["name"]
    open(os.path.join(dst, n + ".graphql"), "w").write(c["schema"])
    json.dump(c.get("rootValue") or {}, open(os.path.join(dst, n + ".json"), "w"))
    print(n, "--defer-stream" if c["deferStreamDirectives"] else "")
PY
  count=0
  while read -r name flag; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # shellcheck disable=SC2086
    "$gql" serve --schema "$work/$name.graphql" --data "$work/$name.json" $flag \
      --listen "127.0.0.1:$port" --threads 1 >"$work/serve.log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do grep -q "on http://" "$work/serve.log" && break; sleep 0.05; done
    grep -q "on http://" "$work/serve.log" || { echo "FAIL: gql serve for $name:"; cat "$work/serve.log"; exit 1; }
    echo "case $name"
    node "$here/clients.mjs" "$peers" "http://127.0.0.1:$port/graphql" "$here/../cases" \
      --case "$name" --path gql || status=1
    kill "$pid"
    wait "$pid" 2>/dev/null || { echo "FAIL: gql serve for $name did not stop cleanly"; status=1; }
    pid=
    count=$((count + 1))
  done <"$work/cases.txt"
  [[ $count -ge 20 ]] || { echo "FAIL: only $count cases served"; status=1; }
  exit $status
fi
# each case's payloads, one compact JSON a line, for the replay server
python3 - "$here/../cases/exec" "$work" <<'PY'
import json, os, sys
src, dst = sys.argv[1:]
for name in os.listdir(src):
    c = json.load(open(os.path.join(src, name), encoding="utf-8"))
    for key, ext in (("payloads", "payloads"), ("legacyPayloads", "legacy")):
        with open(os.path.join(dst, "%s.%s" % (c["name"], ext)), "w") as f:
            for p in c[key]:
                f.write(json.dumps(p, separators=(",", ":"), ensure_ascii=False) + "\n")
PY
delay=${GQL_REPLAY_DELAY_MS:-40}
"$replay" "$work" 0 >"$work/port" &
pid=$!
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
port=$(awk '/^port/ {print $2}' "$work/port")
[[ -n $port ]] || { echo "FAIL: incremental_replay did not start"; exit 1; }
status=0
GQL_REPLAY_DELAY_MS= node "$here/clients.mjs" "$peers" "http://127.0.0.1:$port" "$here/../cases" || status=1
kill $pid; wait $pid 2>/dev/null || true
# flushing: the same server with a delay between payloads
"$replay" "$work" "$delay" >"$work/port" &
pid=$!
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
port=$(awk '/^port/ {print $2}' "$work/port")
GQL_REPLAY_DELAY_MS=$delay node "$here/clients.mjs" "$peers" "http://127.0.0.1:$port" \
  "$here/../cases" --case stream-async-items-out-of-order || status=1
exit $status
