# Shared by the shell tests that run `gql serve` (sourced, not a test):
# a scratch folder and background processes cleaned up on exit (KEEP_TMP=1
# keeps the folder), pass/fail counters, a free port, `serve`, `echo_subgraph`,
# `start_redis` and the subscription tests' npm clients.
# Needs $gql set before it is sourced.
tmp=$(mktemp -d)
[[ -n ${KEEP_TMP:-} ]] && echo "tmp: $tmp"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; [[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
failures=0
passed=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { passed=$((passed + 1)); }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
threads=${threads:-2}

# serve NAME ARGS...: starts gql serve on a free port (--port 0) with
# $threads threads, waits for its banner; sets $pid and $port. Output goes
# to $tmp/NAME.out and .err. Returns 1 (after a FAIL line) without a banner.
serve() {
  local name=$1
  shift
  "$gql" serve --port 0 --threads "$threads" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do
    port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$tmp/$name.out" 2>/dev/null)
    [[ -n $port ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  fail "$name: no banner: $(cat "$tmp/$name.out" "$tmp/$name.err")"
  return 1
}

# chat_schema [ROOM]: the subscription tests' schema in $tmp/chat.graphql
# (Subscription.messages(room:) of Message { room: ROOM, text: String! },
# ROOM String by default) and its query data in $tmp/data.json.
chat_schema() {
  cat >"$tmp/chat.graphql" <<GQL
type Query { ok: Boolean }
type Message { room: ${1:-String}, text: String! }
type Subscription { messages(room: String): Message }
GQL
  echo '{"ok":true}' >"$tmp/data.json"
}

# stop_cleanly PID...: SIGTERM to each gql serve, each to exit 0 within
# 10 s (FAIL with the servers' stderr otherwise).
stop_cleanly() {
  local p rc
  for p in "$@"; do
    kill -TERM "$p"
    rc=0
    timeout 10 tail --pid="$p" -f /dev/null || rc=1
    wait "$p" || rc=$?
    [[ $rc == 0 ]] || fail "gql serve ($p) did not stop cleanly on SIGTERM (rc $rc): $(cat "$tmp"/*.err)"
  done
}

# start_redis: redis-server on $rport (a free port when unset; the same one
# again after a kill, for the tests that restart it), its pid in $rpid;
# FAIL and exit when it does not answer PING.
start_redis() {
  rport=${rport:-$(free_port)}
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no >>"$tmp/redis.log" 2>&1 &
  rpid=$!
  pids+=("$rpid")
  for _ in $(seq 100); do
    redis-cli -p "$rport" PING 2>/dev/null | grep -q PONG && return 0
    sleep 0.05
  done
  fail "redis-server did not start: $(cat "$tmp/redis.log")"
  exit 1
}

# subscription_peers: the npm clients of the subscription tests (graphql 16,
# graphql-ws 6, ws 8, graphql-sse 2) installed into $peers unless there,
# and $peers made absolute.
subscription_peers() {
  mkdir -p "$peers"
  peers=$(cd "$peers" && pwd)
  local m
  for m in graphql graphql-ws ws graphql-sse; do
    [[ -f $peers/node_modules/$m/package.json ]] && continue
    [[ -f $peers/package.json ]] || echo '{"name":"gql-subscription-peers","private":true}' >"$peers/package.json"
    (cd "$peers" && timeout 300 npm install --silent --no-audit --no-fund graphql@16 graphql-ws@6 ws@8 graphql-sse@2)
    return
  done
}

# echo_subgraph ROOT: starts tests/gateway/echo_subgraph.py (it answers with
# the headers it received) on a free port; sets $sport once it listens.
echo_subgraph() {
  sport=$(free_port)
  python3 "$1/tests/gateway/echo_subgraph.py" "$sport" "$tmp/echo.queries" >"$tmp/echo.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q listening "$tmp/echo.out" && break; sleep 0.05; done
}

# products_subgraphs: writes two Federation 2 subgraphs to $tmp: a.graphql /
# a.json (topProducts with names) and b.graphql / b.json (prices by upc).
products_subgraphs() {
  cat >"$tmp/a.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { topProducts: [Product] }
type Product @key(fields: "upc") { upc: String! name: String }
SDL
  echo '{"topProducts": [{"upc": "1", "name": "Table"}, {"upc": "2", "name": "Couch"}]}' >"$tmp/a.json"
  cat >"$tmp/b.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { _unused: Int }
type Product @key(fields: "upc") { upc: String! price: Int }
SDL
  echo '{"Product": [{"upc": "1", "price": 100}, {"upc": "2", "price": 250}]}' >"$tmp/b.json"
}

# subscription_subgraphs [ARGS...]: the subgraphs of the gateway's
# subscription tests, gql serve --subgraph: products (topProducts, ping,
# Subscription productAdded and productsOf(maker), events from the Redis at
# $rport; ARGS are more of its flags) and prices (price by upc for upc 1, 2
# and 3). Sets pp/portp and pq/portq, and writes their supergraph to
# $tmp/sg.graphql. Exits the test when one does not start.
subscription_subgraphs() {
  cat >"$tmp/products.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { topProducts: [Product] }
type Mutation { ping: String }
type Product @key(fields: "upc") { upc: String! name: String }
type Subscription { productAdded: Product, productsOf(maker: String): Product }
SDL
  echo '{"topProducts": [{"upc": "1", "name": "Table"}, {"upc": "2", "name": "Couch"}], "ping": "pong"}' >"$tmp/products.json"
  cat >"$tmp/prices.graphql" <<'SDL'
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { _unused: Int }
type Product @key(fields: "upc") { upc: String! price: Int }
SDL
  echo '{"Product": [{"upc": "1", "price": 100}, {"upc": "2", "price": 250}, {"upc": "3", "price": 7}]}' >"$tmp/prices.json"
  serve products --subgraph --schema "$tmp/products.graphql" --data "$tmp/products.json" \
    --redis "redis://127.0.0.1:$rport" "$@" || exit 1
  pp=$pid portp=$port
  serve prices --subgraph --schema "$tmp/prices.graphql" --data "$tmp/prices.json" || exit 1
  pq=$pid portq=$port
  cat >"$tmp/sg.graphql" <<SDL
enum join__Graph {
  PRODUCTS @join__graph(name: "products", url: "http://127.0.0.1:$portp/graphql")
  PRICES @join__graph(name: "prices", url: "http://127.0.0.1:$portq/graphql")
}
type Query @join__type(graph: PRODUCTS) @join__type(graph: PRICES) {
  topProducts: [Product] @join__field(graph: PRODUCTS)
}
type Mutation @join__type(graph: PRODUCTS) {
  ping: String @join__field(graph: PRODUCTS)
}
type Subscription @join__type(graph: PRODUCTS) {
  productAdded: Product @join__field(graph: PRODUCTS)
  productsOf(maker: String): Product @join__field(graph: PRODUCTS)
}
type Product @join__type(graph: PRODUCTS, key: "upc") @join__type(graph: PRICES, key: "upc") {
  upc: String!
  name: String @join__field(graph: PRODUCTS)
  price: Int @join__field(graph: PRICES)
}
SDL
}

# products_supergraph PORT_A PORT_B: writes $tmp/sg.graphql, the supergraph
# of products_subgraphs served on those ports.
products_supergraph() {
  cat >"$tmp/sg.graphql" <<SDL
enum join__Graph {
  A @join__graph(name: "a", url: "http://127.0.0.1:$1/graphql")
  B @join__graph(name: "b", url: "http://127.0.0.1:$2/graphql")
}
type Query @join__type(graph: A) @join__type(graph: B) {
  topProducts: [Product] @join__field(graph: A)
}
type Product @join__type(graph: A, key: "upc") @join__type(graph: B, key: "upc") {
  upc: String!
  name: String @join__field(graph: A)
  price: Int @join__field(graph: B)
}
SDL
}
