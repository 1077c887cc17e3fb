#!/usr/bin/env bash
# Runs graphql-http's GraphQL-over-HTTP server audits against `gql serve`.
# Usage: tests/http/run_audit.sh GQL_BINARY REPO_ROOT
# Installs the npm package graphql-http into bench/.peers/audit (gitignored)
# when missing. Prints "N passed, N failed" and fails on any MUST or SHOULD
# failure (MAY audits are reported, not required).
set -euo pipefail
gql=$1
root=$2
peers=$root/bench/.peers/audit
if [[ ! -f $peers/node_modules/graphql-http/package.json ]]; then
  command -v npm >/dev/null || { echo "audit: npm is not installed" >&2; exit 1; }
  mkdir -p "$peers"
  (cd "$peers" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    timeout 300 npm install --no-audit --no-fund graphql-http graphql >/dev/null 2>&1) || {
    echo "audit: cannot install graphql-http from npm (is the registry reachable?)" >&2
    exit 1
  }
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp)
"$gql" serve --port "$port" --threads 2 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "on http://" "$log" && break
  kill -0 $pid 2>/dev/null || { cat "$log"; echo "audit: gql serve did not start" >&2; exit 1; }
  sleep 0.05
done
cd "$peers"
node - "http://127.0.0.1:$port/graphql" <<'JS'
const { serverAudits } = require('graphql-http');
(async () => {
  let passed = 0, failed = 0, required = 0;
  for (const a of serverAudits({ url: process.argv[2], fetchFn: fetch })) {
    const r = await a.fn();
    if (r.status === 'ok') { passed++; continue; }
    failed++;
    const must = a.name.startsWith('MUST') || a.name.startsWith('SHOULD');
    if (must) required++;
    console.log(`${must ? 'FAIL' : 'warn'} ${a.id} ${a.name}: ${r.reason}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(required ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
JS
rc=$?
kill -TERM $pid
wait $pid || { echo "audit: gql serve did not exit 0 on SIGTERM" >&2; exit 1; }
trap - EXIT
rm -f "$log"
exit $rc
