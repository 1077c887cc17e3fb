#!/usr/bin/env bash
# @defer through gql gateway, from the outside: two `gql serve --subgraph`
# subgraphs (products_subgraphs: names in a, prices in b) with b behind a
# proxy that holds each request 1.5 s. `gql gateway --plan` shows the
# deferred part; over HTTP (multipart/mixed, read by a Python reader and by
# the npm client meros) the initial payload lacks the deferred fields and
# announces them, arrives well before the slow subgraph's answer, and the
# payloads merged (tests/incremental/merge.py) equal the answer to the same
# operation without @defer. A client that accepts neither multipart nor
# event streams gets graphql-http's 406 refusal.
# Usage: test_defer_gateway.sh GQL_BINARY SOURCE_DIR
gql=${1:?usage: test_defer_gateway.sh GQL_BINARY SOURCE_DIR}
root=${2:?usage: test_defer_gateway.sh GQL_BINARY SOURCE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
expect() { [[ $2 == "$3" ]] && ok || fail "$1: got [$2] want [$3]"; }

products_subgraphs
# a resolves its products by key too (the deferred names are asked again)
echo '{"topProducts": [{"upc": "1", "name": "Table"}, {"upc": "2", "name": "Couch"}],
 "Product": [{"upc": "1", "name": "Table"}, {"upc": "2", "name": "Couch"}]}' >"$tmp/a.json"
threads=1 serve sub_a --subgraph --schema "$tmp/a.graphql" --data "$tmp/a.json" || exit 1
pa=$port
threads=1 serve sub_b --subgraph --schema "$tmp/b.graphql" --data "$tmp/b.json" || exit 1
pb=$port

