#!/usr/bin/env bash
# GraphiQL from `gql serve` in headless Chromium: fills the asset folder
# from npm (scripts/graphiql-assets.sh), starts gql serve on the demo with
# --graphiql-assets on a free loopback port, and runs browser.mjs with
# playwright-core (installed from npm into PEERS_DIR, with its own
# package.json): the page and every asset come from gql, a query typed into
# the editor runs and the result pane shows "R2-D2". The screenshot stays in
# PEERS_DIR/output.
# Usage: run_browser.sh GQL_BINARY PEERS_DIR
set -euo pipefail
gql=$1
peers=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v chromium >/dev/null || { echo "FAIL: chromium is not installed (scripts/deps.sh)"; exit 1; }
mkdir -p "$peers/output"
peers=$(cd "$peers" && pwd)
if [[ ! -f $peers/node_modules/playwright-core/package.json ]]; then
  [[ -f $peers/package.json ]] || echo '{"name":"gql-graphiql-peers","private":true}' >"$peers/package.json"
  (cd "$peers" && npm install --silent --no-audit --no-fund playwright-core@1.65.1)
fi
"$root/scripts/graphiql-assets.sh" "$peers/assets"
cp "$here/browser.mjs" "$peers/browser.mjs"

log=$peers/output
pid=
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
# gql serve on the demo, the assets from the local folder (no internet)
"$gql" serve --port 0 --threads 2 --graphiql-assets "$peers/assets" >"$log/serve.out" 2>"$log/serve.err" &
pid=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$log/serve.out")
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n $port ]] || { echo "FAIL: gql serve did not start: $(cat "$log/serve.err")"; exit 1; }
node "$peers/browser.mjs" --url "http://127.0.0.1:$port/graphql" \
  --assets /graphiql/assets/ --screenshot "$peers/output/graphiql-gql-serve.png" \
  --query '{ hero { name } }' --expect R2-D2
