"""APQ and persisted documents in the request path of gql serve and gql
gateway (issue 18, item 2), tested from outside over HTTP.
Usage: test_apq.py GQL_BINARY REPO_ROOT"""
import json
import os
import sys

from common import (TMP, Gql, apq_ext, check, code, finish, sha)

gql, root = sys.argv[1], sys.argv[2]
Q = "{ hero { name } }"
H = sha(Q)
R2 = {"data": {"hero": {"name": "R2-D2"}}}

# ---- APQ off (the default): a hash alone is not understood, full works
s = Gql(gql, "off", [])
st, body, _ = s.post({"query": Q})
check("off: full query", (st, body) == (200, R2), body)
st, body, _ = s.get({"extensions": apq_ext(H)})
check("off: hash alone is a missing query", st == 400, (st, body))
s.stop()

# ---- --apq, one thread (the local store is per worker thread)
s = Gql(gql, "apq", ["--apq"], threads=1)
st, body, hd = s.get({"extensions": apq_ext(H)})
check("apq: GET hash unknown: 200 PERSISTED_QUERY_NOT_FOUND",
      st == 200 and code(body) == "PERSISTED_QUERY_NOT_FOUND" and
      body["errors"][0]["message"] == "PersistedQueryNotFound", (st, body))
check("apq: NOT_FOUND is not cached",
      hd.get("Cache-Control") == "private, no-cache, must-revalidate", hd)
st, body, _ = s.post({"extensions": apq_ext(H)})
check("apq: POST hash unknown", code(body) == "PERSISTED_QUERY_NOT_FOUND", body)
st, body, _ = s.post({"query": Q, "extensions": apq_ext(H)})
check("apq: register", (st, body) == (200, R2), (st, body))
st, body, hd = s.get({"extensions": apq_ext(H)})
check("apq: GET with only the hash runs it", (st, body) == (200, R2), (st, body))
st, body, _ = s.get({"extensions": apq_ext(H.upper())})
check("apq: an upper-case hash is the same", (st, body) == (200, R2), body)
st, body, _ = s.post({"query": "{ hero { id } }", "extensions": apq_ext(H)})
check("apq: hash mismatch 400", st == 400 and
      code(body) == "PERSISTED_QUERY_HASH_MISMATCH", (st, body))
st, body, _ = s.post({"extensions": apq_ext(H, version=2)})
check("apq: version 2", st == 400 and code(body) == "BAD_REQUEST" and
      "version" in body["errors"][0]["message"], (st, body))
st, body, _ = s.post({"extensions": apq_ext("abc")})
check("apq: not a sha256", st == 400 and code(body) == "BAD_REQUEST", body)
st, body, _ = s.post({"extensions": {"persistedQuery": "x"}})
check("apq: persistedQuery not an object", st == 400, body)
# a document that does not validate is not registered
bad = "{ hero { nope } }"
st, body, _ = s.post({"query": bad, "extensions": apq_ext(sha(bad))})
check("apq: invalid document", "errors" in body and "data" not in body, body)
st, body, _ = s.get({"extensions": apq_ext(sha(bad))})
check("apq: invalid document not registered",
      code(body) == "PERSISTED_QUERY_NOT_FOUND", body)
# variables and operationName still apply to a persisted document
QV = "query H($e: Episode) { hero(episode: $e) { name } }"
s.post({"query": QV, "extensions": apq_ext(sha(QV))})
st, body, _ = s.get({"extensions": apq_ext(sha(QV)), "variables": {"e": "EMPIRE"}})
check("apq: variables with the hash",
      body == {"data": {"hero": {"name": "Luke Skywalker"}}}, body)
# a mutation by hash over GET stays refused
M = "mutation { __typename }"
st, body, _ = s.get({"extensions": apq_ext(sha(M))})
check("apq: unknown mutation hash", code(body) == "PERSISTED_QUERY_NOT_FOUND",
      body)
# documentId names an APQ registration too (no manifest)
st, body, _ = s.get({"documentId": H})
check("apq: documentId = the hash", (st, body) == (200, R2), (st, body))
st, body, _ = s.post({"documentId": "nope"})
check("apq: unknown documentId", st == 404 and
      code(body) == "PERSISTED_QUERY_NOT_IN_LIST", (st, body))
# graphql-response+json: the statuses are Router's whatever the media type
st, body, _ = s.get({"extensions": apq_ext(sha("{ x }"))},
                    accept="application/graphql-response+json")
check("apq: NOT_FOUND 200 with graphql-response+json",
      st == 200 and code(body) == "PERSISTED_QUERY_NOT_FOUND", (st, body))
check("apq: clean stop", s.stop() == 0)

# ---- persisted documents: Apollo's manifest and a plain map
QA = "query Hero { hero { name } }"
QB = "query Droid($id: String!) { droid(id: $id) { name } }"
manifest = {"format": "apollo-persisted-query-manifest", "version": 1,
            "operations": [
                {"id": "hero-1", "name": "Hero", "type": "query", "body": QA},
                {"id": sha(QB), "name": "Droid", "type": "query", "body": QB}]}
mpath = os.path.join(TMP, "manifest.json")
with open(mpath, "w") as f:
    json.dump(manifest, f)
ppath = os.path.join(TMP, "plain.json")
with open(ppath, "w") as f:
    json.dump({"plain-1": "{ hero { id } }"}, f)

