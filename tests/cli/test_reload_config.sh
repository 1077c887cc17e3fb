#!/usr/bin/env bash
# Hot reload of the whole configuration (issue 16, item 5): after a change
# to the --config file (SIGHUP or the file watch) new requests get the new
# CORS origins, demand-control limits and authentication; a rotated JWKS
# file alone reloads the verifier (new-key token passes, removed-key token
# 401); a configuration that does not load is reported with
# FILE:LINE:COLUMN and the old one keeps serving; a setting that needs a
# restart says so; the log level, the HTTP limits and the timeouts apply
# at once. gql gateway: a changed header rule reaches the subgraph
# (tests/gateway/echo_subgraph.py echoes what it got), and /ready follows
# the current supergraph's subgraphs.
# Usage: test_reload_config.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_reload_config.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_reload_config.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# wait_log FILE PATTERN: polls up to 5 s until FILE has a line matching
wait_log() {
  for _ in $(seq 100); do
    grep -q -- "$2" "$1" && return 0
    sleep 0.05
  done
  return 1
}
# until_ok SECONDS CMD...: polls CMD every 50 ms until it succeeds
until_ok() {
  local n=$(($1 * 20))
  shift
  for _ in $(seq "$n"); do
    "$@" && return 0
    sleep 0.05
  done
  return 1
}

# ---- keys (two RSA keys: the set is rotated from k1 to k2) and tokens
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/k1.pem" 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/k2.pem" 2>/dev/null
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
jwk() { # jwk KID PEM: the public key as a JWK
  local n
  n=$(openssl rsa -in "$2" -noout -modulus 2>/dev/null | cut -d= -f2 | xxd -r -p | b64url)
  printf '{"kty":"RSA","kid":"%s","alg":"RS256","use":"sig","n":"%s","e":"AQAB"}' "$1" "$n"
}
token() { # token KID PEM: an RS256 token for issuer https://issuer.example
  local h p
  h=$(printf '{"alg":"RS256","kid":"%s","typ":"JWT"}' "$1" | b64url)
  p=$(printf '{"sub":"alice","iss":"https://issuer.example","exp":%d}' $(($(date +%s) + 600)) | b64url)
  printf '%s.%s.%s' "$h" "$p" "$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -sign "$2" -binary | b64url)"
}
mkdir -p "$tmp/keys"
echo "{\"keys\":[$(jwk k1 "$tmp/k1.pem")]}" >"$tmp/keys/jwks.json"
t1=$(token k1 "$tmp/k1.pem")
t2=$(token k2 "$tmp/k2.pem")

