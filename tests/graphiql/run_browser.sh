#!/usr/bin/env bash
# The GraphiQL page in headless Chromium: fills the asset folder from npm
# (scripts/graphiql-assets.sh), serves the page and the folder from a
# loopback port, and runs browser.mjs with playwright-core (installed from
# npm into PEERS_DIR, with its own package.json). The screenshot stays in
# PEERS_DIR/output. Phase 2 points the same driver at `gql serve` (with
# --query/--expect) instead of the static server.
# Usage: run_browser.sh GRAPHIQL_PAGE_TOOL PEERS_DIR
set -euo pipefail
tool=$1
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

web=$(mktemp -d)
pid=
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$web"
}
trap cleanup EXIT
mkdir -p "$web/graphiql"
ln -s "$peers/assets" "$web/graphiql/assets"
"$tool" /graphiql/assets/ /graphql "gql GraphiQL" >"$web/graphiql.html"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$web" >"$peers/output/http.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null && break
  sleep 0.1
done
node "$peers/browser.mjs" --url "http://127.0.0.1:$port/graphiql.html" \
  --assets /graphiql/assets/ --screenshot "$peers/output/graphiql-local-assets.png"
