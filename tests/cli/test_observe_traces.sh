#!/usr/bin/env bash
# Distributed traces through the gateway, end to end: a client with a W3C
# traceparent/tracestate -> gql gateway -> two gql serve --subgraph
# subgraphs, each process exporting OTLP/HTTP JSON to the collector
# stand-in (otlp_sink.py). Every span of a request must be in one trace
# (the client's), with the parents right: the gateway's request span under
# the client's span, its plan and fetch spans under the request span, and
# each subgraph's parse/validate/execute spans under the fetch span that
# called it (the traceparent the gateway sent); the tracestate passed on;
# the fetch spans saying subgraph, URL, status and bytes. A request without
# traceparent makes a new trace that the subgraphs join all the same.
# Usage: test_observe_traces.sh GQL_BINARY
set -uo pipefail
gql=${1:?usage: test_observe_traces.sh GQL_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

python3 "$here/otlp_sink.py" "$tmp/sink.port" "$tmp/sink.jsonl" --lifetime 120 &
pids+=($!)
for _ in $(seq 100); do [[ -s $tmp/sink.port ]] && break; sleep 0.05; done
sink="http://127.0.0.1:$(cat "$tmp/sink.port")/v1/traces"

products_subgraphs
threads=1
serve sub_a --subgraph --schema "$tmp/a.graphql" --data "$tmp/a.json" \
  --trace-otlp "$sink" --trace-service sub-a || exit 1
pa=$port pid_a=$pid
serve sub_b --subgraph --schema "$tmp/b.graphql" --data "$tmp/b.json" \
  --trace-otlp "$sink" --trace-service sub-b || exit 1
pb=$port pid_b=$pid
products_supergraph "$pa" "$pb"
gp=$(free_port)
"$gql" gateway --supergraph "$tmp/sg.graphql" --port "$gp" --threads 1 \
  --trace-otlp "$sink" --trace-service gw >"$tmp/gw.out" 2>"$tmp/gw.err" &
pid_gw=$!
pids+=($pid_gw)
for _ in $(seq 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gp/ready") == 200 ]] && break
  sleep 0.1
done

tid=4bf92f3577b34da6a3ce929d0e0e4736
parent=00f067aa0ba902b7
want='{"data":{"topProducts":[{"name":"Table","price":100},{"name":"Couch","price":250}]}}'
got=$(curl -s -H 'content-type: application/json' \
  -H "traceparent: 00-$tid-$parent-01" -H 'tracestate: congo=t61rcWkgMzE' \
  --data-binary '{"query":"query Top { topProducts { name price } }","operationName":"Top"}' \
  "http://127.0.0.1:$gp/graphql")
[[ $got == "$want" ]] && ok || fail "traced answer: $got"
got=$(curl -s -H 'content-type: application/json' \
  --data-binary '{"query":"query Fresh { topProducts { name price } }","operationName":"Fresh"}' \
  "http://127.0.0.1:$gp/graphql")
[[ $got == "$want" ]] && ok || fail "untraced answer: $got"
# the gateway first (its spans are queued as its responses are written),
# then the subgraphs: each flushes its queue at SIGTERM
for p in "$pid_gw" "$pid_a" "$pid_b"; do kill -TERM "$p"; wait "$p" 2>/dev/null; done

python3 - "$tmp/sink.jsonl" "$tid" "$parent" "$pa" "$pb" <<'PY' && ok || fail "spans: see above"
import json, re, sys
path, tid, parent, pa, pb = sys.argv[1:]
HEX16, HEX32 = re.compile(r"^[0-9a-f]{16}$"), re.compile(r"^[0-9a-f]{32}$")
spans = []
for line in open(path):
    assert not line.startswith("BAD"), line
    batch = json.loads(line)
    for rs in batch["resourceSpans"]:
        attrs = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}
        svc = attrs["service.name"]["stringValue"]
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                assert HEX32.match(s["traceId"]) and HEX16.match(s["spanId"]), s
                assert "parentSpanId" not in s or HEX16.match(s["parentSpanId"]), s
                assert int(s["endTimeUnixNano"]) >= int(s["startTimeUnixNano"]) > 0, s
                s["svc"] = svc
                s["attrs"] = {a["key"]: list(a["value"].values())[0] for a in s.get("attributes", [])}
                spans.append(s)
by_id = {s["spanId"]: s for s in spans}
def check(trace, remote):
    t = [s for s in spans if s["traceId"] == trace]
    names = sorted((s["svc"], s["name"]) for s in t)
    gw = {s["name"]: s for s in t if s["svc"] == "gw"}
    for n in ("gateway.request", "gateway.plan"):
        assert n in gw, names
    req = gw["gateway.request"]
    assert req["kind"] == 2, req
    if remote:
        assert req.get("parentSpanId") == parent, req
        assert all(s.get("traceState") == "congo=t61rcWkgMzE" for s in t), t
    else:
        assert "parentSpanId" not in req, req
    assert gw["gateway.plan"]["parentSpanId"] == req["spanId"], gw["gateway.plan"]
    fetches = [s for s in t if s["svc"] == "gw" and s["name"] == "gateway.fetch"]
    assert sorted(f["attrs"]["subgraph.name"] for f in fetches) == ["a", "b"], fetches
    for f in fetches:
        assert f["kind"] == 3 and f["parentSpanId"] == req["spanId"], f
        port = pa if f["attrs"]["subgraph.name"] == "a" else pb
        assert f["attrs"]["url.full"] == f"http://127.0.0.1:{port}/graphql", f
        assert f["attrs"]["http.response.status_code"] == "200", f
        assert int(f["attrs"]["http.response.body.size"]) > 10, f
        # the subgraph's top spans (parse, validate, execute) under this fetch
        sub = "sub-" + f["attrs"]["subgraph.name"]
        top = [s for s in t if s["svc"] == sub and s.get("parentSpanId") not in
               {x["spanId"] for x in t if x["svc"] == sub}]
        # (the execute span is named after the operation type, as dd-trace's;
        # parse and validate only while the subgraph had not cached the
        # document: the first request)
        want = [("graphql.parse", 1), ("graphql.validate", 1), ("query", 2)]
        assert sorted((s["name"], s["kind"]) for s in top) == (
            want if remote else want[2:]), (sub, top)
        assert all(s["parentSpanId"] == f["spanId"] for s in top), top
        assert any(s["name"] == "graphql.resolve" for s in t if s["svc"] == sub), sub
    # nothing of this request outside the trace: every parent is in it
    for s in t:
        p = s.get("parentSpanId")
        assert p is None or p in by_id or (remote and p == parent), s
    return t
traced = check(tid, True)
others = {s["traceId"] for s in spans if s["traceId"] != tid}
fresh = [tr for tr in others if any(s["name"] == "gateway.request" for s in spans if s["traceId"] == tr)]
assert len(fresh) == 1, others
check(fresh[0], False)
print("spans: %d in the traced request" % len(traced))
PY

echo "observe traces: $passed passed, $failures failed"
[[ $failures == 0 ]]