# ---- gql serve with a configuration file
mkdir -p "$tmp/s"
cat >"$tmp/s/schema.graphql" <<'SDL'
type Query { hello: String items: [Item] }
type Item { a: Int b: Int }
SDL
echo '{"hello":"world","items":[{"a":1,"b":2}]}' >"$tmp/s/data.json"
# cfg ORIGIN MAX [EXTRA]: the file, with CORS for ORIGIN and demand control
# refusing operations estimated over MAX
cfg() {
  cat >"$tmp/s/gql.yaml.new" <<YAML
serve:
  schema: schema.graphql
  data: data.json
cors:
  origins: [$1]
  allow_headers: [content-type, authorization]
authentication:
  router:
    jwt:
      jwks:
        - url: file://../keys/jwks.json
          issuers: [https://issuer.example]
demand_control:
  enabled: true
  mode: enforce
  strategy:
    static_estimated:
      max: $2
      list_size: 10
${3:-}
YAML
  mv "$tmp/s/gql.yaml.new" "$tmp/s/gql.yaml" # as deploys do
}
preflight() { # preflight ORIGIN: the allowed origin answered ("" if none)
  curl -s -o /dev/null -D - -X OPTIONS "http://127.0.0.1:$port/graphql" \
    -H "origin: $1" -H 'access-control-request-method: POST' |
    tr -d '\r' | sed -n 's/^access-control-allow-origin: //Ip'
}
status_with() { # status_with TOKEN QUERY: the HTTP status of the request
  curl -s -o "$tmp/body" -w '%{http_code}' "http://127.0.0.1:$port/graphql" \
    -H 'content-type: application/json' -H "authorization: Bearer $1" \
    -d "{\"query\":\"$2\"}"
}
costly() { # costly: the answer to an operation estimated at 21 ({items {a}})
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
    -d '{"query":"{items {a}}"}'
}
origin_is() { [[ $(preflight "$1") == "$2" ]]; }
token_gets() { [[ $(status_with "$1" '{hello}') == "$2" ]]; }
refused() { [[ $(costly) == *COST_ESTIMATED_TOO_EXPENSIVE* ]]; }
admitted() { [[ $(costly) == '{"data":{"items":[{"a":1}]}}' ]]; }

cfg https://a.example 1000
if serve s --log-level info --config "$tmp/s/gql.yaml"; then
  [[ $(preflight https://a.example) == https://a.example ]] && ok || fail "cors: first: '$(preflight https://a.example)'"
  [[ -z $(preflight https://b.example) ]] && ok || fail "cors: b allowed before the change"
  admitted && ok || fail "demand control: refused under max 1000: $(costly)"
  token_gets "$t1" 200 && ok || fail "jwt: k1 token before the rotation: $(cat "$tmp/body")"
  token_gets "$t2" 401 && ok || fail "jwt: k2 token before the rotation: $(cat "$tmp/body")"

  # CORS origins and the demand-control maximum change; SIGHUP
  cfg https://b.example 5
  kill -HUP "$pid"
  until_ok 5 origin_is https://b.example https://b.example && ok ||
    fail "cors: b not allowed after the reload: $(cat "$tmp/s.err")"
  [[ -z $(preflight https://a.example) ]] && ok || fail "cors: a still allowed after the reload"
  refused && ok || fail "demand control: max 5 not enforced: $(costly)"
  [[ $(curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
    -d '{"query":"{hello}"}') == '{"data":{"hello":"world"}}' ]] && ok || fail "demand control: a cheap operation refused"

  # the key set is rotated: only the file changes (its watch reloads)
  echo "{\"keys\":[$(jwk k2 "$tmp/k2.pem")]}" >"$tmp/keys/jwks.json.new"
  mv "$tmp/keys/jwks.json.new" "$tmp/keys/jwks.json"
  until_ok 5 token_gets "$t2" 200 && ok || fail "jwt: k2 token refused after the rotation: $(cat "$tmp/body") $(cat "$tmp/s.err")"
  token_gets "$t1" 401 && ok || fail "jwt: the removed key's token still passes: $(cat "$tmp/body")"
  grep -q 'reload (file changed)' "$tmp/s.err" && ok || fail "jwt: the rotation was not the file watch's: $(cat "$tmp/s.err")"

  # a configuration that does not load: FILE:LINE:COLUMN, the old serves
  cfg https://c.example 1000 'limits:
  max_depth: deep'
  kill -HUP "$pid"
  wait_log "$tmp/s.err" 'gql.yaml:21:14: ' && ok || fail "bad config: no FILE:LINE:COLUMN: $(cat "$tmp/s.err")"
  wait_log "$tmp/s.err" 'reload (SIGHUP) failed: still serving' && ok || fail "bad config: no failed-reload line"
  [[ $(preflight https://b.example) == https://b.example && -z $(preflight https://c.example) ]] && ok ||
    fail "bad config: CORS changed"
  refused && ok || fail "bad config: the demand-control limit was lost: $(costly)"
  token_gets "$t2" 200 && ok || fail "bad config: k2 token refused"

  # a key set that does not load fails the reload too
  echo '{"keys":[{"kty":"RSA"' >"$tmp/keys/jwks.json"
  cfg https://c.example 1000
  kill -HUP "$pid"
  wait_log "$tmp/s.err" 'gql.yaml:[0-9]*:[0-9]*: .*jwks.json' && ok || fail "bad jwks: not reported: $(cat "$tmp/s.err")"
  token_gets "$t2" 200 && ok || fail "bad jwks: the old verifier is gone: $(cat "$tmp/body")"
  [[ -z $(preflight https://c.example) ]] && ok || fail "bad jwks: the rest of the file was applied"

  # a setting that needs a restart says so, the rest applies
  echo "{\"keys\":[$(jwk k2 "$tmp/k2.pem")]}" >"$tmp/keys/jwks.json"
  cfg https://d.example 1000 'supergraph:
  path: /api
server:
  max_connections: 500'
  kill -HUP "$pid"
  until_ok 5 origin_is https://d.example https://d.example && ok || fail "restart keys: the reload did not apply"
  grep -q 'the endpoint path (supergraph.path) changed; needs a restart' "$tmp/s.err" && ok ||
    fail "restart keys: the path change not reported: $(cat "$tmp/s.err")"
  grep -q 'the connection limit (server.max_connections) changed; needs a restart' "$tmp/s.err" && ok ||
    fail "restart keys: max_connections not reported"
  admitted && ok || fail "demand control: max 1000 again not applied: $(costly)"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- the server's live options apply on a reload (the file's values: no
# flag for them on the command line): server.log_level (the access log at
# info), limits.http_max_request_bytes, server.idle_timeout; the log
# format still needs a restart
mkdir -p "$tmp/l"
cp "$tmp/s/schema.graphql" "$tmp/s/data.json" "$tmp/l/"
lcfg() { # lcfg LEVEL ORIGIN [FORMAT [IDLE_TIMEOUT [MAX_BODY]]]
  cat >"$tmp/l/gql.yaml.new" <<YAML
serve:
  schema: schema.graphql
  data: data.json
server:
  log_level: $1
  log_format: ${3:-text}
  idle_timeout: ${4:-30s}
limits:
  http_max_request_bytes: ${5:-1mib}
cors:
  origins: [$2]
YAML
  mv "$tmp/l/gql.yaml.new" "$tmp/l/gql.yaml"
}
ask() { curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' -d '{"query":"{hello}"}' >/dev/null; }
access_lines() { grep -c '^POST /graphql 200 ' "$tmp/l.err"; }
# big: the status of a 300-byte body (a query padded with spaces)
big() {
  curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
    -d "{\"query\":\"{hello$(printf '%*s' 270 '')}\"}"
}
# kept_open SECONDS: whether a keep-alive connection that asked once is
# still open SECONDS later
kept_open() {
  python3 - "$port" "$1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
body = b'{"query":"{hello}"}'
s.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
got = b""
while b'"world"' not in got:
    got += s.recv(4096)
time.sleep(float(sys.argv[2]))
s.settimeout(0.5)
try:
    closed = s.recv(1) == b""
except socket.timeout:
    closed = False
sys.exit(1 if closed else 0)
PY
}
lcfg warn https://a.example
if serve l --config "$tmp/l/gql.yaml"; then
  ask
  ask
  [[ $(access_lines) == 0 ]] && ok || fail "log level warn: access lines: $(cat "$tmp/l.err")"
  [[ $(big) == 200 ]] && ok || fail "max body 1mib: a 300-byte body refused"
  kept_open 1.5 && ok || fail "idle timeout 30s: closed within 1.5 s"
  lcfg info https://b.example text 1s 200
  kill -HUP "$pid"
  wait_log "$tmp/l.err" 'reloaded: generation' && ok || fail "log level info: no 'reloaded' line: $(cat "$tmp/l.err")"
  ask
  ask
  [[ $(access_lines) == 2 ]] && ok || fail "log level info: $(access_lines) access lines: $(cat "$tmp/l.err")"
  [[ $(big) == 413 ]] && ok || fail "max body 200: a 300-byte body not refused: $(big)"
  ask
  [[ $(access_lines) == 3 ]] && ok || fail "max body 200: a small request not answered"
  kept_open 1.5 && fail "idle timeout 1s: still open after 1.5 s" || ok
  grep -q 'needs a restart' "$tmp/l.err" && fail "live options: reported as needing a restart: $(cat "$tmp/l.err")" || ok
  lcfg error https://c.example
  kill -HUP "$pid"
  until_ok 5 origin_is https://c.example https://c.example && ok || fail "log level error: the reload did not apply"
  n=$(access_lines)
  ask
  ask
  [[ $(access_lines) == "$n" ]] && ok || fail "log level error: $(access_lines) access lines, $n before: $(cat "$tmp/l.err")"
  [[ $(big) == 200 ]] && ok || fail "max body back to 1mib: a 300-byte body refused"
  lcfg error https://d.example json
  kill -HUP "$pid"
  until_ok 5 origin_is https://d.example https://d.example && ok || fail "log format: the reload did not apply"
  grep -q 'the log format and metrics settings (server.log_format, server.metrics\*) changed; needs a restart' "$tmp/l.err" &&
    ok || fail "log format: not reported as needing a restart: $(cat "$tmp/l.err")"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- persisted operations: the manifests and the safelist reload
mkdir -p "$tmp/p"
cp "$tmp/s/schema.graphql" "$tmp/s/data.json" "$tmp/p/"
echo '{"q1":"{hello}"}' >"$tmp/p/m1.json"
echo '{"q2":"{items {a}}"}' >"$tmp/p/m2.json"
pcfg() { # pcfg MANIFEST REQUIRE_ID
  cat >"$tmp/p/gql.yaml.new" <<YAML
serve:
  schema: schema.graphql
  data: data.json
persisted_queries:
  enabled: true
  local_manifests: [$1]
  safelist:
    enabled: true
    require_id: $2
YAML
  mv "$tmp/p/gql.yaml.new" "$tmp/p/gql.yaml"
}
post() { # post BODY: the answer
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' -d "$1"
}
answers() { [[ $(post "$1") == "$2" ]]; }
pcfg m1.json false
if serve p --config "$tmp/p/gql.yaml"; then
  answers '{"query":"{hello}"}' '{"data":{"hello":"world"}}' && ok || fail "safelist: {hello} refused: $(post '{"query":"{hello}"}')"
  [[ $(post '{"query":"{items {a}}"}') == *QUERY_NOT_IN_SAFELIST* ]] && ok || fail "safelist: {items {a}} ran"
  pcfg m2.json false
  until_ok 5 answers '{"query":"{items {a}}"}' '{"data":{"items":[{"a":1}]}}' && ok ||
    fail "safelist: the new manifest not applied: $(post '{"query":"{items {a}}"}') $(cat "$tmp/p.err")"
  [[ $(post '{"query":"{hello}"}') == *QUERY_NOT_IN_SAFELIST* ]] && ok || fail "safelist: the old manifest still applies"
  answers '{"documentId":"q2"}' '{"data":{"items":[{"a":1}]}}' && ok || fail "safelist: id q2: $(post '{"documentId":"q2"}')"
  pcfg m2.json true
  until_ok 5 eval '[[ $(post "{\"query\":\"{items {a}}\"}") == *PERSISTED_QUERY_ID_REQUIRED* ]]' && ok ||
    fail "safelist: require_id not applied: $(post '{"query":"{items {a}}"}')"
  answers '{"documentId":"q2"}' '{"data":{"items":[{"a":1}]}}' && ok || fail "require_id: id q2 refused"
  kill "$pid"
  wait "$pid" 2>/dev/null
fi

# ---- gql gateway: header rules and readiness follow the reload
echo_subgraph "$root"
dead=$(free_port) # nothing listens there
supergraph() { # supergraph B_URL: subgraph a (echo) and b at B_URL
  cat <<GRAPHQL
schema
  @link(url: "https://specs.apollo.dev/link/v1.0")
  @link(url: "https://specs.apollo.dev/join/v0.3", for: EXECUTION)
{
  query: Query
}
directive @join__field(graph: join__Graph, requires: join__FieldSet, provides: join__FieldSet, type: String, external: Boolean, override: String, usedOverridden: Boolean) repeatable on FIELD_DEFINITION | INPUT_FIELD_DEFINITION
directive @join__graph(name: String!, url: String!) on ENUM_VALUE
directive @join__type(graph: join__Graph!, key: join__FieldSet, extension: Boolean! = false, resolvable: Boolean! = true, isInterfaceObject: Boolean! = false) repeatable on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR
directive @link(url: String, as: String, for: link__Purpose, import: [link__Import]) repeatable on SCHEMA
scalar join__FieldSet
scalar link__Import
enum link__Purpose { SECURITY EXECUTION }
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$sport/a")
  B @join__graph(name: "b", url: "$1")
}
type Query @join__type(graph: A) @join__type(graph: B) {
  echoA: String @join__field(graph: A)
  echoB: String @join__field(graph: B)
}
GRAPHQL
}
mkdir -p "$tmp/g"
supergraph "http://127.0.0.1:$sport/b" >"$tmp/g/supergraph.graphql"
gcfg() { # gcfg VALUE [TIMEOUT]: x-env: VALUE on every subgraph request
  cat >"$tmp/g/gw.yaml.new" <<YAML
gateway:
  supergraph: supergraph.graphql
  subgraph_timeout: ${2:-10s}
headers:
  all:
    request:
      - insert:
          name: x-env
          value: $1
YAML
  mv "$tmp/g/gw.yaml.new" "$tmp/g/gw.yaml"
}
gcfg one
"$gql" gateway --port 0 --threads 2 --log-level info --config "$tmp/g/gw.yaml" \
  >"$tmp/gw.out" 2>"$tmp/gw.err" &
gpid=$!
pids+=("$gpid")
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/gw.out")
  [[ -n $port ]] && break
  sleep 0.05
done
x_env() { # x_env: the x-env values subgraph a received
  curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
    -d '{"query":"{echoA}"}' | python3 -c '
import json, sys
print(",".join(v for k, v in json.loads(json.load(sys.stdin)["data"]["echoA"]) if k == "x-env"))'
}
x_env_is() { [[ $(x_env 2>/dev/null) == "$1" ]]; }
ready_is() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready") == "$1" ]]; }
if [[ -n $port ]]; then
  [[ $(x_env) == one ]] && ok || fail "headers: first: '$(x_env)'"
  until_ok 5 ready_is 200 && ok || fail "ready: not ready with both subgraphs up"
  gcfg two
  until_ok 5 x_env_is two && ok || fail "headers: the new rule did not reach the subgraph: '$(x_env)' $(cat "$tmp/gw.err")"
  # subgraph b moves to an address where nothing listens: not ready
  supergraph "http://127.0.0.1:$dead/b" >"$tmp/g/supergraph.graphql"
  kill -HUP "$gpid"
  until_ok 5 ready_is 503 && ok || fail "ready: still ready with subgraph b down"
  [[ $(x_env) == two ]] && ok || fail "headers: lost over a supergraph reload: '$(x_env)'"
  # and back: ready again
  supergraph "http://127.0.0.1:$sport/b" >"$tmp/g/supergraph.graphql"
  kill -HUP "$gpid"
  until_ok 5 ready_is 200 && ok || fail "ready: not ready once b is back"
  # the subgraph timeout applies to the new generation's client: b answers
  # in 0.6 s, within 10 s, then not within 300 ms
  slow=$(free_port)
  python3 - "$slow" >"$tmp/slow.out" 2>&1 <<'PY' &
import http.server, sys, time
class Slow(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        time.sleep(0.6)
        out = b'{"data":{"echoB":"slow"}}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *args):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Slow)
print("listening", flush=True)
s.serve_forever()
PY
  pids+=($!)
  until_ok 5 grep -q listening "$tmp/slow.out"
  supergraph "http://127.0.0.1:$slow/b" >"$tmp/g/supergraph.graphql"
  kill -HUP "$gpid"
  echo_b() {
    curl -s "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' -d '{"query":"{echoB}"}'
  }
  b_is() { [[ $(echo_b) == "$1" ]]; }
  until_ok 5 b_is '{"data":{"echoB":"slow"}}' && ok || fail "timeout: the slow subgraph within 10 s: $(echo_b)"
  gcfg two 300ms
  until_ok 5 eval '[[ $(echo_b) == *"timed out"* ]]' && ok || fail "timeout: 300 ms not applied: $(echo_b)"
  kill "$gpid"
  wait "$gpid" 2>/dev/null
else
  fail "gateway: no banner: $(cat "$tmp/gw.out" "$tmp/gw.err")"
fi

echo "test_reload_config: $passed passed, $failures failed"
((failures == 0))