s = Gql(gql, "pq", ["--persisted-queries", mpath, "--persisted-queries", ppath])
st, body, _ = s.post({"documentId": "hero-1"})
check("pq: documentId from the manifest", (st, body) == (200, R2), body)
st, body, _ = s.get({"documentId": "plain-1"})
check("pq: documentId from the plain map (GET)",
      body == {"data": {"hero": {"id": "2001"}}}, body)
st, body, _ = s.post({"extensions": apq_ext(sha(QB)), "variables": {"id": "2000"}})
check("pq: the APQ hash as the id", body == {"data": {"droid": {"name": "C-3PO"}}},
      body)
st, body, hd = s.post({"documentId": "nope"})
check("pq: unknown id 404", st == 404 and
      code(body) == "PERSISTED_QUERY_NOT_IN_LIST" and
      body["errors"][0]["message"] ==
      "Persisted query 'nope' not found in the persisted query list",
      (st, body))
st, body, _ = s.post({"documentId": "hero-1", "query": QA})
check("pq: id and body 400", st == 400 and
      code(body) == "CANNOT_SEND_PQ_ID_AND_BODY", (st, body))
st, body, _ = s.post({"query": "{ hero { id } }"})
check("pq: freeform runs without the safelist", st == 200 and "data" in body,
      body)
s.stop()

s = Gql(gql, "safelist", ["--persisted-queries", mpath, "--safelist",
                          "--config", "/dev/null"])
st, body, _ = s.post({"query": "query Hero {\n  hero {\n    name  # c\n  }\n}"})
check("safelist: a listed body, other whitespace", (st, body) == (200, R2), body)
st, body, _ = s.post({"query": "{ hero { id } }"})
check("safelist: unlisted 403", st == 403 and
      code(body) == "QUERY_NOT_IN_SAFELIST", (st, body))
st, body, _ = s.post({"documentId": "hero-1"})
check("safelist: by id", (st, body) == (200, R2), body)
s.stop()

s = Gql(gql, "require_id", ["--persisted-queries", mpath,
                            "--safelist-require-id"])
st, body, _ = s.post({"query": QA})
check("require_id: freeform refused 400", st == 400 and
      code(body) == "PERSISTED_QUERY_ID_REQUIRED", (st, body))
st, body, _ = s.post({"documentId": "hero-1"})
check("require_id: by id", (st, body) == (200, R2), body)
s.stop()

# ---- the same from the configuration file (Router's keys)
cpath = os.path.join(TMP, "pq.yaml")
with open(cpath, "w") as f:
    f.write("persisted_queries:\n  enabled: true\n  log_unknown: true\n"
            "  local_manifests:\n    - manifest.json\n"
            "  safelist:\n    enabled: true\n    require_id: false\n")
s = Gql(gql, "config", ["--config", cpath])
st, body, _ = s.post({"documentId": "hero-1"})
check("config: manifest relative to the file", (st, body) == (200, R2), body)
st, body, _ = s.post({"query": "{ hero { id } }"})
check("config: safelist", st == 403, (st, body))
s.stop()
check("config: log_unknown logs the refusal",
      "QUERY_NOT_IN_SAFELIST" in s.stderr(), s.stderr())
apath = os.path.join(TMP, "apq.yaml")
with open(apath, "w") as f:
    f.write("apq:\n  enabled: true\n")
s = Gql(gql, "config_apq", ["--config", apath], threads=1)
st, body, _ = s.get({"extensions": apq_ext(H)})
check("config apq: NOT_FOUND", code(body) == "PERSISTED_QUERY_NOT_FOUND", body)
s.stop()

# ---- refusals at start
import subprocess
for name, args, want in [
        ("bad manifest", ["--persisted-queries", ppath + ".missing"], "cannot"),
        ("apq with safelist", ["--apq", "--safelist",
                               "--persisted-queries", mpath], "apq"),
        ("bad redis url", ["--apq", "--redis", "http://x"], "redis")]:
    p = subprocess.run([gql, "serve", "--port", "0"] + args,
                       capture_output=True, text=True, timeout=10)
    check(f"start refused: {name}", p.returncode != 0 and want in p.stderr,
          (p.returncode, p.stderr))
with open(os.path.join(TMP, "broken.json"), "w") as f:
    f.write('{"operations": 3}')
p = subprocess.run([gql, "serve", "--port", "0", "--persisted-queries",
                    os.path.join(TMP, "broken.json")],
                   capture_output=True, text=True, timeout=10)
check("start refused: manifest not a manifest",
      p.returncode != 0 and "broken.json" in p.stderr, p.stderr)

# ---- the gateway: the same path (answered without subgraphs)
sup = os.path.join(root, "tests/gateway/data/keys.graphql")
g = Gql(gql, "gateway", ["--supergraph", sup, "--apq"], cmd="gateway",
        threads=1)
T = "{ __typename }"
st, body, _ = g.get({"extensions": apq_ext(sha(T))})
check("gateway: NOT_FOUND", st == 200 and
      code(body) == "PERSISTED_QUERY_NOT_FOUND", (st, body))
st, body, _ = g.post({"query": T, "extensions": apq_ext(sha(T))})
check("gateway: register", body == {"data": {"__typename": "Query"}}, body)
st, body, _ = g.get({"extensions": apq_ext(sha(T))})
check("gateway: by hash", body == {"data": {"__typename": "Query"}}, body)
check("gateway: clean stop", g.stop() == 0)

finish("test_apq")
