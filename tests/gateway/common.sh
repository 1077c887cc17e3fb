# Shared by the gateway's end-to-end scripts (tests/cli/test_gateway_*.sh):
# free ports, servers started and stopped by pid, byte-exact answers and
# the subgraph servers' request counts. Sourced, not run.
tmp=$(mktemp -d)
server_pids=()
failures=0
passed=0

cleanup() {
  for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${server_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
pass() {
  echo "ok: $*"
  passed=$((passed + 1))
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_logged NAME CMD...: runs CMD in the background, output in $tmp/NAME.log
start_logged() {
  local name=$1
  shift
  "$@" >"$tmp/$name.log" 2>&1 &
  server_pids+=($!)
  eval "pid_$name=$!"
}

# wait_http URL NAME: until GET URL answers 2xx (20 s), or NAME's process ends
wait_http() {
  local url=$1 name=$2 pidvar="pid_$2"
  for _ in $(seq 400); do
    curl -sf -m 2 "$url" >/dev/null 2>&1 && return 0
    if ! kill -0 "${!pidvar}" 2>/dev/null; then
      fail "$name exited before answering $url: $(tail -c 2000 "$tmp/$name.log")"
      return 1
    fi
    sleep 0.05
  done
  fail "$name did not answer $url within 20 s: $(tail -c 2000 "$tmp/$name.log")"
  return 1
}

# rewrite_supergraph FILE PORT: the supergraph with its subgraph URLs on PORT
rewrite_supergraph() {
  sed "s#http://127.0.0.1:4200/#http://127.0.0.1:$2/#g; s#http://0.0.0.0:4200/#http://127.0.0.1:$2/#g" "$1"
}

# post_request URL BODY_FILE OUT: POSTs BODY_FILE; the status goes to OUT.status
post_request() {
  curl -s -m 30 -o "$3" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "@$2" "$1" >"$3.status" 2>/dev/null || true
}

# expect_exact NAME GOT WANT: status 200 and GOT byte-identical to WANT
expect_exact() {
  local name=$1 got=$2 want=$3 status
  status=$(cat "$got.status" 2>/dev/null)
  if [[ $status != 200 ]]; then
    fail "$name: status '$status', want 200: $(head -c 400 "$got" 2>/dev/null)"
  elif cmp -s "$got" "$want"; then
    pass "$name: status 200, $(wc -c <"$got") bytes, identical to $(basename "$want")"
  else
    fail "$name: $(cmp "$got" "$want" 2>&1 | head -1); got $(wc -c <"$got") bytes, want $(wc -c <"$want"): ...$(head -c 300 "$got")"
  fi
}

# expect_counts NAME STATS_FILE N PER_REQUEST: the subgraph server's counts
# (GET /stats of bench_subgraphs or of peers/subgraphs.js with LOG_BODIES)
# are N times PER_REQUEST, a JSON object path -> [requests, representations]
# (representations null: not checked).
expect_counts() {
  local out
  if out=$(python3 - "$2" "$3" "$4" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
want = json.loads(sys.argv[3])
def reps_in(body):
    try:
        variables = json.loads(body).get("variables") or {}
    except ValueError:
        return 0
    return sum(len(v) for v in variables.values() if isinstance(v, list))
got = {}
for path in want:
    e = stats.get(path) or {}
    r = e.get("representations")
    if r is None and "bodies" in stats:  # the JS peer logs the bodies instead
        r = sum(reps_in(b.split(" ", 1)[1]) for b in stats["bodies"]
                if b.split(" ", 1)[0] == path)
    got[path] = [e.get("requests", 0), r]
extra = {p: e for p, e in stats.items()
         if p.startswith("/") and p not in want and e.get("requests")}
bad = extra or any(got[p][0] != n * w[0] or (w[1] is not None and
                   got[p][1] != n * w[1]) for p, w in want.items())
total = sum(g[0] for g in got.values())
print("%d subgraph requests for %d client requests; [requests, representations] "
      "per path: %s%s" % (total, n, json.dumps(got),
                          "; unexpected paths %s" % extra if extra else ""))
sys.exit(1 if bad else 0)
PY
  ); then
    pass "$1: $out"
  else
    fail "$1: $out (want $3 x $4)"
  fi
}

finish() {
  echo "$passed passed, $failures failed"
  [[ $failures -eq 0 ]]
  exit $?
}