# the slow proxy in front of b
cat >"$tmp/slow.py" <<'PY'
import http.client, http.server, sys, time
target, port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        if b"_entities" in body:  # not the gateway's readiness probes
            with open(sys.argv[4], "a") as log:
                log.write("%.3f\n" % time.time())
        time.sleep(delay)
        c = http.client.HTTPConnection("127.0.0.1", target)
        c.request("POST", self.path, body, {"content-type": "application/json"})
        r = c.getresponse()
        data = r.read()
        self.send_response(r.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
pslow=$(free_port)
python3 "$tmp/slow.py" "$pb" "$pslow" 1.5 "$tmp/slow.log" >"$tmp/slow.out" 2>&1 &
pids+=($!)
products_supergraph "$pa" "$pslow"

# ---- the plan: name from a first; price from b after the initial payload;
# a deferred field of a asked again by an entity fetch of a
cat >"$tmp/q.graphql" <<'Q'
{ topProducts { name ... @defer(label: "price") { price } } }
Q
"$gql" gateway --supergraph "$tmp/sg.graphql" --plan "$tmp/q.graphql" >"$tmp/plan.txt" 2>&1
python3 - "$tmp/plan.txt" <<'PY' && ok || fail "plan: $(cat "$tmp/plan.txt")"
import sys
t = open(sys.argv[1]).read()
primary, _, rest = t.partition("], Deferred {")
assert "Defer {" in primary and "Primary {" in primary, t
assert 'Fetch(service: "a")' in primary and "price" not in primary.split("[")[0], t
assert 'Deferred(id: 0, at: "topProducts", label: "price")' in primary, t
assert 'Fetch(service: "b")' in rest and "{ ... on Product { price } }" in rest, t
PY
cat >"$tmp/q2.graphql" <<'Q'
{ topProducts { upc ... @defer { name } } }
Q
"$gql" gateway --supergraph "$tmp/sg.graphql" --plan "$tmp/q2.graphql" >"$tmp/plan2.txt" 2>&1
python3 - "$tmp/plan2.txt" <<'PY' && ok || fail "plan, same subgraph: $(cat "$tmp/plan2.txt")"
import sys
t = open(sys.argv[1]).read()
primary, _, rest = t.partition("], Deferred {")
assert "{ topProducts { upc __typename } }" in primary, t
assert 'Fetch(service: "a")' in rest and "{ ... on Product { name } }" in rest, t
PY
printf '{ topProducts { name price } }\n' >"$tmp/q0.graphql"
"$gql" gateway --supergraph "$tmp/sg.graphql" --plan "$tmp/q0.graphql" >"$tmp/plan0.txt" 2>&1
grep -q "Defer" "$tmp/plan0.txt" && fail "a plan without @defer: $(cat "$tmp/plan0.txt")" || ok

# ---- over HTTP
gp=$(free_port)
"$gql" gateway --supergraph "$tmp/sg.graphql" --port "$gp" --threads 1 >"$tmp/gw.out" 2>"$tmp/gw.err" &
pids+=($!)
for _ in $(seq 200); do grep -q ' on http://' "$tmp/gw.out" && break; sleep 0.05; done

# reads a multipart/mixed response part by part with the time each part
# arrived (seconds after the request); prints {"status", "type", "parts":
# [[t, payload]...]}
cat >"$tmp/read.py" <<'PY'
import http.client, json, sys, time
port, query, accept = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
t0 = time.time()
c.request("POST", "/graphql", json.dumps({"query": query}),
          {"content-type": "application/json", "accept": accept})
r = c.getresponse()
buf, parts, seen = b"", [], 0
while True:
    chunk = r.read1(65536)
    if not chunk:
        break
    buf += chunk
    segs = buf.split(b"\r\n---")
    for s in segs[1:-1][seen:]:  # a part is whole once the next delimiter came
        head, _, body = s.partition(b"\r\n\r\n")
        parts.append([time.time() - t0, json.loads(body)])
        seen += 1
if "multipart" not in (r.getheader("content-type") or ""):
    parts = [[time.time() - t0, json.loads(buf)]]
print(json.dumps({"t0": t0, "status": r.status, "type": r.getheader("content-type"),
                  "parts": parts}))
PY
q='{ topProducts { name ... @defer(label: "price") { price } } }'
python3 "$tmp/read.py" "$gp" "$q" "multipart/mixed" >"$tmp/deferred.json" 2>"$tmp/read.err" ||
  fail "reader: $(cat "$tmp/read.err")"
python3 "$tmp/read.py" "$gp" '{ topProducts { name price } }' "application/json" >"$tmp/plain.json"
python3 - "$tmp/deferred.json" "$tmp/plain.json" "$root/tests/incremental" <<'PY' && ok ||
import json, sys
sys.path.insert(0, sys.argv[3])
from merge import merge
got = json.load(open(sys.argv[1]))
plain = json.load(open(sys.argv[2]))["parts"][0][1]
assert got["status"] == 200 and got["type"].startswith("multipart/mixed"), got
times = [p[0] for p in got["parts"]]
payloads = [p[1] for p in got["parts"]]
first = payloads[0]
assert first["data"] == {"topProducts": [{"name": "Table"}, {"name": "Couch"}]}, first
assert first["hasNext"] is True, first
assert first["pending"] == [
    {"id": "0", "path": ["topProducts", 0], "label": "price"},
    {"id": "1", "path": ["topProducts", 1], "label": "price"}], first
assert payloads[-1]["hasNext"] is False, payloads
# the initial payload before the slow subgraph's answer (1.5 s), the
# last after it
assert times[0] < 1.0, times
assert times[-1] - times[0] >= 1.2, times
assert merge(payloads) == plain, (merge(payloads), plain)
PY
  fail "deferred over multipart: $(cat "$tmp/deferred.json")"
# the slow subgraph was asked after the initial payload went out
python3 - "$tmp/deferred.json" "$tmp/slow.log" <<'PY' && ok || fail "when b was asked"
import json, sys
got = json.load(open(sys.argv[1]))
log = [float(l) for l in open(sys.argv[2])]
assert len(log) == 2, log  # the deferred request, then the plain one
assert log[0] >= got["t0"] + got["parts"][0][0] - 0.05, (log, got)
PY

# nested defers, a same-subgraph defer and a defer at the root in one
q='{ ... @defer(label: "root") { topProducts { upc } } topProducts { upc ... @defer(label: "n") { name ... @defer(label: "p") { price } } } }'
python3 "$tmp/read.py" "$gp" "$q" "multipart/mixed" >"$tmp/nested.json"
python3 "$tmp/read.py" "$gp" '{ topProducts { upc name price } }' "application/json" >"$tmp/plain2.json"
python3 - "$tmp/nested.json" "$tmp/plain2.json" "$root/tests/incremental" <<'PY' && ok ||
import json, sys
sys.path.insert(0, sys.argv[3])
from merge import merge
got = json.load(open(sys.argv[1]))
plain = json.load(open(sys.argv[2]))["parts"][0][1]
payloads = [p[1] for p in got["parts"]]
assert payloads[0]["data"] == {"topProducts": [{"upc": "1"}, {"upc": "2"}]}, payloads
labels = sorted(p.get("label") for x in payloads for p in x.get("pending", []))
assert labels == ["n", "n", "p", "p", "root"], labels
assert merge(payloads) == plain, (merge(payloads), plain)
PY
  fail "nested defers: $(cat "$tmp/nested.json")"
# the same in Apollo's deferSpec=20220824 (Router's clients): full paths
# and labels, no pending or ids, the same merged result
python3 "$tmp/read.py" "$gp" "$q" "multipart/mixed;deferSpec=20220824, application/json" \
  >"$tmp/legacy.json"
python3 - "$tmp/legacy.json" "$tmp/plain2.json" "$root/tests/incremental" <<'PY' && ok ||
import json, sys
sys.path.insert(0, sys.argv[3])
from merge import merge_legacy
got = json.load(open(sys.argv[1]))
plain = json.load(open(sys.argv[2]))["parts"][0][1]
payloads = [p[1] for p in got["parts"]]
assert payloads[0] == {"data": {"topProducts": [{"upc": "1"}, {"upc": "2"}]},
                       "hasNext": True}, payloads
assert got["type"].endswith("deferSpec=20220824"), got["type"]
entries = [e for x in payloads[1:] for e in x.get("incremental", [])]
assert not any("pending" in x or "completed" in x for x in payloads), payloads
# (the root fragment adds no field to the initial payload: no entry, as
# tests/incremental/legacy_branching.json says of such fragments)
assert sorted(e.get("label") for e in entries) == ["n", "n", "p", "p"], entries
assert all("id" not in e and isinstance(e["path"], list) for e in entries), entries
assert merge_legacy(payloads) == plain, (merge_legacy(payloads), plain)
PY
  fail "deferSpec=20220824: $(cat "$tmp/legacy.json")"

# meros (npm) reads the same response
peers=${GQL_DEFER_PEERS:-$tmp/peers}
mkdir -p "$peers"
if [[ ! -d $peers/node_modules/meros ]]; then
  (cd "$peers" && { [[ -f package.json ]] || echo '{"private":true}' >package.json; } &&
    npm install --no-audit --no-fund --loglevel=error meros@1 >"$tmp/npm.log" 2>&1) ||
    fail "npm install meros: $(tail -5 "$tmp/npm.log")"
fi
cat >"$tmp/meros.cjs" <<'JS'
const http = require('node:http');
const {meros} = require(process.argv[2] + '/node_modules/meros/node');
const body = JSON.stringify({query: process.argv[4]});
const req = http.request({host: '127.0.0.1', port: +process.argv[3], path: '/graphql',
  method: 'POST', headers: {'content-type': 'application/json',
  accept: 'multipart/mixed', 'content-length': Buffer.byteLength(body)}}, async (res) => {
  const parts = await meros(res);
  const out = [];
  for await (const part of parts) out.push(part.json ? part.body : {notJson: String(part.body)});
  console.log(JSON.stringify(out));
});
req.end(body);
JS
q='{ topProducts { name ... @defer(label: "price") { price } } }'
timeout 30 node "$tmp/meros.cjs" "$peers" "$gp" "$q" >"$tmp/meros.json" 2>"$tmp/meros.err" ||
  fail "meros: $(cat "$tmp/meros.err")"
python3 - "$tmp/meros.json" "$tmp/plain.json" "$root/tests/incremental" <<'PY' && ok ||
import json, sys
sys.path.insert(0, sys.argv[3])
from merge import merge
payloads = json.load(open(sys.argv[1]))
plain = json.load(open(sys.argv[2]))["parts"][0][1]
assert len(payloads) == 2 and payloads[0]["hasNext"] is True, payloads
assert merge(payloads) == plain, (merge(payloads), plain)
PY
  fail "meros payloads: $(cat "$tmp/meros.json")"

# neither multipart nor an event stream: refused, nothing asked of b
python3 "$tmp/read.py" "$gp" "$q" "application/json" >"$tmp/refused.json"
python3 - "$tmp/refused.json" <<'PY' && ok || fail "refusal: $(cat "$tmp/refused.json")"
import json, sys
got = json.load(open(sys.argv[1]))
assert got["status"] == 406, got
assert "multipart/mixed" in got["parts"][0][1]["errors"][0]["message"], got
PY
# a client that goes away after the initial payload: the gateway stops
# that request and goes on serving
python3 - "$gp" <<'PY' && ok || fail "client gone after the initial payload"
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("POST", "/graphql", json.dumps({"query": "{ topProducts { name ... @defer { price } } }"}),
          {"content-type": "application/json", "accept": "multipart/mixed"})
r = c.getresponse()
assert b"pending" in r.read1(65536)
c.sock.close()
PY
sleep 2
python3 "$tmp/read.py" "$gp" '{ topProducts { name } }' "application/json" >"$tmp/after.json"
grep -q '"Couch"' "$tmp/after.json" && ok || fail "after a client went away: $(cat "$tmp/after.json")"
kill -0 "${pids[-1]}" 2>/dev/null && ok || fail "the gateway exited: $(tail -5 "$tmp/gw.err")"

# graphql-js 17's rules hold for @defer
python3 "$tmp/read.py" "$gp" '{ topProducts { ... @defer(label: "x") { name } ... @defer(label: "x") { price } } }' \
  "multipart/mixed" >"$tmp/labels.json"
grep -q 'must be unique across all Defer/Stream directive usages' "$tmp/labels.json" && ok ||
  fail "duplicate labels: $(cat "$tmp/labels.json")"
# @stream is not the gateway's (as Apollo Router)
python3 "$tmp/read.py" "$gp" '{ topProducts @stream { name } }' "multipart/mixed" >"$tmp/stream.json"
grep -q 'Unknown directive \\"@stream\\"' "$tmp/stream.json" && ok ||
  fail "@stream: $(cat "$tmp/stream.json")"

echo "$passed passed, $failures failed"
[[ $failures == 0 ]]
