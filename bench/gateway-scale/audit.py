#!/usr/bin/env python3
"""Subgraph fetches per query on the federation audit's suites: gql's plan
(`gql gateway --plan`) beside Apollo's and Hive's planners (audit.sh
installs and builds, then calls this).

For every suite in AUDIT/src/test-suites: the subgraph SDLs are read from
its *.subgraph.ts (the typeDefs template of createSubgraph) and composed with
@apollo/composition (compose.mjs, as the audit's own server composes them),
its queries from test.ts (the createTest templates). Each query is planned
by the three; the table gives the fetch counts and whether gql's is above
the best of the peers'. Exit status 0 only when gql is never above.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import run as bench  # run_peer

SUBGRAPH = re.compile(r'createSubgraph\(\s*"([^"]+)"\s*,\s*\{\s*typeDefs:\s*'
                      r'/\*\s*GraphQL\s*\*/\s*`(.*?)`', re.S)
TEST = re.compile(r'createTest\(\s*/\*\s*GraphQL\s*\*/\s*`(.*?)`', re.S)
IMPORT = re.compile(r'import (\w+) from "\./([\w.-]+)\.subgraph\.js"')


def extract(suite_dir, out, suite):
    """Writes out/subgraphs.json, out/subgraphs/*.graphql, out/queries/."""
    os.makedirs(os.path.join(out, "subgraphs"), exist_ok=True)
    os.makedirs(os.path.join(out, "queries"), exist_ok=True)
    index = open(os.path.join(suite_dir, "index.ts")).read()
    manifest = []
    for _, stem in IMPORT.findall(index):
        src = open(os.path.join(suite_dir, stem + ".subgraph.ts")).read()
        m = SUBGRAPH.search(src)
        if not m:
            sys.exit("audit.py: no typeDefs in %s/%s" % (suite, stem))
        name, sdl = m.group(1), m.group(2)
        path = os.path.join("subgraphs", name + ".graphql")
        open(os.path.join(out, path), "w").write(sdl)
        manifest.append({"name": name, "file": path,
                         "url": "http://127.0.0.1:4200/%s/%s" % (suite, name)})
    json.dump(manifest, open(os.path.join(out, "subgraphs.json"), "w"))
    tests = TEST.findall(open(os.path.join(suite_dir, "test.ts")).read())
    files = []
    for i, q in enumerate(tests):
        # template interpolations (mutations' request ids) as a constant
        q = re.sub(r"\$\{[^}]*\}", "r1", q)
        f = os.path.join(out, "queries", "%s_%d.graphql" % (suite, i))
        open(f, "w").write(q)
        files.append(f)
    return files


def gql_fetches(gql, supergraph, f):
    p = subprocess.run([gql, "gateway", "--supergraph", supergraph, "--plan",
                        f], capture_output=True, text=True)
    if p.returncode:
        msg = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])
        return None, msg[-1][:160]
    return len(re.findall(r"Fetch\(service:", p.stdout)), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gql", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--audit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", default="")
    ap.add_argument("suites", nargs="*")
    a = ap.parse_args()
    a.here = os.path.dirname(os.path.abspath(__file__))
    a.load_timeout, a.plan_timeout, a.max_restarts = 300, 60, 20
    root = os.path.join(a.audit, "src", "test-suites")
    suites = a.suites or sorted(os.listdir(root))
    lines = []
    say = lambda s="": (print(s), lines.append(s), sys.stdout.flush())
    say("| suite | test | gql | apollo | hive | best peer | gql vs best |")
    say("|---|---|---|---|---|---|---|")
    tally = {"below": 0, "equal": 0, "above": 0, "gql error": 0,
             "refused as invalid": 0, "all three refuse": 0, "n/a": 0}
    above = []
    env = dict(os.environ, PEERS=a.peers)
    for suite in suites:
        out = os.path.join(a.work, suite)
        files = extract(os.path.join(root, suite), out, suite)
        sg = os.path.join(out, "supergraph.graphql")
        c = subprocess.run(["node", os.path.join(a.here, "compose.mjs"), out],
                           env=env, capture_output=True, text=True)
        if c.returncode:
            say("| %s | - | composition failed: %s | | | | |" %
                (suite, c.stderr.strip().splitlines()[-1][:120]))
            continue
        a.supergraph = sg
        peers = {k: bench.run_peer(a, k, files, 1) for k in ("apollo", "hive")}
        for i, f in enumerate(files):
            g, gerr = gql_fetches(a.gql, sg, f)
            vals = {}
            cells = []
            for k in ("apollo", "hive"):
                q = peers[k]["queries"].get(f, {})
                if "fetches" in q:
                    vals[k] = q["fetches"]
                    cells.append(str(q["fetches"]))
                else:
                    cells.append("crash" if q.get("crash") else
                                 "error: " + q.get("error", "?")[:60])
            best = min(vals.values()) if vals else None
            if g is None and gerr.startswith('{"errors"') and \
                    "apollo" not in vals:
                verdict = "refused as invalid"  # validation, as Apollo's
            elif g is None and not vals:
                verdict = "all three refuse"
            elif g is None:
                verdict = "gql error"
            else:
                verdict = bench.compare(g, best)
            if verdict == "above":
                above.append("%s_%d" % (suite, i))
            tally[verdict] += 1
            say("| %s | %d | %s | %s | %s | %s |" % (
                suite, i, g if g is not None else "error: " + gerr[:80],
                " | ".join(cells), best if best is not None else "-",
                verdict))
    say()
    say("gql vs the best of Apollo and Hive: " + ", ".join(
        "%d %s" % (n, k) for k, n in tally.items()))
    if above:
        say("above the best: " + " ".join(above))
    if a.out:
        open(a.out, "w").write("\n".join(lines) + "\n")
    sys.exit(1 if above or tally["gql error"] else 0)


if __name__ == "__main__":
    main()
