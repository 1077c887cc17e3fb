#!/usr/bin/env bash
# gql gateway over federation shapes it was not tuned to: the suites of
# tests/gateway/shapes/suites.mjs (abstract types across subgraphs, keys of
# every kind and multi-hop key jumps, value types reached through parent
# entities, null keys, circular @requires, @provides on unions,
# @interfaceObject extended indirectly, @override, @skip/@include with
# variables, aliases on key fields, hidden enum values, errors inside
# _entities, introspection with subgraph fields). Real subgraphs: graphql-js
# over @apollo/subgraph (npm, installed into PEERS_DIR once), supergraphs
# composed by @apollo/composition. Each query must give the expected data
# (and errors when expected) with exactly the expected number of subgraph
# requests.
# Usage: test_gateway_shapes.sh GQL_BINARY PEERS_DIR
set -uo pipefail
gql=${1:?usage: test_gateway_shapes.sh GQL PEERS_DIR}
peers=${2:?usage: test_gateway_shapes.sh GQL PEERS_DIR}
mkdir -p "$peers" && peers=$(cd "$peers" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../gateway/common.sh"
source "$here/../gateway/npm_peers.sh"
npm_peers "$peers" || { echo "FAIL: the npm peers could not be installed"; exit 1; }

sub_port=$(free_port)
mkdir -p "$tmp/sg"
NODE_PATH=$peers/node_modules start_logged subgraphs node \
  "$here/../gateway/shapes/serve.mjs" "$sub_port" "$tmp/sg"
for _ in $(seq 400); do
  [[ -f $tmp/sg/ready ]] && break
  kill -0 "$pid_subgraphs" 2>/dev/null || break
  sleep 0.05
done
[[ -f $tmp/sg/ready ]] ||
  { fail "subgraphs: $(tail -c 2000 "$tmp/subgraphs.log")"; finish; }

while read -r suite; do
  gw_port=$(free_port)
  name=gw_${suite//-/_}
  start_logged "$name" "$gql" gateway --supergraph "$tmp/sg/$suite.graphql" \
    --host 127.0.0.1 --port "$gw_port" --threads 1
  if ! wait_http "http://127.0.0.1:$gw_port/health" "$name"; then
    continue
  fi
  out=$(python3 - "$gw_port" "$sub_port" "$tmp/sg/$suite.tests.json" "$suite" <<'PY'
import json, sys, urllib.request
gw, sub, tests, suite = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def http(url, body=None):
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read())
bad = 0
for i, t in enumerate(json.load(open(tests))):
    http(f"http://127.0.0.1:{sub}/reset", b"")
    body = {"query": t["query"]}
    if "variables" in t:
        body["variables"] = t["variables"]
    got = http(f"http://127.0.0.1:{gw}/graphql", json.dumps(body).encode())
    stats = http(f"http://127.0.0.1:{sub}/stats")
    fetches = sum(n for p, n in stats.items() if p.startswith(f"/{suite}/"))
    problems = []
    if got.get("data") != t["data"]:
        problems.append("data %s, want %s" % (json.dumps(got.get("data")), json.dumps(t["data"])))
    if bool(got.get("errors")) != bool(t.get("errors")):
        problems.append("errors %s" % json.dumps(got.get("errors")))
    paths = [e.get("path") for e in got.get("errors") or []]
    for want in t.get("errorPaths", []):
        if want not in paths:
            problems.append("no error at %s (errors at %s)" % (want, paths))
    if fetches != t["fetches"]:
        problems.append("%d subgraph requests, want %d" % (fetches, t["fetches"]))
    name = "%s #%d: %s" % (suite, i, " ".join(t["query"].split())[:90])
    if problems:
        bad += 1
        print("FAIL " + name + ": " + "; ".join(problems))
    else:
        print("ok " + name + " (%d subgraph requests)" % fetches)
sys.exit(1 if bad else 0)
PY
  )
  status=$?
  while IFS= read -r line; do
    case $line in
      ok\ *) pass "${line#ok }" ;;
      *) fail "${line#FAIL }" ;;
    esac
  done <<<"$out"
  [[ $status == 0 || -n $out ]] || fail "$suite: the checker failed"
  pidvar=pid_$name
  kill "${!pidvar}" 2>/dev/null
done <"$tmp/sg/ready"
finish
