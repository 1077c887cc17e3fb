"""Demand control (Router's demand_control, static_estimated) in gql serve
and gql gateway (issue 18, item 4), from outside over HTTP: refused before
execution with COST_ESTIMATED_TOO_EXPENSIVE and the estimate; the gateway
estimates on the supergraph's @cost / @listSize and asks no subgraph for a
refused operation.
Usage: test_demand_control.py GQL_BINARY REPO_ROOT"""
import os
import sys

from common import TMP, Gql, check, finish

gql, root = sys.argv[1], sys.argv[2]
data = os.path.join(root, "tests/persisted/data")
schema = os.path.join(data, "cost_schema.graphql")
rows = os.path.join(data, "cost_data.json")

# books: a list sized by `first` (assumed 5 without it); Book 1; author
# @cost(weight: 7): cost(books(first: n) { title }) = n * 1,
# cost(books(first: n) { author { name } }) = n * (1 + 7) = 8n.
EXPECT = [("{ cheap }", 0), ("{ books { title } }", 5),
          ("{ books(first: 100) { title } }", 100),
          ("{ books(first: 6) { author { name } } }", 48),
          ("{ books(first: 7) { author { name } } }", 56)]


def too_expensive(body, est, mx):
    return body == {"errors": [{
        "message": f"query estimated cost {est} exceeded configured maximum {mx}",
        "extensions": {"cost.estimated": est, "cost.max": mx,
                       "code": "COST_ESTIMATED_TOO_EXPENSIVE"}}]}


def run_checks(name, s, mx=50):
    for q, cost in EXPECT:
        st, body, _ = s.post({"query": q})
        if cost > mx:
            check(f"{name}: {q} refused at {cost}", st == 200 and
                  too_expensive(body, cost, mx), (st, body))
        else:
            check(f"{name}: {q} runs at {cost}", st == 200 and "data" in body
                  and "errors" not in body, (st, body))
    # a variable slicing argument, and graphql-response+json's 400
    vq = "query($n: Int) { books(first: $n) { author { name } } }"
    st, body, _ = s.post({"query": vq, "variables": {"n": 10}},
                         accept="application/graphql-response+json")
    check(f"{name}: variables, 400 with graphql-response+json",
          st == 400 and too_expensive(body, 80, mx), (st, body))
    st, body, _ = s.post({"query": vq, "variables": {"n": 2}})
    check(f"{name}: the same operation, cheap variables",
          st == 200 and "data" in body, (st, body))


s = Gql(gql, "serve", ["--schema", schema, "--data", rows,
                       "--demand-control-max", "50"])
run_checks("serve", s)
s.stop()

# the configuration file (Router's keys), and list_size for unsized lists
cfg = os.path.join(TMP, "dc.yaml")
with open(cfg, "w") as f:
    f.write("demand_control:\n  enabled: true\n  mode: enforce\n  strategy:\n"
            "    static_estimated:\n      max: 50\n      list_size: 10\n")
s = Gql(gql, "config", ["--schema", schema, "--data", rows, "--config", cfg])
run_checks("config", s)
s.stop()

# measure: estimated, never refused
with open(cfg, "w") as f:
    f.write("demand_control:\n  enabled: true\n  mode: measure\n  strategy:\n"
            "    static_estimated:\n      max: 50\n")
s = Gql(gql, "measure", ["--schema", schema, "--data", rows, "--config", cfg])
st, body, _ = s.post({"query": "{ books(first: 100) { title } }"})
check("measure: runs", st == 200 and "data" in body, body)
s.stop()
check("measure: says what enforce would refuse",
      "estimated cost 100 exceeds the maximum 50" in s.stderr(), s.stderr())

# off by default
s = Gql(gql, "off", ["--schema", schema, "--data", rows])
st, body, _ = s.post({"query": "{ books(first: 100) { title } }"})
check("off by default", "data" in body, body)
s.stop()

# ---- the gateway: weights from the supergraph, a real subgraph behind
sub = Gql(gql, "subgraph", ["--subgraph", "--schema",
                            os.path.join(data, "cost_subgraph.graphql"),
                            "--data", rows])
with open(os.path.join(data, "cost_supergraph.graphql")) as f:
    sup = f.read().replace("SUBGRAPH_URL", sub.url)
sp = os.path.join(TMP, "supergraph.graphql")
with open(sp, "w") as f:
    f.write(sup)
g = Gql(gql, "gateway", ["--supergraph", sp, "--demand-control-max", "50"],
        cmd="gateway")
run_checks("gateway", g)
g.stop()
sub.stop()

finish("test_demand_control")
